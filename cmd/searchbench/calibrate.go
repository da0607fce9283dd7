package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/loops"
)

func newCalibrateCmd() *cobra.Command {
	cfg := loops.DefaultCalibration
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Check the harness: measure in-process engines of known latency in closed and open loop, and print measured against true percentiles",
		Long: `calibrate runs the harness against in-process engines whose latency
distribution is known exactly — a fixed service time, a bimodal one, and one
that freezes periodically — in closed loop and in open loop, and prints the
percentiles each loop measured beside the ones the distribution implies
(derived in runner/calibrate.go). The freezing engine shows what the closed
loop hides: its users stop sending during a freeze, so the freeze is counted
once per user instead of once per call that was due. It exits 1 when any
figure, net of how late the in-process engine itself returned (each engine
times its own lateness against its deadlines), is further than --tolerance
from its truth: the verdict is on the harness, with the engines' spread stated.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.Validate(); err != nil {
				var fe *field.Error
				if errors.As(err, &fe) {
					return badInput("%s", fe.Setting())
				}
				return usageError{err}
			}
			return calibrate(cmd, cfg)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&cfg.Measure, "measure", cfg.Measure, "measured window of each loop and distribution: whole freeze periods (10s, 20s, …)")
	fl.IntVar(&cfg.Users, "users", cfg.Users, "closed-loop users")
	fl.Float64Var(&cfg.Rate, "rate", cfg.Rate, "open-loop rate (calls/s)")
	fl.IntVar(&cfg.Workers, "workers", cfg.Workers, "open-loop workers")
	fl.Float64Var(&cfg.Tolerance, "tolerance", cfg.Tolerance, "largest relative error accepted")
	return cmd
}

// calibrate runs the calibration, prints its table and warnings, and says
// whether every figure is within the tolerance.
func calibrate(cmd *cobra.Command, cfg loops.CalibrationConfig) error {
	log := newLogger(cmd.ErrOrStderr())
	dists := loops.Calibrations()
	log.printf("calibrating: %d distributions × closed and open loop, %v each", len(dists), cfg.Measure)
	rows, warnings, err := loops.Calibrate(cmd.Context(), dists, cfg)
	printCalibration(cmd.OutOrStdout(), rows, warnings)
	if err != nil {
		return fmt.Errorf("calibration interrupted: %w", err)
	}
	v := cfg.Verdict(rows)
	if !v.Within() {
		return errors.New(v.String())
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\n%s\n", v)
	return nil
}

// printCalibration prints the rows as a table, what its columns mean, and
// the warnings.
func printCalibration(out io.Writer, rows []loops.CalibrationRow, warnings []string) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "distribution\tloop\tpercentile\ttrue (ms)\tmeasured (ms)\terror\tengine's own error (ms)\tengine late p50–max (ms)\tharness error\tharness late p99 (ms)\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.2f\t%+.1f%%\t%.2f\t%.2f–%.2f\t%+.1f%%\t%.2f\t\n", r.Distribution, r.Loop, r.Percentile, r.True, r.Measured,
			100*r.Error, r.EngineLate, r.EngineSpread[0], r.EngineSpread[1], 100*r.HarnessError, r.HarnessLate)
	}
	w.Flush()
	fmt.Fprintln(out, "\nengine's own error: the same percentile of the service times the in-process engine realised, timed inside it, less the truth;\n"+
		"engine late p50–max: how late it returned against its own deadlines; harness error: (measured − the engine's own percentile) / true,\n"+
		"what the harness added to the same calls, on which the verdict is; harness late: the harness's own lateness as it measured it\n"+
		"(open loop: generator lag p99; closed loop: scheduler latency p99).")
	for _, warn := range warnings {
		fmt.Fprintf(out, "> warning: %s\n", warn)
	}
}

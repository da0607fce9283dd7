package main

import (
	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/workload"
)

func newLadderCmd() *cobra.Command {
	var (
		f       commonFlags
		cfg     runner.LadderConfig
		arrival string
		workers int
		start   float64
		step    float64
		stop    float64
	)
	cmd := &cobra.Command{
		Use:   "ladder",
		Short: "Open-loop rate ladder: calls on a schedule, latency from the intended send time, the sustainable rate",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyScenario(cmd, &f); err != nil {
				return err
			}
			p, err := f.plan()
			if err != nil {
				return err
			}
			cfg.Open = runner.OpenConfig{Workers: workers, Arrival: arrival, Calls: p.calls}
			cfg.Rates = workload.Ladder{Start: start, Step: step, Stop: stop}
			p.Ladder = &cfg
			return execute(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), p)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&arrival, "arrival", "constant", "arrival process: constant spacing or poisson")
	fl.IntVar(&workers, "workers", runner.DefaultWorkers, "connections/workers serving the schedule")
	fl.Float64Var(&start, "start", 2000, "first offered rate (calls/s): low enough to show idle latency")
	fl.Float64Var(&step, "step", runner.DefaultStep, "factor between rungs")
	fl.Float64Var(&stop, "stop", 200_000, "highest offered rate")
	fl.DurationVar(&cfg.Duration, "duration", runner.DefaultRungTime, "length of each repetition of a rung")
	fl.IntVar(&cfg.Repeat, "repeat", runner.DefaultRepeat, "repetitions of each rung; medians and spread are reported")
	fl.Float64Var(&cfg.Factor, "factor", runner.DefaultFactor, "sustainable: p99 within this factor of the first rung's p99")
	fl.Float64Var(&cfg.MinAchieved, "min-achieved", runner.DefaultMinAchieved, "sustainable: achieved rate at least this fraction of the offered rate")
	fl.Float64Var(&cfg.Explode, "explode", runner.DefaultExplode, "stop once p99 exceeds this factor of the first rung's p99")
	fl.Float64Var(&cfg.Reference, "reference-rate", 0, "report p99 at the rung nearest this rate (default: the first rung)")
	return cmd
}

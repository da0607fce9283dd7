package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/report"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/scenario"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

// newBenchCmd is `searchbench run` or `searchbench ladder`: the library's
// settings as flags, a scenario file for the ones not given, a plan, and
// the plan run with the logger as its observer.
func newBenchCmd(command, short string, env environ) *cobra.Command {
	s := scenario.Settings{LookupEnv: env}
	var liveAddr string // a CLI concern: a scenario file does not carry it
	var force bool      // so is this one
	cmd := &cobra.Command{
		Use:   command,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyScenario(&s); err != nil {
				return err
			}
			if err := checkOut(s.Out, force); err != nil {
				return err
			}
			p, err := s.Plan(container.Launcher{}) // engines that run in Docker
			if err != nil {
				return usageError{err}
			}
			ln, err := listenLive(liveAddr)
			if err != nil {
				return err
			}
			if s.DryRun {
				if ln != nil {
					ln.Close() // the dry run checked the address can be bound
				}
				return printPlan(cmd.OutOrStdout(), &p)
			}
			release, err := holdOut(s.Out)
			if err != nil {
				if ln != nil {
					ln.Close()
				}
				return err
			}
			defer release()
			return execute(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), p, s.Out, ln)
		},
	}
	s.Register(cmd.Flags(), command)
	cmd.Flags().StringVar(&liveAddr, "live", "", liveUsage)
	cmd.Flags().BoolVar(&force, "force", false, forceUsage)
	cmd.Flags().Lookup("out").Usage = "directory for result.json, " + outputsText
	return cmd
}

// applyScenario gives the settings not on the command line the values of
// the scenario file, if one is named.
func applyScenario(s *scenario.Settings) error {
	if s.Scenario == "" {
		return nil
	}
	f, err := scenario.Load(s.Scenario)
	if err != nil {
		return usageError{err}
	}
	if err := f.Apply(s); err != nil {
		return usageError{err}
	}
	return nil
}

func newRunCmd(env environ) *cobra.Command {
	return newBenchCmd(scenario.Run, "Pre-populate each engine, then run closed-loop virtual users at each level and print the tables", env)
}

func newLadderCmd(env environ) *cobra.Command {
	return newBenchCmd(scenario.Ladder, "Open-loop rate ladder: calls on a schedule, latency from the intended send time, the sustainable rate", env)
}

// execute runs the plan through the library with the logger as its
// observer, and the live view too when live (a bound listener) is set,
// then writes the results. Whatever happens after the first engine starts,
// the result JSON and the tables are written with what was measured.
func execute(ctx context.Context, stdout, stderr io.Writer, p runner.Plan, out string, live net.Listener) error {
	log := newLogger(stderr)
	var obs event.Observer = log
	var view *liveView
	if live != nil {
		view = serveLive(live, log)
		// The server goes once the results are written: a page that
		// does not read, or a connection that never completes a request,
		// does not hold them up.
		defer view.stop()
		obs = event.Observers(log, view.lv)
	}
	again := againOf(ctx)
	ctx = runner.WithCleanup(ctx, again)
	stopSaying := context.AfterFunc(ctx, func() {
		log.printf("interrupted: stopping, then writing what was measured (interrupt again to exit at once)")
	})
	res, err := runner.Run(ctx, p, obs)
	stopSaying()
	view.end() // the run is done: the pages get the end now
	if err != nil {
		return usageError{err}
	}
	return finish(stdout, log, out, res, again)
}

// finish writes the result and every report rendered from it (tables,
// CSV, charts, HTML), prints the tables and says how the run ended. The JSON
// goes first, so a failure to render loses no measurement; once again has
// ended (a second interrupt), the reports are left out.
func finish(stdout io.Writer, log *logger, dir string, res *result.Result, again context.Context) error {
	dir, jsonPath, err := writeResult(log, dir, res)
	if err != nil {
		return err
	}
	if again.Err() != nil {
		return fmt.Errorf("run incomplete (interrupted again); %s written, the reports left out (`searchbench report %s` renders them)", jsonPath, jsonPath)
	}
	if err := writeReport(stdout, log, dir, report.New(report.Input{Name: jsonPath, Result: res})); err != nil {
		return err
	}

	switch errs := res.FailedCalls(); {
	case res.Partial:
		return fmt.Errorf("run incomplete (%s); partial results written", res.Reason)
	case errs > 0:
		return fmt.Errorf("run finished with %d failed calls; see the errors rows", errs)
	}
	return nil
}

// writeResult writes result.json and the interval log into dir, or into a
// temporary directory when dir cannot take them, and returns the directory
// and the JSON's path. It holds writing meanwhile.
func writeResult(log *logger, dir string, res *result.Result) (string, string, error) {
	writing.Lock()
	defer writing.Unlock()
	jsonPath := filepath.Join(dir, report.ResultFile)
	if err := result.WriteFile(jsonPath, res); err != nil {
		// The directory went away or filled up during the run: what was
		// measured still goes somewhere, and the message says where.
		tmp, terr := os.MkdirTemp("", "searchbench-results-")
		if terr != nil {
			return "", "", fmt.Errorf("%w; and no temporary directory for the results: %v", err, terr)
		}
		log.printf("could not write to %s (%v); writing to %s instead", dir, err, tmp)
		dir, jsonPath = tmp, filepath.Join(tmp, report.ResultFile)
		if err := result.WriteFile(jsonPath, res); err != nil {
			return "", "", err
		}
	}
	log.printf("wrote %s", jsonPath)
	// Every window's interval histograms, for HdrHistogram's own tools.
	hlogPath := filepath.Join(dir, result.HlogName)
	if wrote, err := result.WriteHlog(hlogPath, res); err != nil {
		return "", "", err
	} else if wrote {
		log.printf("wrote %s", hlogPath)
	}
	return dir, jsonPath, nil
}

// printPlan says what a run would do, without starting anything.
func printPlan(w io.Writer, p *runner.Plan) error {
	var b strings.Builder
	if p.Scenario != "" {
		fmt.Fprintf(&b, "scenario: %s\n", p.Scenario)
	}
	calls := p.Calls()
	// The corpus hash is left out: it reads every document (seconds for the
	// product corpus), and a dry run starts nothing.
	fmt.Fprintf(&b, "corpus: %s, %d IDs, %d pre-populated, seed %d\n", p.Source.Schema().Name, p.Source.IDs(), p.Source.PrepopulatedCount(), calls.Seed)
	fmt.Fprintf(&b, "mix: %s; k %d; request timeout %v\n", calls.Mix, calls.K, calls.Timeout)
	if ps, ok := p.Source.(product.Products); ok {
		// Plan.Validate asked every setup's driver for each kind already.
		fmt.Fprintf(&b, "queries: %s (every engine answers each kind); exact-answer checks: %d sample queries\n", ps.Mix(), calls.Known.ExactQueries())
	}
	if c := p.Closed; c != nil {
		fmt.Fprintf(&b, "closed loop: users %v, spawn rate %g/s, settle %v, measure %v\n", c.Users, c.SpawnRate, c.Settle, c.Measure)
	}
	if l := p.Ladder; l != nil {
		fmt.Fprintf(&b, "ladder: %s arrivals, %d workers, rates %v, %v × %d per rung, factor %g\n",
			l.Open.Arrival, l.Open.Workers, l.Rates.Rates(), l.Duration, l.Repeat, l.Factor)
	}
	if sw := p.Sweep; sw != nil {
		var loads []string
		for _, writes := range sw.Loads(calls.Mix) {
			loads = append(loads, map[bool]string{false: "searches only", true: "under the mix's writes"}[writes])
		}
		fmt.Fprintf(&b, "sweep: %s at %v, each value %s\n", cmp.Or(sw.Knob, "each engine's knob"), sw.Values, strings.Join(loads, ", then "))
	}
	if sp := p.Shard; sp != nil {
		fmt.Fprintf(&b, "shard %s", sp.Share())
		if sp.Coordinator != "" {
			fmt.Fprintf(&b, ", coordinator %s (register within %v)", sp.Coordinator, sp.RegisterTimeout)
		} else {
			b.WriteString(", unsynchronised (no coordinator)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "containers: CPU limit %s, cpuset %q", runner.CPUText(p.Launch.CPUs), p.Launch.CPUSet)
	for _, k := range slices.Sorted(maps.Keys(p.Launch.Env)) {
		fmt.Fprintf(&b, ", %s=%s", k, p.Launch.Env[k])
	}
	b.WriteString("\n")
	for _, s := range p.Setups {
		fmt.Fprintf(&b, "setup %q: engine %s", s.Name(), s.Driver)
		if s.Config.WriteMode != "" {
			fmt.Fprintf(&b, ", write mode %s", s.Config.WriteMode)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Config.Options)) {
			fmt.Fprintf(&b, ", %s=%s", k, s.Config.Options[k])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

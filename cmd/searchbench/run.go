package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/report"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// commonFlags are the flags of every command that drives engines.
type commonFlags struct {
	corpus     corpusFlags
	corpusKind string
	dim        int
	engines    string
	options    []string
	mix        string
	timeout    time.Duration
	k          int
	out        string
	url        string
	username   string
	password   string
	apiKey     string
	dataDir    string
	writeMode  string
	cpus       float64
	cpuset     string
	memory     int64
	ready      time.Duration
	image      string
	env        []string
	runName    string
	// From a scenario file (see scenario.go): its name and its setups,
	// which take the place of --engine.
	scenario string
	setups   []setupSpec
	dryRun   bool
	// Trust checks.
	relevance int
}

func (f *commonFlags) register(cmd *cobra.Command) {
	f.corpus.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.corpusKind, "corpus", runner.CorpusText, "corpus: text (Study A: name and content, 5-word queries) or product (Study B: ~4.6 KB product hashes with an embedding; KNN and SKU queries)")
	fl.IntVar(&f.dim, "dim", dataset.ProductDim, "product corpus: the embedding's dimension")
	fl.StringVar(&f.engines, "engine", "bleve", "engines to run, comma-separated (see `searchbench engines`)")
	fl.StringArrayVar(&f.options, "option", nil, "driver option key=value for every engine, or engine:key=value for one (repeatable; see each driver's documentation)")
	fl.StringVar(&f.mix, "mix", "mixed", "operation mix: mixed (80/19/1), upsert, search, search/upsert/delete weights or search=80,upsert=19,delete=1")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "per-request timeout")
	fl.IntVar(&f.k, "k", runner.DefaultK, "hits per search")
	fl.StringVar(&f.out, "out", "results", "directory for result.json, "+outputsText)
	fl.StringVar(&f.url, "url", "", "attach to an engine that is already running at this URL")
	fl.StringVar(&f.username, "username", "", "engine user name")
	fl.StringVar(&f.password, "password", "", "engine password (or SEARCHBENCH_PASSWORD); never logged")
	fl.StringVar(&f.apiKey, "api-key", "", "engine API key (or SEARCHBENCH_API_KEY); never logged")
	fl.StringVar(&f.dataDir, "data-dir", "", "embedded engines: index directory (default: a temporary one, removed afterwards)")
	fl.StringVar(&f.writeMode, "write-mode", "", "acknowledged or searchable, where the engine offers both")
	fl.Float64Var(&f.cpus, "cpus", 0, "CPU limit of each engine's container (the published study: 4, and 8); 0: none")
	fl.StringVar(&f.cpuset, "cpuset", "", "cpuset of each engine's container, e.g. 2-5 (keeps the engine off the load generator's cores)")
	fl.Int64Var(&f.memory, "memory", 0, "memory limit of each engine's container in bytes; 0: none (as in the published study)")
	fl.DurationVar(&f.ready, "ready-timeout", 2*time.Minute, "how long a container may take to become ready")
	fl.StringVar(&f.image, "image", "", "run this image instead of the engine's pinned one")
	fl.StringArrayVar(&f.env, "container-env", nil, "KEY=VALUE set in each engine's container, over the launcher's settings (repeatable), e.g. ES_JAVA_OPTS=\"-Xms4g -Xmx4g\"")
	fl.StringVar(&f.runName, "run-name", "", "the run's name, the value of its containers' searchbench.run label (default: run-<UTC time>)")
	fl.IntVar(&f.relevance, "relevance-queries", runner.DefaultRelevanceQueries, "known-item checks after pre-population (recall@k); 0: none")
	fl.BoolVar(&f.dryRun, "dry-run", false, "validate everything and print the plan; start nothing")
	fl.StringVar(&f.scenario, "scenario", "", "a scenario file (or the name of a shipped one, see `searchbench scenario list`): its values stand for flags not given on the command line")
}

// plan is a run as the command line gives it: the library's Plan, and what
// only the CLI does with it (where the files go, whether to start anything).
type plan struct {
	runner.Plan
	calls  runner.Calls // the loop's settings, set into Closed or Ladder
	out    string
	dryRun bool
}

// plan reads the flags every engine-driving command shares. The command
// adds its loop (Closed or Ladder) and validates the whole plan.
func (f *commonFlags) plan() (*plan, error) {
	mix, err := workload.ParseMix(f.mix)
	if err != nil {
		return nil, usageError{err}
	}
	specs := f.setups
	if len(specs) == 0 {
		seen := map[string]bool{}
		for _, n := range splitList(f.engines) {
			if seen[n] {
				return nil, badInput("engine: %s is listed twice", n)
			}
			seen[n] = true
			specs = append(specs, setupSpec{Engine: n})
		}
	}
	if f.out == "" {
		return nil, badInput("out: a directory is needed")
	}
	// A run that cannot write its results would find out only at its end.
	if err := runner.CheckDir(f.out, true); err != nil {
		return nil, badInput("out: %v", err)
	}
	if f.corpusKind != runner.CorpusProduct && f.corpus.changed("dim") {
		return nil, badInput("dim: only the product corpus has embeddings")
	}
	cc := f.corpus.config()
	if err := cc.Validate(); err != nil {
		return nil, usageError{err}
	}
	src, err := runner.NewSource(f.corpusKind, cc, f.dim)
	if err != nil {
		return nil, usageError{err}
	}
	// The library reads a zero as "the default"; on the command line it is a mistake.
	if f.ready <= 0 {
		return nil, badInput("ready-timeout: %v must be > 0", f.ready)
	}
	launch := container.Options{CPUs: f.cpus, CPUSet: f.cpuset, MemoryBytes: f.memory, ReadyTimeout: f.ready, Image: f.image, Run: f.runName}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, badInput("container-env: %q is not KEY=VALUE", kv)
		}
		if launch.Env == nil {
			launch.Env = map[string]string{}
		}
		launch.Env[k] = v
	}
	shared := engines.Config{
		URL: f.url, Username: f.username,
		Password:  engines.Secret(firstNonEmpty(f.password, os.Getenv("SEARCHBENCH_PASSWORD"))),
		APIKey:    engines.Secret(firstNonEmpty(f.apiKey, os.Getenv("SEARCHBENCH_API_KEY"))),
		DataDir:   f.dataDir,
		WriteMode: engines.Visibility(f.writeMode),
	}
	setups, err := buildSetups(specs, shared, f.options)
	if err != nil {
		return nil, err
	}
	return &plan{
		Plan: runner.Plan{
			Source: src, Setups: setups, Launch: launch, Relevance: f.relevance, Scenario: f.scenario,
		},
		calls: runner.Calls{Timeout: f.timeout, Mix: mix, Seed: f.corpus.seed, K: f.k},
		out:   f.out, dryRun: f.dryRun,
	}, nil
}

func newRunCmd() *cobra.Command {
	var (
		f         commonFlags
		users     string
		spawnRate float64
		settle    time.Duration
		measure   time.Duration
		fresh     runner.FreshnessConfig
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Pre-populate each engine, then run closed-loop virtual users at each level and print the tables",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyScenario(cmd, &f); err != nil {
				return err
			}
			p, err := f.plan()
			if err != nil {
				return err
			}
			levels, err := parseUsers(users)
			if err != nil {
				return usageError{err}
			}
			p.Closed = &runner.Config{
				Users: levels, SpawnRate: spawnRate, Settle: settle, Measure: measure, Freshness: fresh, Calls: p.calls,
			}
			return execute(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), p)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&users, "users", "10,100,500,800,1000", "virtual-user levels, comma-separated, run in order")
	fl.Float64Var(&spawnRate, "spawn-rate", runner.DefaultSpawnRate, "users started per second during the ramp")
	fl.DurationVar(&settle, "settle", 10*time.Second, "time after the ramp before statistics start")
	fl.DurationVar(&measure, "measure", time.Minute, "measured window at each level")
	fl.DurationVar(&fresh.Poll, "freshness-poll", runner.DefaultFreshnessPoll, "freshness probe: shortest time between its searches for a probed write (later ones are spaced by a tenth of the time since the write)")
	fl.DurationVar(&fresh.Gap, "freshness-gap", runner.DefaultFreshnessGap, "freshness probe: mean pause between probed writes (exponential, so probes do not lock onto a periodic refresh)")
	fl.BoolVar(&fresh.Off, "no-freshness", false, "do not probe how long writes take to become searchable")
	return cmd
}

func parseUsers(s string) ([]int, error) {
	parts := splitList(s)
	if len(parts) == 0 {
		return nil, errors.New("users: at least one level is needed")
	}
	users := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("users: %q is not a whole number", p)
		}
		users[i] = n
	}
	return users, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// execute validates the plan and, unless it is a dry run, runs it through
// the library with the logger as its observer, then writes the results.
// Whatever happens after the first engine starts, the result JSON and the
// tables are written with what was measured.
func execute(ctx context.Context, stdout, stderr io.Writer, p *plan) error {
	if err := p.Validate(); err != nil {
		return usageError{err}
	}
	if p.dryRun {
		return printPlan(stdout, p)
	}
	log := newLogger(stderr)
	res, err := runner.Run(ctx, p.Plan, log)
	if err != nil {
		return usageError{err}
	}
	return finish(stdout, log, p.out, res)
}

// finish writes the result and every report rendered from it (tables,
// CSV, charts, HTML), prints the tables and says how the run ended. The JSON
// goes first, so a failure to render loses no measurement.
func finish(stdout io.Writer, log *logger, dir string, res *result.Result) error {
	jsonPath := filepath.Join(dir, "result.json")
	if err := result.WriteFile(jsonPath, res); err != nil {
		// The directory went away or filled up during the run: what was
		// measured still goes somewhere, and the message says where.
		tmp, terr := os.MkdirTemp("", "searchbench-results-")
		if terr != nil {
			return fmt.Errorf("%w; and no temporary directory for the results: %v", err, terr)
		}
		log.printf("could not write to %s (%v); writing to %s instead", dir, err, tmp)
		dir, jsonPath = tmp, filepath.Join(tmp, "result.json")
		if err := result.WriteFile(jsonPath, res); err != nil {
			return err
		}
	}
	log.printf("wrote %s", jsonPath)
	if err := writeReport(stdout, log, dir, report.New(report.Input{Name: jsonPath, Result: res})); err != nil {
		return err
	}

	var errs int64
	for _, e := range res.Engines {
		for _, l := range e.Levels {
			for _, o := range l.Ops {
				errs += o.ErrorCount()
			}
		}
		if e.Ladder != nil {
			for _, r := range e.Ladder.Rungs {
				for _, rep := range r.Reps {
					errs += rep.Errors
				}
			}
		}
	}
	switch {
	case res.Partial:
		return fmt.Errorf("run incomplete (%s); partial results written", res.Reason)
	case errs > 0:
		return fmt.Errorf("run finished with %d failed calls; see the errors rows", errs)
	}
	return nil
}

// printPlan says what a run would do, without starting anything.
func printPlan(w io.Writer, p *plan) error {
	var b strings.Builder
	if p.Scenario != "" {
		fmt.Fprintf(&b, "scenario: %s\n", p.Scenario)
	}
	// The corpus hash is left out: it reads every document (seconds for the
	// product corpus), and a dry run starts nothing.
	fmt.Fprintf(&b, "corpus: %s, %d IDs, %d pre-populated, seed %d\n", p.Source.Schema().Name, p.Source.IDs(), p.Source.PrepopulatedCount(), p.calls.Seed)
	fmt.Fprintf(&b, "mix: %s; k %d; request timeout %v\n", p.calls.Mix, p.calls.K, p.calls.Timeout)
	if c := p.Closed; c != nil {
		fmt.Fprintf(&b, "closed loop: users %v, spawn rate %g/s, settle %v, measure %v\n", c.Users, c.SpawnRate, c.Settle, c.Measure)
	}
	if l := p.Ladder; l != nil {
		fmt.Fprintf(&b, "ladder: %s arrivals, %d workers, rates %v, %v × %d per rung, factor %g\n",
			l.Open.Arrival, l.Open.Workers, l.Rates.Rates(), l.Duration, l.Repeat, l.Factor)
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

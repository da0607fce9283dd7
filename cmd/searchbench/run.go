package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module's build information is used.
var version = ""

// commonFlags are the flags of every command that drives engines.
type commonFlags struct {
	corpus    corpusFlags
	engines   string
	mix       string
	timeout   time.Duration
	k         int
	out       string
	url       string
	username  string
	password  string
	apiKey    string
	dataDir   string
	writeMode string
	cpus      float64
	cpuset    string
	memory    int64
	ready     time.Duration
	image     string
	runName   string
}

func (f *commonFlags) register(cmd *cobra.Command) {
	f.corpus.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.engines, "engine", "bleve", "engines to run, comma-separated (see `searchbench engines`)")
	fl.StringVar(&f.mix, "mix", "mixed", "operation mix: mixed (80/19/1), upsert, search, search/upsert/delete weights or search=80,upsert=19,delete=1")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "per-request timeout")
	fl.IntVar(&f.k, "k", runner.DefaultK, "hits per search")
	fl.StringVar(&f.out, "out", "results", "directory for result.json and tables.md")
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
	fl.StringVar(&f.runName, "run-name", "", "the run's name, the value of its containers' searchbench.run label (default: run-<UTC time>)")
}

// plan is a validated run: everything is checked before anything starts.
// Exactly one of closed and ladder is set.
type plan struct {
	engines []string
	corpus  *dataset.Corpus
	engine  engines.Config
	out     string
	launch  container.Options
	calls   runner.Calls
	closed  *runner.Config
	ladder  *runner.LadderConfig
}

func (f *commonFlags) plan() (*plan, error) {
	mix, err := workload.ParseMix(f.mix)
	if err != nil {
		return nil, usageError{err}
	}
	names := splitList(f.engines)
	if len(names) == 0 {
		return nil, badInput("engine: at least one engine is needed")
	}
	seen := map[string]bool{}
	for _, n := range names {
		if _, err := engines.Lookup(n); err != nil {
			return nil, usageError{fmt.Errorf("engine: %w", err)}
		}
		if seen[n] {
			return nil, badInput("engine: %s is listed twice", n)
		}
		seen[n] = true
	}
	if f.url != "" && len(names) > 1 {
		return nil, badInput("url: one --url cannot serve %d engines; run them one at a time", len(names))
	}
	wm := engines.Visibility(f.writeMode)
	if wm != "" && wm != engines.Acknowledged && wm != engines.Searchable {
		return nil, badInput("write-mode: %q is neither acknowledged nor searchable", f.writeMode)
	}
	if f.out == "" {
		return nil, badInput("out: a directory is needed")
	}
	c, err := f.corpus.corpus()
	if err != nil {
		return nil, err
	}
	launch := container.Options{CPUs: f.cpus, CPUSet: f.cpuset, MemoryBytes: f.memory, ReadyTimeout: f.ready, Image: f.image,
		Run: firstNonEmpty(f.runName, "run-"+time.Now().UTC().Format("20060102T150405"))}
	if err := launch.Validate(); err != nil {
		return nil, usageError{err}
	}
	for _, n := range names {
		d, _ := engines.Lookup(n)
		_, hasSpec := container.Lookup(n)
		switch {
		case d.Describe().Embedded && (f.cpus > 0 || f.image != ""):
			return nil, badInput("cpus/image: %s is embedded and runs in this process, not in a container", n)
		case !d.Describe().Embedded && f.url == "" && !hasSpec:
			return nil, badInput("engine: %s has no container definition; give --url of a running one", n)
		case f.url != "" && (f.cpus > 0 || f.image != ""):
			return nil, badInput("cpus/image: --url attaches to a running engine; nothing is started to limit")
		}
	}
	return &plan{
		launch:  launch,
		engines: names, corpus: c, out: f.out,
		calls: runner.Calls{Timeout: f.timeout, Mix: mix, Seed: f.corpus.seed, K: f.k},
		engine: engines.Config{
			URL: f.url, Username: f.username,
			Password:  engines.Secret(firstNonEmpty(f.password, os.Getenv("SEARCHBENCH_PASSWORD"))),
			APIKey:    engines.Secret(firstNonEmpty(f.apiKey, os.Getenv("SEARCHBENCH_API_KEY"))),
			DataDir:   f.dataDir,
			WriteMode: wm,
		},
	}, nil
}

func newRunCmd() *cobra.Command {
	var (
		f         commonFlags
		users     string
		spawnRate float64
		settle    time.Duration
		measure   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Pre-populate each engine, then run closed-loop virtual users at each level and print the tables",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := f.plan()
			if err != nil {
				return err
			}
			levels, err := parseUsers(users)
			if err != nil {
				return usageError{err}
			}
			cfg := runner.Config{
				Users: levels, SpawnRate: spawnRate, Settle: settle, Measure: measure, Calls: p.calls,
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			p.closed = &cfg
			return execute(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), p)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&users, "users", "10,100,500,800,1000", "virtual-user levels, comma-separated, run in order")
	fl.Float64Var(&spawnRate, "spawn-rate", runner.DefaultSpawnRate, "users started per second during the ramp")
	fl.DurationVar(&settle, "settle", 10*time.Second, "time after the ramp before statistics start")
	fl.DurationVar(&measure, "measure", time.Minute, "measured window at each level")
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

// execute runs the plan. Whatever happens after the first engine starts, the
// result JSON and the tables are written with what was measured.
func execute(ctx context.Context, stdout, stderr io.Writer, p *plan) error {
	log := newLogger(stderr)
	res := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "searchbench", Version: toolVersion(), GoVersion: runtime.Version()},
		StartedAt:     time.Now().UTC(),
		Config: result.Config{
			Engines: p.engines, Mix: p.calls.Mix.String(), MixWeights: p.calls.Mix[:],
			Seed: p.corpus.Config().Seed, WriteMode: string(p.engine.WriteMode), Histogram: runner.HistogramNote,
		},
		Host: hostInfo(),
	}
	if c := p.closed; c != nil {
		res.Config.Users, res.Config.SpawnRate = c.Users, c.SpawnRate
		res.Config.Settle, res.Config.Measure = result.Duration(c.Settle), result.Duration(c.Measure)
		res.Config.RequestTimeout, res.Config.K = result.Duration(c.Timeout), c.K
	}
	if l := p.ladder; l != nil {
		res.Config.RequestTimeout, res.Config.K = result.Duration(l.Open.Timeout), l.Open.K
	}
	cc := p.corpus.Config()
	log.printf("corpus: %d IDs, %d pre-populated, seed %d; hashing…", cc.IDs, p.corpus.PrepopulatedCount(), cc.Seed)
	res.Corpus = result.Corpus{
		Generator: dataset.Generator, Seed: cc.Seed, IDs: cc.IDs, Prepopulate: cc.Prepopulate,
		Prepopulated: p.corpus.PrepopulatedCount(), Hash: p.corpus.Hash(),
	}

	warnLeftovers(log, p)
	var failures []string
	for _, name := range p.engines {
		if ctx.Err() != nil {
			break
		}
		run := runEngine(ctx, log, name, p)
		res.Engines = append(res.Engines, run)
		if run.Error != "" {
			failures = append(failures, name+": "+run.Error)
		}
	}
	res.FinishedAt = time.Now().UTC()
	if ctx.Err() != nil {
		res.Partial, res.Reason = true, "interrupted"
	} else if len(failures) > 0 {
		res.Partial, res.Reason = true, strings.Join(failures, "; ")
	}
	return finish(stdout, log, p.out, res)
}

// finish writes the result and every report rendered from it (tables,
// CSV, charts, HTML), prints the tables and says how the run ended. The JSON
// goes first, so a failure to render loses no measurement.
func finish(stdout io.Writer, log *logger, dir string, res *result.Result) error {
	jsonPath := filepath.Join(dir, "result.json")
	if err := result.WriteFile(jsonPath, res); err != nil {
		return err
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

// runEngine opens, creates, pre-populates and runs one engine, always
// closing it. Errors are recorded in the returned run, not returned, so the
// other engines still run and everything measured is kept.
func runEngine(ctx context.Context, log *logger, name string, p *plan) result.EngineRun {
	d, _ := engines.Lookup(name) // validated in plan
	desc := d.Describe()
	run := result.EngineRun{Name: name, Label: name, Visibility: string(desc.Visibility)}
	if p.engine.WriteMode != "" {
		run.Visibility = string(p.engine.WriteMode)
		run.Label = name + " (" + string(p.engine.WriteMode) + ")"
	}
	cfg := p.engine
	switch spec, hasSpec := container.Lookup(name); {
	case desc.Embedded:
		run.Mode = "embedded"
	case cfg.URL != "":
		run.Mode = "attached"
	case hasSpec:
		run.Mode = "container"
		log.printf("%s: starting a container (CPU limit %v)", name, cpuText(p.launch.CPUs))
		c, err := container.Start(ctx, spec, p.launch)
		if err != nil {
			run.Error = err.Error()
			return run
		}
		defer func() {
			if err := c.Close(); err != nil {
				run.Warnings = append(run.Warnings, err.Error())
			} else {
				log.printf("%s: removed container %s", name, c.ID[:12])
			}
		}()
		// The launcher's generated secret is a password to some engines and an
		// API key to others; each driver reads the one it uses.
		cfg.URL, cfg.Password, cfg.APIKey = c.URL, engines.Secret(c.Secret), engines.Secret(c.Secret)
		run.Image, run.ImageDigest, run.CPULimit, run.CPUSet = c.Image, c.Digest, p.launch.CPUs, p.launch.CPUSet
		log.printf("%s: %s ready at %s", name, c.Image, c.URL)
	}
	e, err := engines.Open(ctx, name, cfg)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer func() {
		if err := e.Close(); err != nil {
			run.Warnings = append(run.Warnings, "close: "+err.Error())
		}
	}()
	if v, ok := e.(engines.Versioner); ok {
		if s, err := v.Version(ctx); err == nil {
			run.Version = s
		}
	}
	if err := e.Create(ctx, runner.Schema()); err != nil {
		run.Error = fmt.Sprintf("create index: %v", err)
		return run
	}
	log.printf("%s: pre-populating %d documents", name, p.corpus.PrepopulatedCount())
	bar := log.progress(name + ": pre-populate")
	run.Preload, err = runner.Prepopulate(ctx, e, p.corpus, bar.update)
	bar.done()
	if err != nil {
		run.Error = err.Error()
		return run
	}
	log.printf("%s: loaded %d documents in %.1fs (%.0f docs/s), engine count %d", name,
		run.Preload.Documents, run.Preload.Duration.Seconds(), run.Preload.DocsPerS, run.Preload.Count)
	ev := runner.Events{
		Phase: func(users int, phase string, d time.Duration) {
			if d > 0 {
				log.printf("%s: %d users: %s %v", name, users, phase, d.Round(time.Millisecond))
			}
		},
		Progress: func(users int, ops, errs int64) {
			log.status("%s: %d users: %d calls measured, %d errors", name, users, ops, errs)
		},
	}
	ev.Rung = func(rate float64, rep, reps int) {
		log.printf("%s: %.0f/s: repetition %d of %d", name, rate, rep, reps)
	}
	if p.closed != nil {
		run.Levels = runner.ClosedLoop(ctx, e, p.corpus, *p.closed, ev)
	} else {
		l := runner.RunLadder(ctx, e, p.corpus, *p.ladder, ev)
		run.Ladder = &l
	}
	log.endStatus()
	return run
}

// warnLeftovers says when containers of earlier runs are still there: they
// take CPUs from the engine under test.
func warnLeftovers(log *logger, p *plan) {
	if p.engine.URL != "" {
		return
	}
	needed := false
	for _, n := range p.engines {
		d, _ := engines.Lookup(n)
		needed = needed || !d.Describe().Embedded
	}
	if !needed {
		return
	}
	pool, err := container.Pool()
	if err != nil {
		return // Start reports it, naming the engine
	}
	if list, err := container.Leftovers(pool); err == nil && len(list) > 0 {
		log.printf("warning: %d container(s) of earlier searchbench runs are still there and may take CPUs from the engine; `searchbench cleanup` removes them", len(list))
	}
}

func cpuText(cpus float64) string {
	if cpus == 0 {
		return "none"
	}
	return strconv.FormatFloat(cpus, 'g', -1, 64)
}

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += "+" + s.Value
			}
		}
		return v
	}
	return "unknown"
}

func hostInfo() result.Host {
	h := result.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	h.Hostname, _ = os.Hostname()
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return h
}

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module's build information is used.
var version = ""

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

// plan is a validated run: everything is checked before anything starts.
// Exactly one of closed and ladder is set.
type plan struct {
	setups    []setup
	source    runner.Source
	scenario  string
	dryRun    bool
	relevance int
	writeMode string // as --write-mode gave it; each setup's is in its config
	out       string
	launch    container.Options
	calls     runner.Calls
	closed    *runner.Config
	ladder    *runner.LadderConfig
}

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
	if err := checkDir(f.out, true); err != nil {
		return nil, badInput("out: %v", err)
	}
	if f.dataDir != "" {
		if err := checkDir(f.dataDir, false); err != nil {
			return nil, badInput("data-dir: %v", err)
		}
	}
	if f.relevance < 0 || f.relevance > 100_000 {
		return nil, badInput("relevance-queries: %d is out of range (0 to 100000)", f.relevance)
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
	launch := container.Options{CPUs: f.cpus, CPUSet: f.cpuset, MemoryBytes: f.memory, ReadyTimeout: f.ready, Image: f.image,
		Run: firstNonEmpty(f.runName, "run-"+time.Now().UTC().Format("20060102T150405"))}
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
	if err := launch.Validate(); err != nil {
		return nil, usageError{err}
	}
	shared := engines.Config{
		URL: f.url, Username: f.username,
		Password:  engines.Secret(firstNonEmpty(f.password, os.Getenv("SEARCHBENCH_PASSWORD"))),
		APIKey:    engines.Secret(firstNonEmpty(f.apiKey, os.Getenv("SEARCHBENCH_API_KEY"))),
		DataDir:   f.dataDir,
		WriteMode: engines.Visibility(f.writeMode),
	}
	setups, err := buildSetups(specs, shared, f.options, launch)
	if err != nil {
		return nil, err
	}
	return &plan{
		setups: setups, source: src, scenario: f.scenario, dryRun: f.dryRun, relevance: f.relevance, writeMode: f.writeMode, out: f.out, launch: launch,
		calls: runner.Calls{Timeout: f.timeout, Mix: mix, Seed: f.corpus.seed, K: f.k},
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
			cfg := runner.Config{
				Users: levels, SpawnRate: spawnRate, Settle: settle, Measure: measure, Freshness: fresh, Calls: p.calls,
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
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
	if p.dryRun {
		return printPlan(stdout, p)
	}
	log := newLogger(stderr)
	names := make([]string, len(p.setups))
	for i, s := range p.setups {
		names[i] = s.name
	}
	res := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "searchbench", Version: toolVersion(), GoVersion: runtime.Version()},
		StartedAt:     time.Now().UTC(),
		Config: result.Config{
			Scenario: p.scenario,
			Engines:  names, Mix: p.calls.Mix.String(), MixWeights: p.calls.Mix[:],
			Seed: p.calls.Seed, WriteMode: p.writeMode, Histogram: runner.HistogramNote,
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
	log.printf("corpus: %s, %d IDs, %d pre-populated, seed %d; hashing…", p.source.Schema().Name, p.source.IDs(), p.source.PrepopulatedCount(), p.calls.Seed)
	res.Corpus = p.source.Provenance()

	warnLeftovers(log, p)
	var failures []string
	for _, s := range p.setups {
		if ctx.Err() != nil {
			break
		}
		run := runSetup(ctx, log, s, p)
		res.Engines = append(res.Engines, run)
		if run.Error != "" {
			// The whole error (a container's log among it) goes to the log
			// and the JSON; the reason names the setup in one line.
			log.printf("%s: stopped: %s", s.label, run.Error)
			failures = append(failures, s.label+": "+firstLine(strings.TrimPrefix(run.Error, s.label+": ")))
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

// runSetup opens, creates, pre-populates and runs one setup, always
// closing it. Errors are recorded in the returned run, not returned, so the
// other setups still run and everything measured is kept. The result is
// named because the deferred closes add their warnings to it after a return.
func runSetup(ctx context.Context, log *logger, s setup, p *plan) (run result.EngineRun) {
	d, _ := engines.Lookup(s.name) // validated in plan
	desc := d.Describe()
	name, cfg := s.label, s.cfg
	// Registered first, so it runs last: after the deferred closes have
	// added their warnings (and removed the container), and with the
	// launcher's secret, set below. A driver that panics while opening,
	// creating or closing (the runner guards the calls it makes) fails its
	// setup; the other setups still run and the results are written.
	defer func() {
		if v := recover(); v != nil {
			run.Error = runner.Recovered(v).Error()
		}
		redactMessages(&run, cfg.Secrets())
	}()
	run = result.EngineRun{Name: s.name, Label: s.label, Visibility: string(desc.Visibility), Options: cfg.Options}
	if cfg.WriteMode != "" {
		run.Visibility = string(cfg.WriteMode)
	}
	switch spec, hasSpec := container.Lookup(s.name); {
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
		run.ContainerEnv, run.DockerVersion = c.Env, c.Docker
		log.printf("%s: %s ready at %s", name, c.Image, c.URL)
	}
	// Opening is a connection and a request or two, and asking the version
	// one request: each is bounded by the request timeout, so an engine
	// that accepts connections and never answers fails the setup instead
	// of holding the run.
	octx, cancel := context.WithTimeout(ctx, p.calls.Timeout)
	e, err := engines.Open(octx, s.name, cfg)
	cancel()
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
		vctx, cancel := context.WithTimeout(ctx, p.calls.Timeout)
		s, err := v.Version(vctx)
		cancel()
		if err == nil {
			run.Version = s
		} else {
			run.Warnings = append(run.Warnings, "the engine did not say its version: "+err.Error())
		}
	}
	if err := e.Create(ctx, p.source.Schema()); err != nil {
		run.Error = fmt.Sprintf("create index: %v", err)
		return run
	}
	log.printf("%s: pre-populating %d documents", name, p.source.PrepopulatedCount())
	bar := log.progress(name + ": pre-populate")
	run.Preload, err = runner.Prepopulate(ctx, e, p.source, bar.update)
	bar.done()
	if err != nil {
		run.Error = err.Error()
		return run
	}
	log.printf("%s: loaded %d documents in %.1fs (%.0f docs/s), engine count %d", name,
		run.Preload.Documents, run.Preload.Duration.Seconds(), run.Preload.DocsPerS, run.Preload.Count)
	if rel := runner.CheckRelevance(ctx, e, p.source, p.relevance, p.calls.K, p.calls.Timeout); rel != nil {
		run.Relevance = rel
		if rel.Queries > 0 {
			log.printf("%s: recall@%d %.3f over %d known-item searches", name, rel.K, rel.Recall, rel.Queries)
		} else {
			log.printf("%s: no known-item search could run (the configuration cannot answer them; see relevance in result.json)", name)
		}
	}
	ev := log.events(name)
	if p.closed != nil {
		run.Levels = runner.ClosedLoop(ctx, e, p.source, *p.closed, ev)
	} else {
		l := runner.RunLadder(ctx, e, p.source, *p.ladder, ev)
		run.Ladder = &l
	}
	log.endStatus()
	return run
}

// warnLeftovers says when containers of earlier runs are still there: they
// take CPUs from the engine under test.
func warnLeftovers(log *logger, p *plan) {
	needed := false
	for _, s := range p.setups {
		d, _ := engines.Lookup(s.name)
		needed = needed || (!d.Describe().Embedded && s.cfg.URL == "")
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
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			h.MemoryMB = kb / 1024
		}
	}
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

// printPlan says what a run would do, without starting anything.
func printPlan(w io.Writer, p *plan) error {
	var b strings.Builder
	if p.scenario != "" {
		fmt.Fprintf(&b, "scenario: %s\n", p.scenario)
	}
	// The corpus hash is left out: it reads every document (seconds for the
	// product corpus), and a dry run starts nothing.
	fmt.Fprintf(&b, "corpus: %s, %d IDs, %d pre-populated, seed %d\n", p.source.Schema().Name, p.source.IDs(), p.source.PrepopulatedCount(), p.calls.Seed)
	fmt.Fprintf(&b, "mix: %s; k %d; request timeout %v\n", p.calls.Mix, p.calls.K, p.calls.Timeout)
	if c := p.closed; c != nil {
		fmt.Fprintf(&b, "closed loop: users %v, spawn rate %g/s, settle %v, measure %v\n", c.Users, c.SpawnRate, c.Settle, c.Measure)
	}
	if l := p.ladder; l != nil {
		fmt.Fprintf(&b, "ladder: %s arrivals, %d workers, rates %v, %v × %d per rung, factor %g\n",
			l.Open.Arrival, l.Open.Workers, l.Rates.Rates(), l.Duration, l.Repeat, l.Factor)
	}
	fmt.Fprintf(&b, "containers: CPU limit %s, cpuset %q", cpuText(p.launch.CPUs), p.launch.CPUSet)
	for _, k := range slices.Sorted(maps.Keys(p.launch.Env)) {
		fmt.Fprintf(&b, ", %s=%s", k, p.launch.Env[k])
	}
	b.WriteString("\n")
	for _, s := range p.setups {
		fmt.Fprintf(&b, "setup %q: engine %s", s.label, s.name)
		if s.cfg.WriteMode != "" {
			fmt.Fprintf(&b, ", write mode %s", s.cfg.WriteMode)
		}
		for _, k := range slices.Sorted(maps.Keys(s.cfg.Options)) {
			fmt.Fprintf(&b, ", %s=%s", k, s.cfg.Options[k])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

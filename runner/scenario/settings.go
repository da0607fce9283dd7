// Package scenario is the vocabulary of a benchmark written down: the
// settings of `searchbench run` and `searchbench ladder` — every flag, under
// its own name — and the scenario files that give them values. Settings
// turn into a runner.Plan; a scenario file decodes into one (Decode), so a
// Go program runs a shipped study exactly as `searchbench run --scenario`
// does. The CLI registers the same settings as its flags, so a scenario can
// say nothing a command line cannot, and both are checked by the same code.
package scenario

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/vectorfile"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// Commands are the commands a scenario may be for.
const (
	Run    = "run"    // closed-loop user levels
	Ladder = "ladder" // an open-loop rate ladder
)

// Settings are the values of a run's or a ladder's settings, bound to a
// flag set by Register. Out and DryRun are the CLI's (where the files go,
// whether to start anything); Plan ignores them.
type Settings struct {
	Command string

	Seed        uint64
	IDs         int
	Prepopulate float64
	Corpus      string
	Dim         int
	Vectors     string
	VectorFiles vectorfile.Options
	Queries     string
	Engines     string
	Options     []string
	Mix         string
	Timeout     time.Duration
	Interval    time.Duration
	K           int
	Out         string
	URL         string
	Username    string
	Password    string
	APIKey      string
	DataDir     string
	WriteMode   string
	CPUs        float64
	CPUSet      string
	Memory      int64
	Ready       time.Duration
	Image       string
	NoBuild     bool
	Env         []string
	RunName     string
	Relevance   int
	KnownItems  float64
	Exact       int
	DryRun      bool
	Scenario    string
	Sweep       string
	SweepLoad   string

	// A share of a sharded run: --shard i/N, or --shards N with the index
	// from the orchestrator's environment.
	Shard           string
	Shards          int
	Coordinator     string
	RegisterTimeout time.Duration

	// Setups take the place of Engines when a scenario file lists them.
	Setups []SetupSpec

	// LookupEnv looks up the environment's variables: the credentials'
	// (SEARCHBENCH_PASSWORD, SEARCHBENCH_API_KEY) and the shard index's;
	// nil is the process's (os.LookupEnv). A program that runs several
	// plans at once, each with credentials of its own, gives each its own.
	LookupEnv func(key string) (string, bool)

	// run
	Users     string
	SpawnRate float64
	Settle    time.Duration
	Measure   time.Duration
	Freshness checks.FreshnessConfig

	// ladder
	Arrival string
	Workers int
	Start   float64
	Step    float64
	Stop    float64
	Ladder  loops.LadderConfig

	flags    *pflag.FlagSet
	fromFile map[string]bool // the settings the scenario file gave (Apply)
	// keys are the flags Register defined: the settings a scenario file
	// may give. The CLI defines flags of its own on the same set (--live,
	// --force), which a file must not reach.
	keys map[string]bool
}

// SetupSpec is a setup as a scenario file gives it.
type SetupSpec struct {
	Engine    string            `yaml:"engine"`
	Label     string            `yaml:"label"`
	WriteMode string            `yaml:"write_mode"`
	Options   map[string]string `yaml:"options"`
}

// RegisterCorpus defines the corpus's settings (seed, ids, prepopulate):
// also the `dataset` command's.
func RegisterCorpus(fl *pflag.FlagSet, seed *uint64, ids *int, prepopulate *float64) {
	fl.Uint64Var(seed, "seed", dataset.DefaultSeed, "seed of the corpus and the workload: the same seed gives the same bytes")
	fl.IntVar(ids, "ids", dataset.DefaultIDs, "size of the ID space (IDs 1..N)")
	fl.Float64Var(prepopulate, "prepopulate", dataset.DefaultPrepopulate, "fraction of IDs loaded before the run")
}

// Register defines command's settings on fl, with their defaults. Command
// is Run or Ladder.
func (s *Settings) Register(fl *pflag.FlagSet, command string) {
	before := map[string]bool{}
	fl.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	s.register(fl, command)
	s.keys = map[string]bool{}
	fl.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			s.keys[f.Name] = true
		}
	})
}

// register defines the settings both commands share, then command's own.
func (s *Settings) register(fl *pflag.FlagSet, command string) {
	s.Command, s.flags = command, fl
	RegisterCorpus(fl, &s.Seed, &s.IDs, &s.Prepopulate)
	fl.StringVar(&s.Corpus, "corpus", text.Name, "corpus: text (Study A: name and content, 5-word queries) or product (Study B: ~4.6 KB product hashes with an embedding; KNN and SKU queries)")
	fl.IntVar(&s.Dim, "dim", dataset.ProductDim, "product corpus: the embedding's dimension")
	fl.StringVar(&s.Vectors, "vectors", "", "product corpus: an embedding file (ann-benchmarks HDF5, TEXMEX fvecs/bvecs with ivecs, VectorDBBench Parquet) whose train vectors are the products' embeddings and test vectors the kNN queries; its neighbours are checked against the exact answers")
	fl.StringVar(&s.VectorFiles.Queries, "vectors-queries", "", "with --vectors: the query vectors of an fvecs/bvecs base (required there), or another test.parquet")
	fl.StringVar(&s.VectorFiles.Truth, "vectors-truth", "", "with --vectors: the .ivecs ground truth of an fvecs/bvecs base (required there), or another neighbors.parquet")
	fl.StringVar(&s.VectorFiles.Distance, "vectors-distance", "", "with --vectors: the file's distance where the format names none (fvecs, bvecs, Parquet): angular, euclidean or dot, which the index is built and the exact answers ranked by; an HDF5 file names its own")
	fl.StringVar(&s.Queries, "queries", "", "product corpus: the mix of query kinds as whole weights, kind=weight,… (kinds: "+strings.Join(dataset.ProductQueryKinds(), ", ")+"; default "+dataset.DefaultQueryMix.String()+")")
	fl.StringVar(&s.Engines, "engine", "bleve", "engines to run, comma-separated (see `searchbench engines`)")
	fl.StringArrayVar(&s.Options, "option", nil, "driver option key=value for every engine, or engine:key=value for one (repeatable; see each driver's documentation)")
	fl.StringVar(&s.Mix, "mix", "mixed", "operation mix: mixed (search=80,upsert=19,delete=1), upsert, search, named weights such as search=70,get=10,upsert=19,delete=1, or search/upsert/delete weights 80/19/1")
	fl.DurationVar(&s.Timeout, "timeout", loops.DefaultTimeout, fmt.Sprintf("per-request timeout (%v to %v)", loops.MinTimeout, loops.MaxTimeout))
	fl.IntVar(&s.K, "k", loops.DefaultK, "hits per search")
	fl.DurationVar(&s.Interval, "interval", 0, "timeline interval within each measured window (at least 100ms, at most the window; default 1s, or the whole window when shorter)")
	fl.StringVar(&s.Out, "out", "results", "directory for result.json and the reports")
	fl.StringVar(&s.URL, "url", "", "attach to an engine that is already running at this URL")
	fl.StringVar(&s.Username, "username", "", "engine user name")
	fl.StringVar(&s.Password, "password", "", "engine password (or SEARCHBENCH_PASSWORD); never logged")
	fl.StringVar(&s.APIKey, "api-key", "", "engine API key (or SEARCHBENCH_API_KEY); never logged")
	fl.StringVar(&s.DataDir, "data-dir", "", "embedded engines: index directory (default: a temporary one, removed afterwards)")
	fl.StringVar(&s.WriteMode, "write-mode", "", "acknowledged or searchable, where the engine offers both")
	fl.Float64Var(&s.CPUs, "cpus", 0, "CPU limit of each engine's container (the published study: 4, and 8); 0: none")
	fl.StringVar(&s.CPUSet, "cpuset", "", "cpuset of each engine's container, e.g. 2-5 (keeps the engine off the load generator's cores)")
	fl.Int64Var(&s.Memory, "memory", 0, "memory limit of each engine's container in bytes; 0: none (as in the published study)")
	fl.DurationVar(&s.Ready, "ready-timeout", runner.DefaultReadyTimeout, "how long a container may take to become ready")
	fl.StringVar(&s.Image, "image", "", "run this image instead of the engine's pinned one")
	fl.BoolVar(&s.NoBuild, "no-build", false, "when an engine's image is absent and cannot be pulled, do not build its local stand-in (compose/images/…): stop and say how to build it")
	fl.StringArrayVar(&s.Env, "container-env", nil, "KEY=VALUE set in each engine's container, over the launcher's settings (repeatable), e.g. ES_JAVA_OPTS=\"-Xms4g -Xmx4g\"")
	fl.StringVar(&s.RunName, "run-name", "", "the run's name, the value of its containers' searchbench.run label (default: run-<UTC time>)")
	fl.IntVar(&s.Relevance, "relevance-queries", checks.DefaultRelevanceQueries, "known-item checks after pre-population (recall@k); 0: none")
	fl.IntVar(&s.Exact, "exact-queries", checks.DefaultExactQueries, "product corpus: sample of kNN and SKU queries whose exact answers (brute force, before the run) score recall@k idle and, as half the known-item checks, under load; 0: none")
	fl.Float64Var(&s.KnownItems, "known-items", checks.DefaultKnownItems, "share of each level's (each rep's) searches that are known-item checks under load: recall@k beside the idle recall; 0: none")
	fl.StringVar(&s.Sweep, "sweep", "", "[KNOB=]V1,V2,…: run the load once per value of each engine's search-time knob (see `searchbench engines`), on one index, each value's idle recall first; needs one --users level or a ladder; KNOB, when given, must be each engine's knob")
	fl.StringVar(&s.SweepLoad, "sweep-load", "", "with --sweep: each value's load with searches only (search), with the mix's writes (mix), or both; default both when the mix writes, else search")
	fl.BoolVar(&s.DryRun, "dry-run", false, "validate everything and print the plan; start nothing")
	fl.StringVar(&s.Shard, "shard", "", "run share i of N of the load (0-based, e.g. 0/3) against one shared engine (--url); shard 0 pre-populates")
	fl.IntVar(&s.Shards, "shards", 0, "run one of N shards, the index from $"+EnvJobIndex+" (0-based, a Kubernetes Indexed Job's) or $"+EnvSlot+" (1-based, Docker Swarm's {{.Task.Slot}})")
	fl.StringVar(&s.Coordinator, "coordinator", "", "HOST:PORT of `searchbench coordinate`: the shards start each level and rung together and send it their results (without it a shard runs unsynchronised)")
	fl.DurationVar(&s.RegisterTimeout, "register-timeout", shard.DefaultRegisterTimeout, "a shard: how long to try to reach the coordinator and wait for every shard to register")
	fl.StringVar(&s.Scenario, "scenario", "", "a scenario file (or the name of a shipped one, see `searchbench scenario list`): its values stand for flags not given on the command line")
	switch command {
	case Run:
		s.registerRun(fl)
	case Ladder:
		s.registerLadder(fl)
	default:
		panic("scenario: Register: unknown command " + command)
	}
}

// registerRun defines the settings only `run` has: its user levels and
// their timing, and the freshness probe.
func (s *Settings) registerRun(fl *pflag.FlagSet) {
	fl.StringVar(&s.Users, "users", "10,100,500,800,1000", "virtual-user levels, comma-separated, run in order")
	fl.Float64Var(&s.SpawnRate, "spawn-rate", loops.DefaultSpawnRate, "users started per second during the ramp")
	fl.DurationVar(&s.Settle, "settle", 10*time.Second, "time after the ramp before statistics start")
	fl.DurationVar(&s.Measure, "measure", time.Minute, "measured window at each level")
	fl.DurationVar(&s.Freshness.Poll, "freshness-poll", checks.DefaultFreshnessPoll, "freshness probe: shortest time between its searches for a probed write (later ones are spaced by a tenth of the time since the write)")
	fl.DurationVar(&s.Freshness.Gap, "freshness-gap", checks.DefaultFreshnessGap, "freshness probe: mean pause between probed writes (exponential, so probes do not lock onto a periodic refresh)")
	fl.BoolVar(&s.Freshness.Off, "no-freshness", false, "do not probe how long writes take to become searchable")
}

// registerLadder defines the settings only `ladder` has: the open-loop
// schedule and the rungs, and when a rung counts as sustainable.
func (s *Settings) registerLadder(fl *pflag.FlagSet) {
	fl.StringVar(&s.Arrival, "arrival", "constant", "arrival process: constant spacing or poisson")
	fl.IntVar(&s.Workers, "workers", loops.DefaultWorkers, "connections/workers serving the schedule")
	fl.Float64Var(&s.Start, "start", 2000, "first offered rate (calls/s): low enough to show idle latency")
	fl.Float64Var(&s.Step, "step", loops.DefaultStep, "factor between rungs")
	fl.Float64Var(&s.Stop, "stop", 200_000, "highest offered rate")
	fl.DurationVar(&s.Ladder.Duration, "duration", loops.DefaultRungTime, "length of each repetition of a rung")
	fl.IntVar(&s.Ladder.Repeat, "repeat", loops.DefaultRepeat, "repetitions of each rung; medians and spread are reported")
	fl.Float64Var(&s.Ladder.Factor, "factor", loops.DefaultFactor, "sustainable: p99 within this factor of the first rung's p99")
	fl.Float64Var(&s.Ladder.MinAchieved, "min-achieved", loops.DefaultMinAchieved, "sustainable: achieved rate at least this fraction of the offered rate")
	fl.Float64Var(&s.Ladder.Explode, "explode", loops.DefaultExplode, "stop once p99 exceeds this factor of the first rung's p99")
	fl.Float64Var(&s.Ladder.Reference, "reference-rate", 0, "report p99 at the rung nearest this rate (default: the first rung)")
}

// Changed says whether the named setting was given (on the command line or
// by a scenario file).
func (s *Settings) Changed(name string) bool { return s.flags != nil && s.flags.Changed(name) }

// Plan turns the settings into a validated plan: every error is one line
// that starts with the setting at fault (the plan's own checks, which name
// a Go program's fields, say it in the settings' words), and is bad input;
// a setting a scenario file gave is named with the file. Credentials not
// given fall back to SEARCHBENCH_PASSWORD and SEARCHBENCH_API_KEY for the
// engines that have any. l starts the engines that are neither attached
// nor embedded (the CLI's is engines/container's Launcher); nil when there
// are none.
func (s *Settings) Plan(l runner.Launcher) (runner.Plan, error) {
	p, err := s.plan(l)
	if err != nil {
		return runner.Plan{}, s.inWords(err)
	}
	return p, nil
}

// inWords is err as the settings name things: a plan's FieldError by its
// flag, and, when the setting at fault came from the scenario file, with
// the file's name in front.
func (s *Settings) inWords(err error) error {
	var fe *field.Error
	if errors.As(err, &fe) {
		err = settingError{fe}
	}
	// Every error starts with the setting's name ("users: …", "mix "…": …").
	name := strings.FieldsFunc(err.Error(), func(r rune) bool { return r == ':' || r == ' ' })
	if len(name) > 0 && s.fromFile[name[0]] {
		return fmt.Errorf("scenario %s: %w", s.Scenario, err)
	}
	return err
}

// settingError is a plan's FieldError in the settings' words.
type settingError struct{ fe *field.Error }

func (e settingError) Error() string { return e.fe.Setting() }
func (e settingError) Unwrap() error { return e.fe }

// plan builds the plan from the settings and validates it. The checks run
// in this order, so that of several bad settings the same one is named.
func (s *Settings) plan(l runner.Launcher) (runner.Plan, error) {
	mix, err := workload.ParseMix(s.Mix)
	if err != nil {
		return runner.Plan{}, err
	}
	specs, err := s.setupSpecs()
	if err != nil {
		return runner.Plan{}, err
	}
	cc, err := s.corpusConfig()
	if err != nil {
		return runner.Plan{}, err
	}
	if err := s.checkCalls(); err != nil {
		return runner.Plan{}, err
	}
	src, err := s.source(cc)
	if err != nil {
		return runner.Plan{}, err
	}
	lo, err := s.launchOptions()
	if err != nil {
		return runner.Plan{}, err
	}
	setups, err := s.setups(specs)
	if err != nil {
		return runner.Plan{}, err
	}
	sp, err := s.shardPlan()
	if err != nil {
		return runner.Plan{}, err
	}
	p := runner.Plan{Source: src, Setups: setups, Launcher: l, Launch: lo, Relevance: s.Relevance, Scenario: s.Scenario, Shard: sp}
	// --known-items 0 is off; the library's zero Fraction is the default.
	calls := loops.Calls{Timeout: s.Timeout, Interval: s.Interval, Mix: mix, Seed: s.Seed, K: s.K, Known: checks.KnownConfig{Fraction: s.KnownItems, Off: s.KnownItems == 0, Exact: exactQueries(s.Exact)}}
	if err := s.setLoad(&p, calls); err != nil {
		return runner.Plan{}, err
	}
	if p.Sweep, err = s.sweep(); err != nil {
		return runner.Plan{}, err
	}
	return p, p.Validate()
}

// sweep is the knob sweep --sweep and --sweep-load ask for; nil for none.
func (s *Settings) sweep() (*runner.Sweep, error) {
	if s.Sweep == "" {
		if s.Changed("sweep-load") {
			return nil, errors.New("sweep-load: there is no --sweep to load")
		}
		return nil, nil
	}
	sw, err := runner.ParseSweep(s.Sweep)
	if err != nil {
		return nil, err
	}
	sw.Load = runner.SweepLoad(s.SweepLoad)
	return sw, nil
}

// corpusConfig is the corpus's configuration, validated.
func (s *Settings) corpusConfig() (dataset.Config, error) {
	switch {
	case s.Corpus != product.Name && s.Changed("dim"):
		return dataset.Config{}, errors.New("dim: only the product corpus has embeddings")
	case s.Corpus != product.Name && s.Vectors != "":
		return dataset.Config{}, errors.New("vectors: only the product corpus has embeddings")
	case s.Vectors == "" && (s.VectorFiles != vectorfile.Options{}):
		return dataset.Config{}, errors.New("vectors-queries, vectors-truth, vectors-distance: they name the parts of a --vectors file; give --vectors")
	case s.Vectors != "" && s.Changed("dim"):
		return dataset.Config{}, errors.New("dim: the embedding file gives the dimension; leave it out")
	}
	cc := dataset.Config{Seed: s.Seed, IDs: s.IDs, Prepopulate: s.Prepopulate}
	if err := cc.Validate(); err != nil {
		return dataset.Config{}, err
	}
	if s.Vectors != "" && !s.Changed("ids") {
		cc.IDs = 0 // the file's train count (vectorfile.Products)
	}
	return cc, nil
}

// checkCalls checks the settings of the calls that the plan's own checks
// cannot tell from their defaults.
func (s *Settings) checkCalls() error {
	if s.Exact < 0 {
		return fmt.Errorf("exact-queries: %d is out of range (0 to %d)", s.Exact, checks.MaxExactQueries)
	}
	// Given for the text corpus, the sample was dropped without a word.
	if s.Corpus != product.Name && s.Changed("exact-queries") {
		return errors.New("exact-queries: only the product corpus has exact answers (kNN and SKU queries); leave it out")
	}
	// The library reads an interval of 0 as "the default"; given, it is
	// below the shortest one, as the help says.
	if s.Changed("interval") && s.Interval == 0 {
		return fmt.Errorf("interval: 0s is shorter than %v, the shortest interval recorded; leave it out for the default", loops.MinInterval)
	}
	return nil
}

// source is the corpus cc with its queries: for the product corpus, in
// the mix --queries gives.
func (s *Settings) source(cc dataset.Config) (corpus.Source, error) {
	var queries dataset.QueryMix
	if s.Changed("queries") {
		if s.Corpus != product.Name {
			return nil, errors.New("queries: only the product corpus has kinds of query")
		}
		// ParseQueryMix reads "" as the default mix, as the library's
		// zero value is; given empty, it is a mix left out by mistake, as
		// --mix '' is.
		if strings.TrimSpace(s.Queries) == "" {
			return nil, errors.New("queries: an empty mix of query kinds; give kind=weight,… or leave it out for the default " + dataset.DefaultQueryMix.String())
		}
		var err error
		if queries, err = dataset.ParseQueryMix(s.Queries); err != nil {
			return nil, fmt.Errorf("queries: %w", err)
		}
	}
	return corpus.New(s.Corpus, corpus.Config{Config: cc, Dim: s.Dim, Queries: queries, Vectors: s.Vectors, VectorFiles: s.VectorFiles})
}

// setLoad gives p the command's load: closed-loop user levels for run, an
// open-loop rate ladder for ladder, each making calls.
func (s *Settings) setLoad(p *runner.Plan, calls loops.Calls) error {
	switch s.Command {
	case Run:
		levels, err := ParseUsers(s.Users)
		if err != nil {
			return err
		}
		p.Closed = &loops.Config{Users: levels, SpawnRate: s.SpawnRate, Settle: s.Settle, Measure: s.Measure, Freshness: s.Freshness, Calls: calls}
	case Ladder:
		lc := s.Ladder
		lc.Open = loops.OpenConfig{Workers: s.Workers, Arrival: s.Arrival, Calls: calls}
		lc.Rates = workload.Ladder{Start: s.Start, Step: s.Step, Stop: s.Stop}
		p.Ladder = &lc
	default:
		return fmt.Errorf("command: %q is neither run nor ladder", s.Command)
	}
	return nil
}

// launchOptions are the launcher's settings.
func (s *Settings) launchOptions() (launch.Options, error) {
	// The library reads a zero as "the default"; a setting of 0 is a mistake.
	if s.Ready <= 0 {
		return launch.Options{}, fmt.Errorf("ready-timeout: %v must be > 0", s.Ready)
	}
	o := launch.Options{CPUs: s.CPUs, CPUSet: s.CPUSet, MemoryBytes: s.Memory, ReadyTimeout: s.Ready, Image: s.Image, Run: s.RunName, NoBuild: s.NoBuild}
	for _, kv := range s.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return launch.Options{}, fmt.Errorf("container-env: %q is not KEY=VALUE", kv)
		}
		if o.Env == nil {
			o.Env = map[string]string{}
		}
		o.Env[k] = v
	}
	return o, nil
}

// setupSpecs are the setups the settings list: a scenario file's, or one
// per engine of --engine.
func (s *Settings) setupSpecs() ([]SetupSpec, error) {
	if len(s.Setups) > 0 {
		return s.Setups, nil
	}
	// A driver listed twice is refused by Plan.Validate (two setups with
	// one label).
	names, err := SplitList(s.Engines)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	specs := make([]SetupSpec, 0, len(names))
	for _, n := range names {
		specs = append(specs, SetupSpec{Engine: n})
	}
	return specs, nil
}

// setups are specs with the shared address, credentials, data directory
// and write mode, and their options.
func (s *Settings) setups(specs []SetupSpec) ([]runner.Setup, error) {
	shared := engines.Config{
		URL: s.URL, Username: s.Username, Password: engines.Secret(s.Password), APIKey: engines.Secret(s.APIKey),
		DataDir:   s.DataDir,
		WriteMode: engines.Visibility(s.WriteMode),
	}
	setups, err := BuildSetups(specs, shared, s.Options)
	if err != nil {
		return nil, err
	}
	// The environment's credentials are for the servers: an embedded
	// engine, which the plan refuses credentials, does not get them.
	for i, st := range setups {
		if d, err := engines.Lookup(st.Driver); err == nil && d.Describe().Embedded {
			continue
		}
		c := &setups[i].Config
		c.Password = engines.Secret(firstNonEmpty(c.Password.Reveal(), s.getenv("SEARCHBENCH_PASSWORD")))
		c.APIKey = engines.Secret(firstNonEmpty(c.APIKey.Reveal(), s.getenv("SEARCHBENCH_API_KEY")))
	}
	return setups, nil
}

// lookupEnv is LookupEnv, or the process's environment.
func (s *Settings) lookupEnv(key string) (string, bool) {
	if s.LookupEnv != nil {
		return s.LookupEnv(key)
	}
	return os.LookupEnv(key)
}

// getenv is the variable's value, "" when unset.
func (s *Settings) getenv(key string) string {
	v, _ := s.lookupEnv(key)
	return v
}

// The environment variables --shards reads the shard's index from.
const (
	EnvJobIndex = "JOB_COMPLETION_INDEX"   // 0-based: a Kubernetes Indexed Job's
	EnvSlot     = "SEARCHBENCH_SHARD_SLOT" // 1-based: Swarm's {{.Task.Slot}}
)

// shardPlan reads the shard settings: nil when the run is not sharded.
func (s *Settings) shardPlan() (*runner.ShardPlan, error) {
	if s.Shards < 0 {
		return nil, fmt.Errorf("shards: %d must be ≥ 1", s.Shards)
	}
	var share shard.Share
	switch {
	case s.Shard != "":
		var err error
		if share, err = shard.ParseShare(s.Shard); err != nil {
			return nil, err
		}
		// Both say which shard this is: --shards from the environment,
		// which --shard would silently overrule (every pod of a job shard 0).
		if s.Shards != 0 {
			return nil, fmt.Errorf("shards: --shard %s and --shards %d both say which shard this is; give one", s.Shard, s.Shards)
		}
	case s.Shards > 0:
		i, err := shardIndex(s.Shards, s.lookupEnv)
		if err != nil {
			return nil, err
		}
		share = shard.Share{Index: i, Count: s.Shards}
	default:
		if s.Coordinator != "" {
			return nil, errors.New("coordinator: only a shard (--shard i/N or --shards N) has a coordinator")
		}
		return nil, nil
	}
	return &runner.ShardPlan{Index: share.Index, Count: share.Count, Coordinator: s.Coordinator, RegisterTimeout: s.RegisterTimeout}, nil
}

// shardIndex is this shard's index of n, from the orchestrator's
// environment.
func shardIndex(n int, lookupEnv func(string) (string, bool)) (int, error) {
	if v, ok := lookupEnv(EnvJobIndex); ok {
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= n {
			return 0, fmt.Errorf("shards: %s=%q is not an index from 0 to %d", EnvJobIndex, v, n-1)
		}
		return i, nil
	}
	if v, ok := lookupEnv(EnvSlot); ok {
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 1 || i > n {
			return 0, fmt.Errorf("shards: %s=%q is not a slot from 1 to %d", EnvSlot, v, n)
		}
		return i - 1, nil
	}
	return 0, fmt.Errorf("shards: neither %s nor %s says which of the %d shards this is; give --shard i/%d", EnvJobIndex, EnvSlot, n, n)
}

// BuildSetups applies the shared configuration (URL, credentials, data
// directory, write mode) and the option values (key=value for every setup,
// engine:key=value for one engine's) to the setups; the plan's Validate
// checks the result against each driver.
func BuildSetups(specs []SetupSpec, shared engines.Config, options []string) ([]runner.Setup, error) {
	byEngine, all, err := ParseOptions(options)
	if err != nil {
		return nil, err
	}
	out := make([]runner.Setup, 0, len(specs))
	used := map[string]bool{}
	for _, sp := range specs {
		cfg := shared
		cfg.Options = map[string]string{}
		for _, m := range []map[string]string{sp.Options, all, byEngine[sp.Engine]} {
			for k, v := range m {
				cfg.Options[k] = v
			}
		}
		if len(cfg.Options) == 0 {
			cfg.Options = nil
		}
		used[sp.Engine] = true
		if sp.WriteMode != "" {
			cfg.WriteMode = engines.Visibility(sp.WriteMode)
		}
		out = append(out, runner.Setup{Label: sp.Label, Driver: sp.Engine, Config: cfg})
	}
	for e := range byEngine {
		if !used[e] {
			return nil, fmt.Errorf("option: %s: no setup uses that engine", e)
		}
	}
	return out, nil
}

// ParseOptions reads option values: key=value for every setup, or
// engine:key=value for the setups of one engine.
func ParseOptions(values []string) (byEngine map[string]map[string]string, all map[string]string, err error) {
	byEngine, all = map[string]map[string]string{}, map[string]string{}
	for _, v := range values {
		kv, val, ok := strings.Cut(v, "=")
		if !ok || kv == "" {
			return nil, nil, fmt.Errorf("option: %q is not key=value or engine:key=value", v)
		}
		target := all
		if e, k, scoped := strings.Cut(kv, ":"); scoped {
			if _, err := engines.Lookup(e); err != nil {
				return nil, nil, fmt.Errorf("option %q: %w", v, err)
			}
			if byEngine[e] == nil {
				byEngine[e] = map[string]string{}
			}
			target, kv = byEngine[e], k
		}
		if kv == "" {
			return nil, nil, fmt.Errorf("option: %q names no key", v)
		}
		target[kv] = val
	}
	return byEngine, all, nil
}

// ParseUsers reads user levels: whole numbers, comma-separated. An empty
// item ("10,,20", "2,") is refused, as --mix refuses one: it is a level
// left out by mistake, not a list with nothing there.
func ParseUsers(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("users: at least one level is needed")
	}
	parts, err := SplitList(s)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
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

// SplitList splits a comma-separated list, each item trimmed. An empty
// item ("a,,b", "a,") is an error: something left out by mistake, which
// dropping would hide.
func SplitList(s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if parts[i] = strings.TrimSpace(p); parts[i] == "" {
			return nil, fmt.Errorf("%q has an empty item (item %d)", s, i+1)
		}
	}
	return parts, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// exactQueries is --exact-queries for the library: 0 is none there too.
func exactQueries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

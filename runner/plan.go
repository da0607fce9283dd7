package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// Plan is a whole benchmark: the corpus, the engines (setups), and either
// closed-loop user levels or an open-loop rate ladder. Run checks it with
// Validate before anything starts. The zero values of the optional members
// are usable: no containers are configured, the run is named after the
// time, nothing is checked for relevance.
type Plan struct {
	// Source is the corpus and its queries (corpus.New, or a corpus package's New).
	Source corpus.Source
	// Setups are the engines, one column each, run one after another.
	Setups []Setup
	// Exactly one of Closed (virtual users at each level) and Ladder (an
	// open-loop rate ladder) is set. The calls' settings (mix, timeout,
	// seed, k) are the one's Calls.
	Closed *loops.Config
	Ladder *loops.LadderConfig
	// Launcher starts the engines of setups that neither attach
	// (Config.URL) nor are embedded: container.Launcher{} (package
	// engines/container) runs them in Docker. nil: every setup must attach
	// or be embedded.
	Launcher Launcher
	// Launch configures the engines the Launcher starts (CPU limit,
	// cpuset, memory, image, environment, the run's name).
	Launch launch.Options
	// Relevance is how many known-item searches check recall@k after
	// pre-population (checks.DefaultRelevanceQueries is the CLI's default); 0: none.
	Relevance int
	// Scenario names the scenario file the plan came from, if any; it is
	// recorded in the result.
	Scenario string
	// Sweep, when set, runs each setup's load once per value of its
	// search-time knob, on one index (see Sweep).
	Sweep *Sweep
	// Shard, when set, makes this run one share of a run split over
	// several load generators (see ShardPlan).
	Shard *ShardPlan
}

// ShardPlan is this process's place in a run split over several load
// generators (shards) that drive one shared engine. Shard Index of Count
// sends its exact share of the load (runner/shard: users split with their
// global indices, open-loop arrivals k with k%Count == Index); only shard
// 0 creates, pre-populates and checks the index. With a Coordinator the
// shards register with it and start each level (each rung repetition, and
// the first load after shard 0's pre-population) together; without one
// they run unsynchronised, and shard 0's preparation must be over before
// the others start. Each shard's result is merged with result.Merge.
type ShardPlan struct {
	Index, Count int
	// Coordinator is the coordinator's HOST:PORT (searchbench coordinate).
	Coordinator string
	// RegisterTimeout bounds how long the shard tries to reach the
	// coordinator and waits for every shard to register (0: the
	// default, shard.DefaultRegisterTimeout).
	RegisterTimeout time.Duration
}

// Share is the shard's part of the load.
func (s *ShardPlan) Share() shard.Share {
	if s == nil {
		return shard.Share{}
	}
	return shard.Share{Index: s.Index, Count: s.Count}
}

// validate checks the shard's place and its coordinator's address.
func (s *ShardPlan) validate() error {
	if s == nil {
		return nil
	}
	if s.Count < 1 {
		return field.New("Count", "shard", "%d shards; at least 1 is needed", s.Count)
	}
	if err := s.Share().Validate(); err != nil {
		return err
	}
	if s.RegisterTimeout < 0 {
		return field.New("RegisterTimeout", "register-timeout", "%v must be ≥ 0", s.RegisterTimeout)
	}
	if s.Coordinator != "" {
		host, port, err := net.SplitHostPort(s.Coordinator)
		if err != nil || host == "" {
			return field.New("Coordinator", "coordinator", "%q is not HOST:PORT", s.Coordinator)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return field.New("Coordinator", "coordinator", "%q: the port must be 1 to 65535", s.Coordinator)
		}
	}
	return nil
}

// Digest identifies what every shard of a run must agree on: the corpus
// (as the result's provenance names it: its query mix too),
// the setups (not their addresses or credentials, which may be spelt
// differently on each machine), the loop and its settings, the relevance
// check and the shard count. The coordinator refuses a shard whose digest
// differs from the others', naming the fields that differ (DigestFields).
func (p Plan) Digest() string {
	sum := sha256.Sum256(p.digestJSON())
	return hex.EncodeToString(sum[:8])
}

// DigestFields are the digest by field: each value the digest covers, by
// its path in it ("Closed.Measure", "Setups[1].Options.pool"), as a short
// hash. A shard sends them with its digest, so that the coordinator can say
// which settings another shard's plan differs in, as merge does, without
// either plan's values crossing the network.
func (p Plan) DigestFields() map[string]string {
	dec := json.NewDecoder(bytes.NewReader(p.digestJSON()))
	dec.UseNumber() // the numbers as written, not rounded through float64
	var v any
	_ = dec.Decode(&v) // digestJSON's own output: it decodes
	out := map[string]string{}
	flattenDigest("", v, out)
	return out
}

// flattenDigest hashes each leaf of v (a value, or a list of values) under
// its path; objects and lists of objects are walked.
func flattenDigest(path string, v any, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flattenDigest(join(k), e, out)
		}
		return
	case []any:
		if slices.ContainsFunc(x, func(e any) bool { _, ok := e.(map[string]any); return ok }) {
			for i, e := range x {
				flattenDigest(fmt.Sprintf("%s[%d]", path, i), e, out)
			}
			return
		}
	}
	b, _ := json.Marshal(v) // decoded JSON: it encodes
	sum := sha256.Sum256(b)
	out[path] = hex.EncodeToString(sum[:4])
}

// digestJSON is what Digest hashes.
func (p Plan) digestJSON() []byte {
	type setup struct {
		Label, Driver, WriteMode string
		Options                  map[string]string
	}
	// The source is what merge compares in the results' corpus (the
	// generator, seeds, fractions and query mix from which the hash
	// follows), so that shards merge cannot join are refused at
	// registration, before any load, and not after the run.
	type source struct {
		Schema            engines.Schema
		IDs, Prepopulated int
		Generator         string
		Seed              uint64
		Prepopulate       float64
		Queries           string
		Hash              string `json:",omitempty"` // a source of another package's
	}
	d := struct {
		Source            *source
		Setups            []setup
		Closed            *loops.Config
		Ladder            *loops.LadderConfig
		Sweep             *Sweep `json:",omitempty"`
		Relevance, Shards int
		Scenario          string
		// Histogram is what the histograms hold, this version's: merge
		// refuses histograms of another kind.
		Histogram string
	}{Sweep: p.Sweep, Relevance: p.Relevance, Scenario: p.Scenario, Shards: p.Shard.Share().Count, Histogram: record.HistogramNote}
	if p.Source != nil {
		c := corpus.Identity(p.Source)
		d.Source = &source{p.Source.Schema(), p.Source.IDs(), p.Source.PrepopulatedCount(), c.Generator, c.Seed, c.Prepopulate, c.Queries, c.Hash}
	}
	for _, s := range p.Setups {
		d.Setups = append(d.Setups, setup{s.Name(), s.Driver, string(s.Config.WriteMode), s.Config.Options})
	}
	// The shard's own index is the one thing the shards differ in.
	if p.Closed != nil {
		c := *p.Closed
		c.Share = shard.Share{}
		d.Closed = &c
	}
	if p.Ladder != nil {
		l := *p.Ladder
		l.Open.Share = shard.Share{}
		d.Ladder = &l
	}
	b, _ := json.Marshal(d) // plain data: it cannot fail
	return b
}

// Setup is one column of the tables: a driver with its own configuration.
// Several setups may use the same driver (Study B runs Valkey with 0, 1, 2
// and 4 indexes), and each gets its own engine: its own container, or the
// same attached one recreated.
type Setup struct {
	// Label is the column heading, unique in the plan. Empty: the driver's
	// name, followed by the write mode when one is asked for.
	Label string
	// Driver is a registered engine name (engines.Drivers).
	Driver string
	// Config is the engine's address, credentials, data directory, write
	// mode and driver options.
	Config engines.Config
}

// Name is the setup's label as the result and the tables show it.
func (s Setup) Name() string {
	if s.Label != "" {
		return s.Label
	}
	if s.Config.WriteMode != "" {
		return s.Driver + " (" + string(s.Config.WriteMode) + ")"
	}
	return s.Driver
}

// DefaultReadyTimeout is how long a container may take to become ready when
// the plan's Launch does not say.
const DefaultReadyTimeout = 2 * time.Minute

// Calls are the calls' settings (mix, timeout, seed, k) of whichever loop the
// plan runs.
func (p Plan) Calls() loops.Calls {
	if p.Closed != nil {
		return p.Closed.Calls
	}
	if p.Ladder != nil {
		return p.Ladder.Open.Calls
	}
	return loops.Calls{}
}

// withDefaults fills what a library caller may leave out.
func (p Plan) withDefaults(now time.Time) Plan {
	if p.Launch.ReadyTimeout == 0 {
		p.Launch.ReadyTimeout = DefaultReadyTimeout
	}
	if p.Launch.Run == "" {
		p.Launch.Run = "run-" + now.UTC().Format("20060102T150405")
	}
	return p
}

// Validate reports the first thing wrong with the plan, in one line: a
// *field.Error naming the field at fault as a Go program sets it
// ("Plan.Closed.SpawnRate: 0 must be > 0"; its Setting says it as the CLI's
// flags name it). Everything that can be checked without starting an
// engine is checked here, so a mistake is found before a container starts
// or an hour is measured.
func (p Plan) Validate() error {
	return field.In("Plan", p.withDefaults(time.Now()).validate())
}

func (p Plan) validate() error {
	if err := checkSource(p.Source); err != nil {
		return err
	}
	switch {
	case p.Closed == nil && p.Ladder == nil:
		return field.New("Closed", "", "a closed loop (Closed: users) or a ladder (Ladder) is needed")
	case p.Closed != nil && p.Ladder != nil:
		return field.New("Ladder", "", "a closed loop (Closed) and a ladder cannot both be set")
	case p.Relevance < 0 || p.Relevance > 100_000:
		return field.New("Relevance", "relevance-queries", "%d is out of range (0 to 100000)", p.Relevance)
	}
	if p.Closed != nil {
		if err := p.Closed.Validate(); err != nil {
			return field.In("Closed", err)
		}
	} else if err := p.Ladder.Validate(); err != nil {
		return field.In("Ladder", err)
	}
	if p.Sweep != nil {
		if err := p.Sweep.validate(p); err != nil {
			return field.In("Sweep", err)
		}
	}
	if err := p.checkLaunch(); err != nil {
		return field.In("Launch", err)
	}
	if err := p.Shard.validate(); err != nil {
		return field.In("Shard", err)
	}
	return p.validateSetups()
}

// checkLaunch checks the launch options: the launcher's own checks when
// the plan has one. Without one nothing is launched, and a setup that
// would need it is refused (validateSetup).
func (p Plan) checkLaunch() error {
	if err := p.Launch.Validate(); err != nil {
		return err
	}
	if p.Launcher == nil {
		return nil
	}
	return p.Launcher.Check(p.Launch)
}

// checkSource refuses a source that Run could not use: none, a typed nil
// (a nil *T in the interface is not == nil, and its methods would panic
// inside Run), or a value whose methods panic (a zero Text, with no corpus
// in it).
func checkSource(src corpus.Source) (err error) {
	if src == nil {
		return field.New("Source", "corpus", "a source is needed (corpus.New)")
	}
	if isNil(src) {
		return field.New("Source", "corpus", "a nil %T; make one with corpus.New", src)
	}
	defer func() {
		if r := recover(); r != nil {
			err = field.New("Source", "corpus", "a %T that cannot be used (%v); make one with corpus.New", src, r)
		}
	}()
	if src.IDs() < 1 {
		return field.New("Source", "corpus", "%T has no IDs", src)
	}
	_ = src.Schema()
	return nil
}

// validateSetups checks each setup against its driver and the launch
// options: what the driver accepts (its options, write mode and the
// corpus's schema), what a container can honour, and what an embedded
// engine cannot be given.
func (p Plan) validateSetups() error {
	if len(p.Setups) == 0 {
		return field.New("Setups", "engine", "at least one engine is needed")
	}
	labels := map[string]bool{}
	servedBy := map[string]string{} // attached URL → the driver it serves
	for i, s := range p.Setups {
		if err := p.validateSetup(s, labels, servedBy); err != nil {
			return field.In(fmt.Sprintf("Setups[%d]", i), err)
		}
	}
	return nil
}

// validateSetup checks one setup; labels and servedBy are the earlier
// setups' labels and attached URLs.
func (p Plan) validateSetup(s Setup, labels map[string]bool, servedBy map[string]string) error {
	d, err := engines.Lookup(s.Driver)
	if err != nil {
		return &field.Error{Field: "Driver", Flag: "engine", Err: err}
	}
	cfg := s.Config
	// One attached engine serves several setups of its driver, each
	// recreating its index there in turn (Study B's setups on one
	// server); two drivers cannot share one address.
	if other, ok := servedBy[cfg.URL]; ok && cfg.URL != "" && other != s.Driver {
		return field.New("Config.URL", "url", "one --url cannot serve both %s and %s; run them one at a time", other, s.Driver)
	}
	servedBy[cfg.URL] = s.Driver
	label := s.Name()
	if labels[label] {
		return field.New("Label", "engine", "%q is listed twice; give each setup its own label", label)
	}
	labels[label] = true
	if err := engines.CheckConfig(s.Driver, cfg); err != nil {
		if label != s.Driver { // the driver's errors name it already
			err = fmt.Errorf("%s: %w", label, err)
		}
		return field.In("Config", err)
	}
	// The corpus's fields, as Create will ask for them: Study B's product
	// corpus needs tags, numbers and a vector that text-only engines refuse.
	schema := p.Source.Schema()
	if err := engines.CheckSchema(s.Driver, cfg, schema); err != nil {
		why := err
		if se := (*engines.SchemaError)(nil); errors.As(err, &se) {
			why = se.Err // the message names the setup already
		}
		return &field.Error{Field: "Driver", Flag: "corpus", Err: err,
			Msg: fmt.Sprintf("%s cannot index the %q schema: %v", label, schema.Name, why)}
	}
	if err := p.Calls().Mix.Check(s.Driver, d.Describe()); err != nil {
		return field.In("Driver", err)
	}
	if err := p.checkQueries(s, label, schema); err != nil {
		return err
	}
	var secretEnv string
	launchable := false
	if p.Launcher != nil {
		secretEnv, launchable = p.Launcher.Launches(s.Driver)
	}
	if _, ok := p.Launch.Env[secretEnv]; ok && launchable && secretEnv != "" {
		return field.New("Driver", "container-env", "%s holds the credential the launcher generates for %s; it cannot be set", secretEnv, s.Driver)
	}
	return p.validatePlace(s, d.Describe().Embedded, launchable)
}

// kindSampler is a source of several query kinds, with a sample of each
// the mix draws (Products).
type kindSampler interface {
	KindSamples() map[string]engines.Query
}

// checkQueries asks setup s's driver whether it can answer each kind of
// query the mix draws (engines.CheckQuery), when the mix searches: a kind
// an engine lacks is refused before anything starts, never at the first
// call.
func (p Plan) checkQueries(s Setup, label string, schema engines.Schema) error {
	ks, ok := p.Source.(kindSampler)
	if !ok || p.Calls().Mix.Fraction(workload.Search) == 0 {
		return nil
	}
	samples := ks.KindSamples()
	for _, kind := range slices.Sorted(maps.Keys(samples)) {
		q := samples[kind]
		p.Calls().Ask().Apply(&q)
		if err := engines.CheckQuery(s.Driver, s.Config, schema, q); err != nil {
			return &field.Error{Field: "Source", Flag: "queries", Err: err,
				Msg: fmt.Sprintf("%s cannot run %s queries (%s): %v", label, kind, q.Shape(), err)}
		}
	}
	return nil
}

// validatePlace checks where setup s's engine runs against what it is
// given: an embedded engine runs in this process, an attached one where
// Config.URL says, any other where the Launcher starts it (launchable:
// the Launcher can).
func (p Plan) validatePlace(s Setup, embedded, launchable bool) error {
	cfg, label := s.Config, s.Name()
	switch given := p.Launch.Given(); {
	case embedded && cfg.URL != "":
		return field.New("Config.URL", "url", "%s is embedded and runs in this process; there is nothing to attach to", s.Driver)
	case embedded && cfg.Username != "":
		return field.New("Config.Username", "username", "%s is embedded and runs in this process; it has no users", s.Driver)
	case embedded && cfg.Password != "":
		return field.New("Config.Password", "password", "%s is embedded and runs in this process; it has no password", s.Driver)
	case embedded && cfg.APIKey != "":
		return field.New("Config.APIKey", "api-key", "%s is embedded and runs in this process; it has no API key", s.Driver)
	case !embedded && cfg.DataDir != "":
		return field.New("Config.DataDir", "data-dir", "%s is not embedded; its index lives in its server", s.Driver)
	case embedded && given != "":
		return field.New("Driver", given, "%s is embedded and runs in this process, not in a container", s.Driver)
	case !embedded && cfg.URL == "" && p.Launcher != nil && !launchable:
		return field.New("Config.URL", "engine", "%s has no container definition; give --url of a running one", s.Driver)
	case cfg.URL != "" && given != "":
		return field.New("Config.URL", given, "--url attaches to a running engine; nothing is started to configure")
	case p.Shard != nil && cfg.URL == "":
		// Each shard would start its own engine and load it, and the
		// merged result would describe no engine at all.
		return field.New("Config.URL", "shard", "the shards of a run share one engine, attached by --url; %s would run its own in every shard", label)
	case !embedded && cfg.URL == "" && p.Launcher == nil:
		return field.New("Config.URL", "url", "%s runs in a container and the plan has no Launcher to start it: set Plan.Launcher (container.Launcher{} of engines/container runs it in Docker), or loops.Config.URL to attach to a running one", s.Driver)
	}
	if cfg.DataDir != "" {
		if err := CheckDir(cfg.DataDir, false); err != nil {
			return &field.Error{Field: "Config.DataDir", Flag: "data-dir", Err: err}
		}
	}
	return nil
}

// CheckDir checks that a directory can be used at path. With write set it
// must be one this process can make and write in (see checkWritableDir);
// without, it is one, or the nearest part of the path that exists is one
// (an engine's data directory, which the engine makes).
func CheckDir(path string, write bool) error {
	if write {
		return checkWritableDir(path)
	}
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && p != filepath.Dir(p):
			continue
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		}
		return nil
	}
}

// isNil says whether v is nil or an interface holding a nil pointer (or
// map, slice, func, channel): a typed nil compares unequal to nil, and
// calling its methods panics.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return r.IsNil()
	}
	return false
}

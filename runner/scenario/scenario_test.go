package scenario_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/searchbench/searchbench/dataset"
	_ "github.com/searchbench/searchbench/engines/all"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/scenario"
	"github.com/searchbench/searchbench/workload/corpus"
)

// docker is the CLI's launcher: the scenarios' servers run in Docker.
var docker = container.Launcher{}

// Every shipped scenario decodes into a plan a Go program can run: its
// setups as the file lists them, the loop of its command, the file's
// values; a setting given beside the file wins over it.
func TestShippedScenariosDecodeIntoPlans(t *testing.T) {
	names, err := scenario.Shipped()
	if err != nil || len(names) == 0 {
		t.Fatalf("shipped: %v %v", names, err)
	}
	for _, name := range names {
		f, err := scenario.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		// This host may have fewer CPUs than the study's limit.
		p, err := scenario.Decode(name, docker, "cpus=0", "seed=7")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if (f.Command == scenario.Run) != (p.Closed != nil) || (f.Command == scenario.Ladder) != (p.Ladder != nil) {
			t.Errorf("%s: a %s scenario gave closed %v, ladder %v", name, f.Command, p.Closed != nil, p.Ladder != nil)
		}
		if len(p.Setups) != len(f.Setups) {
			t.Fatalf("%s: %d setups, the file has %d", name, len(p.Setups), len(f.Setups))
		}
		for i, s := range p.Setups {
			if s.Driver != f.Setups[i].Engine || (f.Setups[i].Label != "" && s.Name() != f.Setups[i].Label) {
				t.Errorf("%s: setup %d is %s %q, the file's %+v", name, i, s.Driver, s.Name(), f.Setups[i])
			}
		}
		if p.Launch.CPUs != 0 || p.Calls().Seed != 7 || p.Scenario != name {
			t.Errorf("%s: cpus %v, seed %d, scenario %q: the settings given did not win", name, p.Launch.CPUs, p.Calls().Seed, p.Scenario)
		}
	}
	// Without the override the file's own value is read: the study's limit.
	p, err := scenario.Decode("study-a-8cpu", docker, "measure=5s")
	if err == nil {
		if p.Launch.CPUs != 8 {
			t.Errorf("study-a-8cpu: CPU limit %v, want the file's 8", p.Launch.CPUs)
		}
	} else if !strings.HasPrefix(err.Error(), "scenario study-a-8cpu: cpus: 8 is more than this host's") {
		t.Errorf("study-a-8cpu: %v", err)
	}
}

func TestDecodeBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
		want string
	}{
		{"no-such-scenario", nil, "scenario: \"no-such-scenario\" is neither a file nor a shipped scenario"},
		{"embedded-smoke", []string{"users"}, `"users" is not setting=value`},
		{"embedded-smoke", []string{"users=x"}, `users: "x" is not a whole number`},
		{"embedded-smoke", []string{"nosuch=1"}, "nosuch: "},
	} {
		if _, err := scenario.Decode(c.name, docker, c.set...); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: %v; want one line starting %q", c.name, c.set, err, c.want)
		}
	}
}

// known-items is a setting of both commands: 1% unless given, a file's or
// a flag's value in the plan's calls.
func TestKnownItemsSetting(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want float64
	}{
		{"embedded-smoke", nil, 0.01},
		{"embedded-smoke", []string{"known-items=0.2"}, 0.2},
		{"embedded-smoke", []string{"known-items=0"}, 0},
		{"valkey-idle-indexes", []string{"known-items=0.05", "cpus=0"}, 0.05},
	} {
		p, err := scenario.Decode(c.name, docker, c.args...)
		if err != nil {
			t.Fatalf("%s %q: %v", c.name, c.args, err)
		}
		if got := p.Calls().Known.Fraction; got != c.want {
			t.Errorf("%s %q: known-items %v; want %v", c.name, c.args, got, c.want)
		}
		// The library's zero Fraction is the default share; 0 here is off.
		if off := p.Calls().Known.Off; off != (c.want == 0) {
			t.Errorf("%s %q: known items off %v; want %v", c.name, c.args, off, c.want == 0)
		}
	}
	if _, err := scenario.Decode("embedded-smoke", docker, "known-items=1.5"); err == nil || !strings.HasPrefix(err.Error(), "known-items:") {
		t.Errorf("known-items=1.5: %v; want a known-items error", err)
	}
}

// A level left empty is a mistake, as an empty weight is in --mix: the
// list used to drop it ("10,,20" ran 10 and 20, "2," ran 2).
func TestUsersWithAnEmptyLevelAreRefused(t *testing.T) {
	for _, bad := range []string{"10,,20", "2,", ",5", " , "} {
		if u, err := scenario.ParseUsers(bad); err == nil || !strings.HasPrefix(err.Error(), "users: ") {
			t.Errorf("%q: %v, %v; want a users error", bad, u, err)
		}
	}
	if u, err := scenario.ParseUsers(" 10, 20 "); err != nil || len(u) != 2 || u[0] != 10 || u[1] != 20 {
		t.Errorf("\" 10, 20 \": %v, %v", u, err)
	}
}

// A setups error says where in the file and what a setup looks like, not
// which Go type the YAML decoder was filling, at a line of a copy.
func TestSetupsErrorsPointIntoTheFile(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"command: run\nsetups:\n  - bleve\n", "line 3: setups: item 1 must be a mapping such as {engine: NAME"},
		{"command: run\nusers: 2\nsetups:\n  - {engine: bleve}\n  - {engine: bleve, colour: red}\n", "line 5: setups: item 2: field colour not found"},
		{"command: run\nsetups:\n  - engine: bleve\n    write_mode: [a]\n", "line 4: setups: item 1: write_mode must be a value"},
		{"command: run\nsetups:\n  - {engine: valkey, options: [a]}\n", "line 3: setups: item 1: options must be a mapping"},
		{"command: run\nsetups:\n  - {engine: valkey, engine: bleve}\n", "line 3: setups: item 1: engine is given twice"},
	} {
		_, err := scenario.Parse([]byte(c.body))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "scenario.") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line starting %q", c.body, err, c.want)
		}
	}
	f, err := scenario.Parse([]byte("command: run\nsetups:\n  - {engine: valkey, label: two, write_mode: searchable, options: {matching_indexes: 2}}\n"))
	want := scenario.SetupSpec{Engine: "valkey", Label: "two", WriteMode: "searchable", Options: map[string]string{"matching_indexes": "2"}}
	if err != nil || !reflect.DeepEqual(f.Setups, []scenario.SetupSpec{want}) {
		t.Errorf("a whole setup: %+v, %v", f, err)
	}
}

// A value the file gave and the plan refuses is named with the file, as a
// value the flag parser refuses was; the same value given beside the file
// is the command line's.
func TestAValueFromTheFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("command: run\nusers: \"10,,20\"\nspawn-rate: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Decode(path, docker, "spawn-rate=5"); err == nil || !strings.HasPrefix(err.Error(), "scenario "+path+": users: ") {
		t.Errorf("users from the file: %v; want it named with the file", err)
	}
	if _, err := scenario.Decode(path, docker, "users=10"); err == nil || err.Error() != "scenario "+path+": spawn-rate: 0 must be > 0" {
		t.Errorf("spawn-rate from the file: %v; want it named with the file", err)
	}
	if _, err := scenario.Decode(path, docker, "users=10", "spawn-rate=-1"); err == nil || err.Error() != "spawn-rate: -1 must be > 0" {
		t.Errorf("spawn-rate given beside the file: %v", err)
	}
}

// The environment's credentials go to the servers only: an embedded
// engine is refused a credential given to it, not one in the environment.
func TestCredentialsAndTheEmbeddedEngine(t *testing.T) {
	t.Setenv("SEARCHBENCH_PASSWORD", "from-env")
	t.Setenv("SEARCHBENCH_API_KEY", "key-from-env")
	if _, err := scenario.Decode("embedded-smoke", docker); err != nil {
		t.Errorf("bleve with SEARCHBENCH_PASSWORD set: %v", err)
	}
	if _, err := scenario.Decode("embedded-smoke", docker, "password=x"); err == nil || !strings.HasPrefix(err.Error(), "password: bleve is embedded") {
		t.Errorf("bleve with --password: %v; want a password error", err)
	}
	p, err := scenario.Decode("valkey-idle-indexes", docker, "cpus=0")
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Setups[0].Config; c.Password.Reveal() != "from-env" || c.APIKey.Reveal() != "key-from-env" {
		t.Errorf("valkey's credentials %q %q; want the environment's", c.Password.Reveal(), c.APIKey.Reveal())
	}
}

// A scenario's interval is the timeline's: given, it reaches the plan; out
// of range, it is refused naming the file.
func TestIntervalSetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("command: run\nusers: 2\nmeasure: 2s\ninterval: 500ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Decode(path, docker)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Calls().Interval; got != 500*time.Millisecond {
		t.Errorf("interval %v; want the file's 500ms", got)
	}
	if _, err := scenario.Decode(path, docker, "interval=3s"); err == nil || err.Error() != "interval: 3s is longer than the window it cuts (measure 2s)" {
		t.Errorf("interval=3s: %v", err)
	}
	if err := os.WriteFile(path, []byte("command: ladder\nduration: 1s\ninterval: 50ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Decode(path, docker); err == nil || err.Error() != "scenario "+path+": interval: 50ms is shorter than 100ms, the shortest interval recorded" {
		t.Errorf("a ladder's interval 50ms: %v", err)
	}
	if _, err := scenario.Decode(path, docker, "interval=2s"); err == nil || err.Error() != "interval: 2s is longer than the window it cuts (duration 1s)" {
		t.Errorf("a ladder's interval 2s: %v", err)
	}
}

// Input that was accepted and then ignored or read as something else: an
// empty query mix ran the default one, exact-answer checks on the text
// corpus (which has no exact answers) were dropped, an interval of 0 ran
// the default though the help says at least 100ms. Each is now refused,
// in one line naming the setting.
func TestSettingsGivenButIgnoredAreRefused(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"corpus=product", "queries="}, "queries: an empty mix of query kinds"},
		{[]string{"corpus=product", "queries= "}, "queries: an empty mix of query kinds"},
		{[]string{"exact-queries=5"}, "exact-queries: only the product corpus has exact answers"},
		{[]string{"exact-queries=0"}, "exact-queries: only the product corpus has exact answers"},
		{[]string{"interval=0"}, "interval: 0s is shorter than 100ms"},
		{[]string{"interval=0s"}, "interval: 0s is shorter than 100ms"},
	} {
		_, err := scenario.Decode("embedded-smoke", docker, c.set...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line starting %q", c.set, err, c.want)
		}
	}
	// Not given, each keeps its default.
	if _, err := scenario.Decode("embedded-smoke", docker); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// A scenario carries the settings of the run, not the command line's own
// flags: a file's live: key opened a listener (the CLI registers --live on
// the flag set the file is applied to). Any key that is not a setting is
// refused, naming the file and the key.
func TestAScenarioCannotSetTheCommandLinesOwnFlags(t *testing.T) {
	for _, key := range []string{"live: 127.0.0.1:0", "force: true"} {
		f, err := scenario.Parse([]byte("command: run\nusers: 2\n" + key + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		f.Name = "s.yaml"
		var s scenario.Settings
		fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
		s.Register(fl, scenario.Run)
		var live string
		var force bool
		fl.StringVar(&live, "live", "", "the CLI's")
		fl.BoolVar(&force, "force", false, "the CLI's")
		name, _, _ := strings.Cut(key, ":")
		want := "scenario s.yaml: " + name + " is not a scenario setting"
		if err := f.Apply(&s); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v; want an error starting %q", key, err, want)
		}
		if live != "" || force {
			t.Errorf("%q: the flag was set (live %q, force %v)", key, live, force)
		}
	}
}

// --queries' help names every kind of dataset's table and the default mix,
// and every kind it names parses: the help is the table's, not a list that
// a new kind leaves behind.
func TestQueriesHelpNamesTheTable(t *testing.T) {
	var s scenario.Settings
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	s.Register(fl, "run")
	help := fl.Lookup("queries").Usage
	for _, k := range dataset.ProductQueryKinds() {
		if !strings.Contains(help, k+",") && !strings.Contains(help, k+";") {
			t.Errorf("--queries help %q does not name %s", help, k)
		}
		if _, err := dataset.ParseQueryMix(k + "=1"); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if !strings.Contains(help, "default "+dataset.DefaultQueryMix.String()) {
		t.Errorf("--queries help %q does not state the default mix", help)
	}
}

// A scenario file holds a sweep as the command line does (sweep,
// sweep-load), and a value of it out of the engine's range is the file's
// fault, named with it.
func TestScenarioHoldsASweep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	file := "command: run\nengine: postgres\ncorpus: product\nids: 1000\nusers: 4\nsweep: hnsw.ef_search=10,40\nsweep-load: search\n"
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Decode(path, docker)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Sweep; s == nil || s.Knob != "hnsw.ef_search" || !slices.Equal(s.Values, []int{10, 40}) || s.Load != runner.SweepSearch {
		t.Fatalf("sweep %+v; want hnsw.ef_search 10,40, searches only", s)
	}
	if _, err := scenario.Decode(path, docker, "sweep=10,4000"); err == nil || err.Error() != "sweep: postgres: hnsw.ef_search=4000: must be from 1 to 1000" {
		t.Errorf("sweep beside the file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("command: run\nengine: postgres\ncorpus: product\nusers: 4\nsweep: 0,1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Decode(bad, docker); err == nil || !strings.HasPrefix(err.Error(), "scenario "+bad+": sweep: ") {
		t.Errorf("sweep from the file: %v; want it named with the file", err)
	}
}

// --vectors makes the product corpus of an embedding file: its IDs are the
// file's train count unless --ids says fewer, its dimension the file's;
// with the text corpus, with --dim, or naming a file that is not one, it
// is bad input in one line.
func TestVectorsSetting(t *testing.T) {
	const h5 = "../../dataset/vectorfile/testdata/angular.hdf5"
	plan := func(args ...string) (runner.Plan, error) {
		var s scenario.Settings
		fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
		s.Register(fl, scenario.Run)
		if err := fl.Parse(append([]string{"--engine", "postgres", "--url", "postgres://u@127.0.0.1:5432/db"}, args...)); err != nil {
			return runner.Plan{}, err
		}
		return s.Plan(docker)
	}
	p, err := plan("--corpus", "product", "--vectors", h5)
	if err != nil {
		t.Fatal(err)
	}
	prov := corpus.Identity(p.Source)
	if p.Source.IDs() != 1000 || p.Source.Schema().Fields[5].Dim != 32 || !strings.Contains(prov.Generator, "angular.hdf5") {
		t.Errorf("corpus of %d IDs, schema %+v, generator %q; want the file's 1,000 × 32, named", p.Source.IDs(), p.Source.Schema(), prov.Generator)
	}
	if p, err := plan("--corpus", "product", "--vectors", h5, "--ids", "500"); err != nil || p.Source.IDs() != 500 {
		t.Errorf("--ids 500: %v", err)
	}
	// The formats that need more than the path: an fvecs base with its
	// queries and truth, a Parquet folder, each with its distance.
	const dir = "../../dataset/vectorfile/testdata/"
	for _, args := range [][]string{
		{"--vectors", dir + "base.fvecs", "--vectors-queries", dir + "query.fvecs", "--vectors-truth", dir + "groundtruth.ivecs", "--vectors-distance", "angular"},
		{"--vectors", dir + "train.parquet", "--vectors-distance", "angular"},
	} {
		p, err := plan(append([]string{"--corpus", "product"}, args...)...)
		if err != nil || p.Source.IDs() != 1000 || p.Source.Schema().Fields[5].Dim != 32 {
			t.Errorf("%q: %v", args, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vectors", h5}, "vectors: only the product corpus has embeddings"},
		{[]string{"--corpus", "product", "--vectors", h5, "--dim", "32"}, "dim: the embedding file gives the dimension"},
		{[]string{"--corpus", "product", "--vectors", h5, "--ids", "1001"}, "vectorfile:"},
		{[]string{"--corpus", "product", "--vectors", "scenario_test.go"}, "vectorfile:"},
		{[]string{"--corpus", "product", "--vectors", dir + "base.fvecs"}, "vectorfile:"},
		{[]string{"--corpus", "product", "--vectors", dir + "train.parquet"}, "vectorfile:"},
		{[]string{"--corpus", "product", "--vectors-distance", "angular"}, "vectors-queries, vectors-truth, vectors-distance:"},
	} {
		_, err := plan(c.args...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line starting %q", c.args, err, c.want)
		}
	}
}

package scenario_test

import (
	"strings"
	"testing"

	_ "github.com/searchbench/searchbench/engines/all"
	"github.com/searchbench/searchbench/runner/scenario"
)

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
		p, err := scenario.Decode(name, "cpus=0", "seed=7")
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
	p, err := scenario.Decode("study-a-8cpu", "measure=5s")
	if err == nil {
		if p.Launch.CPUs != 8 {
			t.Errorf("study-a-8cpu: CPU limit %v, want the file's 8", p.Launch.CPUs)
		}
	} else if !strings.HasPrefix(err.Error(), "cpus: 8 is more than this host's") {
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
		if _, err := scenario.Decode(c.name, c.set...); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
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
		p, err := scenario.Decode(c.name, c.args...)
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
	if _, err := scenario.Decode("embedded-smoke", "known-items=1.5"); err == nil || !strings.HasPrefix(err.Error(), "known-items:") {
		t.Errorf("known-items=1.5: %v; want a known-items error", err)
	}
}

// The environment's credentials go to the servers only: an embedded
// engine is refused a credential given to it, not one in the environment.
func TestCredentialsAndTheEmbeddedEngine(t *testing.T) {
	t.Setenv("SEARCHBENCH_PASSWORD", "from-env")
	t.Setenv("SEARCHBENCH_API_KEY", "key-from-env")
	if _, err := scenario.Decode("embedded-smoke"); err != nil {
		t.Errorf("bleve with SEARCHBENCH_PASSWORD set: %v", err)
	}
	if _, err := scenario.Decode("embedded-smoke", "password=x"); err == nil || !strings.HasPrefix(err.Error(), "password: bleve is embedded") {
		t.Errorf("bleve with --password: %v; want a password error", err)
	}
	p, err := scenario.Decode("valkey-idle-indexes", "cpus=0")
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Setups[0].Config; c.Password.Reveal() != "from-env" || c.APIKey.Reveal() != "key-from-env" {
		t.Errorf("valkey's credentials %q %q; want the environment's", c.Password.Reveal(), c.APIKey.Reveal())
	}
}

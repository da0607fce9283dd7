package scenario_test

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/scenario"
)

// plan parses a run's command line as the CLI does.
func plan(t *testing.T, args ...string) (runner.Plan, error) {
	t.Helper()
	var s scenario.Settings
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	s.Register(fl, scenario.Run)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	return s.Plan(docker)
}

func TestShardSettings(t *testing.T) {
	attached := []string{"--engine", "meilisearch", "--url", "http://127.0.0.1:21900", "--users", "10"}
	t.Setenv(scenario.EnvJobIndex, "")
	t.Setenv(scenario.EnvSlot, "")
	for _, c := range []struct {
		args       []string
		env        map[string]string
		index, n   int
		coordinate string
		err        string
	}{
		{args: []string{"--shard", "1/3", "--coordinator", "coord:21901"}, index: 1, n: 3, coordinate: "coord:21901"},
		{args: []string{"--shards", "4"}, env: map[string]string{scenario.EnvJobIndex: "3"}, index: 3, n: 4},
		{args: []string{"--shards", "4"}, env: map[string]string{scenario.EnvSlot: "1"}, index: 0, n: 4},
		// A Kubernetes index wins over a slot.
		{args: []string{"--shards", "4"}, env: map[string]string{scenario.EnvJobIndex: "2", scenario.EnvSlot: "4"}, index: 2, n: 4},
		{args: []string{"--shards", "4"}, env: map[string]string{scenario.EnvSlot: "5"}, err: "shards: SEARCHBENCH_SHARD_SLOT=\"5\" is not a slot from 1 to 4"},
		{args: []string{"--shards", "4"}, env: map[string]string{scenario.EnvJobIndex: "x"}, err: "shards: JOB_COMPLETION_INDEX=\"x\" is not an index"},
		{args: []string{"--shards", "4"}, err: "shards: neither JOB_COMPLETION_INDEX nor SEARCHBENCH_SHARD_SLOT"},
		{args: []string{"--shard", "1/3", "--shards", "4"}, err: "shards: --shard 1/3 and --shards 4 both say which shard this is"},
		// Agreeing counts too: --shards takes the index from the
		// environment, which --shard would silently overrule.
		{args: []string{"--shard", "0/3", "--shards", "3"}, env: map[string]string{scenario.EnvJobIndex: "2"}, err: "shards: --shard 0/3 and --shards 3 both say which shard this is"},
		{args: []string{"--shard", "3/3"}, err: "shard: index 3 is out of range"},
		{args: []string{"--shard", "x"}, err: "shard: \"x\" is not i/N"},
		{args: []string{"--coordinator", "coord:21901"}, err: "coordinator: only a shard"},
		{args: []string{"--shard", "0/2", "--coordinator", "coord"}, err: "coordinator: \"coord\" is not HOST:PORT"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if c.env == nil || c.env[scenario.EnvJobIndex] == "" {
				unset(t, scenario.EnvJobIndex)
			}
			if c.env == nil || c.env[scenario.EnvSlot] == "" {
				unset(t, scenario.EnvSlot)
			}
			p, err := plan(t, append(attached, c.args...)...)
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v; want one line starting %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sp := p.Shard; sp == nil || sp.Index != c.index || sp.Count != c.n || sp.Coordinator != c.coordinate {
				t.Errorf("shard %+v; want %d/%d at %q", sp, c.index, c.n, c.coordinate)
			}
		})
	}
	p, err := plan(t, attached...)
	if err != nil || p.Shard != nil {
		t.Errorf("no shard settings: %+v, %v; want an unsharded plan", p.Shard, err)
	}
	if _, err := plan(t, "--shard", "0/2"); err == nil || !strings.HasPrefix(err.Error(), "shard: the shards of a run share one engine") {
		t.Errorf("a sharded embedded engine: %v", err)
	}
}

// unset removes an environment variable for the test (t.Setenv restores
// it afterwards).
func unset(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/scenario"
)

// Every shipped scenario must plan here: each of its fields is a flag of its
// command with a valid value, and its setups name registered engines with
// options their drivers accept. The CPU limit is lifted on the command line
// (this host may have fewer CPUs than the study's limit), which also shows
// the command line winning over the file.
func TestShippedScenariosPlan(t *testing.T) {
	t.Parallel()
	names, err := scenario.Shipped()
	if err != nil || len(names) == 0 {
		t.Fatalf("no shipped scenarios: %v", err)
	}
	for _, name := range names {
		s, err := scenario.Load(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Description == "" || len(s.Setups) == 0 {
			t.Errorf("%s: a shipped scenario needs a description and setups", name)
		}
		code, stdout, stderr := runCLI(t, context.Background(), s.Command, "--scenario", name, "--dry-run", "--cpus", "0")
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		for _, sp := range s.Setups {
			if !strings.Contains(stdout, `setup "`+sp.Label+`": engine `+sp.Engine) {
				t.Errorf("%s: the plan lacks setup %q:\n%s", name, sp.Label, stdout)
			}
		}
	}
}

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScenarioBadInput(t *testing.T) {
	t.Parallel()
	const ok = "command: run\nusers: [2]\n"
	cases := []struct {
		cmd, body, want string
		extra           []string
	}{
		{"run", "users: [2]\n", "command (run or ladder) is missing", nil},
		{"run", "command: walk\n", "command must be run or ladder", nil},
		{"ladder", ok, "is a run scenario", nil},
		{"run", ok + "no-such-flag: 3\n", `unknown field "no-such-flag"`, nil},
		{"run", ok + "measure: ten\n", "measure:", nil},
		{"run", ok + "measure: 0s\n", "measure: 0s must be > 0", nil},
		{"run", ok + "ids: 300\nsettle: 0s\nmeasure: 200ms\ntimeout: 1h\n", "timeout: 1h0m0s is longer than 10m0s", nil},
		{"run", ok + "users: [2]\n", "users is given twice", nil},
		{"run", ok + "password: hunter2\n", "password cannot be set in a scenario file", nil},
		{"run", ok + "url: postgres://u:hunter2@db/x\n", "url holds a password", nil},
		{"run", ok + "url: host=db password=hunter2\n", "url holds a password", nil},
		{"run", ok + "container-env: [TYPESENSE_API_KEY=x]\nsetups: [{engine: typesense}]\n", "holds the credential the launcher generates", nil},
		{"run", ok + "setups: [{engine: bleve}]\nurl: http://x\n", "bleve is embedded", nil},
		{"run", ok + "setups: [{engine: bleve, colour: red}]\n", "field colour not found", nil},
		{"run", ok + "setups: [{label: x}]\n", "item 1 has no engine", nil},
		{"run", ok + "setups: []\n", "setups must be a non-empty list", nil},
		{"run", ok + "setups: [{engine: nosuch}]\n", `unknown engine "nosuch"`, nil},
		{"run", ok + "setups: [{engine: bleve}, {engine: bleve}]\n", `"bleve" is listed twice`, nil},
		{"run", ok + "setups: [{engine: bleve, options: {pool: 3}}]\n", "bleve takes no options", nil},
		{"run", ok + "setups: [{engine: bleve, write_mode: acknowledged}]\n", "bleve has one write mode", nil},
		{"run", ok + "setups: [{engine: bleve}]\n", "--engine cannot be given too", []string{"--engine", "bleve"}},
		{"run", ok + "dim: 8\n", "dim: only the product corpus", nil},
		{"run", "command: run\nusers: {a: 1}\n", "users must be a value or a list", nil},
		{"run", "- just\n- a list\n", "not a mapping", nil},
		{"run", "command: [run\n", "scenario", nil},
	}
	for _, c := range cases {
		p := writeScenario(t, c.body)
		dir := t.TempDir()
		args := append([]string{c.cmd, "--scenario", p, "--out", dir}, c.extra...)
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line containing %q", c.body, code, stderr, c.want)
		}
		if stdout != "" {
			t.Errorf("%q: printed %q", c.body, stdout)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: wrote files; nothing should start", c.body)
		}
	}
	if code, _, stderr := runCLI(t, context.Background(), "run", "--scenario", "no-such-scenario"); code != exitBadInput || !strings.Contains(stderr, "neither a file nor a shipped scenario") {
		t.Errorf("missing scenario: exit %d, %q", code, stderr)
	}
}

// A scenario runs like its command line: the file's flags and setups apply,
// the command line wins, and the result says which scenario it came from.
func TestScenarioRunsOnTheEmbeddedEngine(t *testing.T) {
	t.Parallel()
	p := writeScenario(t, `command: run
description: test
ids: 3000
mix: search=50,upsert=50
users: [7]
spawn-rate: 1000
settle: 100ms
measure: 400ms
setups:
  - {label: "Bleve A", engine: bleve}
  - {label: "Bleve B", engine: bleve}
`)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--scenario", p, "--users", "3", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readResult(t, dir)
	if r.Config.Scenario != p || r.Corpus.IDs != 3000 || r.Config.Mix != "search=50,upsert=50" || len(r.Engines) != 2 {
		t.Fatalf("result config %+v corpus %+v engines %d; want the file's values", r.Config, r.Corpus, len(r.Engines))
	}
	for i, label := range []string{"Bleve A", "Bleve B"} {
		e := r.Engines[i]
		if e.Label != label || e.Name != "bleve" || len(e.Levels) != 1 || e.Levels[0].Users != 3 {
			t.Errorf("engine %d: label %q name %q levels %+v; want %q at 3 users (the command line's)", i, e.Label, e.Name, e.Levels, label)
		}
	}
	if !strings.Contains(stdout, "| Bleve A") || !strings.Contains(stdout, "| Bleve B") {
		t.Errorf("the table lacks the setups' columns:\n%s", stdout)
	}
}

func TestOptionFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--option", "pool"}, "is not key=value"},
		{[]string{"--option", "=3"}, "is not key=value"},
		{[]string{"--option", "bleve:=3"}, "names no key"},
		{[]string{"--option", "nosuch:pool=3"}, `unknown engine "nosuch"`},
		{[]string{"--option", "postgres:pool=3"}, "postgres: no setup uses that engine"},
		{[]string{"--option", "pool=3"}, "bleve takes no options"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"run", "--dry-run"}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--dry-run", "--engine", "postgres", "--url", "postgres://u@127.0.0.1:1/db",
		"--option", "postgres:pool=7")
	if code != exitOK || !strings.Contains(stdout, `setup "postgres": engine postgres, pool=7`) {
		t.Errorf("scoped option: exit %d, %q %q", code, stdout, stderr)
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/scenario"
	"github.com/searchbench/searchbench/workload"
)

// badOrPlanned checks what a dry run of anything must end in: a plan (exit
// 0) or bad input (exit 2, one line) — never a failure, which would mean
// something was found wrong only after it started, and never a panic.
func badOrPlanned(t *testing.T, args []string, code int, stdout, stderr string) {
	t.Helper()
	switch code {
	case exitOK:
	case exitBadInput:
		if stdout != "" || !strings.HasPrefix(stderr, "searchbench: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("%q: bad input answered with stdout %q, stderr %q; want one line on stderr only", args, stdout, stderr)
		}
	default:
		t.Fatalf("%q: exit %d on a dry run: %s", args, code, stderr)
	}
}

// Any scenario file: a parse error, or a scenario that plans or is bad
// input, checked before anything starts.
func FuzzScenario(f *testing.F) {
	names, err := scenario.Shipped()
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		s, err := scenario.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.Source)
	}
	for _, s := range []string{
		"command: run\nusers: [2]\nsetups: [{engine: bleve, label: x}]\n",
		"command: ladder\nstart: 10\nstop: 5\n",
		"command: run\noption: [\"pool=3\", \"bleve:x=1\"]\n",
		"command: run\nsetups: [{engine: postgres, options: {pool: 0}}]\n",
		"command: run\nmeasure: 1h\nusers: 1,2\nmix: search=1\n",
		"command: run\n&a [x]: *a\n",
		"command: run\nusers: !!binary AAAA\n",
		"{command: run, setups: [[]]}",
		"command: run\n---\ncommand: ladder\n",
		"",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := scenario.Parse(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a parse error of two lines: %q", err)
			}
			return
		}
		if s.Command != "run" && s.Command != "ladder" {
			t.Fatalf("command %q accepted", s.Command)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{s.Command, "--scenario", path, "--dry-run", "--out", filepath.Join(dir, "out")}
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		badOrPlanned(t, args, code, stdout, stderr)
	})
}

// The flags whose values are parsed by hand, together on a dry run.
func FuzzRunFlags(f *testing.F) {
	f.Add("bleve", "10,100", "mixed", "pool=3", "30s", "10")
	f.Add("postgres", "1", "search=80,upsert=19,delete=1", "postgres:pool=7", "1ms", "1")
	f.Add("bleve,bleve", "0", "80/19/1", "=", "-1s", "0")
	f.Add("valkey", " 5 , 6 ", "upsert", "valkey:matching_indexes=4", "1h", "100")
	f.Add("typesense,meilisearch", "1,,2", "1/1", "nosuch:x=1", "1e3s", "-3")
	f.Fuzz(func(t *testing.T, engine, users, mix, option, timeout, k string) {
		args := []string{"run", "--dry-run", "--engine", engine, "--users", users, "--mix", mix, "--option", option,
			"--timeout", timeout, "--k", k, "--url", "http://127.0.0.1:1", "--api-key", "k", "--out", t.TempDir()}
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		badOrPlanned(t, args, code, stdout, stderr)
	})
}

func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"mixed", "upsert", "search", "80/19/1", "search=80,upsert=19,delete=1", "1/1", "0/0/0",
		"NaN/1/1", "Inf/0/0", "search=1,search=2", "delete=-0", "1e308/1e308/1e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := workload.ParseMix(s)
		if err == nil {
			if verr := m.Validate(); verr != nil {
				t.Fatalf("%q parsed to %v, which fails validation: %v", s, m, verr)
			}
		}
	})
}

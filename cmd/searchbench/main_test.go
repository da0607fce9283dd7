package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runAs(t, ctx, os.LookupEnv, &out, &errb, args...)
	return code, out.String(), errb.String()
}

// runEnv is runCLI with the variables vars set in the environment the
// run sees, over the process's: a test that sets a credential there runs
// beside the others, which t.Setenv (the process's) would forbid.
func runEnv(t *testing.T, ctx context.Context, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	env := func(key string) (string, bool) {
		if v, ok := vars[key]; ok {
			return v, true
		}
		return os.LookupEnv(key)
	}
	var out, errb bytes.Buffer
	code = runAs(t, ctx, env, &out, &errb, args...)
	return code, out.String(), errb.String()
}

// runLabel is the goroutine label (runtime/pprof) that marks a test's run
// of searchbench in this process: every goroutine the run starts, and
// every one those start, inherits it, so that goroutinesBack counts the
// goroutines of one run while other tests' runs go on beside it.
const runLabel = "searchbench-test-run"

// runAs runs searchbench in this process with env as its environment,
// its goroutines labelled with t's name.
func runAs(t *testing.T, ctx context.Context, env environ, stdout, stderr io.Writer, args ...string) (code int) {
	pprof.Do(ctx, pprof.Labels(runLabel, t.Name()), func(ctx context.Context) {
		code = run(ctx, args, env, stdout, stderr)
	})
	return code
}

// runGoroutines counts the goroutines of t's runs (runAs) still alive,
// and gives their stacks.
func runGoroutines(t *testing.T) (int, string) {
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	// The profile groups goroutines by stack and labels: "N @ pcs…", the
	// frames, and "# labels: {…}" with each label as %q:%q.
	mark := strconv.Quote(runLabel) + ":" + strconv.Quote(t.Name())
	var n int
	var stacks strings.Builder
	for _, rec := range strings.Split(b.String(), "\n\n") {
		count, _, ok := strings.Cut(rec, " @ ")
		if c, err := strconv.Atoi(count); ok && err == nil && strings.Contains(rec, "# labels: ") && strings.Contains(rec, mark) {
			n += c
			stacks.WriteString(rec + "\n\n")
		}
	}
	return n, stacks.String()
}

// goroutinesBack waits up to 5 s for every goroutine of t's runs to end.
func goroutinesBack(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, stacks := runGoroutines(t)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines outlived the run:\n%s", n, stacks)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quick is a small, fast run on the embedded engine.
func quick(dir string, extra ...string) []string {
	return append([]string{"run", "--ids", "2000", "--users", "2,4", "--spawn-rate", "1000",
		"--settle", "100ms", "--measure", "700ms", "--out", dir}, extra...)
}

func TestBadInputExitsTwoAndStartsNothing(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"run", "--engine", "nosuch"},
		{"run", "--engine", "bleve,bleve"},
		{"run", "--users", "10,x"},
		{"run", "--users", ""},
		{"run", "--users", "0"},
		{"run", "--users", "-5"},
		{"run", "--mix", "-1/1/1"},
		{"run", "--mix", "0/0/0"},
		{"run", "--mix", "80/20"},
		{"run", "--measure", "0s"},
		{"run", "--measure", "-1s"},
		{"run", "--settle", "-1s"},
		{"run", "--timeout", "0s"},
		{"run", "--spawn-rate", "0"},
		{"run", "--k", "0"},
		{"run", "--ids", "0"},
		{"run", "--prepopulate", "1.5"},
		{"run", "--write-mode", "eventually"},
		{"run", "--measure", "ten"},
		{"run", "--no-such-flag"},
		{"run", "extra-arg"},
		{"nosuchcommand"},
		{},
		{"dataset", "--queries", "0"},
		{"run", "--known-items", "-0.1"},
		{"run", "--known-items", "1.5"},
		{"ladder", "--known-items", "2"},
	}
	for _, args := range cases {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), append(args, "--out", dir)...)
		if len(args) > 0 && args[0] != "run" {
			code, stdout, stderr = runCLI(t, context.Background(), args...)
		}
		if code != exitBadInput {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitBadInput, stderr)
			continue
		}
		if lines := strings.Count(strings.TrimSpace(stderr), "\n"); lines != 0 || stderr == "" {
			t.Errorf("%q: stderr %q; want one line", args, stderr)
		}
		if stdout != "" {
			t.Errorf("%q: printed %q; want nothing", args, stdout)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: wrote %d files; nothing should start", args, len(entries))
		}
	}
}

func readResult(t *testing.T, dir string) *result.Result {
	t.Helper()
	r, err := result.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunOnTheEmbeddedEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), quick(dir)...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, row := range []string{"search p50 (ms)", "upsert p50 (ms)", "delete p50 (ms)", "search p95 (ms)",
		"search RPS", "upsert RPS", "delete RPS", "Total RPS", "### 2 users", "### 4 users", "| bleve"} {
		if !strings.Contains(stdout, row) {
			t.Errorf("table lacks %q:\n%s", row, stdout)
		}
	}
	r := readResult(t, dir)
	if r.Partial || len(r.Engines) != 1 || len(r.Engines[0].Levels) != 2 {
		t.Fatalf("result: partial %v, %d engines", r.Partial, len(r.Engines))
	}
	e := r.Engines[0]
	if !e.Preload.CountOK || e.Preload.Count != int64(r.Corpus.Prepopulated) || !e.Preload.Bulk {
		t.Errorf("preload %+v; want a bulk load whose count matches %d", e.Preload, r.Corpus.Prepopulated)
	}
	for _, l := range e.Levels {
		for _, op := range []string{"search", "upsert"} {
			if s, _ := l.Op(op); s.Count == 0 || s.RPS <= 0 || s.Latency.P50 <= 0 {
				t.Errorf("%d users: %s %+v; want calls measured", l.Users, op, s)
			}
		}
	}
	if r.Corpus.Hash == "" || r.Config.Seed != 1 || r.Tool.GoVersion == "" || r.Host.CPUs == 0 || e.Version == "" {
		t.Errorf("provenance missing: corpus %+v, tool %+v, host %+v, version %q", r.Corpus, r.Tool, r.Host, e.Version)
	}
	tables, err := os.ReadFile(filepath.Join(dir, "tables.md"))
	if err != nil || !strings.Contains(stdout, string(tables)) {
		t.Errorf("tables.md is not the printed table: %v", err)
	}
}

// failingDriver opens an engine that serves a few calls, then fails every
// write as overloaded and every search as a broken connection: an engine
// falling over mid-run.
type failingDriver struct{}

func (failingDriver) Describe() engines.Description {
	return engines.Description{Summary: "test engine that fails mid-run", Visibility: engines.Searchable, Embedded: true}
}

func (failingDriver) Open(context.Context, engines.Config) (engines.Engine, error) {
	return &failingEngine{}, nil
}

type failingEngine struct{ calls atomic.Int64 }

func (f *failingEngine) fail() error {
	if f.calls.Add(1) < 50 {
		return nil
	}
	return fmt.Errorf("failing: %w", engines.ErrOverloaded)
}
func (f *failingEngine) Create(context.Context, engines.Schema) error { return nil }
func (f *failingEngine) Upsert(context.Context, engines.Document) error {
	return f.fail()
}
func (f *failingEngine) Delete(context.Context, string) error { return f.fail() }
func (f *failingEngine) Search(context.Context, engines.Query) (engines.Hits, error) {
	if err := f.fail(); err != nil {
		return engines.Hits{}, errors.New("failing: connection reset by peer")
	}
	return engines.Hits{}, nil
}
func (f *failingEngine) Close() error { return errors.New("failing: close: flush lost") }

func init() { engines.Register("failing-test", failingDriver{}) }

func TestEngineFailingMidRunStillWritesEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), quick(dir, "--engine", "failing-test", "--prepopulate", "0")...)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: a run with failed calls must say so (stderr %s)", code, exitFailed, stderr)
	}
	if !strings.Contains(stdout, "Total RPS") || !strings.Contains(stdout, "overloaded") {
		t.Fatalf("table missing or errors not shown by class:\n%s", stdout)
	}
	r := readResult(t, dir)
	l := r.Engines[0].Levels[1]
	up, _ := l.Op("upsert")
	se, _ := l.Op("search")
	if up.Errors["overloaded"] == 0 || se.Errors["other"] == 0 {
		t.Fatalf("errors by class: upsert %v, search %v", up.Errors, se.Errors)
	}
	// What the failures were, not only how many, and what went wrong after
	// the measurement (a close that fails is added after runSetup returns).
	if !strings.Contains(stdout, `e.g. other: "failing: connection reset by peer"`) {
		t.Errorf("the table does not say what the search errors were:\n%s", stdout)
	}
	if !slices.Contains(r.Engines[0].Warnings.Texts(), "close: failing: close: flush lost") {
		t.Errorf("the close error is not in the run's warnings: %q", r.Engines[0].Warnings)
	}
}

func TestInterruptWritesPartialResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Half a second into the window, however long loading took.
	var w watched
	w.on(measuring, func() {
		time.Sleep(500 * time.Millisecond)
		cancel()
	})
	code, stdout, stderr := runWatched(t, ctx, &w, "run", "--ids", "2000", "--users", "2", "--settle", "0s", "--measure", "1h", "--out", dir)
	if code != exitFailed {
		t.Fatalf("exit %d after an interrupt; want %d (stderr %s)", code, exitFailed, stderr)
	}
	r := readResult(t, dir)
	if !r.Partial || r.Reason != "interrupted" || len(r.Engines) != 1 {
		t.Fatalf("result partial %v reason %q", r.Partial, r.Reason)
	}
	if ls := r.Engines[0].Levels; len(ls) != 1 || !ls[0].Partial {
		t.Fatalf("levels %+v; want the interrupted level, marked partial", ls)
	}
	if !strings.Contains(stdout, "search p50 (ms)") {
		t.Fatalf("no table after interrupt:\n%s", stdout)
	}
}

func TestEnginesListsSorted(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, context.Background(), "engines")
	if code != 0 || !strings.Contains(stdout, "bleve") || !strings.Contains(stdout, "searchable") {
		t.Fatalf("engines: exit %d\n%s", code, stdout)
	}
	// Each driver's knob, from its description (the drivers' own tests
	// hold the description to the engine).
	if !strings.Contains(stdout, "hnsw.ef_search 1–1000") || !strings.Contains(stdout, "num_candidates 1–10000") {
		t.Fatalf("engines: no knob column:\n%s", stdout)
	}
	if strings.Index(stdout, "bleve") > strings.Index(stdout, "failing-test") {
		t.Fatalf("engines not sorted:\n%s", stdout)
	}
}

func TestDatasetStatsAreDeterministic(t *testing.T) {
	t.Parallel()
	args := []string{"dataset", "--stats", "--json", "--ids", "3000", "--queries", "200"}
	_, a, _ := runCLI(t, context.Background(), args...)
	_, b, _ := runCLI(t, context.Background(), args...)
	if a != b || a == "" {
		t.Fatal("two runs with one seed differ")
	}
	var s struct {
		VocabularyList int    `json:"vocabulary_list"`
		Hash           string `json:"hash"`
	}
	if err := json.Unmarshal([]byte(a), &s); err != nil || s.VocabularyList != 971 || !strings.HasPrefix(s.Hash, "sha256:") {
		t.Fatalf("stats %+v, %v", s, err)
	}
	_, c, _ := runCLI(t, context.Background(), "dataset", "--stats", "--json", "--ids", "3000", "--queries", "200", "--seed", "2")
	if c == a {
		t.Fatal("seed 2 gives seed 1's corpus")
	}
}

func TestLadderOnTheEmbeddedEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "ladder", "--ids", "2000", "--start", "50", "--step", "2",
		"--stop", "200", "--duration", "500ms", "--repeat", "2", "--workers", "8", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, s := range []string{"offered/s", "achieved/s", "p99 (ms)", "Sustainable rate", "Rule:", "### Sustained rates", "p99 at reference (ms)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("ladder output lacks %q:\n%s", s, stdout)
		}
	}
	r := readResult(t, dir)
	l := r.Engines[0].Ladder
	if l == nil || len(l.Rungs) == 0 || len(l.Rungs[0].Reps) != 2 || l.Rule == "" {
		t.Fatalf("ladder result %+v", l)
	}
	if rep := l.Rungs[0].Reps[0]; rep.Sent == 0 || rep.Latency.P99 <= 0 || rep.Ops[0].Service.P50 <= 0 || rep.Ops[0].Histogram == "" {
		t.Fatalf("first rep %+v; want calls with both latencies and a histogram", rep)
	}
}

func TestLadderBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"ladder", "--step", "1"},
		{"ladder", "--start", "0"},
		{"ladder", "--start", "100", "--stop", "50"},
		{"ladder", "--repeat", "0"},
		{"ladder", "--duration", "0s"},
		{"ladder", "--workers", "0"},
		{"ladder", "--arrival", "bursty"},
		{"ladder", "--factor", "1"},
		{"ladder", "--min-achieved", "1.5"},
		{"ladder", "--explode", "2", "--factor", "5"},
	} {
		dir := t.TempDir()
		code, _, stderr := runCLI(t, context.Background(), append(args, "--out", dir)...)
		if code != exitBadInput || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: wrote files", args)
		}
	}
}

// panickyDriver opens an engine whose Create panics: a driver bug.
type panickyDriver struct{ failingDriver }

func (panickyDriver) Open(context.Context, engines.Config) (engines.Engine, error) {
	return &panickyEngine{}, nil
}

type panickyEngine struct{ failingEngine }

func (*panickyEngine) Create(context.Context, engines.Schema) error {
	var p *struct{ n int }
	p.n++ // nil pointer dereference
	return nil
}

func init() { engines.Register("panicky-test", panickyDriver{}) }

// A driver that panics fails its setup with the panic and the line in the
// message; the other setups run and everything is written.
func TestDriverPanicFailsOnlyItsSetup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), quick(dir, "--engine", "panicky-test,bleve")...)
	if code != exitFailed {
		t.Fatalf("exit %d; want %d\n%s", code, exitFailed, stderr)
	}
	r := readResult(t, dir)
	if len(r.Engines) != 2 || !strings.Contains(r.Engines[0].Error, "driver panicked at") ||
		!strings.Contains(r.Engines[0].Error, "nil pointer dereference") || len(r.Engines[1].Levels) != 2 {
		t.Fatalf("engines %+v; want the panicking setup failed and the other measured", r.Engines)
	}
	if !strings.Contains(stderr, "panicky-test: stopped:") || !strings.Contains(stdout, "| bleve") {
		t.Errorf("the failure or the other engine's table is missing:\n%s\n%s", stderr, stdout)
	}
}

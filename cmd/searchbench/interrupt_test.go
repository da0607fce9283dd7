package main

import (
	"context"
	"errors"
	"math/rand/v2"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
)

// interruptAt starts searchbench with args, sends SIGINT once its log shows
// phrase (after delay), and returns the process, ended, and how long after
// the signal it exited.
func interruptAt(t *testing.T, phrase string, delay time.Duration, args ...string) (*process, error, time.Duration) {
	t.Helper()
	p := startProcess(t, phrase, args...)
	time.Sleep(delay)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err := p.wait(t)
	return p, err, time.Since(sent)
}

// exitCode is a child's exit code, or -1 when it did not exit normally.
func exitCode(err error) int {
	var exit *exec.ExitError
	if err == nil {
		return 0
	}
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// checkInterruptedEarly checks what an interrupt before any engine started
// leaves: exit 1, a result marked partial for the interrupt with no engine,
// and the corpus hash only when it was finished (hashed).
func checkInterruptedEarly(t *testing.T, p *process, err error, dir string, hashed bool) {
	t.Helper()
	if c := exitCode(err); c != exitFailed {
		t.Errorf("exit %d (%v); want %d\n%s", c, err, exitFailed, p.log.String())
	}
	r := readResult(t, dir)
	if !r.Partial || r.Reason != "interrupted" || len(r.Engines) != 0 || (r.Corpus.Hash != "") != hashed || r.GroundTruth != nil {
		t.Errorf("result: partial %v, reason %q, %d engines, hash %q, exact answers %+v; want partial, interrupted, no engine, hashed %v, no exact answers",
			r.Partial, r.Reason, len(r.Engines), r.Corpus.Hash, r.GroundTruth, hashed)
	}
	if !strings.Contains(p.log.String(), "interrupted before any engine started") {
		t.Errorf("the log does not say the run was interrupted before any engine started:\n%s", p.log.String())
	}
}

// Ctrl-C while the corpus is being hashed (every pre-populated document,
// 52 s at 20 million IDs) ends the run at once: it exits long before the
// hash could have finished (its cost measured here, on a hundredth of the
// corpus, in this same build), writing a result marked partial.
func TestInterruptDuringTheCorpusHash(t *testing.T) {
	t.Parallel()
	const ids, part = 20_000_000, 200_000
	c, err := dataset.New(dataset.Config{Seed: dataset.DefaultSeed, IDs: part, Prepopulate: dataset.DefaultPrepopulate})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.Hash()
	whole := time.Since(start) * (ids / part)
	dir := t.TempDir()
	p, err, took := interruptAt(t, "hashing…", time.Second, "run", "--engine", "meilisearch", "--url", "http://127.0.0.1:1",
		"--ids", "20000000", "--out", dir)
	t.Logf("exit %v after the signal; the whole hash takes about %v", took.Round(time.Millisecond), whole.Round(time.Second))
	if took > whole/4 {
		t.Errorf("searchbench took %v to exit after Ctrl-C during a hash of about %v: it waited for the hash\n%s", took, whole, p.log.String())
	}
	checkInterruptedEarly(t, p, err, dir, false)
}

// Ctrl-C while the exact answers are computed (10,000 queries of 2,048
// dimensions against every pre-populated product: 83 s at 100,000 IDs)
// ends the run at once: it exits long before they could have been
// computed (their cost estimated here from a thousandth of the distances,
// in this same build), writing a result marked partial.
func TestInterruptDuringTheExactAnswers(t *testing.T) {
	t.Parallel()
	const ids, queries, dim = 20_000, 10_000, 2048
	docs := int(float64(ids) * dataset.DefaultPrepopulate)
	// A thousandth of the work: 100 queries against a tenth of the documents.
	r := rand.New(rand.NewPCG(1, 1))
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	qs := make([]neighbours.Query, queries/100)
	for i := range qs {
		qs[i] = neighbours.Query{Vector: vec()}
	}
	ds := make([]neighbours.Doc, docs/10)
	for i := range ds {
		ds[i] = neighbours.Doc{ID: uint32(i + 1), Vector: vec()}
	}
	start := time.Now()
	if _, err := neighbours.Exact(context.Background(), qs, 60, func(yield func(neighbours.Doc) bool) {
		for _, d := range ds {
			if !yield(d) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start) * 1000
	dir := t.TempDir()
	p, err, took := interruptAt(t, "computing the exact answers", time.Second, "run", "--engine", "valkey", "--url", "redis://127.0.0.1:1",
		"--corpus", "product", "--dim", "2048", "--exact-queries", "10000", "--ids", "20000", "--out", dir)
	t.Logf("exit %v after the signal; the exact answers take about %v", took.Round(time.Millisecond), whole.Round(time.Second))
	if took > whole/4 {
		t.Errorf("searchbench took %v to exit after Ctrl-C during exact answers of about %v: it waited for them\n%s", took, whole, p.log.String())
	}
	checkInterruptedEarly(t, p, err, dir, true)
}

// Ctrl-C while the engine hangs in the measured window (a Meilisearch that
// stops answering: every connection stays open and nothing comes back),
// with a 30 s request timeout: the calls in flight are given up, and so is
// the last stats sample, so the run exits long before the timeout, writing
// the level marked partial.
func TestInterruptWhileTheEngineHangs(t *testing.T) {
	t.Parallel()
	const timeout = 30 * time.Second
	f := meilifake.New(meilifake.Options{})
	t.Cleanup(f.Close)
	u, err := neturl.Parse(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newStallProxy(t, u.Host)
	dir := t.TempDir()
	p := startProcess(t, measuring, "run", "--engine", "meilisearch", "--url", "http://"+proxy.addr(), "--ids", "200", "--users", "4",
		"--spawn-rate", "1000", "--settle", "0s", "--measure", "10m", "--timeout", timeout.String(), "--mix", "upsert",
		"--relevance-queries", "0", "--out", dir)
	time.Sleep(time.Second)
	proxy.stall()
	time.Sleep(2 * time.Second) // every user waits on a call, the stats sampler on a sample
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err = p.wait(t)
	// The result is what waited for the hung calls; the charts then take
	// what they take (seconds under the race detector).
	took := p.written.Sub(sent)
	t.Logf("result written %v after the signal, exit %v after it (request timeout %v)", took.Round(time.Millisecond), time.Since(sent).Round(time.Millisecond), timeout)
	if p.written.IsZero() || took > timeout/3 {
		t.Errorf("searchbench took %v to write its result after Ctrl-C with a hung engine: it waited for the %v timeout\n%s", took, timeout, p.log.String())
	}
	if c := exitCode(err); c != exitFailed {
		t.Errorf("exit %d (%v); want %d\n%s", c, err, exitFailed, p.log.String())
	}
	res := readResult(t, dir)
	if !res.Partial || res.Reason != "interrupted" || len(res.Engines) != 1 {
		t.Fatalf("result: partial %v, reason %q, %d engines", res.Partial, res.Reason, len(res.Engines))
	}
	if ls := res.Engines[0].Levels; len(ls) != 1 || !ls[0].Partial {
		t.Errorf("levels %+v; want the interrupted level, marked partial", ls)
	}
	if _, err := os.Stat(filepath.Join(dir, "tables.md")); err != nil {
		t.Errorf("no tables: %v", err)
	}
}

// A second Ctrl-C while the first is still cleaning up — here a shard
// sending its result to a coordinator that stopped answering, which it
// waits up to 40 s for — exits at once, and still writes the shard's
// result.json, marked partial for the interrupt (the reports are left out).
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	t.Parallel()
	_, url := target(t)
	coord := freePort(t)
	proxy := newStallProxy(t, coord)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	coordinated := coordinate(t, ctx, "--listen", coord, "--shards", "1", "--register-timeout", "1m", "--out", filepath.Join(dir, "merged"))
	args := shardArgs(url, dir, 0, 1, proxy.addr())
	for i, a := range args {
		if a == "--measure" {
			args[i+1] = "10m"
		}
	}
	p := startProcess(t, measuring, args...)
	time.Sleep(time.Second)
	proxy.stall()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The first interrupt stops the load; the shard then waits on the
	// coordinator.
	time.Sleep(3 * time.Second)
	select {
	case <-p.done:
		t.Fatalf("the shard ended before the second interrupt: nothing was left to cut short\n%s", p.log.String())
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err := p.wait(t)
	took := time.Since(sent)
	t.Logf("exit %v after the second signal", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("the shard took %v to exit after a second Ctrl-C: it waited for the coordinator\n%s", took, p.log.String())
	}
	if c := exitCode(err); c != exitFailed {
		t.Errorf("exit %d (%v); want %d\n%s", c, err, exitFailed, p.log.String())
	}
	if !strings.Contains(p.log.String(), "interrupted again") {
		t.Errorf("the log does not say it was interrupted again:\n%s", p.log.String())
	}
	res := readResult(t, filepath.Join(dir, "shard-0"))
	if !res.Partial || res.Reason != "interrupted" || len(res.Engines) != 1 || len(res.Engines[0].Levels) != 1 || !res.Engines[0].Levels[0].Partial {
		t.Errorf("the shard's result: partial %v, reason %q, engines %+v; want the interrupted level, marked partial", res.Partial, res.Reason, res.Engines)
	}
	cancel()
	coordinated()
}

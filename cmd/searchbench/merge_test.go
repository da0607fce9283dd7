package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// shardFiles runs one plan twice on the embedded engine (runner.Run, through
// `run`) and writes each result as a shard of two would: with Shard set.
func shardFiles(t *testing.T) (a, b string, ra, rb *result.Result) {
	t.Helper()
	var files [2]string
	var res [2]*result.Result
	// The two shards run at once, as shards do.
	var dirs, stderrs [2]string
	var codes [2]int
	var wg sync.WaitGroup
	for i := range 2 {
		dirs[i] = t.TempDir()
		args := []string{"run", "--ids", "2000", "--users", "2,3", "--spawn-rate", "1000", "--settle", "100ms", "--measure", "700ms", "--out", dirs[i]}
		wg.Go(func() { codes[i], _, stderrs[i] = runCLI(t, context.Background(), args...) })
	}
	wg.Wait()
	for i, dir := range dirs {
		if codes[i] != exitOK {
			t.Fatalf("run: exit %d\n%s", codes[i], stderrs[i])
		}
		r := readResult(t, dir)
		r.Shard = &result.Shard{Index: i, Count: 2, Coordinator: "127.0.0.1:21999",
			Starts: []result.ShardStart{{Phase: "bleve users=2", Offset: result.Duration(1000 * (i + 1)), RTT: result.Duration(300_000)}}}
		files[i], res[i] = filepath.Join(dir, "shard.json"), r
		if err := result.WriteFile(files[i], r); err != nil {
			t.Fatal(err)
		}
	}
	return files[0], files[1], res[0], res[1]
}

func TestMergeCommand(t *testing.T) {
	t.Parallel()
	a, b, ra, rb := shardFiles(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "merge", a, b, "--out", out)
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	m := readResult(t, out)
	if m.Shard != nil || len(m.Shards) != 2 || m.Partial || len(m.Engines) != 1 || len(m.Engines[0].Levels) != 2 {
		t.Fatalf("merged: shard %v, %d shards, partial %v (%s)", m.Shard, len(m.Shards), m.Partial, m.Reason)
	}
	for j, l := range m.Engines[0].Levels {
		la, lb := ra.Engines[0].Levels[j], rb.Engines[0].Levels[j]
		if l.Users != la.Users+lb.Users {
			t.Errorf("level %d: %d users; want %d", j, l.Users, la.Users+lb.Users)
		}
		sa, _ := la.Op("search")
		sb, _ := lb.Op("search")
		s, _ := l.Op("search")
		h, err := result.DecodeHistogram(s.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		if s.Count != sa.Count+sb.Count || h.TotalCount() != s.Count || s.RPS != sa.RPS+sb.RPS || s.Latency != result.Summarize(h) {
			t.Errorf("level %d search: %d calls (histogram %d), %v/s; want %d and %v/s", j, s.Count, h.TotalCount(), s.RPS, sa.Count+sb.Count, sa.RPS+sb.RPS)
		}
	}
	if !strings.Contains(stdout, "one run merged from 2 shards") || !strings.Contains(stdout, "## Shards") {
		t.Errorf("the tables do not show the shards:\n%s", stdout)
	}
	// report and compare read the merged result.
	merged := filepath.Join(out, "result.json")
	if code, stdout, stderr := runCLI(t, context.Background(), "report", merged, "--out", t.TempDir()); code != exitOK || !strings.Contains(stdout, "2 shards") {
		t.Errorf("report: exit %d\n%s\n%s", code, stderr, stdout)
	}
	if code, _, stderr := runCLI(t, context.Background(), "compare", merged, a); code != exitOK {
		t.Errorf("compare: exit %d\n%s", code, stderr)
	}

	// One shard of two: merged, written, partial, exit 1.
	part := t.TempDir()
	code, _, stderr = runCLI(t, context.Background(), "merge", a, "--out", part)
	if code != exitFailed || !strings.Contains(stderr, "missing shard(s) 1 of 2") {
		t.Errorf("one shard of two: exit %d, %s", code, stderr)
	}
	if r := readResult(t, part); !r.Partial || !r.Shards[1].Missing {
		t.Errorf("partial %v, shards %+v", r.Partial, r.Shards)
	}

	// Bad input: one line, exit 2, nothing written.
	other := filepath.Join(t.TempDir(), "seed.json")
	rb.Config.Seed = 7
	if err := result.WriteFile(other, rb); err != nil {
		t.Fatal(err)
	}
	// Shards whose timelines have other intervals (--interval) ran other
	// plans: merge names the field as the coordinator does, rather than
	// write the run without its timelines.
	rb.Config.Seed = ra.Config.Seed
	for j := range rb.Engines[0].Levels {
		if tl := rb.Engines[0].Levels[j].Timeline; tl != nil {
			tl.Interval *= 2
		}
	}
	interval := filepath.Join(t.TempDir(), "interval.json")
	if err := result.WriteFile(interval, rb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a, a}, "shard 0 is given twice"},
		{[]string{a, other}, "config.seed differs"},
		{[]string{a, interval}, "level 0: timeline.interval differs"},
		{[]string{a, filepath.Join(out, "result.json")}, "not a shard's result"},
		{[]string{a, filepath.Join(out, "nosuch.json")}, "nosuch.json"},
		{[]string{}, "give the shards' result files"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), append(append([]string{"merge"}, c.args...), "--out", dir)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("merge %q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
		if _, err := result.ReadFile(filepath.Join(dir, "result.json")); err == nil {
			t.Errorf("merge %q wrote a result", c.args)
		}
	}
}

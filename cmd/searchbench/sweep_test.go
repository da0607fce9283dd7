package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/runner/report"
	"github.com/searchbench/searchbench/runner/result"
)

// A knob sweep against every driver's wire fake: the index is made once,
// each value is run searches-only and then under the mix's writes, each
// value reaches the fake as the engine spells its knob, and the report
// draws the recall–QPS chart and the QPS-at-recall table from the
// result. A driver without a knob (Meilisearch, Amgix Now) runs one point
// at its default, sending none, and the log says so.
func TestSweepOnEveryFake(t *testing.T) {
	t.Parallel()
	const key = "sweep-key"
	values := []int{12, 40}
	for _, c := range []struct {
		engine, knob string
		// start starts the fake; seen is every knob value it read, nil
		// for a fake of an engine without a knob.
		start func(t *testing.T) (url string, flags []string, seen func() []int, calls func() int)
	}{
		{"elasticsearch", "num_candidates", func(t *testing.T) (string, []string, func() []int, func() int) {
			f := esfake.New(esfake.Options{})
			t.Cleanup(f.Close)
			return f.URL(), nil, f.NumCandidates, func() int { return f.Requests("", "") }
		}},
		{"typesense", "ef", func(t *testing.T) (string, []string, func() []int, func() int) {
			f := typesensefake.New(key)
			t.Cleanup(f.Close)
			return f.URL, []string{"--api-key", key}, f.EFs, func() int { return f.Calls("") }
		}},
		{"valkey", "EF_RUNTIME", func(t *testing.T) (string, []string, func() []int, func() int) {
			f, err := valkeyfake.New(valkeyfake.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f.URL(), nil, f.EFRuntimes, nil
		}},
		{"meilisearch", "", func(t *testing.T) (string, []string, func() []int, func() int) {
			f := meilifake.New(meilifake.Options{})
			t.Cleanup(f.Close)
			return f.URL, nil, nil, nil
		}},
		{"amgix-now-sync", "", func(t *testing.T) (string, []string, func() []int, func() int) {
			f := amgixfake.New()
			t.Cleanup(f.Close)
			return f.URL, nil, nil, nil
		}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			url, flags, seen, calls := c.start(t)
			dir := t.TempDir()
			args := append([]string{"run", "--engine", c.engine, "--url", url, "--corpus", "product", "--dim", "16", "--ids", "400",
				"--queries", "knn=3,knn-category=2,sku=1", "--mix", "search=80,upsert=19,delete=1", "--users", "2", "--known-items", "0.2",
				"--spawn-rate", "1000", "--settle", "100ms", "--measure", "300ms", "--exact-queries", "30", "--sweep", "12,40", "--out", dir}, flags...)
			start := time.Now()
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			wall := time.Since(start)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s\n%s", code, stderr, stdout)
			}
			e := readResult(t, dir).Engines[0]
			if e.Levels != nil || e.Ladder != nil || e.Sweep == nil {
				t.Fatalf("levels %v, ladder %v, sweep %v; want the sweep only", e.Levels, e.Ladder, e.Sweep)
			}
			want := values
			if c.knob == "" {
				want = []int{0}
				if !strings.Contains(stderr, c.engine+" has no search-time knob: the sweep is one point, at the engine's default") {
					t.Errorf("the log does not say the sweep is one point:\n%s", stderr)
				}
			}
			sweptAsAsked(t, e.Sweep, c.knob, want)
			if seen != nil {
				// The driver sends its own default where a query sets no
				// knob (num_candidates): the values are among those seen.
				for _, v := range want {
					if !slices.Contains(seen(), v) {
						t.Errorf("the fake saw %s %v; want %d among them", c.knob, seen(), v)
					}
				}
			}
			if strings.Count(stderr, "pre-populating") != 1 {
				t.Errorf("the index was not built once:\n%s", stderr)
			}
			for _, s := range []string{"QPS at recall@10 target", "Knob sweep points"} {
				if !strings.Contains(stdout, s) {
					t.Errorf("the tables lack %q:\n%s", s, stdout)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, report.ChartDir, "sweep-knn.png")); err != nil {
				t.Errorf("no recall–QPS chart: %v", err)
			}
			span, windows := sweepSpan(e.Sweep)
			t.Logf("%s: process wall %v; from the first point's window to the last's end %v, of which windows %v: %v between %d points (settle 100ms each)",
				c.engine, wall.Round(time.Millisecond), span.Round(time.Millisecond), windows, (span - windows).Round(time.Millisecond), len(e.Sweep.Points))
			dry := append(slices.Clone(args), "--dry-run")
			if code, stdout, _ := runCLI(t, context.Background(), dry...); code != exitOK || !strings.Contains(stdout, "at [12 40], each value searches only, then under the mix's writes") {
				t.Errorf("dry run: exit %d, the plan does not say the sweep:\n%s", code, stdout)
			}
			if calls != nil {
				badInputStartsNothing(t, c.engine, url, flags, calls)
			}
		})
	}
}

// sweptAsAsked checks the result's sweep: the knob's name, each value
// searches-only and then under writes, idle recall against the exact
// answers at each (the fakes' kNN is exact: 1), and a level of searches
// of every kind at each point.
func sweptAsAsked(t *testing.T, s *result.Sweep, knob string, values []int) {
	t.Helper()
	if s.Knob != knob || len(s.Points) != 2*len(values) {
		t.Fatalf("sweep of %q, %d points; want %q, %d", s.Knob, len(s.Points), knob, 2*len(values))
	}
	for i, p := range s.Points {
		if p.Value != values[i%len(values)] || p.Writes != (i >= len(values)) {
			t.Errorf("point %d: value %d, writes %v; want %d, %v", i+1, p.Value, p.Writes, values[i%len(values)], i >= len(values))
		}
		for _, kind := range []string{"knn", "knn-category"} {
			if r, ok := p.IdleRecall(kind); !ok || r.Recall != 1 {
				t.Errorf("point %d: idle %s recall %+v, %v; want 1 from an exact kNN", i+1, kind, r, ok)
			}
		}
		if p.Level == nil || p.Level.Users != 2 {
			t.Fatalf("point %d: level %+v; want one level of 2 users", i+1, p.Level)
		}
		o, _ := p.Level.Op("search")
		if o.ErrorCount() != 0 || len(o.Kinds) != 3 {
			t.Errorf("point %d: searches %+v; want every kind, no error", i+1, o)
		}
		if _, writes := p.Level.Op("upsert"); writes != p.Writes {
			t.Errorf("point %d: upserts %v; want them under writes only", i+1, writes)
		}
	}
}

// sweepSpan is the time from the first point's measured window's start
// to the last's end (each window starts at its timeline's origin less its
// offset), and the sum of the windows: what lies between them is the
// sweep's cost beyond its runs (a drain, an idle check, a ramp, a settle).
func sweepSpan(s *result.Sweep) (span, windows time.Duration) {
	var first, last time.Time
	for _, p := range s.Points {
		if p.Level == nil || p.Level.Timeline == nil {
			continue
		}
		start := p.Level.Timeline.Origin.Add(-time.Duration(p.Level.Timeline.Offset))
		end := start.Add(time.Duration(p.Level.Window))
		if first.IsZero() || start.Before(first) {
			first = start
		}
		if end.After(last) {
			last = end
		}
		windows += time.Duration(p.Level.Window)
	}
	return last.Sub(first), windows
}

// badInputStartsNothing runs sweeps that cannot run against the fake at
// url: each exits 2 with one line, and the fake receives no request.
func badInputStartsNothing(t *testing.T, engine, url string, flags []string, calls func() int) {
	t.Helper()
	before := calls()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep", "hnsw.ef_search=10,20"}, "sweep: " + engine + "'s knob is "},
		{[]string{"--sweep", "10,20000000000"}, "sweep: "},
		{[]string{"--sweep", "0,-3"}, "sweep: "},
		{[]string{"--sweep", "10,x"}, `sweep: "x" is not a whole number`},
		{[]string{"--sweep", "10,10"}, "sweep: 10 is given twice"},
		{[]string{"--sweep", "10", "--users", "2,4"}, "sweep: 2 user levels; a sweep runs one level at each value"},
		{[]string{"--sweep", "10", "--sweep-load", "mix", "--mix", "search"}, "sweep-load: mix: the mix search=100 does not write"},
		{[]string{"--sweep", "10", "--sweep-load", "fast"}, `sweep-load: "fast" is none of search, mix, both`},
		{[]string{"--sweep-load", "search"}, "sweep-load: there is no --sweep"},
	} {
		args := append(append([]string{"run", "--engine", engine, "--url", url, "--corpus", "product", "--dim", "16", "--ids", "100",
			"--users", "2", "--out", t.TempDir()}, flags...), c.args...)
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitBadInput || !strings.HasPrefix(stderr, "searchbench: "+c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line starting %q", c.args, code, stderr, c.want)
		}
	}
	if n := calls(); n != before {
		t.Errorf("bad input reached the engine: %d requests", n-before)
	}
}

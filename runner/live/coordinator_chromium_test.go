package live_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/chromedp/chromedp"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/chromiumtest"
	"github.com/searchbench/searchbench/runner/live"
	"github.com/searchbench/searchbench/runner/result"
)

// TestCoordinatorPageInChromium feeds a coordinator's view (runner.ShardView
// into a live.Server) two shards' streams, a re-sent interval among them,
// and checks the page as Chromium draws it: the totals are the merged
// intervals' (the re-sent one counted once), the per-shard throughput chart
// is there, and each shard's start lateness is in the log.
func TestCoordinatorPageInChromium(t *testing.T) {
	exe := chromiumtest.Path(t)
	lv := live.New()
	srv := httptest.NewServer(lv)
	defer srv.Close()
	view := runner.NewShardView(lv)
	iv := func(start time.Duration, count int64) *result.Interval {
		h := hdrhistogram.New(1, 300_000_000, 3)
		for i := range count {
			_ = h.RecordValue(1000 + 10*i)
		}
		o := result.IntervalOp{Op: "search", Count: count}
		if err := o.SetLatency(h); err != nil {
			t.Fatal(err)
		}
		return &result.Interval{Start: result.Duration(start), Length: result.Duration(500 * time.Millisecond), Ops: []result.IntervalOp{o}}
	}
	window := result.LevelWindow(0, 4)
	for i := range 2 {
		view.Event(i, event.Event{Kind: event.Start, Setup: "meilisearch", Window: window,
			Start: &result.ShardStart{Phase: "meilisearch " + window.String(), Late: result.Duration(time.Duration(i+1) * 30 * time.Microsecond)}}, 0)
		view.Event(i, event.Event{Kind: event.Phase, Setup: "meilisearch", Window: window, Phase: "measure", Users: 4, Duration: time.Second}, 0)
	}
	// Shard 0 reports its first interval provisionally, then for good.
	view.Event(0, event.Event{Kind: event.Interval, Setup: "meilisearch", Window: window, Interval: iv(0, 5)}, 0)
	for k, counts := range [][2]int64{{10, 30}, {12, 28}} {
		for i, n := range counts {
			view.Event(i, event.Event{Kind: event.Interval, Setup: "meilisearch", Window: window, Interval: iv(time.Duration(k)*500*time.Millisecond, n)}, 0)
		}
	}
	view.Event(1, event.Event{Kind: event.Warning, Setup: "meilisearch", Window: window, Text: "a test warning"}, 0)
	lv.Close()

	tab := chromiumtest.Browser(t, exe, 1280, 1100)
	ctx, cancelAll := context.WithTimeout(tab, time.Minute)
	defer cancelAll()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ended === 'true'`)); err != nil {
		t.Fatalf("the run's end never showed: %v", err)
	}
	type seen struct {
		Intervals int
		Totals    map[string]int64
		Charts    []string
		Log       string
		Warnings  string
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[seen](`({intervals: +document.body.dataset.intervals, totals: window.liveTotals,
		charts: [...document.querySelectorAll('.chart svg')].map(s => s.getAttribute('aria-label')),
		log: document.getElementById('log').textContent, warnings: document.getElementById('warnings').textContent})`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Intervals != 2 || p.Totals["search"] != 10+30+12+28 {
		t.Errorf("page: %d intervals, totals %v; want 2 and 80 searches (the shards' merged)", p.Intervals, p.Totals)
	}
	if !strings.Contains(strings.Join(p.Charts, "|"), "Throughput by shard") {
		t.Errorf("page: charts %q lack the per-shard throughput", p.Charts)
	}
	// The shard's warning keeps its window apart from its text.
	if want := "meilisearch: level 1 users=4: shard 1: a test warning"; !strings.Contains(p.Warnings, want) {
		t.Errorf("page warnings %q lack %q", p.Warnings, want)
	}
	for _, want := range []string{"shard 0: level 1 users=4: started 30µs late", "shard 1: level 1 users=4: started 60µs late"} {
		if !strings.Contains(p.Log, want) {
			t.Errorf("page log %q lacks %q", p.Log, want)
		}
	}
}

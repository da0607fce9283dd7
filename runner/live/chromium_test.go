package live_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/searchbench/searchbench/dataset"
	_ "github.com/searchbench/searchbench/engines/bleve" // the embedded engine registers itself
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/chromiumtest"
	"github.com/searchbench/searchbench/runner/live"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// TestLivePageInChromium runs two short levels on the embedded engine with
// the live view as an observer, a page open from the start and another
// opened after the first level measured. Both pages load offline, draw
// their charts, and end showing per-operation totals equal to the result's;
// the late one shows the intervals from before it opened.
// SEARCHBENCH_LIVE_SHOT=file.png keeps a screenshot of the page mid-run.
func TestLivePageInChromium(t *testing.T) {
	exe := chromiumtest.Path(t)
	lv := live.New()
	srv := httptest.NewServer(lv)
	defer srv.Close()

	early := chromiumtest.Browser(t, exe, 1280, 1100)
	ctx, cancelAll := context.WithTimeout(early, 3*time.Minute)
	defer cancelAll()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page: %v", err)
	}

	// The level the run is at, as its intervals arrive: the late page
	// opens once the second level has begun.
	var mu sync.Mutex
	windows := map[result.Window]bool{}
	second := make(chan struct{})
	watch := event.ObserverFunc(func(e event.Event) {
		if e.Kind != event.Interval {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !windows[e.Window] {
			windows[e.Window] = true
			if len(windows) == 2 {
				close(second)
			}
		}
	})
	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	mix, err := workload.ParseMix("search=70,upsert=20,delete=10")
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		totals map[string]int64
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := runner.Run(ctx, runner.Plan{
			Source: src,
			Setups: []runner.Setup{{Driver: "bleve"}},
			Closed: &loops.Config{
				Users: []int{2, 4}, SpawnRate: 1000, Settle: 200 * time.Millisecond, Measure: 2 * time.Second,
				Freshness: checks.FreshnessConfig{Off: true},
				Calls:     loops.Calls{Timeout: 5 * time.Second, Mix: mix, Seed: 1, K: 10, Interval: 500 * time.Millisecond},
			},
		}, event.Observers(watch, lv))
		// The run raised none (it is meant to be clean): one for the page
		// to show among its warnings.
		lv.Observe(event.Event{Kind: event.Warning, Setup: "bleve", Window: result.LevelWindow(1, 4), Text: "a test warning"})
		lv.Close()
		o := outcome{totals: map[string]int64{}, err: err}
		if err == nil {
			for _, e := range res.Engines {
				for _, l := range e.Levels {
					for _, op := range l.Ops {
						o.totals[op.Op] += op.Count
					}
				}
			}
		}
		done <- o
	}()

	select {
	case <-second:
	case o := <-done:
		t.Fatalf("the run ended before its second level measured (%v)", o.err)
	}
	late, cancelLate := chromedp.NewContext(early)
	defer cancelLate()
	if err := chromedp.Do(late, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page late: %v", err)
	}
	// The late page (the tab in front) draws the first level's intervals
	// from the history.
	if _, err := chromedp.Run(late, chromedp.Poll[bool](`+document.body.dataset.intervals > 2`)); err != nil {
		t.Fatalf("the late page drew no earlier interval: %v", err)
	}
	if path := os.Getenv("SEARCHBENCH_LIVE_SHOT"); path != "" {
		shot, err := chromedp.Run(late, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(path, shot, 0o644)
		}
		if err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}

	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	type seen struct {
		Ended     bool
		Intervals int
		Totals    map[string]int64
		Status    string
		Warnings  string
	}
	const read = `({ended: document.body.dataset.ended === 'true', intervals: +document.body.dataset.intervals,
		totals: window.liveTotals, status: document.getElementById('status').textContent,
		warnings: document.getElementById('warnings').textContent})`
	var pages []seen
	for name, tab := range map[string]context.Context{"early": ctx, "late": late} {
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.body.dataset.ended === 'true'`)); err != nil {
			t.Fatalf("%s page: the run's end never showed: %v", name, err)
		}
		p, err := chromedp.Run(tab, chromedp.Evaluate[seen](read))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
		if len(o.totals) == 0 || len(p.Totals) != len(o.totals) {
			t.Errorf("%s page: totals %v; result's %v", name, p.Totals, o.totals)
		}
		for op, n := range o.totals {
			if p.Totals[op] != n {
				t.Errorf("%s page: %s calls %d; result.json has %d", name, op, p.Totals[op], n)
			}
		}
		if !strings.Contains(p.Warnings, "bleve: level 2 users=4: a test warning") {
			t.Errorf("%s page: warnings %q", name, p.Warnings)
		}
		if p.Status != "run finished" {
			t.Errorf("%s page: status %q", name, p.Status)
		}
		checkCharts(t, name, tab)
	}
	// Both levels' intervals on both pages: the late one read the history.
	if pages[0].Intervals != pages[1].Intervals || pages[0].Intervals < 2*4 {
		t.Errorf("intervals shown: %d and %d; want the same, at least 8 (two levels of 2 s cut in 500 ms)", pages[0].Intervals, pages[1].Intervals)
	}
}

// checkCharts: the page has the throughput chart and one latency chart per
// operation, and each, as painted, has its lines in their colours.
func checkCharts(t *testing.T, name string, tab context.Context) {
	t.Helper()
	titles, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.chart svg')].map(s => s.getAttribute('aria-label'))`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(titles, "|")
	for _, want := range []string{"Throughput per operation", "search latency", "upsert latency", "delete latency"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s page: charts %q lack %q", name, got, want)
		}
	}
	// The throughput chart's first line (blue) and a latency chart's p99
	// line (red) are painted.
	for i, want := range [][3]uint32{{0x25, 0x63, 0xeb}, {0xdc, 0x26, 0x26}} {
		shot, err := chromedp.Run(tab, chromedp.Screenshot(chromedp.CSS(".chart:nth-child("+string(rune('1'+i))+") svg")))
		if err != nil {
			t.Fatalf("%s page: screenshot of chart %d: %v", name, i+1, err)
		}
		pic, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		near := func(a, b uint32) bool { return max(a>>8, b)-min(a>>8, b) < 0x18 }
		if s := chromiumtest.Share(pic, func(r, g, b uint32) bool { return near(r, want[0]) && near(g, want[1]) && near(b, want[2]) }); s < 0.002 {
			t.Errorf("%s page: chart %d (%s) has %.3f%% of its pixels in its line's colour; not drawn", name, i+1, titles[i], 100*s)
		}
	}
}

// TestLivePageChartsQueryKinds: intervals whose searches are split by kind
// of query (the product corpus's) get a chart of each kind's p99, named in
// its legend and drawn; a kind without a successful call in an interval
// has no point there.
func TestLivePageChartsQueryKinds(t *testing.T) {
	exe := chromiumtest.Path(t)
	lv := live.New()
	srv := httptest.NewServer(lv)
	defer srv.Close()
	for k := range 4 {
		kinds := []result.IntervalKind{{Kind: "knn", Count: 40, Percentiles: result.Percentiles{P50: 8, P95: 20, P99: 30 + float64(k)}},
			{Kind: "sku", Count: 10, Percentiles: result.Percentiles{P99: 2}}}
		if k == 2 {
			kinds[1] = result.IntervalKind{Kind: "sku", Errors: map[string]int64{"timeout": 3}}
		}
		iv := result.Interval{Start: result.Duration(time.Duration(k) * time.Second), Length: result.Duration(time.Second),
			Ops: []result.IntervalOp{{Op: "search", Count: 50, P50: 6, P95: 18, P99: 29, Kinds: kinds}}}
		lv.Observe(event.Event{Kind: event.Interval, Setup: "postgres", Window: result.LevelWindow(0, 8), Interval: &iv})
	}
	lv.Close()

	tab := chromiumtest.Browser(t, exe, 1280, 1100)
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ended === 'true'`)); err != nil {
		t.Fatalf("the run's end never showed: %v", err)
	}
	type chart struct {
		Label  string
		Text   string
		Points []int // the points of each line drawn
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chart](`[...document.querySelectorAll('.chart svg')].map(s => ({
		label: s.getAttribute('aria-label'), text: s.textContent,
		points: [...s.querySelectorAll('polyline')].map(p => p.getAttribute('points').trim().split(' ').length)}))`))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(charts, func(c chart) bool { return c.Label == "search p99 by query kind" })
	if i < 0 {
		t.Fatalf("no chart of the query kinds among %+v", charts)
	}
	c := charts[i]
	if !strings.Contains(c.Text, "knn") || !strings.Contains(c.Text, "sku") {
		t.Errorf("the kinds chart's legend %q lacks a kind", c.Text)
	}
	// knn: one line of 4 points; sku: none in the third interval, so 3
	// points (one line of 3, as the intervals are of one window).
	if got := fmt.Sprint(c.Points); got != "[4 3]" {
		t.Errorf("the kinds chart's lines have %s points; want [4 3]", got)
	}
}

package live_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/chromiumtest"
	"github.com/searchbench/searchbench/runner/live"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// TestLivePageShowsTheWindowsFiguresWhileItRuns: a level of the embedded
// engine, sampled as a launched container is (Config.Sampled: its CPU and
// memory, each sample's values new), watched by a page. The first interval
// the collector sends is held once the page has it: the window's final
// intervals cannot come before it is released (they are sent once the
// collector has stopped), so what the page shows then came while the
// window was open. It shows the active users, the known-item checks, the
// engine's stats and the container's CPU and memory, with values sampled.
func TestLivePageShowsTheWindowsFiguresWhileItRuns(t *testing.T) {
	exe := chromiumtest.Path(t)
	lv := live.New()
	srv := httptest.NewServer(lv)
	defer srv.Close()
	tab := chromiumtest.Browser(t, exe, 1280, 1100)
	ctx, cancel := context.WithTimeout(tab, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page: %v", err)
	}

	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engines.Open(ctx, "bleve", engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Prepopulate(ctx, e, src, 5*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	mix, err := workload.ParseMix("search=70,upsert=20,delete=10")
	if err != nil {
		t.Fatal(err)
	}
	var smu sync.Mutex
	mem := map[string]bool{} // each memory sampled, as the page prints it
	samples := 0
	cfg := loops.Config{Users: []int{3}, SpawnRate: 1000, Settle: 100 * time.Millisecond, Measure: 3 * time.Second,
		Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: 5 * time.Second, Mix: mix, Seed: 1, K: 10, Interval: 500 * time.Millisecond,
			Known: checks.KnownConfig{Fraction: 0.3},
			Sampled: func(context.Context) (map[string]float64, error) {
				smu.Lock()
				defer smu.Unlock()
				samples++
				mem[fmt.Sprintf("container_memory_bytes%d.0 MiB", 100+samples)] = true
				return map[string]float64{"container_cpu_cores": 0.25 * float64(samples),
					"container_memory_bytes": float64(100+samples) * (1 << 20)}, nil
			}}}

	held, release := make(chan struct{}), make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	var once sync.Once
	obs := event.ObserverFunc(func(ev event.Event) {
		lv.Observe(ev)
		if ev.Kind != event.Interval {
			return
		}
		first := false
		once.Do(func() { first = true })
		if first {
			close(held)
			<-release
		}
	})
	done := make(chan []string, 1)
	go func() {
		levels := loops.ClosedLoop(ctx, e, src, cfg, loops.Emitter{Setup: "bleve", Observer: obs}, nil)
		lv.Close()
		var ws []string
		for _, l := range levels {
			ws = append(ws, l.Warnings.Texts()...)
		}
		done <- ws
	}()
	select {
	case <-held:
	case <-done:
		t.Fatal("the level ended without sending an interval")
	}

	type seen struct {
		Stats, Quality string
		Charts         []string
	}
	const read = `({stats: document.getElementById('stats').textContent, quality: document.getElementById('quality').textContent,
		charts: [...document.querySelectorAll('.chart svg')].map(s => s.getAttribute('aria-label'))})`
	var p seen
	// Polled until the page has drawn the held interval's figures; on a
	// page without them the poll ends at its timeout and what it shows is
	// reported.
	pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
	_, perr := chromedp.Run(pctx, chromedp.Poll[bool](`+document.body.dataset.intervals >= 1 &&
		!document.getElementById('stats').textContent.includes('none yet') &&
		!document.getElementById('quality').textContent.includes('none yet') &&
		[...document.querySelectorAll('.chart svg')].some(s => s.getAttribute('aria-label') === 'Container memory')`))
	pcancel()
	p, err = chromedp.Run(ctx, chromedp.Evaluate[seen](read))
	if err != nil {
		t.Fatal(err)
	}
	if perr != nil {
		t.Fatalf("while the window was open the page showed stats %q, checks %q, charts %q: %v", p.Stats, p.Quality, p.Charts, perr)
	}
	charts := strings.Join(p.Charts, "|")
	for _, want := range []string{"Active users", "Container CPU", "Container memory"} {
		if !strings.Contains(charts, want) {
			t.Errorf("while the window was open the page's charts %q lack %q", charts, want)
		}
	}
	if !strings.Contains(p.Quality, "known items found") || strings.Contains(p.Quality, "of 0") {
		t.Errorf("while the window was open the page's checks read %q; want some known items found", p.Quality)
	}
	smu.Lock()
	shown, n := false, samples
	for m := range mem {
		shown = shown || strings.Contains(p.Stats, m)
	}
	smu.Unlock()
	if !shown || !strings.Contains(p.Stats, "container_cpu_cores") {
		t.Errorf("while the window was open the page's stats read %q; want a memory sampled (%d samples) and the CPU", p.Stats, n)
	}
	close(release)
	if ws := <-done; len(ws) > 0 {
		t.Logf("the level's warnings: %q", ws)
	}
}

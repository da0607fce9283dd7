package live_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/chromiumtest"
	"github.com/searchbench/searchbench/runner/live"
	"github.com/searchbench/searchbench/runner/result"
)

// TestLivePageShowsTheKnobValueRunning: the status line leads with the
// knob value of the sweep point whose level or rung is running, the
// engine's default named as such; outside a sweep it is as it was.
func TestLivePageShowsTheKnobValueRunning(t *testing.T) {
	exe := chromiumtest.Path(t)
	lv := live.New()
	srv := httptest.NewServer(lv)
	defer srv.Close()
	tab := chromiumtest.Browser(t, exe, 1000, 700)
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	status := func(e event.Event, want string) {
		t.Helper()
		lv.Observe(e)
		var got string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var err error
			if got, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('status').textContent`)); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(got, want) {
				return
			}
		}
		t.Errorf("status %q; want it to begin %q", got, want)
	}
	status(event.Event{Kind: event.Phase, Setup: "pgvector", Users: 8, Phase: "measure", Window: result.LevelWindow(0, 8).InPoint(1, 40)},
		"pgvector: knob value 40 (sweep point 2), level 1, 8 users — measure")
	status(event.Event{Kind: event.Rung, Setup: "pgvector", Rate: 500, Rep: 1, Reps: 2, Window: result.RepWindow(0, 0).InPoint(0, 0)},
		"pgvector: knob value default (sweep point 1), rung at 500 calls/s")
	status(event.Event{Kind: event.Phase, Setup: "bleve", Users: 3, Phase: "settle", Window: result.LevelWindow(0, 3)},
		"bleve: level 1, 3 users — settle")
	lv.Close()
}

package loops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
)

// A level's warnings reach the Observer (event.Warning), named by the level, as the
// level ends: each warning of the result, once.
func TestLevelWarningsAreSentAsRaised(t *testing.T) {
	e := runnertest.NewMem()
	e.Delay = 200 * time.Microsecond
	e.Fail = func(op string, _ int64) error {
		if op == "search" {
			return errors.New("boom")
		}
		return nil
	}
	c := runnertest.Text(t, 300, 0.5)
	runnertest.Load(t, e, c)
	var mu sync.Mutex
	sent := map[result.Window][]string{}
	ev := watch(event.Warning, func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		sent[e.Window] = append(sent[e.Window], e.Text)
	})
	levels := ClosedLoop(context.Background(), e, c, quickConfig(2, 3), ev, nil)
	mu.Lock()
	defer mu.Unlock()
	for i, name := range []result.Window{result.LevelWindow(0, 2), result.LevelWindow(1, 3)} {
		if len(levels[i].Warnings) == 0 || !slices.Equal(sent[name], levels[i].Warnings.Texts()) {
			t.Errorf("%s: sent %q; the level's warnings %q", name, sent[name], levels[i].Warnings)
		}
	}
	if len(sent) != 2 {
		t.Errorf("warnings sent for %d windows; want the 2 levels", len(sent))
	}
}

// A warning quoting a failure's message is scrubbed of the setup's secrets
// before any observer sees it, as the result's messages are.
func TestWarningEventsAreScrubbed(t *testing.T) {
	var got []event.Event
	em := NewEmitter("typesense", event.ObserverFunc(func(e event.Event) { got = append(got, e) }), "s3cretKey-0123456789")
	em.warn(result.LevelWindow(0, 2), result.Notes("search: 4 failed, e.g. 401 for key S3CRETKEY-0123456789 (s3cretKey-01…)"))
	if len(got) != 1 || got[0].Kind != event.Warning || got[0].Setup != "typesense" || got[0].Window != result.LevelWindow(0, 2) || got[0].Phase != "" {
		t.Fatalf("events %+v", got)
	}
	if w := got[0].Text; strings.Contains(strings.ToLower(w), "s3cret") || !strings.Contains(w, "[redacted]") {
		t.Errorf("warning sent as %q", w)
	}
}

// watch is an Emitter that calls f with each event of kind k (from any of
// the loop's goroutines).
func watch(k event.Kind, f func(event.Event)) Emitter {
	return Emitter{Observer: event.ObserverFunc(func(e event.Event) {
		if e.Kind == k {
			f(e)
		}
	})}
}

package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A level's warnings reach the Observer (EventWarning), named by the level, as the
// level ends: each warning of the result, once.
func TestLevelWarningsAreSentAsRaised(t *testing.T) {
	e := newMem()
	e.delay = 200 * time.Microsecond
	e.fail = func(op string, _ int64) error {
		if op == "search" {
			return errors.New("boom")
		}
		return nil
	}
	c := testCorpus(t, 300, 0.5)
	if _, err := Prepopulate(context.Background(), e, c, DefaultTimeout, nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[string][]string{}
	ev := watch(EventWarning, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		sent[e.Phase] = append(sent[e.Phase], e.Text)
	})
	levels := ClosedLoop(context.Background(), e, c, quickConfig(2, 3), ev, nil)
	mu.Lock()
	defer mu.Unlock()
	for i, name := range []string{"level 1 users=2", "level 2 users=3"} {
		if len(levels[i].Warnings) == 0 || !slices.Equal(sent[name], levels[i].Warnings) {
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
	var got []Event
	r := &run{obs: ObserverFunc(func(e Event) { got = append(got, e) })}
	em := r.emitter("typesense", []string{"s3cretKey-0123456789"})
	em.warn("level 1 users=2", []string{"search: 4 failed, e.g. 401 for key S3CRETKEY-0123456789 (s3cretKey-01…)"})
	if len(got) != 1 || got[0].Kind != EventWarning || got[0].Setup != "typesense" || got[0].Phase != "level 1 users=2" {
		t.Fatalf("events %+v", got)
	}
	if w := got[0].Text; strings.Contains(strings.ToLower(w), "s3cret") || !strings.Contains(w, "[redacted]") {
		t.Errorf("warning sent as %q", w)
	}
}

// watch is an Emitter that calls f with each event of kind k (from any of
// the loop's goroutines).
func watch(k EventKind, f func(Event)) Emitter {
	return Emitter{Observer: ObserverFunc(func(e Event) {
		if e.Kind == k {
			f(e)
		}
	})}
}

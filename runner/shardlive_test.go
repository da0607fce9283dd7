package runner

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// watched keeps what a coordinator's live view was sent: the latest of
// each interval, and the rest.
type watched struct {
	mu        sync.Mutex
	intervals map[ivKey]result.Interval
	phases    []string
	windows   []result.Window // each phase's
	logs      []string
}

func (w *watched) Observe(e event.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch e.Kind {
	case event.Interval:
		w.intervals[ivKey{e.Setup, e.Window, e.Interval.Start}] = *e.Interval
	case event.Phase:
		w.phases = append(w.phases, e.Phase)
		w.windows = append(w.windows, e.Window)
	case event.Log:
		w.logs = append(w.logs, e.Text)
	}
}

// The coordinator's live view, fed by the shards' streams, ends with the
// merged result's timelines exactly: interval by interval, histograms
// added, each shard's throughput apart.
func TestTheCoordinatorsLiveViewIsTheMergedTimeline(t *testing.T) {
	w := &watched{intervals: map[ivKey]result.Interval{}}
	plans := shardPlans(t, 3, uniqueURL(t), &loops.Config{Users: []int{3, 7}, SpawnRate: 1000, Settle: 50 * time.Millisecond,
		Measure: 600 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10, Interval: 200 * time.Millisecond}}, nil)
	res, o := runShardsWatched(t, plans, NewShardView(w))
	if o == nil || o.Partial() {
		t.Fatalf("coordinator: %+v", o)
	}
	merged, err := result.Merge(o.Results...)
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := merged.Engines[0]
	n := 0
	for _, l := range e.Levels {
		if l.Timeline == nil || len(l.Timeline.Intervals) < 3 {
			t.Fatalf("level %d users: timeline %+v", l.Users, l.Timeline)
		}
		window := result.LevelWindow(map[int]int{3: 0, 7: 1}[l.Users], l.Users)
		for _, want := range l.Timeline.Intervals {
			n++
			got, ok := w.intervals[ivKey{e.Label, window, want.Start}]
			if !ok {
				t.Errorf("%s at %v: not in the live view (it has %d intervals)", window, want.Start, len(w.intervals))
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %v: live\n%+v\nmerged\n%+v", window, want.Start, got, want)
			}
			if want.Start == 0 && len(got.Shards) != 3 {
				t.Errorf("%s at %v: %d shards' throughput", window, want.Start, len(got.Shards))
			}
		}
	}
	if len(w.intervals) != n {
		t.Errorf("the live view has %d intervals, the merged timelines %d", len(w.intervals), n)
	}
	// Each phase once, not once per shard; each shard's start lateness.
	if got := strings.Join(w.phases, ","); got != "ramp,settle,measure,drain,ramp,settle,measure,drain" {
		t.Errorf("phases %s", got)
	}
	for i, win := range w.windows {
		if want := result.LevelWindow(i/4, []int{3, 7}[i/4]); win != want {
			t.Errorf("phase %d (%s) of window %q; want %q", i, w.phases[i], win, want)
		}
	}
	late := 0
	for _, l := range w.logs {
		if strings.Contains(l, " late (clock offset") {
			late++
		}
	}
	if want := 3 * len(res[0].Shard.Starts); late != want {
		t.Errorf("%d start lateness lines; want %d:\n%s", late, want, strings.Join(w.logs, "\n"))
	}
}

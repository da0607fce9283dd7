package runner_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// A library caller's Observer gets every kind of event the CLI's log and
// the live view draw, from the same stream they read: runs of the embedded
// engine (a plan is a closed loop or a ladder, so one of each) must send
// each kind at least once, so a kind the loops stop emitting fails here.
// The intervals sent, latest of each kept, are the result's timeline.
func TestAnObserverGetsEveryKindOfEvent(t *testing.T) {
	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	calls := loops.Calls{Timeout: 5 * time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10, Interval: 250 * time.Millisecond}
	closed := &loops.Config{
		Users: []int{2}, SpawnRate: 100, Settle: 100 * time.Millisecond, Measure: 1500 * time.Millisecond,
		Freshness: checks.FreshnessConfig{Off: true}, Calls: calls,
	}
	// One rung: its ladder always warns (it met the rule at its top rung,
	// or no rung met it).
	ladder := &loops.LadderConfig{
		Open:     loops.OpenConfig{Workers: 4, Arrival: "constant", Calls: calls},
		Rates:    workload.Ladder{Start: 50, Step: 2, Stop: 50},
		Duration: 500 * time.Millisecond, Repeat: 1,
		Factor: loops.DefaultFactor, MinAchieved: loops.DefaultMinAchieved, Explode: loops.DefaultExplode,
	}
	var mu sync.Mutex
	seen := map[event.Kind]int{}
	phases := map[string]bool{}
	latest := map[result.Window]map[result.Duration]result.Interval{} // window → start → interval
	obs := event.ObserverFunc(func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		seen[e.Kind]++
		switch e.Kind {
		case event.Log:
			return // some are about the whole run
		case event.Phase:
			phases[e.Phase] = true
		case event.Interval:
			if latest[e.Window] == nil {
				latest[e.Window] = map[result.Duration]result.Interval{}
			}
			latest[e.Window][e.Interval.Start] = *e.Interval
		}
		if e.Setup != "bleve" {
			t.Errorf("%v event %+v not labelled with its setup", e.Kind, e)
		}
	})
	var timelines = map[result.Window]*result.Timeline{}
	for _, plan := range []runner.Plan{
		{Source: src, Setups: []runner.Setup{{Driver: "bleve"}}, Closed: closed},
		{Source: src, Setups: []runner.Setup{{Driver: "bleve"}}, Ladder: ladder},
	} {
		res, err := runner.Run(context.Background(), plan, obs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial {
			t.Fatalf("the run stopped: %s", res.Reason)
		}
		if er := res.Engines[0]; len(er.Levels) > 0 {
			timelines[result.LevelWindow(0, 2)] = er.Levels[0].Timeline
		} else {
			timelines[result.RepWindow(0, 0)] = er.Ladder.Rungs[0].Reps[0].Timeline
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// Every kind there is: event.Warning is the last (a kind added after it
	// must be added here).
	for k := event.Log; k <= event.Warning; k++ {
		if seen[k] == 0 {
			t.Errorf("no event of kind %d (seen: %v)", k, seen)
		}
	}
	for _, p := range []string{"ramp", "settle", "measure", "drain"} {
		if !phases[p] {
			t.Errorf("no %s phase", p)
		}
	}
	for window, tl := range timelines {
		if tl == nil || len(tl.Intervals) == 0 {
			t.Fatalf("%s: no timeline in the result", window)
		}
		got := latest[window]
		if len(got) != len(tl.Intervals) {
			t.Errorf("%s: %d intervals sent; the result's timeline has %d", window, len(got), len(tl.Intervals))
		}
		for _, iv := range tl.Intervals {
			if s, ok := got[iv.Start]; !ok || s.Length != iv.Length || len(s.Ops) != len(iv.Ops) {
				t.Errorf("%s: interval at %v sent as %+v; the timeline has %+v", window, iv.Start, s, iv)
			}
		}
	}
}

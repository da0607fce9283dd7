package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// firsts keeps, of each interval (by window and start) sent more than
// once, the first event: the window's final intervals are sent once each,
// once the collector has stopped, so an interval sent before that was
// first sent by the collector, provisional, while its window was open.
type firsts struct {
	mu    sync.Mutex
	first map[string]result.Interval
	sent  map[string]int
	n     int
}

func newFirsts() *firsts { return &firsts{first: map[string]result.Interval{}, sent: map[string]int{}} }

func (w *firsts) Observe(e event.Event) {
	if e.Kind != event.Interval {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	k := e.Phase + "|" + e.Interval.Start.String()
	if w.sent[k]++; w.sent[k] == 1 {
		w.first[k] = *e.Interval
	}
}

// provisional is the intervals first sent while their window was open, as
// they were first sent. The caller holds mu.
func (w *firsts) provisional() []result.Interval {
	var out []result.Interval
	for k, iv := range w.first {
		if w.sent[k] > 1 {
			out = append(out, iv)
		}
	}
	return out
}

// liveConfig is a level long enough, in intervals, that several close
// while its window is open, with checks in most of them.
func liveConfig(users ...int) *loops.Config {
	return &loops.Config{Users: users, SpawnRate: 1000, Settle: 50 * time.Millisecond, Measure: 2 * time.Second,
		Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10, Interval: 250 * time.Millisecond,
			Known: checks.KnownConfig{Fraction: 0.5}}}
}

// slowShared makes the shared engine at url answer each call after d: the
// users then leave the collector the CPU it needs to send intervals on
// time on a loaded machine, as a real engine's latency would.
func slowShared(url string, d time.Duration) string {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	e := &sharedEngine{Mem: runnertest.NewMem(), written: map[string]int{}}
	e.Delay = d
	sharedEngines[url] = e
	return url
}

// slowLauncher launches slowShared engines.
type slowLauncher struct{ *fakeLauncher }

func (l slowLauncher) Launch(ctx context.Context, driver string, o launch.Options) (*launch.Engine, error) {
	c, err := l.fakeLauncher.Launch(ctx, driver, o)
	if err == nil {
		slowShared(c.URL, 500*time.Microsecond)
	}
	return c, err
}

// While a level runs, each interval the live view is sent carries what the
// window's watchers know of it already: the active users, the known-item
// checks of its calls answered so far, the freshness probes completed in
// it and the engine's stats sampled in it (here the launched container's
// CPU, 0.5 by the fake launcher), not only once the window ends.
func TestLiveIntervalsCarryTheWindowsFigures(t *testing.T) {
	w := newFirsts()
	cfg := liveConfig(3)
	cfg.Freshness.Off = false
	p := Plan{Source: runnertest.Text(t, 2000, 0.5), Setups: []Setup{{Driver: "sharedmem"}}, Closed: cfg,
		Launcher: slowLauncher{&fakeLauncher{t: t}}}
	res, err := Run(context.Background(), p, w)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Engines[0].Levels[0]
	if l.Timeline == nil {
		t.Fatalf("no timeline: %+v", res.Engines[0])
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	early := w.provisional()
	if len(early) == 0 {
		t.Fatalf("%d interval events for %d intervals: none was sent while the window was open", w.n, len(l.Timeline.Intervals))
	}
	var checks, stats, fresh int
	for _, iv := range early {
		if iv.ActiveUsers == nil || *iv.ActiveUsers != 3 {
			t.Errorf("interval at %v, sent while open: active users %v; want 3", iv.Start, iv.ActiveUsers)
		}
		final := l.Timeline.Intervals[l.Timeline.Index(iv.Start)]
		if k := iv.KnownItems; k != nil {
			checks++
			if f := final.KnownItems; f == nil || k.Checks > f.Checks || k.Found > f.Found || k.Found > k.Checks {
				t.Errorf("interval at %v: %+v checks sent while open; the timeline has %+v", iv.Start, k, f)
			}
		}
		if f := iv.Freshness; f != nil {
			fresh++
			if ff := final.Freshness; ff == nil || f.Visible > ff.Visible || f.LagMax > ff.LagMax {
				t.Errorf("interval at %v: freshness %+v sent while open; the timeline has %+v", iv.Start, f, ff)
			}
		}
		if v, ok := iv.EngineStats["container_cpu_cores"]; ok {
			stats++
			if v != 0.5 || final.EngineStats["container_cpu_cores"] != 0.5 {
				t.Errorf("interval at %v: container CPU %v sent while open, %v in the timeline; the launcher sampled 0.5", iv.Start, v, final.EngineStats)
			}
		}
	}
	if checks == 0 || stats == 0 || fresh == 0 {
		t.Errorf("of %d intervals sent while open, %d had known-item checks, %d the engine's stats and %d freshness probes; want some of each",
			len(early), checks, stats, fresh)
	}
}

// In open loop too: a rung's intervals, sent while open, carry the checks
// answered so far and the launched container's CPU sampled in them.
func TestLiveRungIntervalsCarryChecksAndStats(t *testing.T) {
	w := newFirsts()
	open := openConfig(4)
	open.Interval, open.Known = 250*time.Millisecond, checks.KnownConfig{Fraction: 0.5}
	p := Plan{Source: runnertest.Text(t, 2000, 0.5), Setups: []Setup{{Driver: "sharedmem"}}, Launcher: slowLauncher{&fakeLauncher{t: t}},
		Ladder: &loops.LadderConfig{Open: open, Rates: workload.Ladder{Start: 200, Step: 2, Stop: 200}, Duration: 2 * time.Second,
			Repeat: 1, Factor: 5, MinAchieved: 0.5, Explode: 1000}}
	res, err := Run(context.Background(), p, w)
	if err != nil {
		t.Fatal(err)
	}
	lad := res.Engines[0].Ladder
	if lad == nil || len(lad.Rungs) != 1 || lad.Rungs[0].Reps[0].Timeline == nil {
		t.Fatalf("ladder %+v", res.Engines[0])
	}
	tl := lad.Rungs[0].Reps[0].Timeline
	w.mu.Lock()
	defer w.mu.Unlock()
	early := w.provisional()
	if len(early) == 0 {
		t.Fatalf("%d interval events for %d intervals: none was sent while the rung ran", w.n, len(tl.Intervals))
	}
	var checks, stats int
	for _, iv := range early {
		final := tl.Intervals[tl.Index(iv.Start)]
		if k := iv.KnownItems; k != nil {
			checks++
			if f := final.KnownItems; f == nil || k.Checks > f.Checks || k.Found > f.Found {
				t.Errorf("interval at %v: %+v checks sent while open; the timeline has %+v", iv.Start, k, f)
			}
		}
		if v, ok := iv.EngineStats["container_cpu_cores"]; ok {
			stats++
			if v != 0.5 {
				t.Errorf("interval at %v: container CPU %v sent while open; the launcher sampled 0.5", iv.Start, v)
			}
		}
		if iv.ActiveUsers != nil {
			t.Errorf("interval at %v of a rung: active users %v; open loop has none", iv.Start, *iv.ActiveUsers)
		}
	}
	if checks == 0 || stats == 0 {
		t.Errorf("of %d intervals sent while open, %d had known-item checks and %d the engine's stats; want some of each", len(early), checks, stats)
	}
}

// A shard's intervals carry the same figures to the coordinator's live
// view, where they merge: every merged interval, provisional or final, has
// the active users of the shards that reported it added up.
func TestTheCoordinatorsLiveViewHasUsersWhileTheWindowIsOpen(t *testing.T) {
	var mu sync.Mutex
	var got []result.Interval
	watch := event.ObserverFunc(func(e event.Event) {
		if e.Kind == event.Interval {
			mu.Lock()
			got = append(got, *e.Interval)
			mu.Unlock()
		}
	})
	plans := shardPlans(t, 3, slowShared(uniqueURL(t), 500*time.Microsecond), liveConfig(7), nil)
	_, o := runShardsWatched(t, plans, NewShardView(watch))
	if o == nil || o.Partial() {
		t.Fatalf("coordinator: %+v", o)
	}
	merged, err := result.Merge(o.Results...)
	if err != nil {
		t.Fatal(err)
	}
	users := map[int]float64{} // each shard's share of the 7
	for _, p := range plans {
		_, n := p.Shard.Share().Users(7)
		users[p.Shard.Index] = float64(n)
	}
	mu.Lock()
	defer mu.Unlock()
	// Each shard sends each interval once final; more were sent before.
	if finals := 3 * len(merged.Engines[0].Levels[0].Timeline.Intervals); len(got) <= finals {
		t.Fatalf("%d interval events for %d final ones: none was sent while the window was open", len(got), finals)
	}
	for _, iv := range got {
		var want float64
		for _, s := range iv.Shards {
			want += users[s.Shard]
		}
		if iv.ActiveUsers == nil || *iv.ActiveUsers != want {
			t.Errorf("merged interval at %v of shards %+v: active users %v; want %v", iv.Start, iv.Shards, iv.ActiveUsers, want)
		}
	}
}

package loops

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// freezeEngine answers every call after serve, except that from at after
// t0 (its first call, when t0 is not set), and every period after that, the
// whole engine freezes for freeze: a call that arrives during a freeze
// returns when the freeze ends (plus serve).
type freezeEngine struct {
	runnertest.Mem
	once                      sync.Once
	t0                        time.Time
	serve, at, period, freeze time.Duration
}

func (f *freezeEngine) wait(ctx context.Context) error {
	now := time.Now()
	f.once.Do(func() {
		if f.t0.IsZero() {
			f.t0 = now
		}
	})
	d := f.serve
	if phase := (now.Sub(f.t0) - f.at + f.period) % f.period; phase < f.freeze {
		d += f.freeze - phase
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (f *freezeEngine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	return engines.Hits{}, f.wait(ctx)
}

func (f *freezeEngine) Upsert(ctx context.Context, d engines.Document) error { return f.wait(ctx) }

func (f *freezeEngine) Delete(ctx context.Context, id string) error { return f.wait(ctx) }

// The engine freezes for 300 ms from 1.35 s after the run's first call,
// every 2 s: inside intervals 1 and 3 of 1 s intervals, 350 ms clear of
// their edges (the first call is a few ms from the grid's origin). The
// per-interval p99 must show each freeze in the interval it overlaps and
// nowhere else, in closed and in open loop.
//
// Open loop (200 calls/s, answered at once outside a freeze): 30% of a
// freeze interval's calls are due during the freeze and wait its rest,
// so its p99 is ~290 ms. Closed loop (4 users, 20 ms a call): each user
// is caught once per freeze for ≥ 280 ms, ~3% of the interval's ~140
// calls, so its p99 is a frozen call. The other intervals' p99 is the
// service time. Thresholds: ≥ 200 ms in the freeze intervals, < 150 ms in
// the others (a busy 2-core machine delays timers by tens of ms, not 150).
func TestTimelineShowsFreezesWhereTheyHappen(t *testing.T) {
	const freezeP99, calmP99 = 200.0, 150.0
	check := func(what string, tl *result.Timeline) {
		t.Helper()
		if tl == nil || len(tl.Intervals) != 4 {
			t.Fatalf("%s: timeline %+v; want 4 intervals", what, tl)
		}
		for k, iv := range tl.Intervals {
			o, _ := iv.Op("search")
			t.Logf("%s interval %d (at %v): %d calls, p50 %.1f, p99 %.1f, max %.1f ms", what, k, iv.Start, o.Count, o.P50, o.P99, o.Max)
			if frozen := k%2 == 1; frozen && o.P99 < freezeP99 {
				t.Errorf("%s: interval %d overlaps a 300 ms freeze, its p99 is %.1f ms (< %v)", what, k, o.P99, freezeP99)
			} else if !frozen && o.P99 >= calmP99 {
				t.Errorf("%s: interval %d has no freeze, its p99 is %.1f ms (≥ %v)", what, k, o.P99, calmP99)
			}
			if o.Count == 0 {
				t.Errorf("%s: interval %d has no call", what, k)
			}
		}
	}
	newEngine := func(serve time.Duration) *freezeEngine {
		return &freezeEngine{Mem: *runnertest.NewMem(), serve: serve, at: 1350 * time.Millisecond, period: 2 * time.Second, freeze: 300 * time.Millisecond}
	}
	c := runnertest.Text(t, 100, 1)
	cfg := openConfig(2)
	cfg.Interval = time.Second
	rep := OpenLoop(context.Background(), newEngine(0), c, cfg, workload.Constant{PerSecond: 200, Duration: 4 * time.Second}, checks.NewVersions(101, shard.Share{}))
	check("open loop", rep.Timeline)

	closed := quickConfig(4)
	closed.Mix, closed.Settle, closed.Measure, closed.Interval = workload.Presets["search"], 0, 4*time.Second, time.Second
	// The intervals are also sent live, as they close.
	var mu sync.Mutex
	live := map[result.Duration]result.Interval{}
	ev := watch(event.Interval, func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Window != result.LevelWindow(0, 4) || e.Phase != "" {
			t.Errorf("live interval of window %q, phase %q", e.Window, e.Phase)
		}
		live[e.Interval.Start] = *e.Interval
	})
	l := ClosedLoop(context.Background(), newEngine(20*time.Millisecond), c, closed, ev, nil)[0]
	check("closed loop", l.Timeline)
	mu.Lock()
	defer mu.Unlock()
	for k := range 2 { // closed 1 s after they ended: the first two surely before the window's end
		iv, ok := live[result.Duration(time.Duration(k)*time.Second)]
		o, _ := iv.Op("search")
		if final, _ := l.Timeline.Intervals[k].Op("search"); !ok || o.Count == 0 || o.Count > final.Count || (k == 1 && o.P99 < freezeP99) {
			t.Errorf("live interval %d: sent %v, %d calls, p99 %.1f ms; the timeline's: %d calls, p99 %.1f ms", k, ok, o.Count, o.P99, final.Count, final.P99)
		}
	}
	// The last sent of each interval is the timeline's, the window's last
	// interval (closed after the collector stopped) among them.
	if len(live) != len(l.Timeline.Intervals) {
		t.Errorf("%d intervals sent live; the timeline has %d", len(live), len(l.Timeline.Intervals))
	}
	for _, iv := range l.Timeline.Intervals {
		if sent := live[iv.Start]; !reflect.DeepEqual(sent, iv) {
			t.Errorf("interval at %v: last sent %+v; the timeline's %+v", iv.Start, sent, iv)
		}
	}
	for k, iv := range l.Timeline.Intervals {
		if iv.ActiveUsers == nil || *iv.ActiveUsers != 4 {
			t.Errorf("closed loop: interval %d active users %v; want 4", k, iv.ActiveUsers)
		}
	}
}

// The engine's own figures are sampled on the timeline's clock: a window of
// 2.5 s at 1 s intervals has a sample (taken about once a second from the
// window's start) in each interval, the gauge at its value and the counter
// (1000/s of the engine's clock) about 1000 higher from one to the next
// (the sampler's ticks may be late on a busy machine: 500 to 1500).
func TestEngineStatsOnTheTimeline(t *testing.T) {
	e := &statsEngine{Mem: *runnertest.NewMem(), t0: time.Now()}
	cfg := quickConfig(2)
	cfg.Measure, cfg.Interval = 2500*time.Millisecond, time.Second
	// A launched container's figures are sampled with the engine's.
	cfg.Sampled = func(context.Context) (map[string]float64, error) {
		return map[string]float64{"container_cpu_cores": 1.5}, nil
	}
	l := ClosedLoop(context.Background(), e, runnertest.Text(t, 200, 1), cfg, Emitter{}, nil)[0]
	if g := l.EngineStats["container_cpu_cores"]; g.Samples < 3 || g.Mean != 1.5 {
		t.Errorf("the container's CPU over the window: %+v", g)
	}
	if len(l.Timeline.Intervals) != 3 {
		t.Fatalf("%d intervals; want 3", len(l.Timeline.Intervals))
	}
	prev := -1.0
	for k, iv := range l.Timeline.Intervals {
		s := iv.EngineStats
		t.Logf("interval %d: %v", k, s)
		if s[engines.StatQueueDepth] != 4 || s["container_cpu_cores"] != 1.5 {
			t.Errorf("interval %d: queue depth %v, container CPU %v; want 4 and 1.5", k, s[engines.StatQueueDepth], s["container_cpu_cores"])
		}
		if in, ok := s["ingest"]; !ok || (prev >= 0 && (in-prev < 500 || in-prev > 1500)) {
			t.Errorf("interval %d: ingest %v after %v; want about 1000 more (500 to 1500 on a busy machine)", k, in, prev)
		} else {
			prev = in
		}
	}
}

// The known-item checks and the freshness probes of a window are on its
// timeline: each interval's add up to the window's.
func TestTimelineCountsChecksAndProbes(t *testing.T) {
	cfg := quickConfig(4)
	cfg.Measure, cfg.Interval = time.Second, 200*time.Millisecond
	cfg.Known.Fraction = 0.2
	cfg.Freshness.Gap = time.Millisecond
	// A millisecond a call and 20,000 IDs: the level's writes leave most
	// of its check candidates untouched however fast the machine (500 IDs
	// at full speed were all rewritten before the window opened, and every
	// check was skipped).
	e := runnertest.NewMem()
	e.Delay = time.Millisecond
	l := ClosedLoop(context.Background(), e, runnertest.Text(t, 20_000, 1), cfg, Emitter{}, nil)[0]
	var nChecks, found, visible int64
	for _, iv := range l.Timeline.Intervals {
		if k := iv.KnownItems; k != nil {
			nChecks, found = nChecks+k.Checks, found+k.Found
		}
		if f := iv.Freshness; f != nil {
			visible += f.Visible
		}
	}
	if l.KnownItems == nil || nChecks != l.KnownItems.Checks || found != l.KnownItems.Found || nChecks == 0 {
		t.Errorf("intervals hold %d checks (%d found); the window %+v", nChecks, found, l.KnownItems)
	}
	if l.Freshness == nil || visible != l.Freshness.Visible || visible == 0 {
		t.Errorf("intervals hold %d visible probes; the window %+v", visible, l.Freshness)
	}
	rep := OpenLoop(context.Background(), runnertest.NewMem(), runnertest.Text(t, 500, 1), OpenConfig{Workers: 2, Arrival: "constant",
		Calls: Calls{Timeout: time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10, Known: checks.KnownConfig{Fraction: 0.2}, Interval: 200 * time.Millisecond}},
		workload.Constant{PerSecond: 500, Duration: time.Second}, checks.NewVersions(501, shard.Share{}))
	nChecks = 0
	var scheduled int64
	for k, iv := range rep.Timeline.Intervals {
		if iv.ScheduledRate != 500 || iv.AchievedRate <= 0 || iv.AchievedRate > 500 {
			t.Errorf("open loop interval %d: scheduled %v/s, achieved %v/s; want 500 and up to 500", k, iv.ScheduledRate, iv.AchievedRate)
		}
		if k := iv.KnownItems; k != nil {
			nChecks += k.Checks
		}
		scheduled += iv.Scheduled
	}
	if rep.KnownItems == nil || nChecks != rep.KnownItems.Checks || nChecks == 0 {
		t.Errorf("open loop: intervals hold %d checks; the rep %+v", nChecks, rep.KnownItems)
	}
	if scheduled != 500 || len(rep.Timeline.Intervals) != 5 {
		t.Errorf("open loop: %d calls scheduled over %d intervals; want 500 over 5", scheduled, len(rep.Timeline.Intervals))
	}
}

// A shard's intervals lie on the grid every shard shares (the synchronised
// start plus the planned ramp and settle), even when its own ramp overran
// and its window opened late: its first interval then begins before its
// window (Timeline.Offset < 0) and all of them at multiples of the interval
// from the shared origin. Unsharded, the intervals start with the window.
func TestAShardsIntervalsLieOnTheSharedGrid(t *testing.T) {
	const hold, measure = 130 * time.Millisecond, 400 * time.Millisecond
	run := func(share shard.Share) result.Level {
		e := runnertest.NewMem()
		e.Delay = time.Millisecond
		cfg := quickConfig(8)
		cfg.Settle, cfg.Measure, cfg.Interval, cfg.Share = 50*time.Millisecond, measure, 100*time.Millisecond, share
		ev := watch(event.Phase, func(e event.Event) {
			if e.Phase == "ramp" {
				time.Sleep(hold) // the ramp overruns by ~hold
			}
		})
		return ClosedLoop(context.Background(), e, runnertest.Text(t, 500, 0.5), cfg, ev, nil)[0]
	}
	for _, c := range []struct {
		share   shard.Share
		sharded bool
	}{{shard.Share{}, false}, {shard.Share{Index: 0, Count: 2}, true}} {
		l := run(c.share)
		tl := l.Timeline
		if len(tl.Intervals) == 0 {
			t.Fatalf("sharded %v: no interval in a %v window", c.sharded, time.Duration(l.Window))
		}
		s, _ := l.Op("search")
		var calls int64
		for _, iv := range tl.Intervals {
			o, _ := iv.Op("search")
			calls += o.Count
			if iv.Start%tl.Interval != 0 {
				t.Errorf("sharded %v: an interval starts at %v, off the %v grid", c.sharded, iv.Start, tl.Interval)
			}
		}
		t.Logf("sharded %v: offset %v, %d intervals from %v", c.sharded, tl.Offset, len(tl.Intervals), tl.Intervals[0].Start)
		if calls != s.Count {
			t.Errorf("sharded %v: intervals hold %d searches, the window %d", c.sharded, calls, s.Count)
		}
		if !c.sharded && (tl.Offset != 0 || len(tl.Intervals) != 4 || tl.Intervals[0].Start != 0) {
			t.Errorf("unsharded: offset %v, %d intervals from %v; want the window's 4 from 0", tl.Offset, len(tl.Intervals), tl.Intervals[0].Start)
		}
		// The window opened ~hold late on a grid from the planned start:
		// the first interval of the window is ~1 interval in, and the
		// window begins inside it (130 ms is not a whole number of 100
		// ms). It ends where the plan put it, with the other shards', so
		// the intervals end at the planned window's end, and the window
		// is what was left of it.
		first, last := tl.Intervals[0], tl.Intervals[len(tl.Intervals)-1]
		if c.sharded && (tl.Offset >= 0 || tl.Offset <= -result.Duration(100*time.Millisecond) || first.Start < result.Duration(100*time.Millisecond) ||
			last.Start+last.Length != result.Duration(measure) || l.Window != result.Duration(measure)-(first.Start-tl.Offset)) {
			t.Errorf("sharded: offset %v, %d intervals from %v to %v, a %v window; want a negative offset, intervals from ~100ms to the planned %v, the window what is left of it",
				tl.Offset, len(tl.Intervals), first.Start, last.Start+last.Length, l.Window, measure)
		}
	}
}

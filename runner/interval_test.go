package runner

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// freezeEngine answers every call after serve, except that from at after
// its first call, and every period after that, it freezes for freeze: a call
// that arrives during a freeze returns when the freeze ends (plus serve).
type freezeEngine struct {
	memEngine
	once                      sync.Once
	t0                        time.Time
	serve, at, period, freeze time.Duration
}

func (f *freezeEngine) wait(ctx context.Context) error {
	now := time.Now()
	f.once.Do(func() { f.t0 = now })
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
		return &freezeEngine{memEngine: *newMem(), serve: serve, at: 1350 * time.Millisecond, period: 2 * time.Second, freeze: 300 * time.Millisecond}
	}
	c := testCorpus(t, 100, 1)
	cfg := openConfig(2)
	cfg.Interval = time.Second
	rep := OpenLoop(context.Background(), newEngine(0), c, cfg, workload.Constant{PerSecond: 200, Duration: 4 * time.Second}, newVersions(101, shard.Share{}))
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

// ivSample is one synthetic call: its interval, operation, query kind (a
// search's; -1: none), latency, class.
type ivSample struct {
	k    int
	op   workload.Op
	kind int
	us   int64
	c    engines.Class
}

// ivKinds are the synthetic searches' query kinds.
var ivKinds = []string{"knn", "sku", "hybrid"}

// record records samples into a fresh sink on a grid of n intervals over
// recs recorders (each recorder's calls in interval order, as a worker's
// are) and returns the sink's window histograms and timeline.
func record(t *testing.T, samples []ivSample, n, recs int) (*Histograms, *result.Timeline) {
	t.Helper()
	sink := NewSink(3, ivKinds)
	iv := sink.startIntervals(newGrid(time.Now(), time.Second, time.Duration(n)*time.Second))
	rs := make([]*Recorder, recs)
	for i := range rs {
		rs[i] = sink.NewRecorder(i)
	}
	for i, s := range samples {
		if i > 0 && samples[i-1].k != s.k {
			// Close the previous interval as soon as the calls move on,
			// while the other recorders still hold some of its calls:
			// their late flushes reopen it.
			iv.collect(time.Duration(s.k+1) * time.Second)
		}
		rs[i%recs].RecordIn(s.k, s.op, s.kind, time.Duration(s.us)*time.Microsecond, s.c)
	}
	for _, r := range rs {
		r.Flush()
	}
	iv.finish()
	tl, err := iv.timeline(workload.Ops(), nil, 0, time.Duration(n)*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Total(), tl
}

// synthetic draws samples over n intervals in order (k non-decreasing),
// with failures; a search is of one of ivKinds, or (a known-item check)
// of none.
func synthetic(seed uint64, count, n int) []ivSample {
	r := dataset.NewRand(seed)
	out := make([]ivSample, count)
	for i := range out {
		c := engines.OK
		switch r.Intn(50) {
		case 0:
			c = engines.Timeout
		case 1:
			c = engines.NotFound
		}
		op, kind := workload.Op(r.Intn(int(workload.NumOps))), -1
		if op == workload.Search {
			kind = r.Intn(len(ivKinds)+1) - 1
		}
		out[i] = ivSample{k: i * n / count, op: op, kind: kind, us: int64(1 + r.Intn(2_000_000)), c: c}
	}
	return out
}

// decode is an interval's histogram (empty when it has none).
func decode(t *testing.T, enc string) *hdrhistogram.Histogram {
	t.Helper()
	if enc == "" {
		return newHistogram()
	}
	h, err := result.DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The intervals of a window add up to the window: for every operation the
// sum of the interval histograms equals the window's histogram bucket by
// bucket, and the counts and errors add up.
func TestIntervalsSumToTheWindow(t *testing.T) {
	const n = 7
	total, tl := record(t, synthetic(3, 20_000, n), n, 5)
	if len(tl.Intervals) != n {
		t.Fatalf("%d intervals, want %d", len(tl.Intervals), n)
	}
	for _, op := range workload.Ops() {
		sum := newHistogram()
		var count int64
		errs := map[string]int64{}
		for _, iv := range tl.Intervals {
			o, _ := iv.Op(op.String())
			sum.Merge(decode(t, o.Histogram))
			count += o.Count
			for c, k := range o.Errors {
				errs[c] += k
			}
		}
		w, err := total.Stats(op, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Equals(total.hist[op]) || count != w.Count {
			t.Errorf("%v: intervals sum to %d calls (p99 %d µs), the window holds %d (p99 %d µs)", op, count, sum.ValueAtQuantile(99), w.Count, total.hist[op].ValueAtQuantile(99))
		}
		if fmt.Sprint(errs) != fmt.Sprint(w.Errors) && !(len(errs) == 0 && len(w.Errors) == 0) {
			t.Errorf("%v: interval errors sum to %v, the window's are %v", op, errs, w.Errors)
		}
		if count == 0 {
			t.Errorf("%v: no call recorded", op)
		}
	}
	// So do the searches of each query kind.
	window, err := total.kindStats(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(window) != len(ivKinds) {
		t.Fatalf("the window has %d query kinds; want %d", len(window), len(ivKinds))
	}
	for i, w := range window {
		sum := newHistogram()
		var count int64
		errs := map[string]int64{}
		for _, iv := range tl.Intervals {
			o, _ := iv.Op("search")
			for _, k := range o.Kinds {
				if k.Kind == w.Kind {
					sum.Merge(decode(t, k.Histogram))
					count += k.Count
					for c, n := range k.Errors {
						errs[c] += n
					}
				}
			}
		}
		if !sum.Equals(total.kindHist[i]) || count != w.Count || count == 0 {
			t.Errorf("search:%s: intervals sum to %d calls (p99 %d µs), the window holds %d (p99 %d µs)", w.Kind, count, sum.ValueAtQuantile(99), w.Count, total.kindHist[i].ValueAtQuantile(99))
		}
		if fmt.Sprint(errs) != fmt.Sprint(w.Errors) || len(errs) == 0 {
			t.Errorf("search:%s: interval errors sum to %v, the window's are %v", w.Kind, errs, w.Errors)
		}
	}
}

// The merged timeline of N shards equals, interval by interval, the
// timeline of the union of their samples: same counts, same errors, same
// histograms, and so the same percentiles.
func TestMergedTimelineIsTheUnionsTimeline(t *testing.T) {
	const n, shards = 5, 3
	all := synthetic(4, 12_000, n)
	_, want := record(t, all, n, 4)
	var results []*result.Result
	for i := range shards {
		var mine []ivSample
		for j, s := range all {
			if j%shards == i {
				mine = append(mine, s)
			}
		}
		total, tl := record(t, mine, n, 2)
		l := result.Level{Users: 1, Window: result.Duration(n * time.Second), Timeline: tl}
		for _, op := range workload.Ops() {
			s, err := total.Stats(op, time.Duration(n)*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			l.Ops = append(l.Ops, s)
		}
		results = append(results, &result.Result{SchemaVersion: result.SchemaVersion, Shard: &result.Shard{Index: i, Count: shards, Coordinator: "c:1"},
			Engines: []result.EngineRun{{Name: "mem", Label: "mem", Levels: []result.Level{l}}}})
	}
	merged, err := result.Merge(results...)
	if err != nil {
		t.Fatal(err)
	}
	got := merged.Engines[0].Levels[0].Timeline
	if got == nil || len(got.Intervals) != n || got.Merged == "" {
		t.Fatalf("merged timeline %+v; want %d intervals saying how they were merged", got, n)
	}
	for k := range n {
		g, w := got.Intervals[k], want.Intervals[k]
		if g.Start != w.Start || g.Length != w.Length {
			t.Errorf("interval %d: at %v for %v, want at %v for %v", k, g.Start, g.Length, w.Start, w.Length)
		}
		for _, op := range workload.Ops() {
			go_, _ := g.Op(op.String())
			wo, _ := w.Op(op.String())
			if !decode(t, go_.Histogram).Equals(decode(t, wo.Histogram)) {
				t.Errorf("interval %d %v: merged histogram differs from the union's", k, op)
			}
			go_.Histogram, wo.Histogram = "", ""
			if len(go_.Kinds) != len(wo.Kinds) || op == workload.Search && len(go_.Kinds) == 0 {
				t.Fatalf("interval %d %v: merged kinds %+v, union's %+v", k, op, go_.Kinds, wo.Kinds)
			}
			go_.Kinds, wo.Kinds = slices.Clone(go_.Kinds), slices.Clone(wo.Kinds)
			for i := range go_.Kinds {
				if !decode(t, go_.Kinds[i].Histogram).Equals(decode(t, wo.Kinds[i].Histogram)) {
					t.Errorf("interval %d %v %s: merged histogram differs from the union's", k, op, go_.Kinds[i].Kind)
				}
				go_.Kinds[i].Histogram, wo.Kinds[i].Histogram = "", ""
			}
			if fmt.Sprintf("%+v", go_) != fmt.Sprintf("%+v", wo) {
				t.Errorf("interval %d %v: merged %+v, union %+v", k, op, go_, wo)
			}
		}
	}
}

// A shard without a timeline (an older searchbench) merges to a level
// without one.
func TestMergeWithoutTimelines(t *testing.T) {
	total, tl := record(t, synthetic(5, 100, 2), 2, 1)
	level := func(tl *result.Timeline) result.Level {
		s, _ := total.Stats(workload.Search, time.Second)
		return result.Level{Users: 1, Window: result.Duration(time.Second), Ops: []result.OpStats{s}, Timeline: tl}
	}
	var rs []*result.Result
	for i, l := range []result.Level{level(tl), level(nil)} {
		rs = append(rs, &result.Result{SchemaVersion: result.SchemaVersion, Shard: &result.Shard{Index: i, Count: 2, Coordinator: "c:1"},
			Engines: []result.EngineRun{{Name: "mem", Label: "mem", Levels: []result.Level{l}}}})
	}
	m, err := result.Merge(rs...)
	if err != nil {
		t.Fatal(err)
	}
	if m.Engines[0].Levels[0].Timeline != nil {
		t.Errorf("a merge of shards of which one has no timeline has one")
	}
}

// Recording into intervals does not allocate: the flushes at each change
// of interval add to the interval's dense histograms (the operations' and
// the query kinds'), which are allocated once when it opens (here: three
// intervals, open throughout). Each run is
// 100 calls ending in a change of interval, so a flush that allocated even
// once would show as ≥ 1 allocation per run (AllocsPerRun rounds down).
func TestRecordInDoesNotAllocate(t *testing.T) {
	sink := NewSink(2, ivKinds)
	sink.startIntervals(newGrid(time.Now(), time.Second, 3*time.Second))
	r := sink.NewRecorder(0)
	k := 0
	run := func() {
		k++
		for i := range 100 {
			// The searches are of each query kind in turn.
			r.RecordIn(k%3, workload.Op(i%int(workload.NumOps)), i%len(ivKinds), time.Duration(i)*time.Microsecond, engines.OK)
		}
	}
	for range 10 {
		run() // every interval opened
	}
	if allocs := testing.AllocsPerRun(1000, run); allocs != 0 {
		t.Fatalf("100 RecordIn calls and a flush into an interval allocate %.2f times; want 0", allocs)
	}
}

// BenchmarkRecordIn is the recording path with intervals: the interval of
// the call computed from its start time, as the loops do, and a flush into
// the interval's histograms at each change of interval (every 1,024 calls
// here, far more often than a worker's calls cross 1 s intervals). Compare
// with BenchmarkRecord: the difference is the cost of interval recording.
// "kinds" splits the searches into three query kinds, as the product
// corpus's are: each search then goes into its kind's histograms too.
func BenchmarkRecordIn(b *testing.B) {
	for _, c := range []struct {
		name  string
		kinds []string
	}{{"no-kinds", nil}, {"kinds", ivKinds}} {
		b.Run(c.name, func(b *testing.B) {
			sink := NewSink(4, c.kinds)
			g := newGrid(time.Now(), time.Second, 4*time.Second)
			sink.startIntervals(g)
			r := sink.NewRecorder(0)
			var starts [4]time.Time // the calls' start times, as the loops have them
			for k := range starts {
				starts[k] = g.origin.Add(time.Duration(k)*time.Second + time.Millisecond)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r.RecordIn(g.at(starts[i>>10&3]), workload.Search, i%3, time.Duration(i&0xffff)*time.Microsecond, engines.OK)
			}
		})
	}
}

// What a closed interval keeps: its compressed histograms. A second of
// 5,000 calls per operation spread over 1 ms–1 s (far more distinct
// latencies than a real second holds) bounds the stored size of a one-hour
// level at 1 s intervals with four operations.
func TestIntervalMemory(t *testing.T) {
	r := dataset.NewRand(6)
	h := newHistogram()
	for range 5000 {
		_ = h.RecordValue(int64(1000 + r.Intn(999_000)))
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	perHour := 3600 * 4 * (len(enc) + 200)
	t.Logf("one interval's operation: %d bytes compressed (base64); a one-hour level, 4 operations, 1 s intervals: %.1f MB", len(enc), float64(perHour)/(1<<20))
	if perHour > 200<<20 {
		t.Errorf("a one-hour level's timeline takes %d MB", perHour>>20)
	}
	// Dense histograms open at once: bounded whatever the window's length.
	sink := NewSink(2, nil)
	iv := sink.startIntervals(newGrid(time.Now(), time.Second, 100*time.Second))
	rec := sink.NewRecorder(0)
	for k := range 100 {
		for range 10 {
			rec.RecordIn(k, workload.Search, -1, time.Millisecond, engines.OK)
		}
		iv.collect(time.Duration(k) * time.Second)
	}
	rec.Flush()
	if iv.peak > 3 {
		t.Errorf("%d intervals were dense at once; want ≤ 3", iv.peak)
	}
}

// The engine's own figures are sampled on the timeline's clock: a window of
// 2.5 s at 1 s intervals has a sample (taken about once a second from the
// window's start) in each interval, the gauge at its value and the counter
// (1000/s of the engine's clock) about 1000 higher from one to the next
// (the sampler's ticks may be late on a busy machine: 500 to 1500).
func TestEngineStatsOnTheTimeline(t *testing.T) {
	e := &statsEngine{memEngine: *newMem(), t0: time.Now()}
	cfg := quickConfig(2)
	cfg.Measure, cfg.Interval = 2500*time.Millisecond, time.Second
	// A launched container's figures are sampled with the engine's.
	cfg.Sampled = func(context.Context) (map[string]float64, error) {
		return map[string]float64{"container_cpu_cores": 1.5}, nil
	}
	l := ClosedLoop(context.Background(), e, testCorpus(t, 200, 1), cfg, Emitter{}, nil)[0]
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
	e := newMem()
	e.delay = time.Millisecond
	l := ClosedLoop(context.Background(), e, testCorpus(t, 20_000, 1), cfg, Emitter{}, nil)[0]
	var checks, found, visible int64
	for _, iv := range l.Timeline.Intervals {
		if k := iv.KnownItems; k != nil {
			checks, found = checks+k.Checks, found+k.Found
		}
		if f := iv.Freshness; f != nil {
			visible += f.Visible
		}
	}
	if l.KnownItems == nil || checks != l.KnownItems.Checks || found != l.KnownItems.Found || checks == 0 {
		t.Errorf("intervals hold %d checks (%d found); the window %+v", checks, found, l.KnownItems)
	}
	if l.Freshness == nil || visible != l.Freshness.Visible || visible == 0 {
		t.Errorf("intervals hold %d visible probes; the window %+v", visible, l.Freshness)
	}
	rep := OpenLoop(context.Background(), newMem(), testCorpus(t, 500, 1), OpenConfig{Workers: 2, Arrival: "constant",
		Calls: Calls{Timeout: time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10, Known: KnownConfig{Fraction: 0.2}, Interval: 200 * time.Millisecond}},
		workload.Constant{PerSecond: 500, Duration: time.Second}, newVersions(501, shard.Share{}))
	checks = 0
	var scheduled int64
	for k, iv := range rep.Timeline.Intervals {
		if iv.ScheduledRate != 500 || iv.AchievedRate <= 0 || iv.AchievedRate > 500 {
			t.Errorf("open loop interval %d: scheduled %v/s, achieved %v/s; want 500 and up to 500", k, iv.ScheduledRate, iv.AchievedRate)
		}
		if k := iv.KnownItems; k != nil {
			checks += k.Checks
		}
		scheduled += iv.Scheduled
	}
	if rep.KnownItems == nil || checks != rep.KnownItems.Checks || checks == 0 {
		t.Errorf("open loop: intervals hold %d checks; the rep %+v", checks, rep.KnownItems)
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
		e := newMem()
		e.delay = time.Millisecond
		cfg := quickConfig(8)
		cfg.Settle, cfg.Measure, cfg.Interval, cfg.Share = 50*time.Millisecond, measure, 100*time.Millisecond, share
		ev := watch(event.Phase, func(e event.Event) {
			if e.Phase == "ramp" {
				time.Sleep(hold) // the ramp overruns by ~hold
			}
		})
		return ClosedLoop(context.Background(), e, testCorpus(t, 500, 0.5), cfg, ev, nil)[0]
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

package record

import (
	"fmt"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

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
	iv := sink.StartIntervals(NewGrid(time.Now(), time.Second, time.Duration(n)*time.Second))
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
	iv.Finish()
	tl, err := iv.Timeline(workload.Ops(), nil, 0, time.Duration(n)*time.Second)
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
		return NewHistogram()
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
		sum := NewHistogram()
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
		if !sum.Equals(total.Hist[op]) || count != w.Count {
			t.Errorf("%v: intervals sum to %d calls (p99 %d µs), the window holds %d (p99 %d µs)", op, count, sum.ValueAtQuantile(99), w.Count, total.Hist[op].ValueAtQuantile(99))
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
		sum := NewHistogram()
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
	sink.StartIntervals(NewGrid(time.Now(), time.Second, 3*time.Second))
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
			g := NewGrid(time.Now(), time.Second, 4*time.Second)
			sink.StartIntervals(g)
			r := sink.NewRecorder(0)
			var starts [4]time.Time // the calls' start times, as the loops have them
			for k := range starts {
				starts[k] = g.Origin.Add(time.Duration(k)*time.Second + time.Millisecond)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r.RecordIn(g.At(starts[i>>10&3]), workload.Search, i%3, time.Duration(i&0xffff)*time.Microsecond, engines.OK)
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
	h := NewHistogram()
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
	iv := sink.StartIntervals(NewGrid(time.Now(), time.Second, 100*time.Second))
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

package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// sweepShard is shard idx of 2 of a sweep plan whose points are the given
// knob values, each a closed-loop level of kNN searches with the given
// samples, idle recall and recall under writes.
func sweepShard(t *testing.T, idx int, knob string, values []int, hists []*hdrhistogram.Histogram) *Result {
	t.Helper()
	r := shardOf(idx, 2, 5)
	e := &r.Engines[0]
	e.Levels = nil
	e.Sweep = &Sweep{Knob: knob}
	for j, v := range values {
		o := opOf(t, "search", hists[j], 10*time.Second)
		ko := opOf(t, "knn", hists[j], 10*time.Second)
		o.Kinds = []KindStats{{Kind: "knn", Count: ko.Count, RPS: ko.RPS, Latency: ko.Latency, Histogram: ko.Histogram}}
		l := Level{Users: 5, Window: Duration(10 * time.Second), Ops: []OpStats{o}, TotalRPS: o.RPS,
			KnownItems: &KnownItems{K: 10, Exact: []KindRecall{{Kind: "knn", Checks: 10, Expected: 100, Found: 80 + int64(idx)*10,
				LagExpected: 90, LagFound: 85 + int64(idx), RecentMisses: 6 + int64(idx), Lag: Duration(time.Duration(idx+1) * time.Millisecond)}}}}
		e.Sweep.Points = append(e.Sweep.Points, SweepPoint{Value: v, Writes: true, Level: &l,
			Idle: []KindRecall{{Kind: "knn", Checks: 10, Expected: 100, Found: 90 + int64(j)}}})
	}
	return r
}

// Two shards' sweeps merge point by point: each point's histograms are
// the union of the shards' samples, its rates the sum, its recall sums
// (idle, strict and lag-excused) added, the lag the longest shard's.
func TestMergeSweepsPerPoint(t *testing.T) {
	t.Parallel()
	values := []int{10, 40}
	var shards []*Result
	unions := []*hdrhistogram.Histogram{newTestHist(), newTestHist()}
	for i := range 2 {
		var hs []*hdrhistogram.Histogram
		for j := range values {
			h := record(t, newTestHist(), samples(2000, float64(1000*(j+1)*(i+1)), uint64(10*i+j)))
			unions[j].Merge(h)
			hs = append(hs, h)
		}
		shards = append(shards, sweepShard(t, i, "hnsw.ef_search", values, hs))
	}
	// The second shard lists its points in the other order: they are
	// matched by value, not by place.
	ps := shards[1].Engines[0].Sweep.Points
	ps[0], ps[1] = ps[1], ps[0]
	m, err := Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Engines[0].Sweep
	if s == nil || s.Knob != "hnsw.ef_search" || len(s.Points) != 2 {
		t.Fatalf("merged sweep %+v; want two points of hnsw.ef_search", s)
	}
	for j, p := range s.Points {
		if p.Value != values[j] || p.Level == nil {
			t.Fatalf("point %d: %+v; want value %d with a level", j, p, values[j])
		}
		load, ok := p.Load("knn")
		if !ok || load.QPS != float64(unions[j].TotalCount())/10 || load.P99 != Summarize(unions[j]).P99 {
			t.Errorf("value %d: %+v; want %v QPS and the union's p99 %v", p.Value, load, float64(unions[j].TotalCount())/10, Summarize(unions[j]).P99)
		}
		r := load.Recall
		if r.Expected != 200 || r.Found != 170 || r.LagExpected != 180 || r.LagFound != 171 || r.RecentMisses != 13 || r.Lag != Duration(2*time.Millisecond) {
			t.Errorf("value %d: recall under writes %+v; want 170/200, lag-excused 171/180, 13 recent misses, lag 2ms", p.Value, r)
		}
		idle, ok := p.IdleRecall("knn")
		if !ok || idle.Expected != 200 || idle.Found != 2*(90+int64(j)) {
			t.Errorf("value %d: idle %+v; want %d of 200", p.Value, idle, 2*(90+j))
		}
	}
}

// A point only one shard ran holds that shard's figures and says so;
// shards of different knobs are not one plan.
func TestMergeSweepsOfDifferentPlans(t *testing.T) {
	t.Parallel()
	h := func(seed uint64) *hdrhistogram.Histogram { return record(t, newTestHist(), samples(100, 1000, seed)) }
	a := sweepShard(t, 0, "ef", []int{10, 20}, []*hdrhistogram.Histogram{h(1), h(2)})
	b := sweepShard(t, 1, "ef", []int{10}, []*hdrhistogram.Histogram{h(3)})
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Engines[0].Sweep.Points[1]
	if !p.Level.Partial || !strings.Contains(strings.Join(p.Level.Warnings.Texts(), "; "), "shard 1: did not run this sweep point") {
		t.Errorf("point 20: partial %v, warnings %q", p.Level.Partial, strings.Join(p.Level.Warnings.Texts(), "; "))
	}
	c := sweepShard(t, 1, "num_candidates", []int{10}, []*hdrhistogram.Histogram{h(3)})
	if _, err := Merge(a, c); err == nil || !strings.Contains(err.Error(), "sweep knob differs") {
		t.Errorf("merge of two knobs: %v", err)
	}
	// A point's ladders of different steps are other plans.
	la := sweepShard(t, 0, "ef", []int{10}, []*hdrhistogram.Histogram{h(1)})
	lb := sweepShard(t, 1, "ef", []int{10}, []*hdrhistogram.Histogram{h(3)})
	for i, r := range []*Result{la, lb} {
		p := &r.Engines[0].Sweep.Points[0]
		p.Level, p.Ladder = nil, &Ladder{Step: 1.2 + 0.2*float64(i)}
	}
	if _, err := Merge(la, lb); err == nil || !strings.Contains(err.Error(), "sweep value 10: ladder.step differs: 1.2 in shard 0, 1.4 in shard 1") {
		t.Errorf("merge of two ladders' steps: %v", err)
	}
}

// A sweep is written and read back whole; the lag-excused figures are
// absent where there were no writes, and a file written before them
// reads as no writes.
func TestSweepRoundTripsAndOldFilesLoad(t *testing.T) {
	t.Parallel()
	h := record(t, newTestHist(), samples(100, 1000, 7))
	r := sweepShard(t, 0, "hnsw.ef_search", []int{0}, []*hdrhistogram.Histogram{h})
	r.Shard = nil
	path := filepath.Join(t.TempDir(), "result.json")
	if err := WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Engines[0].Sweep, r.Engines[0].Sweep) {
		t.Errorf("read back %+v; want %+v", back.Engines[0].Sweep, r.Engines[0].Sweep)
	}
	b, err := json.Marshal(KindRecall{Kind: "knn", Checks: 1, Expected: 10, Found: 9})
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"lag", "recent_misses"} {
		if strings.Contains(string(b), field) {
			t.Errorf("%s without writes: %s", field, b)
		}
	}
	var old KindRecall
	if err := json.Unmarshal([]byte(`{"kind":"knn","checks":3,"expected":30,"found":27,"recall":0.9}`), &old); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.LagRecall(); ok || old.Found != 27 {
		t.Errorf("an old entry reads %+v", old)
	}
}

// Validate refuses a point with both a level and a ladder, and a value
// given twice with the same writes.
func TestValidateSweep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    Sweep
		want string
	}{
		{Sweep{Points: []SweepPoint{{Value: 1, Level: &Level{}, Ladder: &Ladder{}}}}, "engines[0].sweep.points[0]: both a level and a ladder"},
		{Sweep{Points: []SweepPoint{{Value: 1}, {Value: 1, Writes: true}, {Value: 1}}}, "engines[0].sweep.points[2]: value 1 (writes false) is given twice"},
		{Sweep{Points: []SweepPoint{{Value: -1}}}, "engines[0].sweep.points[0].value: -1 is negative"},
	} {
		r := &Result{Engines: []EngineRun{{Sweep: &c.s}}}
		if err := r.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v; want %q", c.s, err, c.want)
		}
	}
}

// The interval log holds each sweep point's timeline under a tag that
// names the point and its knob value.
func TestHlogTagsSweepPoints(t *testing.T) {
	t.Parallel()
	h := func(seed uint64) *hdrhistogram.Histogram { return record(t, newTestHist(), samples(50, 1000, seed)) }
	r := sweepShard(t, 0, "ef", []int{10, 40}, []*hdrhistogram.Histogram{h(1), h(2)})
	r.Shard = nil
	for i, p := range r.Engines[0].Sweep.Points {
		p.Level.Timeline = timelineOf(t, "search", h(uint64(10+i)), h(uint64(20+i)))
		p.Level.Timeline.Origin = r.StartedAt.Add(time.Duration(i) * time.Minute)
	}
	path := filepath.Join(t.TempDir(), HlogName)
	if wrote, err := WriteHlog(path, r); err != nil || !wrote {
		t.Fatalf("WriteHlog: %v, %v", wrote, err)
	}
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(f))
	tags := map[string]int{}
	for {
		h, err := lr.NextIntervalHistogram()
		if errors.Is(err, io.EOF) || (err == nil && h == nil) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tags[h.Tag()]++
	}
	want := map[string]int{"bleve/point1-value=10-level1-users=5/search": 2, "bleve/point2-value=40-level1-users=5/search": 2}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("tags %v; want %v", tags, want)
	}
}

// A sweep point's failed calls count in the run's (the exit code's).
func TestFailedCallsCountSweepPoints(t *testing.T) {
	t.Parallel()
	r := sweepShard(t, 0, "ef", []int{10, 40}, []*hdrhistogram.Histogram{record(t, newTestHist(), samples(10, 1000, 1)), record(t, newTestHist(), samples(10, 1000, 2))})
	r.Engines[0].Sweep.Points[1].Level.Ops[0].Errors = map[string]int64{"timeout": 3}
	if n := r.FailedCalls(); n != 3 {
		t.Errorf("failed calls %d; want the sweep point's 3", n)
	}
}

package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// timelineOf is a timeline of len(hs) 1 s intervals, one operation.
func timelineOf(t *testing.T, op string, hs ...*hdrhistogram.Histogram) *Timeline {
	t.Helper()
	tl := &Timeline{Interval: Duration(time.Second)}
	for k, h := range hs {
		o := IntervalOp{Op: op, Count: h.TotalCount()}
		if err := o.SetLatency(h); err != nil {
			t.Fatal(err)
		}
		tl.Intervals = append(tl.Intervals, Interval{Start: Duration(time.Duration(k) * time.Second), Length: Duration(time.Second), Ops: []IntervalOp{o}})
	}
	return tl
}

// The interval log holds every interval's histogram under its tag, at its
// time, and HdrHistogram's own log reader reads it back exactly.
func TestHlogIsReadByHdrHistogramsReader(t *testing.T) {
	a, b := record(t, newTestHist(), samples(500, 2000, 1)), record(t, newTestHist(), samples(300, 90_000, 2))
	r := shardOf(0, 1, 30, opOf(t, "search", record(t, newTestHist(), append(samples(500, 2000, 1), samples(300, 90_000, 2)...)), 2*time.Second))
	r.Shard = nil
	r.Engines[0].Levels[0].Timeline = timelineOf(t, "search", a, b)
	// The second interval's searches were all of one query kind: they are
	// logged under their own tag too.
	sku := IntervalKind{Kind: "sku", Count: b.TotalCount()}
	if err := sku.SetLatency(b); err != nil {
		t.Fatal(err)
	}
	r.Engines[0].Levels[0].Timeline.Intervals[1].Ops[0].Kinds = []IntervalKind{sku}
	// A run starts anywhere within a second, and a window anywhere after
	// it: the reader must place each interval where result.json does.
	r.StartedAt = r.StartedAt.Add(750_123_456 * time.Nanosecond)
	r.Engines[0].Levels[0].Timeline.Origin = r.StartedAt.Add(12*time.Second + 345_678_901*time.Nanosecond)
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "result.json"), r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HlogName)
	wrote, err := WriteHlog(path, r)
	if err != nil || !wrote {
		t.Fatalf("WriteHlog: %v, %v", wrote, err)
	}
	// The truth is the timeline as result.json holds it: its origin plus
	// each interval's start.
	back, err := ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	tl := back.Engines[0].Levels[0].Timeline
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(f))
	var got []*hdrhistogram.Histogram
	for {
		h, err := lr.NextIntervalHistogram()
		if errors.Is(err, io.EOF) || (err == nil && h == nil) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v\n%s", path, err, f)
		}
		got = append(got, h)
	}
	if len(got) != 3 {
		t.Fatalf("%d histograms read back, want 3:\n%s", len(got), f)
	}
	for i, want := range []struct {
		k   int
		tag string
		h   *hdrhistogram.Histogram
	}{{0, "search", a}, {1, "search", b}, {1, "search:sku", b}} {
		h, k := got[i], want.k
		if h.Tag() != "bleve/level1-users=30/"+want.tag {
			t.Errorf("histogram %d: tag %q; want %s", i, h.Tag(), want.tag)
		}
		// The log has millisecond times and the reader truncates its
		// floating-point seconds to milliseconds: each is at most 2 ms
		// before the truth, never after it.
		iv := tl.Intervals[k]
		for _, at := range []struct {
			what string
			ms   int64
			want time.Time
		}{{"start", h.StartTimeMs(), tl.Origin.Add(time.Duration(iv.Start))}, {"end", h.EndTimeMs(), tl.Origin.Add(time.Duration(iv.Start + iv.Length))}} {
			if early := at.want.Sub(time.UnixMilli(at.ms)); early < 0 || early >= 2*time.Millisecond {
				t.Errorf("histogram %d (%s, interval %d): the reader puts its %s at %v, %v before result.json's %v",
					i, want.tag, k, at.what, time.UnixMilli(at.ms).UTC().Format(time.RFC3339Nano), early, at.want.UTC().Format(time.RFC3339Nano))
			}
		}
		if h.TotalCount() != want.h.TotalCount() || h.ValueAtQuantile(99) != want.h.ValueAtQuantile(99) {
			t.Errorf("histogram %d: %d values, p99 %d; want %d, %d", i, h.TotalCount(), h.ValueAtQuantile(99), want.h.TotalCount(), want.h.ValueAtQuantile(99))
		}
	}
	if !strings.Contains(string(f), "#[StartTime: ") {
		t.Errorf("no start time in the log:\n%s", f)
	}
}

// A result without timelines (an older searchbench's) still loads, merges,
// and writes no interval log.
func TestAResultWithoutATimeline(t *testing.T) {
	h := record(t, newTestHist(), samples(100, 1000, 3))
	a, b := shardOf(0, 2, 15, opOf(t, "search", h, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", h, 10*time.Second))
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte("timeline")) {
		t.Errorf("a level without a timeline writes one: %s", js)
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(back, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Engines[0].Levels[0].Timeline != nil {
		t.Errorf("merged level has a timeline")
	}
	if wrote, err := WriteHlog(filepath.Join(t.TempDir(), HlogName), m); wrote || err != nil {
		t.Errorf("WriteHlog without timelines: %v, %v", wrote, err)
	}
	// With timelines, the merged level's is the interval-by-interval sum.
	a.Engines[0].Levels[0].Timeline, b.Engines[0].Levels[0].Timeline = timelineOf(t, "search", h), timelineOf(t, "search", h)
	m, err = Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	tl := m.Engines[0].Levels[0].Timeline
	if tl == nil || len(tl.Intervals) != 1 || tl.Intervals[0].Ops[0].Count != 2*h.TotalCount() || !strings.Contains(tl.Merged, "never percentiles averaged") {
		t.Errorf("merged timeline %+v", tl)
	}
}

// A merged timeline keeps each shard's successful calls per interval, by
// shard index (not by the order the results were given in), and they add
// up to the merged counts; a shard whose timeline lacks an interval is
// absent from it.
func TestMergedTimelineKeepsEachShardsCounts(t *testing.T) {
	h := record(t, newTestHist(), samples(100, 1000, 3))
	a, b := shardOf(0, 2, 15, opOf(t, "search", h, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", h, 10*time.Second))
	small, big := record(t, newTestHist(), samples(10, 1000, 4)), record(t, newTestHist(), samples(70, 1000, 5))
	a.Engines[0].Levels[0].Timeline = timelineOf(t, "search", big, small)
	b.Engines[0].Levels[0].Timeline = timelineOf(t, "search", small) // shard 1 has no second interval
	m, err := Merge(b, a)
	if err != nil {
		t.Fatal(err)
	}
	tl := m.Engines[0].Levels[0].Timeline
	if tl == nil || len(tl.Intervals) != 2 {
		t.Fatalf("merged timeline %+v", tl)
	}
	want := [][]IntervalShard{{{0, 70}, {1, 10}}, {{0, 10}}}
	for k, iv := range tl.Intervals {
		got := append([]IntervalShard(nil), iv.Shards...)
		slices.SortFunc(got, func(x, y IntervalShard) int { return x.Shard - y.Shard })
		if !slices.Equal(got, want[k]) {
			t.Errorf("interval %d: shards %v, want %v", k, got, want[k])
		}
		var sum int64
		for _, s := range got {
			sum += s.Count
		}
		if o, _ := iv.Op("search"); o.Count != sum {
			t.Errorf("interval %d: merged count %d, shards' sum %d", k, o.Count, sum)
		}
	}
	// A shard's own timeline says nothing of shards.
	if js, _ := json.Marshal(a.Engines[0].Levels[0].Timeline); bytes.Contains(js, []byte(`"shards"`)) {
		t.Errorf("an unmerged timeline lists shards: %s", js)
	}
}

// Shards whose timelines cut the window into other intervals ran other
// plans (--interval): merge refuses them naming the field and the shards,
// as the coordinator refuses them at registration, rather than write the
// merged window without a timeline; a ladder's reps alike.
func TestMergeRefusesShardsOfAnotherInterval(t *testing.T) {
	h := record(t, newTestHist(), samples(100, 1000, 3))
	a, b := shardOf(0, 2, 15, opOf(t, "search", h, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", h, 10*time.Second))
	a.Engines[0].Levels[0].Timeline, b.Engines[0].Levels[0].Timeline = timelineOf(t, "search", h, h), timelineOf(t, "search", h)
	b.Engines[0].Levels[0].Timeline.Interval = Duration(2 * time.Second)
	_, err := Merge(a, b)
	want := "timeline.interval differs: 1s in shard 0, 2s in shard 1"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "level 0") || strings.Contains(err.Error(), "\n") {
		t.Errorf("merge of shards with 1s and 2s intervals: %v; want one line with %q", err, want)
	}

	la, lb := ladderShard(t, 0, 2, nil), ladderShard(t, 1, 2, nil)
	la.Engines[0].Ladder.Rungs[0].Reps[0].Timeline = timelineOf(t, "search", h)
	lb.Engines[0].Ladder.Rungs[0].Reps[0].Timeline = timelineOf(t, "search", h)
	lb.Engines[0].Ladder.Rungs[0].Reps[0].Timeline.Interval = Duration(500 * time.Millisecond)
	if _, err := Merge(la, lb); err == nil || !strings.Contains(err.Error(), "timeline.interval differs: 1s in shard 0, 500ms in shard 1") {
		t.Errorf("ladder reps with 1s and 500ms intervals: %v; want them named", err)
	}
}

// A shard without a timeline (an older searchbench) leaves the merged
// window without one, and the merged level says why.
func TestMergeSaysWhyAWindowHasNoTimeline(t *testing.T) {
	h := record(t, newTestHist(), samples(100, 1000, 3))
	a, b := shardOf(0, 2, 15, opOf(t, "search", h, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", h, 10*time.Second))
	a.Engines[0].Levels[0].Timeline = timelineOf(t, "search", h)
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Engines[0].Levels[0]
	if l.Timeline != nil || !slices.ContainsFunc(l.Warnings.Texts(), func(w string) bool {
		return strings.Contains(w, "shard 1 has no timeline") && strings.Contains(w, "no timeline")
	}) {
		t.Errorf("merged level: timeline %v, warnings %q; want none and a warning naming shard 1", l.Timeline, l.Warnings)
	}
}

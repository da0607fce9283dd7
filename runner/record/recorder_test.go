package record

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

func TestRecordDoesNotAllocate(t *testing.T) {
	r := NewSink(2, nil).NewRecorder(0)
	i := 0
	allocs := testing.AllocsPerRun(10*bufferSize, func() {
		i++
		r.Record(workload.Op(i%int(workload.NumOps)), time.Duration(i)*time.Microsecond, engines.OK)
	})
	if allocs != 0 {
		t.Fatalf("Record allocates %.2f times per call (flushes included); want 0", allocs)
	}
	// Searches split by kind: once each kind's histogram is made (at its
	// first flush), recording allocates nothing either.
	k := NewSink(2, []string{"knn", "sku", "hybrid"}).NewRecorder(0)
	for kind := range 3 {
		k.RecordIn(0, workload.Search, kind, time.Millisecond, engines.OK)
	}
	k.Flush()
	allocs = testing.AllocsPerRun(10*bufferSize, func() {
		i++
		k.RecordIn(0, workload.Op(i%int(workload.NumOps)), i%4-1, time.Duration(i)*time.Microsecond, engines.Class(i%2))
	})
	if allocs != 0 {
		t.Fatalf("RecordIn with kinds allocates %.2f times per call (flushes included); want 0", allocs)
	}
}

// Samples spread over recorders and shards must merge to exactly what one
// histogram of all of them holds.
func TestRecordersMergeExactly(t *testing.T) {
	sink := NewSink(3, nil)
	recs := []*Recorder{sink.NewRecorder(0), sink.NewRecorder(1), sink.NewRecorder(2), sink.NewRecorder(3)}
	want := hdrhistogram.New(lowestUS, HighestUS, sigFigs)
	r := dataset.NewRand(9)
	for i := range 5000 {
		us := int64(1 + r.Intn(2_000_000))
		recs[i%len(recs)].Record(workload.Search, time.Duration(us)*time.Microsecond, engines.OK)
		_ = want.RecordValue(us)
	}
	recs[1].Record(workload.Upsert, time.Millisecond, engines.Timeout)
	recs[2].Record(workload.Delete, time.Millisecond, engines.NotFound)
	recs[3].Record(workload.Search, time.Hour, engines.OK) // beyond the ceiling
	_ = want.RecordValue(HighestUS)
	for _, rec := range recs {
		rec.Flush()
	}
	total := sink.Total()
	if !total.Hist[workload.Search].Equals(want) {
		t.Fatalf("merged search histogram differs: count %d want %d, p99 %d want %d",
			total.Hist[workload.Search].TotalCount(), want.TotalCount(),
			total.Hist[workload.Search].ValueAtQuantile(99), want.ValueAtQuantile(99))
	}
	up, _ := total.Stats(workload.Upsert, time.Second)
	if up.Count != 0 || up.Errors["timeout"] != 1 {
		t.Errorf("upsert stats %+v; want 0 successes and 1 timeout", up)
	}
	del, _ := total.Stats(workload.Delete, time.Second)
	if del.Count != 1 || del.NotFound != 1 || len(del.Errors) != 0 {
		t.Errorf("delete stats %+v; want the not-found delete counted as done and as not found", del)
	}
	if total.Clamped() != 1 {
		t.Errorf("clamped = %d, want 1", total.Clamped())
	}
	s, err := total.Stats(workload.Search, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h, err := result.DecodeHistogram(s.Histogram)
	if err != nil || !h.Equals(want) {
		t.Fatalf("encoded histogram does not round-trip: %v", err)
	}
	if s.RPS != float64(want.TotalCount())/2 {
		t.Errorf("RPS %v, want count / window", s.RPS)
	}
}

// Error examples: distinct messages only, at most maxExamples per operation
// and class, merged across recorders, and a recorder's slot empties at each
// flush so a failure that changes mid-run is seen.
func TestErrorExamples(t *testing.T) {
	sink := NewSink(2, nil)
	a, b := sink.NewRecorder(0), sink.NewRecorder(1)
	fail := func(r *Recorder, msg string) {
		r.Record(workload.Search, time.Millisecond, engines.Timeout)
		r.Failed(workload.Search, engines.Timeout, errors.New(msg))
	}
	fail(a, "first")
	fail(a, "second") // the slot is taken until the next flush
	a.Flush()
	fail(a, "second")
	fail(b, "first")
	fail(b, "third")
	a.Flush()
	b.Flush()
	for _, msg := range []string{"fourth", "fifth"} {
		fail(a, msg)
		a.Flush()
	}
	s, _ := sink.Total().Stats(workload.Search, time.Second)
	if got := s.ErrorExamples["timeout"]; !slices.Equal(got, []string{"first", "second", "fourth"}) && !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("examples %q; want three distinct, first seen first", got)
	}
	if s.Errors["timeout"] != 7 {
		t.Errorf("timeouts %d, want 7", s.Errors["timeout"])
	}
	if w := ErrorWarnings([]result.OpStats{s}); len(w) != 1 || !strings.HasPrefix(w[0], "search: 7 failed calls (timeout 7), e.g. timeout: \"first\", \"second\", ") {
		t.Errorf("warning %q", w)
	}
	if got := shortMessage("line one\nline two"); got != "line one …" {
		t.Errorf("shortMessage kept %q", got)
	}
}

// A failing call's message is read once per slot per flush, so recording
// a storm of failures does not allocate per call either.
func TestFailedDoesNotAllocatePerCall(t *testing.T) {
	r := NewSink(1, nil).NewRecorder(0)
	err := fmt.Errorf("mem: %w", engines.ErrOverloaded)
	r.Failed(workload.Upsert, engines.Overloaded, err)
	allocs := testing.AllocsPerRun(1000, func() {
		r.Record(workload.Upsert, time.Millisecond, engines.Overloaded)
		r.Failed(workload.Upsert, engines.Overloaded, err)
	})
	if allocs != 0 {
		t.Fatalf("a failed call allocates %.2f times; want 0 while its slot is full", allocs)
	}
}

// BenchmarkRecord is the recording path: the target is well under 100 ns and
// 0 allocations.
func BenchmarkRecord(b *testing.B) {
	r := NewSink(4, nil).NewRecorder(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		r.Record(workload.Search, time.Duration(i&0xffff)*time.Microsecond, engines.OK)
	}
}

package amgixnow

import (
	"sync"
	"testing"
	"time"
)

// Timestamps strictly increase across goroutines, never fall behind the wall
// clock, and run ahead of it by at most one microsecond per timestamp issued
// — so a later process, starting from its wall clock, stamps newer writes.
func TestClockStrictlyIncreasing(t *testing.T) {
	var c clock
	const goroutines, each = 16, 5000
	start := time.Now().UnixMicro()
	got := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				got[g] = append(got[g], c.next())
			}
		})
	}
	wg.Wait()
	end := time.Now().UnixMicro()
	seen := make(map[int64]bool, goroutines*each)
	for g, ts := range got {
		for i, v := range ts {
			if i > 0 && v <= ts[i-1] {
				t.Fatalf("goroutine %d: timestamp %d after %d", g, v, ts[i-1])
			}
			if seen[v] {
				t.Fatalf("timestamp %d issued twice", v)
			}
			seen[v] = true
			if v < start {
				t.Fatalf("timestamp %d before the wall clock at start %d", v, start)
			}
		}
	}
	if last := c.last.Load(); last > end+goroutines*each {
		t.Fatalf("counter %d ran ahead of the wall clock %d by more than the %d timestamps issued", last, end, goroutines*each)
	}
	var fresh clock // a new process
	if v := fresh.next(); v < end {
		t.Fatalf("a new counter starts at %d, before the wall clock %d", v, end)
	}
}

func TestFormatTimestamp(t *testing.T) {
	us := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC).UnixMicro()
	if got, want := formatTimestamp(us), "2026-01-02T03:04:05.123456Z"; got != want {
		t.Fatalf("formatTimestamp = %q, want %q", got, want)
	}
	if got, want := formatTimestamp(us-123456), "2026-01-02T03:04:05.000000Z"; got != want {
		t.Fatalf("formatTimestamp = %q, want %q", got, want)
	}
}

func TestTrackerSuperseded(t *testing.T) {
	var c clock
	tr := newTracker()
	a := tr.begin(&c, "coll", "7")
	other := tr.begin(&c, "coll", "8")
	elsewhere := tr.begin(&c, "other", "7")
	if a.superseded() {
		t.Fatal("a write with nothing newer of its document is superseded")
	}
	b := tr.begin(&c, "coll", "7")
	if !a.superseded() || b.superseded() {
		t.Fatalf("after a newer write of the document: older superseded=%v, newer superseded=%v; want true, false", a.superseded(), b.superseded())
	}
	if other.superseded() || elsewhere.superseded() {
		t.Fatal("a write of another document or collection counts as superseding")
	}
	// The newer write finishing first must not forget it while the older is
	// still in flight.
	b.end()
	if !a.superseded() {
		t.Fatal("the older write stopped being superseded when the newer one finished")
	}
	for _, w := range []write{a, other, elsewhere} {
		w.end()
	}
	for i := range tr.shards {
		if n := len(tr.shards[i].m); n != 0 {
			t.Fatalf("shard %d keeps %d entries with no write in flight", i, n)
		}
	}
}

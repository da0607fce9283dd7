package amgixnow

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// clock hands out write timestamps in microseconds since the Unix epoch,
// strictly increasing across every goroutine of the process.
//
// Amgix keeps a write only if its timestamp is newer than the stored
// document's, so two writes must never share a timestamp. Each value is the
// wall clock or, when the clock has not moved on (two writes in the same
// microsecond, or a clock stepped back), one more than the last value. The
// counter therefore never falls behind the wall clock and runs ahead of it
// only while writes come faster than one per microsecond, so a later run —
// a new process, whose counter starts at the wall clock — writes newer
// timestamps than an earlier run against the same collection did.
//
// Microseconds, because Amgix Now parses timestamps into chrono's
// DateTime<Utc> (nanoseconds) and its Python sibling, whose storage format it
// shares, keeps microseconds: a microsecond step survives both.
type clock struct{ last atomic.Int64 }

func (c *clock) next() int64 {
	for {
		prev := c.last.Load()
		n := max(prev+1, time.Now().UnixMicro())
		if c.last.CompareAndSwap(prev, n) {
			return n
		}
	}
}

// formatTimestamp writes µs as RFC 3339 in UTC with six fractional digits,
// the form Amgix's parse_document_timestamp_for_api accepts.
func formatTimestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// processClock is shared by every Engine of the process, so two Engines
// writing one collection never collide either.
var processClock clock

// tracker remembers, for each document with a write in flight, the newest
// timestamp this process has issued for it. When Amgix answers that a write
// was skipped, the tracker tells the two causes apart:
//
//   - superseded: a newer write of the same document was issued while this
//     one was in flight, and reached the engine first (or shared its
//     micro-batch, where Amgix keeps only the newest). The document ends as
//     the newest write left it — last writer wins — so nothing is lost.
//   - stale: nothing newer was issued here, so the stored timestamp came from
//     elsewhere (another process, an earlier run with a clock ahead of this
//     one). The write is lost.
//
// Entries live only while a write of the document is in flight, so memory
// follows the concurrency, not the number of documents.
type tracker struct {
	seed   maphash.Seed
	shards [64]trackShard
}

type trackShard struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	newest int64 // newest timestamp issued for the document
	n      int   // writes in flight
}

// write is one timestamped write in flight.
type write struct {
	id string
	ts int64
	s  *trackShard
	f  *flight
	k  string
}

var processTracker = newTracker()

func newTracker() *tracker {
	t := &tracker{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = map[string]*flight{}
	}
	return t
}

// begin issues the write's timestamp and records it. The timestamp is taken
// under the shard's lock, so for one document the order of issue and the
// order of recording agree and the recorded newest is the true newest.
func (t *tracker) begin(c *clock, collection, id string) write {
	k := collection + "\x00" + id
	s := &t.shards[maphash.String(t.seed, k)%uint64(len(t.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := c.next()
	f := s.m[k]
	if f == nil {
		f = &flight{}
		s.m[k] = f
	}
	f.newest, f.n = ts, f.n+1
	return write{id: id, ts: ts, s: s, f: f, k: k}
}

// superseded reports whether a newer write of the same document was issued
// since this one. Call it before end.
func (w write) superseded() bool {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.f.newest > w.ts
}

// end forgets the write.
func (w write) end() {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if w.f.n--; w.f.n == 0 {
		delete(w.s.m, w.k)
	}
}

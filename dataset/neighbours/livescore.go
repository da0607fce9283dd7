package neighbours

import (
	"slices"
	"time"
)

// A document's write state is one word, so that a write's begin and end
// and a score's reading of it need no lock: the writes of it in flight
// (the low countBits bits), whether writes of it overlapped each other
// (overlapBit), whether a writer the truth does not follow may have
// written it (foreignBit, for good: Foreign), and when its last write was
// acknowledged (the rest), in
// microseconds since the epoch plus one. 0 is never written by the run
// (pre-populated, or never present); unknown is a document whose state
// the truth cannot know — a write failed, or two writes of it overlapped
// and the engine may have applied them in either order — excused by
// every search until a write of it begins and ends alone.
const (
	countBits  = 15
	countMask  = 1<<countBits - 1
	overlapBit = 1 << countBits
	foreignBit = overlapBit << 1
	timeShift  = countBits + 2
	unknown    = 1<<(64-timeShift) - 1 // 2^47 µs is 4.4 years past the epoch
)

// Begin says that a write of document id is about to be sent: until its
// Upsert, Delete or Fail, the document is excused from every answer, as
// the engine may or may not show it. Without Begin a write in flight is
// unknown to the truth, and an answer that shows it early is charged.
func (l *Live[F]) Begin(id uint32) {
	s := &l.state[id]
	for {
		old := s.Load()
		c := old & countMask
		next := old&^countMask | min(c+1, countMask)
		if c > 0 {
			next |= overlapBit
		}
		if s.CompareAndSwap(old, next) {
			return
		}
	}
}

// Foreign says that a writer the truth does not follow (another shard of
// a split run) may write document id from now on: it is excused from
// every answer scored from now on, whatever the writes followed do, since
// neither its version nor the order of the writes is known.
func (l *Live[F]) Foreign(id uint32) {
	s := &l.state[id]
	for {
		old := s.Load()
		if old&foreignBit != 0 || s.CompareAndSwap(old, old|foreignBit) {
			return
		}
	}
}

// Fail ends a write of document id that the engine did not acknowledge:
// whether it was applied is unknown, so the document is excused until a
// later write of it succeeds. The lists keep its last acknowledged state.
func (l *Live[F]) Fail(id uint32) { l.end(id, time.Time{}, false) }

// end ends a write of id acknowledged at acked (ok) or failed: the
// document's time becomes acked when the write ran alone, unknown when it
// failed or overlapped another write of the same document.
func (l *Live[F]) end(id uint32, acked time.Time, ok bool) {
	s := &l.state[id]
	at := min(l.micros(acked)+1, unknown-1)
	for {
		old := s.Load()
		c := old & countMask
		if c > 0 {
			c--
		}
		t := at
		if !ok || old&overlapBit != 0 || c > 0 {
			t = unknown
		}
		next := t<<timeShift | c | old&foreignBit
		if c > 0 {
			next |= old & overlapBit
		}
		if s.CompareAndSwap(old, next) {
			return
		}
	}
}

// micros is t in whole microseconds since the epoch, 0 before it.
func (l *Live[F]) micros(t time.Time) uint64 {
	return uint64(max(t.Sub(l.epoch).Microseconds(), 0))
}

// Score is one answer's counts against a Live truth. Strict: a document
// whose last write was acknowledged before the search was sent is
// expected. Lag: a document acknowledged within the lag before the send is
// excused too. Recall is Found/Expected and LagFound/LagExpected; the share
// of strict misses that were recent writes is RecentMisses/(Expected−Found).
type Score struct {
	Expected, Found       int
	LagExpected, LagFound int
	// RecentMisses are strict misses acknowledged within the lag before
	// the send: expected documents not in the answer, at most
	// Expected−Found of them (a tie taken in a miss's place is no miss).
	RecentMisses int
	// Foreign are the documents another writer may have written (Foreign)
	// that the strict rule would otherwise have expected in the answer:
	// Foreign/(Expected+Foreign) is the share of them so excused.
	Foreign int
	// Short: the list ran out before the answer's expected documents
	// did, so nothing was scored (all counts 0) and the list will be
	// refilled. LagShort is the same for the lag-excused counts alone.
	Short, LagShort bool
}

// Score scores the answer ids (its documents, best first) to sample query
// q, asked for k at sent, with lag the engine's freshness lag. A document
// is excused — neither expected nor held against the answer — when a
// write of it overlaps the search: acknowledged at or after sent (to the
// microsecond), begun and not yet ended, failed, or overlapping another
// write of it; under the lag rule, also when acknowledged after sent−lag.
// An answer holding t excused documents is expected to hold the k−t
// nearest of the others, which the list gives in order, skipping the
// excused; a held document counts as Hits counts it (in the expected
// list, or tied with its last within Tolerance by the distance the list
// keeps). A held document beyond the kept depth counts as a miss: with
// Depth 4k+20 its tie with the k-th means thousands of equal distances.
func (l *Live[F]) Score(q int, ids []uint32, k int, sent time.Time, lag time.Duration) Score {
	var out [1]Score
	l.ScoreLags(q, ids, k, sent, []time.Duration{lag}, out[:])
	return out[0]
}

// ScoreLags scores the answer as Score does at each of lags at once, into
// out[i] for lags[i] (out is at least as long): the strict rule is judged
// once, so its counts are the same in each, and each lag's recent misses
// are of those very misses.
func (l *Live[F]) ScoreLags(q int, ids []uint32, k int, sent time.Time, lags []time.Duration, out []Score) {
	cut := l.micros(sent)
	lq := &l.queries[q]
	lq.mu.Lock()
	defer lq.mu.Unlock()
	var mbuf [64]uint32 // the strict misses, on the stack for k up to 64
	expected, found, foreign, missed, short := l.judge(lq, ids, k, cut, mbuf[:0])
	if short {
		l.markStale(lq)
		for i := range lags {
			out[i] = Score{Short: true, LagShort: true}
		}
		return
	}
	for i, lag := range lags {
		lagCut := l.micros(sent.Add(-lag))
		s := Score{Expected: expected, Found: found, Foreign: foreign}
		for _, id := range missed {
			if l.excused(id, lagCut) {
				s.RecentMisses++
			}
		}
		// A tie taken in a miss's place is no miss.
		s.RecentMisses = min(s.RecentMisses, expected-found)
		if lagCut == cut {
			s.LagExpected, s.LagFound = expected, found
		} else {
			s.LagExpected, s.LagFound, _, _, s.LagShort = l.judge(lq, ids, k, lagCut, nil)
		}
		if s.LagShort {
			s.LagExpected, s.LagFound = 0, 0
			l.markStale(lq)
		}
		out[i] = s
	}
}

// judge is one rule's expected and found counts for an answer, a
// document being excused when acknowledged after cut (excused); missed
// gets the expected documents the answer does not hold (when it has
// room: nil for none), foreign counts the documents passed over as
// Foreign. q is locked.
func (l *Live[F]) judge(q *liveQuery[F], ids []uint32, k int, cut uint64, missed []uint32) (expected, found, foreign int, _ []uint32, short bool) {
	var hbuf [64]uint32 // on the stack for k up to 64
	held, need := hbuf[:0], k
	for _, id := range ids {
		if l.excused(id, cut) {
			need--
			continue
		}
		held = append(held, id)
	}
	var wbuf [64]Neighbour
	want := wbuf[:0]
	for _, n := range q.list {
		if len(want) >= need {
			break
		}
		switch {
		case !l.excused(n.ID, cut):
			want = append(want, n)
		case l.state[n.ID].Load()&foreignBit != 0:
			foreign++
		}
	}
	if len(want) < need && !q.whole {
		return 0, 0, 0, missed, true
	}
	found = Hits(held, want, q.distanceOf)
	if cap(missed) > 0 {
		for _, n := range want {
			if !slices.Contains(held, n.ID) {
				missed = append(missed, n.ID)
			}
		}
	}
	return len(want), found, foreign, missed, false
}

// excused says whether a document is excused from a search whose cut is
// cut (microseconds since the epoch): a write of it in flight, its state
// unknown, or its last write acknowledged in cut's microsecond or later
// (a tie with the send is excused). An ID past the corpus is not
// excused: it is a miss.
func (l *Live[F]) excused(id uint32, cut uint64) bool {
	if int(id) >= len(l.state) {
		return false
	}
	s := l.state[id].Load()
	at := s >> timeShift // acknowledged in microsecond at−1; 0: never written
	return s&(countMask|foreignBit) != 0 || at > cut
}

// distanceOf is a document's distance as the list keeps it; false for one
// not in the list. q is locked.
func (q *liveQuery[F]) distanceOf(id uint32) (float64, bool) {
	for _, n := range q.list {
		if n.ID == id {
			return n.Distance, true
		}
	}
	return 0, false
}

func (l *Live[F]) markStale(q *liveQuery[F]) {
	if !q.stale {
		q.stale = true
		l.wake()
	}
}

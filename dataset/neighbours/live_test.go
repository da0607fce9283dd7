package neighbours

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shelf is a document's filterable field in these tests: a category.
type shelf struct{ cat uint8 }

// store is the documents as the writes left them, read by a Live's Docs
// and by the brute force the Live is checked against; a nil slot is a
// document that is not there.
type store []atomic.Pointer[LiveDoc[shelf]]

func (s store) docs(yield func(LiveDoc[shelf]) bool) {
	for i := range s {
		if d := s[i].Load(); d != nil && !yield(*d) {
			return
		}
	}
}

func (s store) put(r *rand.Rand, id uint32, dim int) *LiveDoc[shelf] {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(r.NormFloat64())
	}
	d := &LiveDoc[shelf]{ID: id, Vector: v, Fields: shelf{uint8(r.IntN(3))}}
	s[id].Store(d)
	return d
}

// truth is the query's answer by sorting every document that passes by
// the metric's textbook formula: the truth a Live must agree with.
func (s store) truth(m Metric, q LiveQuery[shelf]) []Neighbour {
	var all []Neighbour
	s.docs(func(d LiveDoc[shelf]) bool {
		if q.Keep == nil || q.Keep(d.Fields) {
			all = append(all, Neighbour{d.ID, naiveDistance(m, q.Vector, d.Vector)})
		}
		return true
	})
	slices.SortFunc(all, less)
	return all
}

func liveQueries(r *rand.Rand, n, dim int) []LiveQuery[shelf] {
	qs := make([]LiveQuery[shelf], n)
	for i := range qs {
		qs[i].Vector = make([]float32, dim)
		for j := range qs[i].Vector {
			qs[i].Vector[j] = float32(r.NormFloat64())
		}
		if cat := uint8(i % 4); cat < 3 { // one in four unfiltered
			qs[i].Keep = func(f shelf) bool { return f.cat == cat }
		}
	}
	return qs
}

// agrees checks each list against the brute force over s: the list is the
// brute force's head, all of it when whole; after a refresh (settled) no
// list is shorter than the refill mark unless whole.
func agrees(t *testing.T, l *Live[shelf], s store, qs []LiveQuery[shelf], settled bool) {
	t.Helper()
	for i := range l.queries {
		q := &l.queries[i]
		q.mu.Lock()
		list, whole := slices.Clone(q.list), q.whole
		q.mu.Unlock()
		want := s.truth(l.metric, qs[i])
		if len(list) > len(want) || !sameAnswer(list, want[:len(list)]) || (whole && len(list) != len(want)) {
			t.Fatalf("query %d (whole %v): list %v\nbrute force %v", i, whole, list, want[:min(len(want), len(list)+2)])
		}
		if settled && !whole && len(list) < l.refill {
			t.Fatalf("query %d: %d kept after a refresh, refill mark %d", i, len(list), l.refill)
		}
	}
}

// A Live's lists follow random upserts (new vectors, new categories, new
// documents) and deletes exactly, under each metric, refilled as they run
// short; scored at a time after every write, the brute force's own top k
// is all found and its next k all missed.
func TestLiveFollowsRandomWrites(t *testing.T) {
	t.Parallel()
	for _, m := range []Metric{Cosine, L2, Dot} {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			const n, dim, k = 300, 8, 4
			r := rand.New(rand.NewPCG(uint64(m), 35))
			s := make(store, n+1)
			for id := uint32(1); id <= 200; id++ {
				s.put(r, id, dim)
			}
			qs := liveQueries(r, 8, dim)
			epoch := time.Unix(1e9, 0)
			l, err := NewLive(context.Background(), LiveConfig[shelf]{Metric: m, Depth: 14, Refill: 9, IDs: n, Epoch: epoch, Docs: s.docs}, qs)
			if err != nil {
				t.Fatal(err)
			}
			agrees(t, l, s, qs, false)
			for step := range 3000 {
				id := uint32(1 + r.IntN(n))
				acked := epoch.Add(time.Duration(step) * time.Millisecond)
				l.Begin(id)
				if r.IntN(5) < 3 {
					d := s.put(r, id, dim)
					l.Upsert(id, d.Vector, d.Fields, acked)
				} else {
					s[id].Store(nil)
					l.Delete(id, acked)
				}
				if step%40 == 39 {
					if _, err := l.Refresh(context.Background()); err != nil {
						t.Fatal(err)
					}
					agrees(t, l, s, qs, true)
					scoresTheHead(t, l, s, qs, k, epoch.Add(time.Hour))
				}
			}
		})
	}
}

// scoresTheHead scores, for each query, the brute force's top k (all
// found) and its next k (none found: random vectors tie with nothing).
func scoresTheHead(t *testing.T, l *Live[shelf], s store, qs []LiveQuery[shelf], k int, sent time.Time) {
	t.Helper()
	for i := range qs {
		want := s.truth(l.metric, qs[i])
		head := ids(want[:min(k, len(want))])
		if sc := l.Score(i, head, k, sent, 0); sc.Short || sc.Expected != len(head) || sc.Found != len(head) || sc.LagFound != len(head) {
			t.Fatalf("query %d, its top %d: %+v", i, len(head), sc)
		}
		if len(want) >= 2*k {
			if sc := l.Score(i, ids(want[k:2*k]), k, sent, 0); sc.Expected != k || sc.Found != 0 {
				t.Fatalf("query %d, its next %d: %+v; want %d expected, none found", i, k, sc, k)
			}
		}
	}
}

func ids(ns []Neighbour) []uint32 {
	out := make([]uint32, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// Writers on several goroutines, a refiller and a scorer all at once
// (run under -race): when the writers are done and the lists refreshed,
// every list is the brute force's over what the writers left.
func TestLiveConcurrentWriters(t *testing.T) {
	t.Parallel()
	const n, dim, writers = 400, 8, 4
	r := rand.New(rand.NewPCG(7, 35))
	s := make(store, n+1)
	for id := uint32(1); id <= 300; id++ {
		s.put(r, id, dim)
	}
	qs := liveQueries(r, 12, dim)
	l, err := NewLive(context.Background(), LiveConfig[shelf]{Metric: L2, Depth: 12, Refill: 8, IDs: n, Docs: s.docs}, qs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	refilled := make(chan struct{})
	go func() { l.Run(ctx); close(refilled) }()
	go func() { // a scorer, for the race detector's sake
		for i := 0; ctx.Err() == nil; i++ {
			l.Score(i%len(qs), []uint32{1, 2, 3, 4}, 4, time.Now(), time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 36))
			for range 1500 {
				id := uint32(1 + w + writers*r.IntN(n/writers)) // each document has one writer
				if int(id) > n {
					continue
				}
				l.Begin(id)
				if r.IntN(3) < 2 {
					d := s.put(r, id, dim)
					l.Upsert(id, d.Vector, d.Fields, time.Now())
				} else {
					s[id].Store(nil)
					l.Delete(id, time.Now())
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	<-refilled
	if _, err := l.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	agrees(t, l, s, qs, true)
	scoresTheHead(t, l, s, qs, 4, time.Now().Add(time.Second))
}

// lagCase is a corpus whose latest writes are the nearest: 100 far
// pre-populated documents and 20 written ones, document 100+j
// acknowledged j ms after the epoch at squared distance ((21−j)/100)²
// from the query under L2, so that the top 10 are the last 10 written.
func lagCase(t *testing.T) (*Live[shelf], time.Time) {
	t.Helper()
	const written = 20
	s := make(store, 100+written+1)
	for id := uint32(1); id <= 100; id++ {
		s[id].Store(&LiveDoc[shelf]{ID: id, Vector: []float32{10 + float32(id), 0, 0, 0}})
	}
	epoch := time.Unix(2e9, 0)
	l, err := NewLive(context.Background(), LiveConfig[shelf]{Metric: L2, Depth: 60, IDs: 100 + written, Epoch: epoch, Docs: s.docs},
		[]LiveQuery[shelf]{{Vector: []float32{1, 0, 0, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	for j := 1; j <= written; j++ {
		id := uint32(100 + j)
		l.Begin(id)
		l.Upsert(id, []float32{1 + float32(written+1-j)/100, 0, 0, 0}, shelf{}, epoch.Add(time.Duration(j)*time.Millisecond))
	}
	return l, epoch
}

// An answer that is the exact top k but leaves out the writes of the
// last D ms (one write a ms, the latest the nearest): strict recall is
// (k−D)/k, every miss a recent write; lag-excused recall is 1 when the lag
// L ≥ D and (k−(D−L))/k when it is shorter. The figures are worked out by
// hand from the corpus's layout, not by the code under test.
func TestLiveLagExcused(t *testing.T) {
	t.Parallel()
	const k = 10
	l, epoch := lagCase(t)
	sent := epoch.Add(20*time.Millisecond + 500*time.Microsecond) // after the 20th ack
	for _, c := range []struct {
		d, lag                  int // ms
		found, lagExp, lagFound int
	}{
		{0, 0, 10, 10, 10},
		{5, 5, 5, 10, 10}, // the answer's 15..6 are the 10 not excused
		{5, 10, 5, 5, 5},  // 11..20 excused: the answer holds 5 of them, the other 5 are 10..6
		{3, 8, 7, 5, 5},   // 13..20 excused, the answer holds 17..13 and 12..8: 5 left, expected 5
		{5, 2, 5, 10, 7},  // 19, 20 excused: expected 18..9, held 15..9
		{8, 0, 2, 10, 2},  // no lag: the strict figure
		{10, 20, 0, 0, 0}, // all 20 excused, the answer holds 10 of them: nothing left to expect
	} {
		sc := l.Score(0, leaveOut(c.d, k), k, sent, time.Duration(c.lag)*time.Millisecond)
		want := Score{Expected: k, Found: c.found, LagExpected: c.lagExp, LagFound: c.lagFound, RecentMisses: min(k-c.found, c.d)}
		if c.lag < c.d {
			want.RecentMisses = min(k-c.found, c.lag)
		}
		if sc != want {
			t.Errorf("D %d ms, lag %d ms: %+v\nwant %+v", c.d, c.lag, sc, want)
		}
	}
	// The rule in general: strict recall (k−D)/k with all D misses
	// recent, lag-excused recall 1 for any lag of D or more.
	for d := range k + 1 {
		for _, lag := range []int{d, d + 1, d + 3} {
			sc := l.Score(0, leaveOut(d, k), k, sent, time.Duration(lag)*time.Millisecond)
			if sc.Expected != k || sc.Found != k-d || sc.RecentMisses != d || sc.LagExpected == 0 || sc.LagFound != sc.LagExpected {
				t.Errorf("D %d ms, lag %d ms: %+v; want %d of %d strict, %d recent misses, lag-excused recall 1", d, lag, sc, k-d, k, d)
			}
		}
	}
}

// Scored at several lags at once, an answer gets at each lag what Score
// gives at it alone (the worked figures above), the strict counts the same
// in each.
func TestLiveScoreLagsIsScoreAtEach(t *testing.T) {
	t.Parallel()
	const k = 10
	l, epoch := lagCase(t)
	sent := epoch.Add(20*time.Millisecond + 500*time.Microsecond)
	lags := []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 8 * time.Millisecond, 20 * time.Millisecond, time.Second}
	for d := range k + 1 {
		out := make([]Score, len(lags))
		l.ScoreLags(0, leaveOut(d, k), k, sent, lags, out)
		for i, lag := range lags {
			if want := l.Score(0, leaveOut(d, k), k, sent, lag); out[i] != want {
				t.Errorf("D %d ms, lag %v: %+v; alone %+v", d, lag, out[i], want)
			}
		}
	}
}

// leaveOut is lagCase's exact top k of the documents acknowledged before
// sent−D ms, nearest first: written ones 20−D down, then the pre-populated
// 1, 2, ... as far as k needs.
func leaveOut(d, k int) []uint32 {
	var answer []uint32
	for j := 20 - d; j >= 1 && len(answer) < k; j-- {
		answer = append(answer, uint32(100+j))
	}
	for id := uint32(1); len(answer) < k; id++ {
		answer = append(answer, id)
	}
	return answer
}

// Without writes both figures are the idle recall, neighbours.Recall's
// figure against Exact's answer: here an answer that swaps two of the top
// 10 for the 11th and 12th.
func TestLiveIdleEqualsRecall(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 35))
	s := make(store, 501)
	for id := uint32(1); id <= 500; id++ {
		s.put(r, id, 16)
	}
	qs := liveQueries(r, 3, 16)
	l, err := NewLive(context.Background(), LiveConfig[shelf]{Depth: 40, IDs: 500, Docs: s.docs}, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want := s.truth(Cosine, q)
		answer := append(ids(want[:8]), want[10].ID, want[11].ID)
		recall := Recall(answer, want[:10], func(uint32) (float64, bool) { return 0, false })
		sc := l.Score(i, answer, 10, time.Now(), time.Hour)
		if recall != 0.8 || sc.Expected != 10 || sc.Found != 8 || sc.LagExpected != 10 || sc.LagFound != 8 || sc.RecentMisses != 0 {
			t.Errorf("query %d: recall %v, %+v; want 8 of 10 both ways", i, recall, sc)
		}
	}
}

// The send's microsecond is the line: a document acknowledged a
// microsecond before the send is expected, one acknowledged at it or
// after is excused, as is one being written, one whose write failed, and
// one written by two overlapping writes — until a write of it runs alone.
func TestLiveExcusesOverlappingWrites(t *testing.T) {
	t.Parallel()
	l, epoch := lagCase(t) // 120 is the nearest, acknowledged at 20 ms
	sent := epoch.Add(20 * time.Millisecond)
	top := []uint32{120, 119, 118, 117, 116, 115, 114, 113, 112, 111}
	excused := func(what string, at time.Time) {
		t.Helper()
		if sc := l.Score(0, top, 10, at, 0); sc.Expected != 9 || sc.Found != 9 {
			t.Errorf("%s: %+v; want 120 excused: 9 of 9", what, sc)
		}
	}
	expected := func(what string, at time.Time) {
		t.Helper()
		if sc := l.Score(0, top, 10, at, 0); sc.Expected != 10 || sc.Found != 10 {
			t.Errorf("%s: %+v; want 120 expected: 10 of 10", what, sc)
		}
	}
	expected("sent a µs after the last ack", sent.Add(time.Microsecond))
	excused("sent at the last ack", sent)
	later := sent.Add(time.Hour)
	l.Begin(120)
	excused("120 being written", later)
	l.Fail(120)
	excused("120's write failed", later)
	l.Begin(120)
	l.Begin(120)
	l.Upsert(120, []float32{1.01, 0, 0, 0}, shelf{}, sent)
	excused("120 written twice at once, one acknowledged", later)
	l.Upsert(120, []float32{1.01, 0, 0, 0}, shelf{}, sent)
	excused("120 written twice at once, both acknowledged", later)
	l.Begin(120)
	l.Upsert(120, []float32{1.01, 0, 0, 0}, shelf{}, sent)
	expected("120 written alone again", later)
	l.Foreign(120)
	excused("120 written by another shard", later)
	if sc := l.Score(0, top, 10, later, 0); sc.Foreign != 1 {
		t.Errorf("120 written by another shard: %+v; want it counted Foreign", sc)
	}
	l.Begin(120)
	l.Upsert(120, []float32{1.01, 0, 0, 0}, shelf{}, sent)
	excused("120 written by another shard, then by the truth's own writer", later)
}

// Deleting a query's nearest takes its list below the refill mark: a
// score that runs out says Short, and a refresh fills the list again,
// agreeing with the brute force, writes made while it read included.
func TestLiveRefillsShortLists(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 35))
	s := make(store, 201)
	for id := uint32(1); id <= 200; id++ {
		s.put(r, id, 8)
	}
	qs := liveQueries(r, 1, 8)
	qs[0].Keep = nil
	var meanwhile func() // writes made after the refill's read passed them
	docs := func(yield func(LiveDoc[shelf]) bool) {
		s.docs(yield)
		if meanwhile != nil {
			meanwhile()
		}
	}
	l, err := NewLive(context.Background(), LiveConfig[shelf]{Depth: 12, Refill: 6, IDs: 200, Docs: docs}, qs)
	if err != nil {
		t.Fatal(err)
	}
	nearest := s.truth(Cosine, qs[0])
	meanwhile = func() {
		meanwhile = nil
		gone := nearest[8].ID // read by the refill, deleted before it ends
		s[gone].Store(nil)
		l.Begin(gone)
		l.Delete(gone, time.Now())
		back := &LiveDoc[shelf]{ID: nearest[0].ID, Vector: qs[0].Vector} // at distance 0, not read by the refill
		s[back.ID].Store(back)
		l.Begin(back.ID)
		l.Upsert(back.ID, back.Vector, back.Fields, time.Now())
	}
	for _, n := range nearest[:8] {
		s[n.ID].Store(nil)
		l.Begin(n.ID)
		l.Delete(n.ID, time.Now())
	}
	if sc := l.Score(0, nil, 5, time.Now(), 0); !sc.Short || sc.Expected != 0 {
		t.Errorf("4 kept for k 5: %+v; want Short", sc)
	}
	if got, err := l.Refresh(context.Background()); got != 1 || err != nil {
		t.Fatalf("refresh: %d, %v; want 1 list", got, err)
	}
	agrees(t, l, s, qs, true)
	scoresTheHead(t, l, s, qs, 5, time.Now())
}

// liveBench is the scale for the cost of keeping the truth: 100
// sample queries of 1,024 dimensions, depth 4k+20 for k 10, over 10,000
// documents (a write's cost does not depend on how many there are: it is
// scored against the queries, not the documents).
func liveBench(b *testing.B) (*Live[shelf], store, [][]float32) {
	const n, dim = 10_000, 1024
	r := rand.New(rand.NewPCG(1, 35))
	s := make(store, n+1)
	for id := uint32(1); id <= n; id++ {
		s.put(r, id, dim)
	}
	l, err := NewLive(context.Background(), LiveConfig[shelf]{Depth: 60, Refill: 30, IDs: n, Docs: s.docs}, liveQueries(r, 100, dim))
	if err != nil {
		b.Fatal(err)
	}
	vecs := make([][]float32, 64) // the writes' new vectors
	for i, d := range randomDocs(r, len(vecs), dim) {
		vecs[i] = d.Vector
	}
	return l, s, vecs
}

// BenchmarkLiveUpsert is the cost of one acknowledged write (Begin, then
// Upsert of a document with a new vector and category) against 100
// sample queries of 1,024 dimensions: ns/op is per write; allocs/op must
// be 0.
func BenchmarkLiveUpsert(b *testing.B) {
	l, _, vecs := liveBench(b)
	at := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		id := uint32(1 + i%10_000)
		l.Begin(id)
		l.Upsert(id, vecs[i%len(vecs)], shelf{uint8(i % 3)}, at)
		i++
	}
}

// BenchmarkLiveScore is the cost of scoring one answer of k 10 (strict
// and lag-excused) at search time; allocs/op must be 0.
func BenchmarkLiveScore(b *testing.B) {
	l, _, _ := liveBench(b)
	answers := make([][]uint32, len(l.queries))
	for i := range answers {
		answers[i] = ids(l.queries[i].list[:10])
	}
	sent := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := i % len(answers)
		l.Score(q, answers[q], 10, sent, time.Second)
		i++
	}
}

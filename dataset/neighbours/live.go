package neighbours

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Live is the exact answers of a fixed sample of queries over a document
// set that a run writes to: each query keeps its Depth nearest documents,
// with distances, as the acknowledged writes left them, so that an answer
// given while the index is written to is scored against the documents it
// could have seen rather than against the pre-populated ones.
//
// Wiring, for a run with documents 1..N whose filters read fields F:
//
//	live, err := NewLive(ctx, LiveConfig[F]{Metric: ..., Depth: 4*k + 20, Refill: 2*k + 10,
//		IDs: N, Epoch: runStart, Docs: everyCurrentDocument}, sampleQueries)
//	go live.Run(ctx)                          // refills lists that ran short
//	// each writer, around each write of document id:
//	live.Begin(id)                            // before the request is sent
//	live.Upsert(id, vec, fields, ackedAt)     // after the engine acknowledged it
//	live.Delete(id, ackedAt)                  // ... or for a delete
//	live.Fail(id)                             // ... or when it failed or timed out
//	// each answer to sample query q, sent at sentAt:
//	s := live.Score(q, ids, k, sentAt, freshnessLag)
//
// A document's write overlaps a search sent at T when it was
// acknowledged at or after T, or begun and not yet acknowledged when the
// answer is scored: such a document is excused (see Score). Writes come
// from many goroutines at once, concurrently with Score and Run; the
// write path takes each query's lock only to edit its short list, after
// the distance is computed, and allocates nothing but, while a refill
// runs, the journal of the writes it must apply again.
//
// Memory is 8 bytes per document ID and Depth neighbours per query; a
// refill reads every document, as Exact does, once for all the lists
// that ran short at the time.
type Live[F any] struct {
	metric        Metric
	depth, refill int
	epoch         time.Time
	docs          func(yield func(LiveDoc[F]) bool)
	queries       []liveQuery[F]
	// state is each document's write state, indexed by ID (stateword).
	state []atomic.Uint64
	stale chan struct{} // a list wants a refill: Run wakes
}

// LiveDoc is one document as Live reads it: its ID, its vector and the
// fields its queries' filters read (a category, a price), which a rewrite
// may change as it changes the vector.
type LiveDoc[F any] struct {
	ID     uint32
	Vector []float32
	Fields F
}

// LiveQuery is one sample query: its vector and, when Keep is set, the
// filter a document's current fields must pass. Keep is called from
// several goroutines at once.
type LiveQuery[F any] struct {
	Vector []float32
	Keep   func(F) bool
}

// LiveConfig is what NewLive needs.
type LiveConfig[F any] struct {
	Metric Metric
	// Depth is how many nearest documents each query keeps: more than k,
	// so that an answer's expected top k is known while some of the
	// nearest are excused (the runner keeps 4k+20).
	Depth int
	// Refill: a list that deletes and rewrites have taken below Refill
	// documents is recomputed by Run (or Refresh) from Docs; 0 is Depth/2.
	// It must leave room for k plus the documents a lag excuses.
	Refill int
	// IDs is the highest document ID: documents are 1..IDs, and a write
	// of an ID past it panics (a score of one counts it as a miss).
	IDs int
	// Epoch is the earliest time a write or a search is stamped with
	// (the run's start); the documents Docs yields at NewLive count as
	// written before it, expected by every search.
	Epoch time.Time
	// Docs yields every current document once: the pre-populated set at
	// NewLive, the set as the writes have left it at a refill. It may
	// yield a document being written in either version: the write's
	// Upsert or Delete corrects the list.
	Docs func(yield func(LiveDoc[F]) bool)
	// Found, when set, is each query's Depth nearest over Docs already
	// computed (a run's sample of exact answers): NewLive starts from them
	// instead of reading every document again.
	Found [][]Neighbour
}

// liveQuery is one query's kept answer.
type liveQuery[F any] struct {
	mu    sync.Mutex
	probe probe[F]
	// list is the exact nearest documents, nearest first: every current
	// document that passes the filter and is no farther than bound (by
	// less), and no other, at most depth of them. whole: bound is
	// infinite, the list holds every document that passes.
	list  []Neighbour
	bound Neighbour
	whole bool
	// stale: the list fell below refill, or a score ran out of it.
	// refilling: Refresh is recomputing it; the writes meanwhile are
	// journalled, to be applied again to the recomputed list.
	stale, refilling bool
	journal          []edit
}

// edit is one write to a query's list: the document left it, and came
// back at n.Distance when in.
type edit struct {
	n  Neighbour
	in bool
}

// NewLive computes each query's Depth nearest over cfg.Docs (the
// pre-populated documents) and returns the truth that follows the
// writes from there; ctx ends the computation, as it does Exact.
func NewLive[F any](ctx context.Context, cfg LiveConfig[F], queries []LiveQuery[F]) (*Live[F], error) {
	l := &Live[F]{metric: cfg.Metric, depth: max(cfg.Depth, 1), refill: cfg.Refill, epoch: cfg.Epoch, docs: cfg.Docs,
		queries: make([]liveQuery[F], len(queries)), state: make([]atomic.Uint64, cfg.IDs+1), stale: make(chan struct{}, 1)}
	if l.refill <= 0 {
		l.refill = l.depth / 2
	}
	if l.epoch.IsZero() {
		l.epoch = time.Now()
	}
	probes := make([]probe[F], len(queries))
	for i, q := range queries {
		probes[i] = newProbe(q.Vector, cfg.Metric, q.Keep)
		l.queries[i].probe = probes[i]
	}
	found := cfg.Found
	if len(found) != len(queries) {
		var err error
		if found, err = exact(ctx, probes, l.depth, l.docs); err != nil {
			return nil, err
		}
	}
	for i := range l.queries {
		l.queries[i].reset(found[i], l.depth)
	}
	return l, nil
}

// reset makes found, a query's exact nearest at depth, its list.
func (q *liveQuery[F]) reset(found []Neighbour, depth int) {
	q.list = append(make([]Neighbour, 0, depth+1), found...)
	q.whole = len(found) < depth
	if !q.whole {
		q.bound = found[len(found)-1]
	}
}

// Upsert applies an acknowledged write of document id: it enters each
// query whose filter its fields pass with vec, leaving its old place. Call
// it once the engine acknowledged the write, with the time it did; vec
// and fields are not kept.
func (l *Live[F]) Upsert(id uint32, vec []float32, fields F, acked time.Time) {
	var vn float64
	if l.metric == Cosine {
		vn = norm(vec)
	}
	for i := range l.queries {
		q := &l.queries[i]
		n := Neighbour{ID: id}
		in := q.probe.keep == nil || q.probe.keep(fields)
		if in {
			n.Distance = l.metric.distance(q.probe.vector, vec, q.probe.norm, vn)
		}
		l.edit(q, edit{n: n, in: in})
	}
	l.end(id, acked, true)
}

// Delete applies an acknowledged delete of document id.
func (l *Live[F]) Delete(id uint32, acked time.Time) {
	for i := range l.queries {
		l.edit(&l.queries[i], edit{n: Neighbour{ID: id}})
	}
	l.end(id, acked, true)
}

// edit applies e to q's list, journals it while q is refilled, and marks
// q stale when the list ran short.
func (l *Live[F]) edit(q *liveQuery[F], e edit) {
	q.mu.Lock()
	q.apply(e, l.depth)
	if q.refilling {
		q.journal = append(q.journal, e)
	}
	short := !q.whole && len(q.list) < l.refill && !q.stale
	if short {
		q.stale = true
	}
	q.mu.Unlock()
	if short {
		l.wake()
	}
}

// apply removes e's document from the list and, when it is in, inserts it
// at its distance if that is within the bound, keeping the list's rule:
// everything that passes up to the bound, at most depth documents.
func (q *liveQuery[F]) apply(e edit, depth int) {
	if i := slices.IndexFunc(q.list, func(n Neighbour) bool { return n.ID == e.n.ID }); i >= 0 {
		q.list = slices.Delete(q.list, i, i+1)
	}
	if !e.in || (!q.whole && less(e.n, q.bound) > 0) {
		return
	}
	i, _ := slices.BinarySearchFunc(q.list, e.n, less)
	q.list = slices.Insert(q.list, i, e.n) // within capacity: depth+1
	if len(q.list) > depth {
		q.list = q.list[:depth]
		q.whole, q.bound = false, q.list[depth-1]
	}
}

func (l *Live[F]) wake() {
	select {
	case l.stale <- struct{}{}:
	default: // a wake is already pending
	}
}

// Run refills the lists that ran short, each time one does, until ctx
// ends; run it on its own goroutine so that no write or score waits for
// a recomputation.
func (l *Live[F]) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.stale:
			l.Refresh(ctx)
		}
	}
}

// Refresh recomputes every stale list from Docs now, and says how many it
// recomputed; the writes that arrive meanwhile are applied to the new
// lists. It returns ctx's error, leaving the lists stale, when ctx ends.
func (l *Live[F]) Refresh(ctx context.Context) (int, error) {
	var todo []int
	var probes []probe[F]
	for i := range l.queries {
		q := &l.queries[i]
		q.mu.Lock()
		if q.stale && !q.refilling {
			q.refilling = true
			todo = append(todo, i)
			probes = append(probes, q.probe)
		}
		q.mu.Unlock()
	}
	if len(todo) == 0 {
		return 0, nil
	}
	found, err := exact(ctx, probes, l.depth, l.docs)
	again := false
	for j, i := range todo {
		q := &l.queries[i]
		q.mu.Lock()
		if err == nil {
			q.reset(found[j], l.depth)
			for _, e := range q.journal {
				q.apply(e, l.depth)
			}
			q.stale = !q.whole && len(q.list) < l.refill // deletes meanwhile
			again = again || q.stale
		}
		q.journal, q.refilling = q.journal[:0], false
		q.mu.Unlock()
	}
	if again {
		l.wake()
	}
	return len(todo), err
}

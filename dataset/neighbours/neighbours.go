// Package neighbours computes exact nearest neighbours by brute force: the
// ground truth that a vector engine's approximate answers (HNSW, IVF) are
// scored against. Distance is cosine distance, 1 − a·b / (|a| |b|), as the
// engines' cosine metrics define it; a query may restrict its candidates
// with a filter, as a filtered kNN does, so that its truth is the exact
// top k among the documents that pass.
package neighbours

import (
	"cmp"
	"container/heap"
	"context"
	"runtime"
	"slices"
	"sync"
)

// Doc is one candidate: its ID and its vector.
type Doc struct {
	ID     uint32
	Vector []float32
}

// Query is one query vector, its metric (Cosine unless set) and, when
// Keep is set, the filter a candidate must pass; Keep is called from
// several goroutines at once.
type Query struct {
	Vector []float32
	Keep   func(id uint32) bool
	Metric Metric
}

// Neighbour is one document of a query's exact answer.
type Neighbour struct {
	ID       uint32
	Distance float64
}

// Exact returns, for each query, its k nearest documents in increasing
// distance (ties by ID), read from docs, which yields every candidate once;
// a query with fewer than k candidates that pass its filter gets them all.
// The documents are read once and scored against every query, split over
// GOMAXPROCS workers, so memory is a heap of k per query and worker, never
// the documents.
//
// It reads the documents until ctx ends, then stops within a batch and
// returns ctx's error and no answer: the truth over part of the documents
// is no truth, and a large sample takes minutes that an interrupt must not
// wait for.
func Exact(ctx context.Context, queries []Query, k int, docs func(yield func(Doc) bool)) ([][]Neighbour, error) {
	probes := make([]probe[uint32], len(queries))
	for i, q := range queries {
		probes[i] = newProbe(q.Vector, q.Metric, q.Keep)
	}
	// A plain document's filter sees its ID: the ID is the fields.
	return exact(ctx, probes, k, func(yield func(LiveDoc[uint32]) bool) {
		docs(func(d Doc) bool { return yield(LiveDoc[uint32]{ID: d.ID, Vector: d.Vector, Fields: d.ID}) })
	})
}

// probe is one query as the brute force scores it: its vector, its norm
// (read by Cosine alone), its metric and its filter over a document's
// fields F.
type probe[F any] struct {
	vector []float32
	norm   float64
	metric Metric
	keep   func(F) bool
}

func newProbe[F any](v []float32, m Metric, keep func(F) bool) probe[F] {
	return probe[F]{vector: v, norm: norm(v), metric: m, keep: keep}
}

// exact is Exact over documents that carry fields F for the filters: the
// one brute force behind Exact and Live's refills.
func exact[F any](ctx context.Context, probes []probe[F], k int, docs func(yield func(LiveDoc[F]) bool)) ([][]Neighbour, error) {
	workers := runtime.GOMAXPROCS(0)
	batches := make(chan []LiveDoc[F], workers)
	found := make([][]top, workers)
	var wg sync.WaitGroup
	for w := range workers {
		found[w] = make([]top, len(probes))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range batches {
				if ctx.Err() == nil { // the batches in line are dropped
					score(probes, k, batch, found[w])
				}
			}
		}()
	}
	batch := make([]LiveDoc[F], 0, exactBatch)
	if ctx.Err() == nil {
		docs(func(d LiveDoc[F]) bool {
			if batch = append(batch, d); len(batch) == exactBatch {
				batches <- batch
				batch = make([]LiveDoc[F], 0, exactBatch)
				return ctx.Err() == nil
			}
			return true
		})
	}
	batches <- batch
	close(batches)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]Neighbour, len(probes))
	for i := range probes {
		var all []Neighbour
		for w := range workers {
			all = append(all, found[w][i]...)
		}
		slices.SortFunc(all, less)
		out[i] = all[:min(k, len(all))]
	}
	return out, nil
}

// exactBatch is how many documents a worker scores at a time: a batch is
// what an interrupt waits for.
const exactBatch = 256

// score adds batch's documents to each probe's heap of its k nearest.
func score[F any](probes []probe[F], k int, batch []LiveDoc[F], tops []top) {
	cosine := slices.ContainsFunc(probes, func(p probe[F]) bool { return p.metric == Cosine })
	for _, d := range batch {
		var dn float64
		if cosine {
			dn = norm(d.Vector)
		}
		for i := range probes {
			p := &probes[i]
			if p.keep != nil && !p.keep(d.Fields) {
				continue
			}
			n := Neighbour{ID: d.ID, Distance: p.metric.distance(p.vector, d.Vector, p.norm, dn)}
			t := &tops[i]
			switch {
			case len(*t) < k:
				heap.Push(t, n)
			case less(n, (*t)[0]) < 0:
				(*t)[0] = n
				heap.Fix(t, 0)
			}
		}
	}
}

// less orders neighbours by distance, then ID, so that the answer does not
// depend on how the documents were split among workers.
func less(a, b Neighbour) int {
	if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// top is a max-heap of the k nearest so far: its root is the farthest kept.
type top []Neighbour

func (t top) Len() int           { return len(t) }
func (t top) Less(i, j int) bool { return less(t[i], t[j]) > 0 }
func (t top) Swap(i, j int)      { t[i], t[j] = t[j], t[i] }
func (t *top) Push(x any)        { *t = append(*t, x.(Neighbour)) }
func (t *top) Pop() any {
	old := *t
	n := old[len(old)-1]
	*t = old[:len(old)-1]
	return n
}

// Tolerance is how much farther than the k-th exact neighbour a returned
// document may be and still count as a true neighbour: float32 vectors
// scored in float64 here and in float32 by an engine disagree in the last
// bits, and a tie at the k-th place can be broken either way.
const Tolerance = 1e-6

// Hits is recall@k's numerator, the one tie rule of the harness: how many
// of got's documents are true neighbours for want, the exact top k in
// increasing distance. A document of got counts when it is in want, or
// when it is no farther than want's last (by its distance in dist, which
// reports false for a document it does not know: a miss) within
// Tolerance — an engine that returns a document tied with the k-th
// instead of the k-th has found a true k-th neighbour, and calling it a
// miss would charge the engine for how floating point broke the tie. Each
// document counts once, and at most len(want) count. A lookup's truth
// (one named document, no distances) is the same rule with a dist that
// knows nothing: only want's own documents count.
func Hits(got []uint32, want []Neighbour, dist func(id uint32) (float64, bool)) int {
	if len(want) == 0 {
		return 0
	}
	hits := 0
	for i, id := range got {
		if slices.Contains(got[:i], id) {
			continue
		}
		if slices.ContainsFunc(want, func(n Neighbour) bool { return n.ID == id }) {
			hits++
		} else if d, ok := dist(id); ok && Tied(d, want) {
			hits++
		}
	}
	return min(hits, len(want))
}

// Tied says whether a document at distance d counts as one of want's:
// no farther than want's last within Tolerance (Hits' rule).
func Tied(d float64, want []Neighbour) bool {
	return len(want) > 0 && d <= want[len(want)-1].Distance+Tolerance
}

// Recall is recall@k with k = len(want): Hits over len(want). It is 1
// when want is empty and got is too, 0 when only want is.
func Recall(got []uint32, want []Neighbour, dist func(id uint32) (float64, bool)) float64 {
	if len(want) == 0 {
		if len(got) == 0 {
			return 1
		}
		return 0
	}
	return float64(Hits(got, want, dist)) / float64(len(want))
}

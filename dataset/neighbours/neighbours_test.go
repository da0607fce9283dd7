package neighbours

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/dataset"
)

func randomDocs(r *rand.Rand, n, dim int) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		docs[i] = Doc{ID: uint32(i + 1), Vector: v}
	}
	return docs
}

func each(docs []Doc) func(func(Doc) bool) {
	return func(yield func(Doc) bool) {
		for _, d := range docs {
			if !yield(d) {
				return
			}
		}
	}
}

// naive is the answer by sorting every candidate: what Exact must equal.
func naive(q Query, k int, docs []Doc) []Neighbour {
	var all []Neighbour
	for _, d := range docs {
		if q.Keep == nil || q.Keep(d.ID) {
			all = append(all, Neighbour{d.ID, naiveDistance(q.Metric, q.Vector, d.Vector)})
		}
	}
	slices.SortFunc(all, less)
	return all[:min(k, len(all))]
}

// Exact equals sorting every candidate, with and without a filter, and
// when fewer documents pass than k.
func TestExactEqualsSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	docs := randomDocs(r, 3000, 16)
	queries := []Query{
		{Vector: docs[0].Vector},
		{Vector: randomDocs(r, 1, 16)[0].Vector, Keep: func(id uint32) bool { return id%3 == 0 }},
		{Vector: docs[7].Vector, Keep: func(id uint32) bool { return id < 6 }},
	}
	got, _ := Exact(context.Background(), queries, 10, each(docs))
	for i, q := range queries {
		if want := naive(q, 10, docs); !sameAnswer(got[i], want) {
			t.Errorf("query %d: %v\nwant %v", i, got[i], want)
		}
	}
	if got[0][0].ID != 1 || got[0][0].Distance > 1e-12 {
		t.Errorf("a document's own vector is not its nearest: %v", got[0][0])
	}
	if len(got[2]) != 5 {
		t.Errorf("5 candidates pass the filter, got %d", len(got[2]))
	}
}

// On the product corpus, whose embeddings cluster around their category's
// centroid, a category-filtered query's truth lies in that category and
// plain kNN's truth is mostly in the query's category.
func TestExactProductCorpus(t *testing.T) {
	p, err := dataset.NewProducts(dataset.Config{Seed: 7, IDs: 2000, Prepopulate: 1}, 64, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 0, 2000)
	category := map[uint32]string{}
	for id := uint32(1); id <= 2000; id++ {
		pr := p.Product(id, 0)
		docs = append(docs, Doc{ID: id, Vector: pr.Embedding})
		category[id] = pr.Category
	}
	var q dataset.ProductQuery
	for i := uint64(0); q.Kind != dataset.KNNCategory; i++ {
		q = p.ProductQuery(i)
	}
	got, _ := Exact(context.Background(), []Query{
		{Vector: q.Vector, Keep: func(id uint32) bool { return category[id] == q.Category }},
		{Vector: q.Vector},
	}, 10, each(docs))
	same := 0
	for j, n := range got[0] {
		if category[n.ID] != q.Category {
			t.Fatalf("filtered truth %d is in %s, not %s", j, category[n.ID], q.Category)
		}
		if category[got[1][j].ID] == q.Category {
			same++
		}
	}
	if same < 8 {
		t.Errorf("only %d of plain kNN's 10 truths are in the query's category", same)
	}
}

// Recall counts exact matches and documents tied with the k-th neighbour
// within Tolerance, each once.
func TestRecall(t *testing.T) {
	want := []Neighbour{{1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 0.4}}
	dist := map[uint32]float64{1: 0.1, 2: 0.2, 3: 0.3, 4: 0.4, 5: 0.4 + Tolerance/2, 6: 0.5}
	lookup := func(id uint32) (float64, bool) { d, ok := dist[id]; return d, ok }
	for _, c := range []struct {
		got  []uint32
		want float64
	}{
		{[]uint32{1, 2, 3, 4}, 1},
		{[]uint32{4, 3, 2, 1}, 1},
		{[]uint32{1, 2, 3, 5}, 1},    // tied with the 4th
		{[]uint32{1, 2, 3, 6}, 0.75}, // farther
		{[]uint32{1, 1, 1, 1}, 0.25}, // a duplicate counts once
		{[]uint32{1, 9}, 0.25},       // unknown ID
		{nil, 0},
	} {
		if got := Recall(c.got, want, lookup); got != c.want {
			t.Errorf("Recall(%v) = %v; want %v", c.got, got, c.want)
		}
	}
	if Recall(nil, nil, lookup) != 1 || Recall([]uint32{1}, nil, lookup) != 0 {
		t.Error("Recall with no truth")
	}
}

// BenchmarkExactProduct is the ground truth's cost at the study's scale:
// 100 queries over the product corpus's 95,000 pre-populated documents of
// 1,024 dimensions, documents generated as they are read (so the figure
// includes generating them). Run with -benchtime 1x; it reports the
// documents a second scored against all 100 queries.
func BenchmarkExactProduct(b *testing.B) {
	const n, queries = 95_000, 100
	p, err := dataset.NewProducts(dataset.Config{Seed: 1, IDs: n, Prepopulate: 1}, dataset.ProductDim, dataset.QueryMix{})
	if err != nil {
		b.Fatal(err)
	}
	qs := make([]Query, queries)
	for i := range qs {
		qs[i] = Query{Vector: p.ProductQuery(uint64(i)).Vector}
		if qs[i].Vector == nil {
			qs[i].Vector = p.Product(uint32(i+1), 0).Embedding
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Exact(context.Background(), qs, 10, func(yield func(Doc) bool) {
			for id := uint32(1); id <= n; id++ {
				if !yield(Doc{ID: id, Vector: p.Product(id, 0).Embedding}) {
					return
				}
			}
		})
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// Distance is Exact's own metric: 0 for the same direction, 1 for
// orthogonal vectors and for a zero one, 2 for opposite ones.
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 2, 3}, []float32{2, 4, 6}, 0},
		{[]float32{1, 0}, []float32{0, 5}, 1},
		{[]float32{1, 0}, []float32{0, 0}, 1},
		{[]float32{1, 1}, []float32{-1, -1}, 2},
	} {
		if got := Distance(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Distance(%v, %v) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}

// An interrupted computation stops reading the documents within a batch of
// the interrupt and returns the context's error, not a partial answer; a
// context that ended before it started reads at most one batch.
func TestExactStopsWhenTheContextEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	docs := randomDocs(r, 20_000, 8)
	queries := []Query{{Vector: docs[0].Vector}, {Vector: docs[1].Vector, Keep: func(id uint32) bool { return id%2 == 0 }}}
	for _, cancelAt := range []int{0, 1000} {
		ctx, cancel := context.WithCancel(context.Background())
		if cancelAt == 0 {
			cancel()
		}
		read := 0
		got, err := Exact(ctx, queries, 10, func(yield func(Doc) bool) {
			for _, d := range docs {
				if read++; read == cancelAt {
					cancel()
				}
				if !yield(d) {
					return
				}
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) || got != nil {
			t.Errorf("cancelled after %d documents: %d answers, error %v; want none and context.Canceled", cancelAt, len(got), err)
		}
		if read > cancelAt+exactBatch {
			t.Errorf("cancelled after %d documents: read %d of %d; want at most a batch (%d) more", cancelAt, read, len(docs), exactBatch)
		}
	}
	// The same queries, not interrupted: the whole answer.
	got, err := Exact(context.Background(), queries, 10, each(docs))
	if err != nil || !sameAnswer(got[0], naive(queries[0], 10, docs)) || !sameAnswer(got[1], naive(queries[1], 10, docs)) {
		t.Errorf("uninterrupted: error %v, answers %v", err, got)
	}
}

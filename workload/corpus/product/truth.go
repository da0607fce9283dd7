package product

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload/corpus"
)

// ExactTruth draws n queries of the mix's kinds that have a truth, in the
// mix's proportions among them, and computes their exact answers.
func (p Products) ExactTruth(ctx context.Context, n, k int) (*corpus.Truth, error) {
	kinds, weight := truthKinds(p.Mix())
	if weight == 0 {
		return nil, nil
	}
	start := time.Now()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	t := &corpus.Truth{Kinds: p.QueryKinds()}
	cat, price := make([]uint8, p.IDs()+1), make([]float64, p.IDs()+1)
	knn, knnAt, asked := p.sampleQueries(t, n, kinds, weight, cat, price)
	depth := corpus.ExactDepth(k)
	if len(knn) > 0 {
		found, err := neighbours.Exact(ctx, knn, depth, p.prepopulated(cat, price))
		if err != nil {
			return nil, err
		}
		qs := make([]engines.Query, len(found))
		for j, ns := range found {
			q := &t.Queries[knnAt[j]]
			q.Want, q.Whole, q.Live = ns, len(ns) < depth, j
			if q.Whole {
				q.Far = nil
			}
			qs[j] = q.Query
		}
		t.Follow = p.follow(qs, found, depth)
	}
	if p.file != nil {
		t.Stated = p.stated(t, asked, knnAt)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Cost = result.GroundTruth{Queries: len(t.Queries), Documents: p.PrepopulatedCount(), Dim: p.Dim(), Depth: depth,
		Seconds: time.Since(start).Seconds(), Bytes: after.TotalAlloc - before.TotalAlloc}
	return t, nil
}

// truthKinds are the kinds of mix that have a truth (a search by name or
// the nearest neighbours) and their total weight.
func truthKinds(mix dataset.QueryMix) (kinds []dataset.ProductQueryKind, weight int) {
	for _, kd := range mix.Kinds() {
		if kd.Truth() != dataset.NoTruth {
			kinds = append(kinds, kd)
			weight += mix[kd]
		}
	}
	return kinds, weight
}

// sampleQueries draws the n sample queries onto t, each of one of kinds by
// its weight in the mix (of total weight): a search by name with its truth,
// the stored document; a nearest-neighbour search without it, returned as
// knn (its filter reads cat and price, which p.prepopulated fills as the
// exact search reads the documents), knnAt being each one's index in
// t.Queries and asked each one's product query.
func (p Products) sampleQueries(t *corpus.Truth, n int, kinds []dataset.ProductQueryKind, weight int, cat []uint8, price []float64) (knn []neighbours.Query, knnAt []int, asked []dataset.ProductQuery) {
	mix := p.Mix()
	for i := range uint64(n) {
		r := dataset.NewRand(p.Config().Seed, corpus.TagExact, i)
		u := r.Intn(weight)
		kd := kinds[0]
		for _, c := range kinds {
			if u < mix[c] {
				kd = c
				break
			}
			u -= mix[c]
		}
		switch kd.Truth() {
		case dataset.Named:
			pq := p.storedNamed(i, kd)
			t.Queries = append(t.Queries, corpus.TruthQuery{Kind: int(kd), Query: pq.Query(),
				Want: []neighbours.Neighbour{{ID: pq.ID}}, Whole: true, Live: -1})
		case dataset.Nearest:
			pq := p.ProductQueryOfKind(i, kd)
			eq := corpus.TruthQuery{Kind: int(kd), Query: pq.Query()}
			eq.Far = p.farDistance(eq.Query)
			knn = append(knn, neighbours.Query{Vector: eq.Query.Vector, Metric: p.metric(), Keep: keep(eq.Query.Filters, cat, price)})
			knnAt = append(knnAt, len(t.Queries))
			asked = append(asked, pq)
			t.Queries = append(t.Queries, eq)
		}
	}
	return knn, knnAt, asked
}

// storedNamed is a query of kind kd (a Named truth) that names a
// pre-populated product: the sample's lookups have an answer to find (the
// mix's own also name missing IDs).
func (p Products) storedNamed(i uint64, kd dataset.ProductQueryKind) dataset.ProductQuery {
	for j := uint64(0); ; j++ {
		pq := p.ProductQueryOfKind(i<<20|j, kd)
		if p.Prepopulated(pq.ID) || j == 1<<20-1 {
			return pq
		}
	}
}

// farDistance is q's distance to a pre-populated product that passes q's
// filters, read from the corpus at version 0 (corpus.TruthQuery.Far).
func (p Products) farDistance(q engines.Query) func(uint32) (float64, bool) {
	m := p.metric()
	return func(id uint32) (float64, bool) {
		if id < 1 || int(id) > p.IDs() || !p.Prepopulated(id) {
			return 0, false
		}
		pr := p.Product(id, 0)
		if !dataset.Matches(q.Filters, pr) {
			return 0, false
		}
		return m.Distance(q.Vector, pr.Embedding), true
	}
}

// keep is filters' meaning (dataset.Matches) over the pre-populated
// documents' categories and prices, which prepopulated fills in before it
// yields each document: the brute force keeps the two filterable fields
// of each product, not the product.
func keep(filters []engines.Filter, cat []uint8, price []float64) func(uint32) bool {
	if len(filters) == 0 {
		return nil
	}
	return func(id uint32) bool {
		return dataset.Matches(filters, dataset.Product{Category: dataset.Categories[cat[id]].Name, Price: price[id]})
	}
}

func categoryIndex(name string) int {
	for i, c := range dataset.Categories {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// prepopulated yields every pre-populated product's embedding at version
// 0, generated by GOMAXPROCS workers a block of IDs at a time; it records
// each one's category and price first, for the filters.
func (p Products) prepopulated(cat []uint8, price []float64) func(yield func(neighbours.Doc) bool) {
	return func(yield func(neighbours.Doc) bool) {
		const block = 256
		ids := p.IDs()
		blocks := make(chan int)
		out := make(chan []neighbours.Doc, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for first := range blocks {
					var docs []neighbours.Doc
					for id := uint32(first); id < uint32(min(first+block, ids+1)); id++ {
						if !p.Prepopulated(id) {
							continue
						}
						pr := p.Product(id, 0)
						cat[id], price[id] = uint8(categoryIndex(pr.Category)), pr.Price
						docs = append(docs, neighbours.Doc{ID: id, Vector: pr.Embedding})
					}
					out <- docs
				}
			}()
		}
		quit := make(chan struct{}) // closed when yield says stop: no block is handed out after it
		go func() {
		feed:
			for first := 1; first <= ids; first += block {
				select {
				case blocks <- first:
				case <-quit:
					break feed
				}
			}
			close(blocks)
			wg.Wait()
			close(out)
		}()
		stop := false
		for docs := range out {
			for _, d := range docs {
				if !stop && !yield(d) {
					stop = true // drain the blocks begun, so the workers end
					close(quit)
				}
			}
		}
	}
}

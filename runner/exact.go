package runner

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Exact-answer checks: a seeded sample of the mix's queries whose kind has
// an exact answer (dataset.Truth) — the nearest neighbours by brute force
// over the pre-populated documents that pass the query's filters
// (dataset.Matches), the one product a lookup names — checked on the idle
// engine after pre-population and, as a share of the searches, under load
// (known.go), where the documents written since are left out of what an
// answer must hold (result.KindRecall). Answers are scored by
// neighbours.Hits, the harness's one recall@k: a document tied with the
// k-th within neighbours.Tolerance counts. Kinds with no truth (hybrid:
// its fusion is each engine's own) are not sampled.

// DefaultExactQueries is the sample's size: 100 queries, the sample the
// issue's cost is stated for, enough for recall@10 over a thousand
// expected documents.
const DefaultExactQueries = 100

// tagExact keys the sample's stream.
const tagExact = 0x65786163 // "exac"

// exactDepth is how many of a query's nearest are kept: more than k, so
// that the answer is still known when some of them have been written.
func exactDepth(k int) int { return 4*k + 20 }

// exactQuery is one sample query and its exact answer.
type exactQuery struct {
	kind int // index into the source's QueryKinds
	q    engines.Query
	// truth is the exact answer, best first, with distances: the depth
	// nearest for a Nearest kind, the named product (at distance 0) for a
	// Named one. whole: it holds every document that passes (fewer than
	// depth did, or the named one).
	truth []neighbours.Neighbour
	whole bool
	// far is the distance of a document that is not in truth, from the
	// corpus: asked only when ties with the k-th reach past the depth kept.
	// It is false for a document that is not pre-populated or does not
	// pass the filters; nil when truth is whole.
	far func(id uint32) (float64, bool)
}

// exactTruth is a run's sample of exact answers, shared by its setups.
type exactTruth struct {
	kinds   []string
	queries []exactQuery
	cost    result.GroundTruth
}

// exactSampler is a source whose queries can have exact answers.
type exactSampler interface {
	exactTruth(ctx context.Context, n, k int) (*exactTruth, error)
}

// newExactTruth computes the sample of n queries for k hits, or nil when
// the source has no exact answers (the text corpus; a mix of hybrid
// queries alone), n is 0 or nothing is pre-populated. It reads every
// pre-populated document against every sample query (minutes for a large
// sample of wide vectors), and gives up with ctx's error when ctx ends.
func newExactTruth(ctx context.Context, src Source, n, k int) (*exactTruth, error) {
	s, ok := src.(exactSampler)
	if !ok || n <= 0 || src.PrepopulatedCount() == 0 {
		return nil, nil
	}
	return s.exactTruth(ctx, n, k)
}

// exactTruth draws n queries of the mix's kinds that have a truth, in the
// mix's proportions among them, and computes their exact answers.
func (p Products) exactTruth(ctx context.Context, n, k int) (*exactTruth, error) {
	kinds, weight := truthKinds(p.Mix())
	if weight == 0 {
		return nil, nil
	}
	start := time.Now()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	t := &exactTruth{kinds: p.QueryKinds()}
	cat, price := make([]uint8, p.IDs()+1), make([]float64, p.IDs()+1)
	knn, knnAt := p.sampleQueries(t, n, kinds, weight, cat, price)
	depth := exactDepth(k)
	if len(knn) > 0 {
		found, err := neighbours.Exact(ctx, knn, depth, p.prepopulated(cat, price))
		if err != nil {
			return nil, err
		}
		for j, ns := range found {
			q := &t.queries[knnAt[j]]
			q.truth, q.whole = ns, len(ns) < depth
			if q.whole {
				q.far = nil
			}
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.cost = result.GroundTruth{Queries: len(t.queries), Documents: p.PrepopulatedCount(), Dim: p.Dim(), Depth: depth,
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
// t.queries.
func (p Products) sampleQueries(t *exactTruth, n int, kinds []dataset.ProductQueryKind, weight int, cat []uint8, price []float64) (knn []neighbours.Query, knnAt []int) {
	mix := p.Mix()
	for i := range uint64(n) {
		r := dataset.NewRand(p.Config().Seed, tagExact, i)
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
			t.queries = append(t.queries, exactQuery{kind: int(kd), q: pq.Query(),
				truth: []neighbours.Neighbour{{ID: pq.ID}}, whole: true})
		case dataset.Nearest:
			pq := p.ProductQueryOfKind(i, kd)
			eq := exactQuery{kind: int(kd), q: pq.Query()}
			eq.far = p.farDistance(eq.q)
			knn = append(knn, neighbours.Query{Vector: eq.q.Vector, Keep: keep(eq.q.Filters, cat, price)})
			knnAt = append(knnAt, len(t.queries))
			t.queries = append(t.queries, eq)
		}
	}
	return knn, knnAt
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
// filters, read from the corpus at version 0 (exactQuery.far).
func (p Products) farDistance(q engines.Query) func(uint32) (float64, bool) {
	return func(id uint32) (float64, bool) {
		if id < 1 || int(id) > p.IDs() || !p.Prepopulated(id) {
			return 0, false
		}
		pr := p.Product(id, 0)
		if !dataset.Matches(q.Filters, pr) {
			return 0, false
		}
		return neighbours.Distance(q.Vector, pr.Embedding), true
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

// score is an answer's expected and found documents of q's exact answer,
// for k hits, where written says which documents the run itself wrote or
// deleted since pre-population: they are neither expected nor held
// against the answer, so an answer holding t of them is expected to hold
// the k−t nearest of the others. Any other hit takes its place as it is,
// scored by neighbours.Hits (a document tied with the last expected one
// within neighbours.Tolerance counts): an ID past the corpus, one the run
// never wrote (a leftover of an attached index), an unreadable one is a
// miss, not an excuse. ok is false when the answer tests nothing: nothing
// is left to expect (a SKU whose product was rewritten), or too many of
// the answer's nearest were written for the rest to say.
func (q *exactQuery) score(ids []string, k int, written func(uint32) bool) (expected, found int64, ok bool) {
	var buf [64]uint32 // an answer's IDs, on the stack for k up to 64
	held := buf[:0]
	need := k
	for _, s := range ids {
		id, err := dataset.ParseDocID(s)
		if err != nil {
			continue // a place taken by no document
		}
		if written(id) {
			need--
			continue
		}
		held = append(held, id)
	}
	var wbuf [64]neighbours.Neighbour
	want := wbuf[:0]
	for _, n := range q.truth {
		if len(want) >= need {
			break
		}
		if !written(n.ID) {
			want = append(want, n)
		}
	}
	d := distances{q: q, deep: !q.whole && len(q.truth) > 0 && neighbours.Tied(q.truth[len(q.truth)-1].Distance, want)}
	expected, found = int64(len(want)), int64(neighbours.Hits(held, want, d.of))
	return expected, found, expected > 0 && (len(want) == need || q.whole)
}

// distances are a scored answer's documents' distances to q: those of q's
// truth, and, when ties with the last expected document reach past the
// depth kept (deep), any other document's from the corpus.
type distances struct {
	q    *exactQuery
	deep bool
}

func (d distances) of(id uint32) (float64, bool) {
	for _, n := range d.q.truth {
		if n.ID == id {
			return n.Distance, true
		}
	}
	if d.deep && d.q.far != nil {
		return d.q.far(id)
	}
	return 0, false
}

// exactCounts are one kind's checks.
type exactCounts struct {
	checks, skipped, failed, unsupported atomic.Int64
}

// queryCounts are one sample query's scored answers: the unit of the
// recall's interval, since one query's answers miss together.
type queryCounts struct{ expected, found atomic.Int64 }

// tally counts answers to a sample's queries, by kind and by query.
type tally struct {
	truth   *exactTruth
	kinds   []exactCounts
	queries []queryCounts
}

func newTally(t *exactTruth) tally {
	return tally{truth: t, kinds: make([]exactCounts, len(t.kinds)), queries: make([]queryCounts, len(t.queries))}
}

// add counts the answer to sample query i.
func (t tally) add(i int, ids []string, err error, k int, written func(uint32) bool) {
	q := &t.truth.queries[i]
	c := &t.kinds[q.kind]
	switch {
	case errors.Is(err, engines.ErrUnsupported):
		c.unsupported.Add(1)
	case err != nil:
		c.failed.Add(1)
	default:
		expected, found, ok := q.score(ids, k, written)
		if !ok {
			c.skipped.Add(1)
			return
		}
		c.checks.Add(1)
		qc := &t.queries[i]
		qc.expected.Add(expected)
		qc.found.Add(found)
	}
}

// recall is the tally's figures for the kinds that were checked, each
// query's answers summed as one (result.RecallSums).
func (t tally) recall() []result.KindRecall {
	sums := make([]result.RecallSums, len(t.kinds))
	for i := range t.queries {
		e, f := t.queries[i].expected.Load(), t.queries[i].found.Load()
		if e == 0 {
			continue // not asked, or no answer scored
		}
		sums[t.truth.queries[i].kind].AddQuery(f, e)
	}
	var out []result.KindRecall
	for i := range t.kinds {
		c := &t.kinds[i]
		r := result.KindRecall{Kind: t.truth.kinds[i], Skipped: c.skipped.Load(), Failed: c.failed.Load(), Unsupported: c.unsupported.Load()}
		sums[i].Checks = c.checks.Load()
		if sums[i].Checks+r.Skipped+r.Failed+r.Unsupported == 0 {
			continue
		}
		r.SetLoad(sums[i])
		out = append(out, r)
	}
	return out
}

// checkExact asks the idle engine every sample query, k hits each, as
// CheckRelevance asks its known items.
func checkExact(ctx context.Context, e engines.Engine, t *exactTruth, k int, timeout time.Duration) []result.KindRecall {
	counts := newTally(t)
	// Before the load the run has written nothing but the pre-populated
	// documents: every hit counts as it is.
	written := func(uint32) bool { return false }
	idleChecks(ctx, len(t.queries), func(i int) {
		q := &t.queries[i]
		sq := q.q
		sq.K = k
		cctx, cancel := context.WithTimeout(ctx, timeout)
		hits, err := guard(func() (engines.Hits, error) { return e.Search(cctx, sq) })
		cancel()
		counts.add(i, hits.IDs, err, k, written)
	})
	return counts.recall()
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// KnownItems is a Source that can make known-item queries: searches built
// from one pre-populated document, which that document must answer within
// the top K. A configuration that is fast because it returns the wrong
// documents shows up as low recall. The idle check after pre-population
// and the checks under load (known.go) build their queries here.
type KnownItems interface {
	// KnownQuery is check i for document id (pre-populated, at its
	// pre-populated version): its kind and its query.
	KnownQuery(i uint64, id uint32) (kind string, q engines.Query)
	// Config is the corpus's: its seed keys the checks' streams.
	Config() dataset.Config
}

// tagKnownItem separates the checks' random streams from the corpus's.
const tagKnownItem = 0x6b6e6f77 // "know"

// knownItem is idle check i: a pre-populated ID drawn from the check's
// stream (the caller makes sure there is one) and its query.
func knownItem(src Source, ki KnownItems, i uint64) (kind string, q engines.Query, target uint32) {
	r := dataset.NewRand(ki.Config().Seed, tagKnownItem, i)
	for {
		if target = uint32(1 + r.Intn(src.IDs())); src.Prepopulated(target) {
			break
		}
	}
	kind, q = ki.KnownQuery(i, target)
	return kind, q, target
}

// KnownQuery takes five words of the document's name, in a random order:
// the document holds every one of them in its shortest field, so any
// engine that ranks by the query's words puts it near the top.
func (t Text) KnownQuery(i uint64, id uint32) (string, engines.Query) {
	r := dataset.NewRand(t.Config().Seed, tagKnownItem, i, uint64(id))
	words := strings.Fields(strings.TrimSuffix(t.Corpus.Document(id, 0).Name, "."))
	for j := len(words) - 1; j > 0; j-- {
		k := r.Intn(j + 1)
		words[j], words[k] = words[k], words[j]
	}
	return "name words", engines.Query{Text: strings.ToLower(strings.Join(words[:min(5, len(words))], " "))}
}

// KnownQuery alternates an exact SKU lookup and a KNN search with the
// product's own embedding, which must find the product itself: the sku and
// knn kinds' own queries (and names), of the product's own values.
func (p Products) KnownQuery(i uint64, id uint32) (string, engines.Query) {
	pr := p.Product(id, 0)
	if i%2 == 0 {
		return dataset.SKULookup.String(), dataset.ProductQuery{Kind: dataset.SKULookup, ID: id, SKU: pr.SKU}.Query()
	}
	return dataset.KNN.String() + " self", dataset.ProductQuery{Kind: dataset.KNN, Vector: pr.Embedding}.Query()
}

// DefaultRelevanceQueries is how many known-item checks a run makes.
const DefaultRelevanceQueries = 100

// relevanceWorkers is how many checks run at once: enough to finish a
// slow engine's checks in seconds, few enough to be no load test.
const relevanceWorkers = 4

// maxMisses is how many missed checks the result names.
const maxMisses = 5

// CheckRelevance runs n known-item checks against e, k hits each, after
// pre-population and before any load, and reports recall@k per kind.
func CheckRelevance(ctx context.Context, e engines.Engine, src Source, n, k int, timeout time.Duration) *result.Relevance {
	ki, ok := src.(KnownItems)
	if !ok || n <= 0 || src.PrepopulatedCount() == 0 {
		return nil // nothing to check, or no document to check with
	}
	rel := &result.Relevance{K: k, ByKind: map[string]*result.RelevanceKind{}}
	var mu sync.Mutex
	idleChecks(ctx, n, func(i int) {
		kind, q, target := knownItem(src, ki, uint64(i))
		q.K = k
		cctx, cancel := context.WithTimeout(ctx, timeout)
		hits, err := guard(func() (engines.Hits, error) { return e.Search(cctx, q) })
		cancel()
		mu.Lock()
		defer mu.Unlock()
		c := rel.ByKind[kind]
		if c == nil {
			c = &result.RelevanceKind{}
			rel.ByKind[kind] = c
		}
		switch {
		case errors.Is(err, engines.ErrUnsupported):
			c.Unsupported++
		case err != nil:
			c.Errors++
			rel.LastError = err.Error()
		default:
			c.Queries++
			if slices.Contains(hits.IDs, dataset.DocID(target)) {
				c.Found++
			} else if len(rel.Misses) < maxMisses {
				what := q.Text
				if q.Vector != nil {
					what = "its own embedding"
				}
				rel.Misses = append(rel.Misses, fmt.Sprintf("%s: document %d not in the top %d for %q (%d hits)", kind, target, k, what, len(hits.IDs)))
			}
		}
	})
	for _, c := range rel.ByKind {
		if c.Queries > 0 {
			c.Recall = float64(c.Found) / float64(c.Queries)
		}
		rel.Queries += c.Queries
		rel.Found += c.Found
	}
	if rel.Queries > 0 {
		rel.Recall = float64(rel.Found) / float64(rel.Queries)
	}
	return rel
}

// idleChecks runs check(i) for i in 0…n-1, relevanceWorkers at a time,
// until ctx ends: the idle checks after pre-population.
func idleChecks(ctx context.Context, n int, check func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range relevanceWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				check(i)
			}
		}()
	}
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
}

package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/result"
)

// knownItem is idle check i: a pre-populated ID drawn from the check's
// stream (the caller makes sure there is one) and its query.
func knownItem(src corpus.Source, ki corpus.KnownItems, i uint64) (kind string, q engines.Query, target uint32) {
	r := dataset.NewRand(ki.Config().Seed, corpus.TagKnownItem, i)
	for {
		if target = uint32(1 + r.Intn(src.IDs())); src.Prepopulated(target) {
			break
		}
	}
	kind, q = ki.KnownQuery(i, target)
	return kind, q, target
}

// DefaultRelevanceQueries is how many known-item checks a run makes.
const DefaultRelevanceQueries = 100

// relevanceWorkers is how many checks run at once: enough to finish a
// slow engine's checks in seconds, few enough to be no load test.
const relevanceWorkers = 4

// maxMisses is how many missed checks the result names.
const maxMisses = 5

// CheckRelevance runs n known-item checks against e, each asking as ask says, after
// pre-population and before any load, and reports recall@k per kind.
func CheckRelevance(ctx context.Context, e engines.Engine, src corpus.Source, n int, ask workload.Ask, timeout time.Duration) *result.Relevance {
	ki, ok := src.(corpus.KnownItems)
	if !ok || n <= 0 || src.PrepopulatedCount() == 0 {
		return nil // nothing to check, or no document to check with
	}
	rel := &result.Relevance{K: ask.K, ByKind: map[string]*result.RelevanceKind{}}
	var mu sync.Mutex
	idleChecks(ctx, n, func(i int) {
		kind, q, target := knownItem(src, ki, uint64(i))
		ask.Apply(&q)
		cctx, cancel := context.WithTimeout(ctx, timeout)
		hits, err := guard.Call(func() (engines.Hits, error) { return e.Search(cctx, q) })
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
				rel.Misses = append(rel.Misses, fmt.Sprintf("%s: document %d not in the top %d for %q (%d hits)", kind, target, ask.K, what, len(hits.IDs)))
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

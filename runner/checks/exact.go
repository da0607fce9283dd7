package checks

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
)

// Exact-answer checks: the corpus's sample of exact answers
// (corpus.NewTruth) checked on the idle engine after pre-population and,
// as a share of the searches, under load (known.go), each answer scored by
// corpus.TruthQuery.Score and tallied here by kind and by query.

// DefaultExactQueries is the sample's size (corpus.DefaultExactQueries).
const DefaultExactQueries = corpus.DefaultExactQueries

// exactCounts are one kind's checks.
type exactCounts struct {
	checks, skipped, failed, unsupported atomic.Int64
}

// queryCounts are one sample query's scored answers: the unit of the
// recall's interval, since one query's answers miss together.
type queryCounts struct{ expected, found atomic.Int64 }

// tally counts answers to a sample's queries, by kind and by query.
type tally struct {
	truth   *corpus.Truth
	kinds   []exactCounts
	queries []queryCounts
}

func newTally(t *corpus.Truth) tally {
	return tally{truth: t, kinds: make([]exactCounts, len(t.Kinds)), queries: make([]queryCounts, len(t.Queries))}
}

// add counts the answer to sample query i.
func (t tally) add(i int, ids []string, err error, k int, written func(uint32) bool) {
	q := &t.truth.Queries[i]
	c := &t.kinds[q.Kind]
	switch {
	case errors.Is(err, engines.ErrUnsupported):
		c.unsupported.Add(1)
	case err != nil:
		c.failed.Add(1)
	default:
		expected, found, ok := q.Score(ids, k, written)
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
		sums[t.truth.Queries[i].Kind].AddQuery(f, e)
	}
	var out []result.KindRecall
	for i := range t.kinds {
		c := &t.kinds[i]
		r := result.KindRecall{Kind: t.truth.Kinds[i], Skipped: c.skipped.Load(), Failed: c.failed.Load(), Unsupported: c.unsupported.Load()}
		sums[i].Checks = c.checks.Load()
		if sums[i].Checks+r.Skipped+r.Failed+r.Unsupported == 0 {
			continue
		}
		r.SetLoad(sums[i])
		out = append(out, r)
	}
	return out
}

// CheckExact asks the idle engine every sample query as ask says, as
// CheckRelevance asks its known items.
func CheckExact(ctx context.Context, e engines.Engine, t *corpus.Truth, ask workload.Ask, timeout time.Duration) []result.KindRecall {
	counts := newTally(t)
	// Before the load the run has written nothing but the pre-populated
	// documents: every hit counts as it is.
	written := func(uint32) bool { return false }
	idleChecks(ctx, len(t.Queries), func(i int) {
		q := &t.Queries[i]
		sq := q.Query
		ask.Apply(&sq)
		cctx, cancel := context.WithTimeout(ctx, timeout)
		hits, err := guard.Call(func() (engines.Hits, error) { return e.Search(cctx, sq) })
		cancel()
		counts.add(i, hits.IDs, err, ask.K, written)
	})
	return counts.recall()
}

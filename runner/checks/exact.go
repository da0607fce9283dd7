package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/dataset/neighbours"
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

// exactCounts are one kind's checks: the strict counts per query
// (queryCounts) and the lag-excused ones per kind, at each of lagRungs.
type exactCounts struct {
	checks, skipped, failed, unsupported atomic.Int64
	lagged                               [len(lagRungs)]lagCounts
	// foreign are the documents the strict rule passed over as another
	// share's writes (neighbours.Score.Foreign).
	foreign atomic.Int64
}

// lagCounts are a kind's lag-excused counts at one lag.
type lagCounts struct{ expected, found, recent atomic.Int64 }

// lagRungs are the lags an answer is scored at under the lag rule: the
// window's freshness lag is known only once the window is over, so each
// answer is scored at every rung as it comes back, and the result keeps
// the rung at or above the lag the probe measured (lagRung). A 1-2-5
// ladder: at most 2.5 times the lag measured is excused.
var lagRungs = [...]time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second,
	10 * time.Second, 20 * time.Second, time.Minute}

// lagRung is the first rung at or above lag (the last for a longer lag).
func lagRung(lag time.Duration) int {
	for i, r := range lagRungs {
		if r >= lag {
			return i
		}
	}
	return len(lagRungs) - 1
}

// queryCounts are one sample query's scored answers: the unit of the
// recall's interval, since one query's answers miss together.
type queryCounts struct{ expected, found atomic.Int64 }

// tally counts answers to a sample's queries, by kind and by query.
type tally struct {
	truth   *corpus.Truth
	kinds   []exactCounts
	queries []queryCounts
	// byTime counts the answers under load by the interval of the
	// window's timeline their search was made in (nil: not by time, as
	// the idle check).
	byTime *timeTally
}

// timeTally is a tally's answers by interval: each interval's by kind,
// and each query's within each interval, for the recall's interval
// clustered by time too (result.RecallSums.Interval).
type timeTally struct {
	intervals [][]queryCounts // [interval][kind]
	mu        sync.Mutex
	cells     map[cell]*cellCounts
}

// cell is a query within an interval.
type cell struct{ query, interval int }

type cellCounts struct{ expected, found int64 }

// startIntervals counts the answers by interval too, in n intervals.
func (t *tally) startIntervals(n int) {
	iv := make([][]queryCounts, n)
	for k := range iv {
		iv[k] = make([]queryCounts, len(t.kinds))
	}
	t.byTime = &timeTally{intervals: iv, cells: map[cell]*cellCounts{}}
}

func newTally(t *corpus.Truth) tally {
	return tally{truth: t, kinds: make([]exactCounts, len(t.Kinds)), queries: make([]queryCounts, len(t.Queries))}
}

// failed counts the answer to sample query i when the search failed, and
// says whether it did.
func (t tally) failed(i int, err error) bool {
	c := &t.kinds[t.truth.Queries[i].Kind]
	switch {
	case errors.Is(err, engines.ErrUnsupported):
		c.unsupported.Add(1)
	case err != nil:
		c.failed.Add(1)
	default:
		return false
	}
	return true
}

// add counts the answer to sample query i by the old rule
// (corpus.TruthQuery.Score: every document the run wrote is excused);
// lagged: its counts stand for the lag rule's too.
// iv is the search's interval (−1: none, as the idle check's).
func (t tally) add(i, iv int, ids []string, err error, k int, written func(uint32) bool, lagged bool) {
	if t.failed(i, err) {
		return
	}
	expected, found, ok := t.truth.Queries[i].Score(ids, k, written)
	if t.count(i, iv, neighbours.Score{Expected: int(expected), Found: int(found), Short: !ok}) && lagged {
		for r := range lagRungs {
			t.countLag(i, r, neighbours.Score{LagExpected: int(expected), LagFound: int(found)})
		}
	}
}

// count counts the strict counts of the scored answer s to sample query
// i, made in interval iv, and says whether it tested anything.
func (t tally) count(i, iv int, s neighbours.Score) bool {
	c := &t.kinds[t.truth.Queries[i].Kind]
	if s.Short || s.Expected == 0 {
		c.skipped.Add(1)
		return false
	}
	c.checks.Add(1)
	c.foreign.Add(int64(s.Foreign))
	qc := &t.queries[i]
	qc.expected.Add(int64(s.Expected))
	qc.found.Add(int64(s.Found))
	if b := t.byTime; b != nil && iv >= 0 && iv < len(b.intervals) {
		kc := &b.intervals[iv][t.truth.Queries[i].Kind]
		kc.expected.Add(int64(s.Expected))
		kc.found.Add(int64(s.Found))
		b.mu.Lock()
		c := b.cells[cell{i, iv}]
		if c == nil {
			c = &cellCounts{}
			b.cells[cell{i, iv}] = c
		}
		c.expected += int64(s.Expected)
		c.found += int64(s.Found)
		b.mu.Unlock()
	}
	return true
}

// countLag counts the lag-excused counts of s, scored at lag rung r.
func (t tally) countLag(i, r int, s neighbours.Score) {
	l := &t.kinds[t.truth.Queries[i].Kind].lagged[r]
	l.expected.Add(int64(s.LagExpected))
	l.found.Add(int64(s.LagFound))
	l.recent.Add(int64(s.RecentMisses))
}

// recall is the tally's figures for the kinds that were checked, each
// query's answers summed as one (result.RecallSums).
// lagged: with the lag-excused counts at rung (lagRung).
func (t tally) recall(lagged bool, rung int) []result.KindRecall {
	sums := make([]result.RecallSums, len(t.kinds))
	for i := range t.queries {
		e, f := t.queries[i].expected.Load(), t.queries[i].found.Load()
		if e == 0 {
			continue // not asked, or no answer scored
		}
		sums[t.truth.Queries[i].Kind].AddQuery(f, e)
	}
	if b := t.byTime; b != nil {
		// By query within an interval; by interval alone the window's
		// timeline says (interval), and KnownItems.GroupByInterval groups
		// the answers from it, as a merge does.
		b.mu.Lock()
		for c, n := range b.cells {
			sums[t.truth.Queries[c.query].Kind].Cells.AddCluster(n.found, n.expected)
		}
		b.mu.Unlock()
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
		if l := &c.lagged[rung]; lagged {
			r.LagExpected, r.LagFound, r.RecentMisses = l.expected.Load(), l.found.Load(), l.recent.Load()
			r.Lag = result.Duration(lagRungs[rung])
		}
		out = append(out, r)
	}
	return out
}

// interval is interval k's answers by kind (nil: none, or not counted
// by time).
func (t tally) interval(k int) []result.IntervalRecall {
	if t.byTime == nil || k >= len(t.byTime.intervals) {
		return nil
	}
	var out []result.IntervalRecall
	for i := range t.byTime.intervals[k] {
		c := &t.byTime.intervals[k][i]
		if e := c.expected.Load(); e > 0 {
			out = append(out, result.IntervalRecall{Kind: t.truth.Kinds[i], Expected: e, Found: c.found.Load()})
		}
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
		counts.add(i, -1, hits.IDs, err, ask.K, written, false)
	})
	return counts.recall(false, 0)
}

// foreignNote says what share of the documents the answers would have
// been expected to hold were excused as other shares' writes; "" when
// none was.
func (t tally) foreignNote() string {
	var foreign, expected int64
	for i := range t.kinds {
		foreign += t.kinds[i].foreign.Load()
	}
	for i := range t.queries {
		expected += t.queries[i].expected.Load()
	}
	if foreign == 0 {
		return ""
	}
	return fmt.Sprintf("exact checks under writes: %d of the %d documents the answers were to hold (%.1f%%) were excused as other shards' writes, which this shard cannot follow",
		foreign, foreign+expected, 100*float64(foreign)/float64(foreign+expected))
}

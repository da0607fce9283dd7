package checks

import (
	"slices"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
)

// score: documents written since pre-population are neither expected nor
// held against the answer; an answer's nearest untouched ones are.
func TestExactScore(t *testing.T) {
	q := &corpus.TruthQuery{Want: runnertest.Nearest(1, 2, 3, 4, 5, 6)}
	ids := func(ns ...uint32) []string {
		var out []string
		for _, n := range ns {
			out = append(out, dataset.DocID(n))
		}
		return out
	}
	none := func(uint32) bool { return false }
	touched := func(ts ...uint32) func(uint32) bool {
		return func(id uint32) bool { return slices.Contains(ts, id) }
	}
	for _, c := range []struct {
		name            string
		answer          []string
		touched         func(uint32) bool
		expected, found int64
		ok              bool
	}{
		{"exact", ids(1, 2, 3), none, 3, 3, true},
		{"one lost", ids(1, 2, 9), none, 3, 2, true},
		{"a rewritten document in the answer takes a place", ids(7, 1, 2), touched(7), 2, 2, true},
		{"a rewritten neighbour is not expected", ids(1, 3, 4), touched(2), 3, 3, true},
		{"an unreadable ID is a miss", append(ids(1), "x"), none, 3, 1, true},
		{"an ID the run never wrote is a miss", ids(1, 2, 99), none, 3, 2, true},
		{"an answer of rewritten documents alone expects nothing: skipped", ids(1, 2, 3), touched(1, 2, 3), 0, 0, false},
		{"too many rewritten to say", ids(1, 9, 10), touched(2, 3, 4, 5, 6), 1, 1, false},
	} {
		e, f, ok := q.Score(c.answer, 3, c.touched)
		if e != c.expected || f != c.found || ok != c.ok {
			t.Errorf("%s: expected %d found %d ok %v; want %d %d %v", c.name, e, f, ok, c.expected, c.found, c.ok)
		}
	}
	// An answer whose filter passed fewer documents than the depth holds
	// all there is: what is left is still the answer.
	whole := &corpus.TruthQuery{Want: runnertest.Nearest(1, 2), Whole: true}
	if e, f, ok := whole.Score(ids(2), 3, touched(1)); e != 1 || f != 1 || !ok {
		t.Errorf("whole truth: %d %d %v; want 1 1 true", e, f, ok)
	}
	// A SKU whose product was rewritten expects nothing: the check tests
	// nothing and is skipped, whether or not the answer holds it.
	sku := &corpus.TruthQuery{Kind: 3, Want: []neighbours.Neighbour{{ID: 5}}, Whole: true}
	for _, answer := range [][]string{ids(5), nil} {
		if e, f, ok := sku.Score(answer, 3, touched(5)); e != 0 || f != 0 || ok {
			t.Errorf("rewritten SKU, answer %v: %d %d %v; want skipped", answer, e, f, ok)
		}
	}
	counts := newTally(&corpus.Truth{Kinds: []string{"knn", "knn-category", "knn-price", "sku"}, Queries: []corpus.TruthQuery{*sku}})
	counts.add(0, -1, ids(5), nil, 3, touched(5), false)
	counts.add(0, -1, ids(5), nil, 3, none, false)
	if r := counts.recall(false, 0); len(r) != 1 || r[0].Skipped != 1 || r[0].Checks != 1 || r[0].Expected != 1 {
		t.Errorf("a rewritten SKU's check and a kept one: %+v; want one skipped, one check of one expected", r)
	}
}

// The tally sums each sample query's answers as one (they miss
// together): a query asked three times is one query of the interval,
// found 27 of 30; by interval (on the timeline, from which the window's
// figures are grouped), and by query within an interval, as the interval
// clustered by time needs; and counting an answer under load allocates
// nothing.
func TestExactTallyByQuery(t *testing.T) {
	src := runnertest.Products(t, 800, "knn=1")
	tr := runnertest.Truth(t, src, 4, 10)
	vers := NewVersions(src.IDs()+1, shard.Share{})
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}.WithTruth(tr), workload.Ask{K: 10}, 1, vers, 0)
	kc.StartIntervals(3)
	answer := func(i, lose int) []string {
		var ids []string
		for _, n := range tr.Queries[i].Want[:10-lose] {
			ids = append(ids, dataset.DocID(n.ID))
		}
		return append(ids, make([]string, lose)...) // unreadable: misses
	}
	a0, a1 := answer(0, 1), answer(1, 0)
	// Query 0 twice in interval 0 and once in 1, query 1 once in 1.
	for _, iv := range []int{0, 0, 1} {
		kc.Check(KnownCheck{On: true, exact: &tr.Queries[0], query: 0, Interval: iv}, engines.Hits{IDs: a0}, nil)
	}
	kc.Check(KnownCheck{On: true, exact: &tr.Queries[1], query: 1, Interval: 1}, engines.Hits{IDs: a1}, nil)
	ex := windowResult(kc, 3).Exact
	want := result.RecallSums{Checks: 4, Expected: 40, Found: 37,
		Queries: result.ClusterSums{N: 2, ExpectedSq: 30*30 + 10*10, FoundSq: 27*27 + 10*10, FoundExpected: 27*30 + 10*10},
		// Interval 0: 18 of 20; interval 1: 9 + 10 of 20.
		Intervals: result.ClusterSums{N: 2, ExpectedSq: 20*20 + 20*20, FoundSq: 18*18 + 19*19, FoundExpected: 18*20 + 19*20},
		// (0, 0): 18 of 20; (0, 1): 9 of 10; (1, 1): 10 of 10.
		Cells: result.ClusterSums{N: 3, ExpectedSq: 20*20 + 10*10 + 10*10, FoundSq: 18*18 + 9*9 + 10*10, FoundExpected: 18*20 + 9*10 + 10*10}}
	if len(ex) != 1 || ex[0].Load() != want || ex[0].Recall != 37.0/40 {
		t.Fatalf("tally %+v; want %+v", ex, want)
	}
	for k, w := range [][]result.IntervalRecall{{{Kind: "knn", Expected: 20, Found: 18}}, {{Kind: "knn", Expected: 20, Found: 19}}, nil} {
		got := kc.Interval(k)
		if (got == nil) != (w == nil) || got != nil && !slices.Equal(got.Exact, w) {
			t.Errorf("interval %d: %+v; want exact %+v", k, got, w)
		}
	}
	chk := KnownCheck{On: true, exact: &tr.Queries[0], query: 0}
	wrong := append(answer(0, 1)[:9], "5000") // a readable ID past the corpus
	if n := testing.AllocsPerRun(100, func() { kc.Check(chk, engines.Hits{IDs: wrong}, nil) }); n != 0 {
		t.Fatalf("an exact check allocates %v times", n)
	}
	// An answer outside the intervals (none should be) leaves the kind
	// grouped by query alone: the groupings must hold the same answers.
	kc.Check(KnownCheck{On: true, exact: &tr.Queries[1], query: 1, Interval: 3}, engines.Hits{IDs: a1}, nil)
	if ex := windowResult(kc, 3).Exact; ex[0].Intervals != (result.ClusterSums{}) || ex[0].QueryIntervals != (result.ClusterSums{}) || ex[0].Queries != 2 {
		t.Errorf("an answer outside the intervals: %+v; want grouped by query alone", ex[0])
	}
}

// windowResult is kc's figures as a window of n intervals gives them: the
// checks' intervals on its timeline, and the checks grouped by them.
func windowResult(kc *KnownChecks, n int) *result.KnownItems {
	tl := &result.Timeline{Interval: result.Duration(time.Second)}
	for k := range n {
		tl.Intervals = append(tl.Intervals, result.Interval{Start: result.Duration(time.Duration(k) * time.Second), Length: result.Duration(time.Second), KnownItems: kc.Interval(k)})
	}
	r := kc.Result()
	r.GroupByInterval(tl)
	return r
}

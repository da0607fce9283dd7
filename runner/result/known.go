package result

import (
	"encoding/json"
	"math"
	"slices"
)

// KnownItems is the known-item checks made among a level's (or a rep's)
// searches, under the load it measures: searches for a pre-populated
// document that no write of the run had touched when the level began. They
// are searches like the others (timed, counted in the search figures); only
// their answers are checked, after the call.
type KnownItems struct {
	Fraction float64 `json:"fraction"` // the share of searches that are checks
	K        int     `json:"k"`
	// Checks are the answered checks counted in Recall; Found of them
	// held their document within the top K.
	Checks int64   `json:"checks"`
	Found  int64   `json:"found"`
	Recall float64 `json:"recall"`
	// Empty answers had no hit at all; TotalBelowHits answers reported a
	// Total (where the engine gives one) smaller than the hits returned.
	Empty          int64 `json:"empty"`
	TotalBelowHits int64 `json:"total_below_hits"`
	// Skipped: the document was written or deleted after the check was
	// sent, so its answer proves nothing; not counted. Failed: the search
	// failed (it is in the search's errors). Unsupported: the engine's
	// configuration cannot run the check's kind (no call is counted).
	Skipped     int64 `json:"skipped"`
	Failed      int64 `json:"failed"`
	Unsupported int64 `json:"unsupported,omitempty"`
	// IdleRecall is the recall of the check after pre-population, on the
	// idle engine: IdleFound of IdleChecks searches (0: none to compare
	// with).
	IdleRecall float64 `json:"idle_recall"`
	IdleChecks int     `json:"idle_checks"`
	IdleFound  int     `json:"idle_found"`
	// Exact is recall@K against exact answers, per query kind, of the
	// exact-answer checks made among the searches (KindRecall), with the
	// idle figures beside.
	Exact []KindRecall `json:"exact,omitempty"`
}

// KindRecall is recall@K of one query kind against its exact answers: for
// the kNN kinds the exact nearest neighbours (brute force, with the
// kind's filter) of a seeded sample of queries, for SKU lookups the one
// product the SKU names. Under load, the kNN kinds' exact answers follow
// the run's acknowledged writes (runner/checks, neighbours.Live): a
// document acknowledged before the search was sent is expected as it was
// written; one whose write overlaps the search, or that another shard may
// have written, is excused — neither expected nor held against the
// answer, so an answer holding t excused documents is expected to hold
// the K−t nearest of the others (the lag-excused figures below excuse
// more). A SKU lookup excuses a product the run rewrote since
// pre-population. Any other hit is what it is: an ID no document of the
// run has (past the ID space, never written, unreadable) is a miss.
// Recall is Found / Expected over the checks; its 95% interval is over
// queries (RecallSums.Interval).
type KindRecall struct {
	Kind     string  `json:"kind"`
	Checks   int64   `json:"checks"`   // answers scored
	Expected int64   `json:"expected"` // exact answers' documents expected in them
	Found    int64   `json:"found"`    // … and held
	Recall   float64 `json:"recall"`
	// Queries is how many sample queries the checks answered, and
	// FoundSq, ExpectedSq and FoundExpected the sums over those queries
	// of found², expected² and found·expected of each one's answers: what
	// the interval over queries needs beyond Found and Expected
	// (RecallSums). Results before them have none (Queries 0).
	Queries       int64 `json:"queries"`
	FoundSq       int64 `json:"found_sq"`
	ExpectedSq    int64 `json:"expected_sq"`
	FoundExpected int64 `json:"found_expected"`
	// Intervals groups the checks under load by the interval of the
	// window's timeline their search was made in, and QueryIntervals by
	// query and interval both: what the interval clustered two ways needs
	// (RecallSums.Interval). In a merged window the shards' checks in one
	// interval are one cluster. Absent in an idle check's figures, and in
	// results before them.
	Intervals      ClusterSums `json:"intervals,omitzero"`
	QueryIntervals ClusterSums `json:"query_intervals,omitzero"`
	// Skipped: the check tests nothing — too many of the exact answer's
	// documents were written since for the rest to say what the answer
	// should hold, or none is left to expect (a SKU whose product was
	// rewritten); Failed: the search failed; Unsupported: the
	// configuration cannot run the kind.
	Skipped     int64 `json:"skipped,omitempty"`
	Failed      int64 `json:"failed,omitempty"`
	Unsupported int64 `json:"unsupported,omitempty"`
	// Under writes the truth follows the run's acknowledged writes, and
	// recall is scored two ways. Strict (Expected, Found above): a
	// document whose write was acknowledged before the search was sent is
	// expected (a deleted one is not); one whose write overlaps the search
	// (sent before the search, acknowledged after) is excused: neither
	// expected nor held against the answer. Lag-excused (LagExpected,
	// LagFound): a document acknowledged within Lag (the freshness
	// probe's longest lag in the same window, rounded up to the next step
	// of a 1-2-5 ladder; no probe, as in the open loop: 0) before the send is
	// excused too, so what remains missed is not explained by visibility
	// delay. RecentMisses is how many of the strict misses were such
	// recent documents: the share of the misses the lag explains. All are
	// 0 (and absent) without writes; results before them have none.
	LagExpected  int64    `json:"lag_expected,omitempty"`
	LagFound     int64    `json:"lag_found,omitempty"`
	RecentMisses int64    `json:"recent_misses,omitempty"`
	Lag          Duration `json:"lag,omitempty"`
	// The idle check's figures (after pre-population), when there was
	// one (IdleChecks > 0): then all of them are written, zeros too
	// (MarshalJSON); without one, none is.
	IdleChecks        int64   `json:"idle_checks,omitempty"`
	IdleExpected      int64   `json:"idle_expected,omitempty"`
	IdleFound         int64   `json:"idle_found,omitempty"`
	IdleRecall        float64 `json:"idle_recall,omitempty"`
	IdleQueries       int64   `json:"idle_queries,omitempty"`
	IdleFoundSq       int64   `json:"idle_found_sq,omitempty"`
	IdleExpectedSq    int64   `json:"idle_expected_sq,omitempty"`
	IdleFoundExpected int64   `json:"idle_found_expected,omitempty"`
}

// MarshalJSON writes the idle figures when there was an idle check, a
// measured zero among them (a recall of 0 is a finding), and leaves them
// out when there was none: absent is "not measured", 0 is 0. Reading needs
// nothing of its own: a file that left a zero out reads it as 0.
func (r KindRecall) MarshalJSON() ([]byte, error) {
	type plain KindRecall // without this method
	if r.IdleChecks == 0 {
		return json.Marshal(plain(r))
	}
	// The outer fields hide the embedded ones of the same name.
	return json.Marshal(struct {
		plain
		IdleChecks        int64   `json:"idle_checks"`
		IdleExpected      int64   `json:"idle_expected"`
		IdleFound         int64   `json:"idle_found"`
		IdleRecall        float64 `json:"idle_recall"`
		IdleQueries       int64   `json:"idle_queries"`
		IdleFoundSq       int64   `json:"idle_found_sq"`
		IdleExpectedSq    int64   `json:"idle_expected_sq"`
		IdleFoundExpected int64   `json:"idle_found_expected"`
	}{plain(r), r.IdleChecks, r.IdleExpected, r.IdleFound, r.IdleRecall, r.IdleQueries, r.IdleFoundSq, r.IdleExpectedSq, r.IdleFoundExpected})
}

// LagRecall is the lag-excused recall under writes (LagFound of
// LagExpected); ok is false when there was none to score.
func (r KindRecall) LagRecall() (recall float64, ok bool) {
	if r.LagExpected == 0 {
		return 0, false
	}
	return float64(r.LagFound) / float64(r.LagExpected), true
}

// Load is the figures under load (or, in an idle check's own entry, its
// figures).
func (r KindRecall) Load() RecallSums {
	return RecallSums{Checks: r.Checks, Expected: r.Expected, Found: r.Found,
		Queries:   ClusterSums{N: r.Queries, FoundSq: r.FoundSq, ExpectedSq: r.ExpectedSq, FoundExpected: r.FoundExpected},
		Intervals: r.Intervals, Cells: r.QueryIntervals}
}

// Idle is the idle figures beside the load's (zero: none).
func (r KindRecall) Idle() RecallSums {
	return RecallSums{Checks: r.IdleChecks, Expected: r.IdleExpected, Found: r.IdleFound,
		Queries: ClusterSums{N: r.IdleQueries, FoundSq: r.IdleFoundSq, ExpectedSq: r.IdleExpectedSq, FoundExpected: r.IdleFoundExpected}}
}

// SetLoad sets the figures under load, and the recall, to s's.
func (r *KindRecall) SetLoad(s RecallSums) {
	r.Checks, r.Expected, r.Found = s.Checks, s.Expected, s.Found
	q := s.Queries
	r.Queries, r.FoundSq, r.ExpectedSq, r.FoundExpected = q.N, q.FoundSq, q.ExpectedSq, q.FoundExpected
	r.Intervals, r.QueryIntervals = s.Intervals, s.Cells
	r.Recall = s.Recall()
}

// setIdle sets the idle figures to s's (an idle check is not grouped by
// time).
func (r *KindRecall) setIdle(s RecallSums) {
	r.IdleChecks, r.IdleExpected, r.IdleFound, r.IdleRecall = s.Checks, s.Expected, s.Found, s.Recall()
	q := s.Queries
	r.IdleQueries, r.IdleFoundSq, r.IdleExpectedSq, r.IdleFoundExpected = q.N, q.FoundSq, q.ExpectedSq, q.FoundExpected
}

// BelowIdle says whether recall under load is below the idle recall
// beyond sampling: its 95% interval over queries lies wholly below the
// idle one's (both are samples of queries).
func (r KindRecall) BelowIdle() bool {
	if r.Expected == 0 || r.IdleExpected == 0 {
		return false
	}
	_, hi := r.Load().Interval()
	idleLo, _ := r.Idle().Interval()
	return hi < idleLo
}

// addRecall sums o into rs by kind (kinds in first-seen order); the idle
// figures are the first that has them.
func addRecall(rs []KindRecall, o []KindRecall) []KindRecall {
	for _, x := range o {
		var r *KindRecall
		rs, r = kindRecall(rs, x.Kind)
		sum := r.Load()
		sum.Add(x.Load())
		r.SetLoad(sum)
		r.Skipped += x.Skipped
		r.Failed += x.Failed
		r.Unsupported += x.Unsupported
		r.LagExpected += x.LagExpected
		r.LagFound += x.LagFound
		r.RecentMisses += x.RecentMisses
		// Each shard measured its own lag: the longest excused the most.
		r.Lag = max(r.Lag, x.Lag)
		if r.IdleChecks == 0 {
			r.setIdle(x.Idle())
		}
	}
	return rs
}

// SetIdle copies the idle figures of idle's kinds into rs, adding kinds
// rs lacks.
func SetIdle(rs []KindRecall, idle []KindRecall) []KindRecall {
	for _, x := range idle {
		var r *KindRecall
		rs, r = kindRecall(rs, x.Kind)
		r.setIdle(x.Load())
	}
	return rs
}

// kindRecall is rs's entry for kind, appended when rs has none.
func kindRecall(rs []KindRecall, kind string) ([]KindRecall, *KindRecall) {
	i := slices.IndexFunc(rs, func(r KindRecall) bool { return r.Kind == kind })
	if i < 0 {
		rs = append(rs, KindRecall{Kind: kind})
		i = len(rs) - 1
	}
	return rs, &rs[i]
}

// Add sums o's counts into k (the shards of a level, the reps of a rung);
// the idle figures are the first that has them.
func (k *KnownItems) Add(o *KnownItems) {
	if o == nil {
		return
	}
	k.Fraction, k.K = max(k.Fraction, o.Fraction), max(k.K, o.K)
	k.Checks += o.Checks
	k.Found += o.Found
	k.Empty += o.Empty
	k.TotalBelowHits += o.TotalBelowHits
	k.Skipped += o.Skipped
	k.Failed += o.Failed
	k.Unsupported += o.Unsupported
	if k.IdleChecks == 0 {
		k.IdleRecall, k.IdleChecks, k.IdleFound = o.IdleRecall, o.IdleChecks, o.IdleFound
	}
	k.Exact = addRecall(k.Exact, o.Exact)
	k.Recall = 0
	if k.Checks > 0 {
		k.Recall = float64(k.Found) / float64(k.Checks)
	}
}

// GroupByInterval groups each kind's checks under load by t's intervals
// (their known_items.exact): a window's, once its timeline is made, and a
// merge's again, which sums the shards' checks interval by interval — the
// shards' checks in one interval are one cluster (they shared the
// engine's moment), where Add took each shard's for clusters of their
// own. Where the intervals do not hold every check (no timeline, or a
// shard of an older searchbench without these figures) the checks are
// grouped by query alone.
func (k *KnownItems) GroupByInterval(t *Timeline) {
	if k == nil {
		return
	}
	for i := range k.Exact {
		r := &k.Exact[i]
		var by ClusterSums
		var expected int64
		for _, iv := range t.intervals() {
			if iv.KnownItems == nil {
				continue
			}
			for _, x := range iv.KnownItems.Exact {
				if x.Kind == r.Kind && x.Expected > 0 {
					by.AddCluster(x.Found, x.Expected)
					expected += x.Expected
				}
			}
		}
		if expected != r.Expected {
			by, r.QueryIntervals = ClusterSums{}, ClusterSums{}
		}
		r.Intervals = by
	}
}

// SumKnownItems adds every non-nil block; nil when there is none.
func SumKnownItems(ks ...*KnownItems) *KnownItems {
	var out *KnownItems
	for _, k := range ks {
		if k == nil {
			continue
		}
		if out == nil {
			out = &KnownItems{}
		}
		out.Add(k)
	}
	return out
}

// wilsonZ is the normal quantile of a two-sided 95% interval.
const wilsonZ = 1.959964

// Wilson is the 95% Wilson score interval of found successes in n trials.
func Wilson(found, n int64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	return wilson(float64(found)/float64(n), float64(n))
}

// wilson is the 95% Wilson score interval of a share p over n trials (n
// need not be whole: RecallSums.Interval's effective trials).
func wilson(p, n float64) (lo, hi float64) {
	if !(n > 0) {
		return 0, 1
	}
	z2 := wilsonZ * wilsonZ
	mid := (p + z2/(2*n)) / (1 + z2/n)
	half := wilsonZ / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = max(mid-half, 0), min(mid+half, 1)
	// The interval holds the observed share; rounding must not move an
	// end past it (all found: hi is 1, not 0.9999999).
	return min(lo, p), max(hi, p)
}

// Warnings says when the answers under load were worse than idle: recall
// below the idle recall by more than the sampling intervals (the 95%
// Wilson interval of the recall under load lies wholly below the idle
// recall's: both are samples, and one miss in a thousand against a
// perfect idle sample of a hundred is no evidence), and answers whose
// Total is below the hits they carry.
// They are of kind WarningKnownItems: a merge drops the shards' own and
// warns from the summed counts.
func (k *KnownItems) Warnings() Warnings {
	if k == nil {
		return nil
	}
	var out Warnings
	if k.Checks > 0 && k.IdleChecks > 0 {
		lo, hi := Wilson(k.Found, k.Checks)
		idleLo, idleHi := Wilson(int64(k.IdleFound), int64(k.IdleChecks))
		if hi < idleLo {
			out = append(out, Warn(WarningKnownItems, "recall@%d under load %.3f (%d of %d; 95%% Wilson interval %.3f–%.3f) is below the idle recall %.3f (%d of %d; %.3f–%.3f): answers lost documents while the load ran (%d empty answers)",
				k.K, k.Recall, k.Found, k.Checks, lo, hi, k.IdleRecall, k.IdleFound, k.IdleChecks, idleLo, idleHi, k.Empty))
		}
	}
	for _, r := range k.Exact {
		if r.BelowIdle() {
			load, idle := r.Load(), r.Idle()
			lo, hi := load.Interval()
			idleLo, idleHi := idle.Interval()
			out = append(out, Warn(WarningKnownItems, "%s recall@%d against exact answers under load %.3f (%d of %d; 95%% interval over %d queries %.3f–%.3f) is below the idle recall %.3f (%d of %d; over %d queries %.3f–%.3f)",
				r.Kind, k.K, r.Recall, r.Found, r.Expected, load.Queries.N, lo, hi, r.IdleRecall, r.IdleFound, r.IdleExpected, idle.Queries.N, idleLo, idleHi))
		}
	}
	if k.TotalBelowHits > 0 {
		out = append(out, Warn(WarningKnownItems, "%d answers reported a total smaller than the hits they returned", k.TotalBelowHits))
	}
	return out
}

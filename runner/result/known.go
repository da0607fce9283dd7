package result

import (
	"fmt"
	"math"
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
	k.Recall = 0
	if k.Checks > 0 {
		k.Recall = float64(k.Found) / float64(k.Checks)
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
	p, nn, z2 := float64(found)/float64(n), float64(n), wilsonZ*wilsonZ
	mid := (p + z2/(2*nn)) / (1 + z2/nn)
	half := wilsonZ / (1 + z2/nn) * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn))
	lo, hi = max(mid-half, 0), min(mid+half, 1)
	// The interval holds the observed share; rounding must not move an
	// end past it (all found: hi is 1, not 0.9999999).
	return min(lo, p), max(hi, p)
}

// KnownItemsWarning starts every warning of the known-item checks: a
// merge drops the shards' own and warns from the summed counts.
const KnownItemsWarning = "known items: "

// Warnings says when the answers under load were worse than idle: recall
// below the idle recall by more than the sampling intervals (the 95%
// Wilson interval of the recall under load lies wholly below the idle
// recall's: both are samples, and one miss in a thousand against a
// perfect idle sample of a hundred is no evidence), and answers whose
// Total is below the hits they carry.
func (k *KnownItems) Warnings() []string {
	if k == nil {
		return nil
	}
	var out []string
	if k.Checks > 0 && k.IdleChecks > 0 {
		lo, hi := Wilson(k.Found, k.Checks)
		idleLo, idleHi := Wilson(int64(k.IdleFound), int64(k.IdleChecks))
		if hi < idleLo {
			out = append(out, fmt.Sprintf(KnownItemsWarning+"recall@%d under load %.3f (%d of %d; 95%% Wilson interval %.3f–%.3f) is below the idle recall %.3f (%d of %d; %.3f–%.3f): answers lost documents while the load ran (%d empty answers)",
				k.K, k.Recall, k.Found, k.Checks, lo, hi, k.IdleRecall, k.IdleFound, k.IdleChecks, idleLo, idleHi, k.Empty))
		}
	}
	if k.TotalBelowHits > 0 {
		out = append(out, fmt.Sprintf(KnownItemsWarning+"%d answers reported a total smaller than the hits they returned", k.TotalBelowHits))
	}
	return out
}

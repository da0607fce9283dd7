package result

import (
	"strings"
	"testing"
)

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		found, n int64
		lo, hi   float64
	}{
		{100, 100, 0.963, 1}, // the rule of three's neighbour: 1 − 3.84/103.84
		{0, 10, 0, 0.278},
		{36, 50, 0.583, 0.825},
	} {
		lo, hi := Wilson(c.found, c.n)
		if d := lo - c.lo; d > 0.001 || d < -0.001 || hi-c.hi > 0.001 || hi-c.hi < -0.001 {
			t.Errorf("Wilson(%d, %d) = %.4f–%.4f; want %.3f–%.3f", c.found, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func knownWarnings(ws Warnings) []string {
	var out []string
	for _, w := range ws {
		if w.Kind == WarningKnownItems {
			out = append(out, w.String())
		}
	}
	return out
}

// The shards' checks are summed, and the warning is the sum's: neither
// shard alone has the evidence (one has no idle check, the other too few
// answers), together they do.
func TestMergeSumsKnownItems(t *testing.T) {
	s0, s1 := shardOf(0, 2, 15), shardOf(1, 2, 15)
	k0 := &KnownItems{Fraction: 0.01, K: 10, Checks: 10, Found: 9, Recall: 0.9, Empty: 1, Skipped: 2, Failed: 1,
		IdleRecall: 1, IdleChecks: 100, IdleFound: 100}
	k1 := &KnownItems{Fraction: 0.01, K: 10, Checks: 40, Found: 27, Recall: 27.0 / 40, Empty: 13, TotalBelowHits: 3, Skipped: 5}
	s0.Engines[0].Levels[0].KnownItems, s1.Engines[0].Levels[0].KnownItems = k0, k1
	if w := knownWarnings(append(k0.Warnings(), Note(""))); len(w) != 0 {
		t.Fatalf("shard 0 alone warns %q: the test shows nothing", w)
	}
	// Shard 1 warns about its totals only.
	s1.Engines[0].Levels[0].Warnings = k1.Warnings()
	m, err := Merge(s0, s1)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Engines[0].Levels[0]
	k := l.KnownItems
	if k == nil || k.Checks != 50 || k.Found != 36 || k.Empty != 14 || k.TotalBelowHits != 3 || k.Skipped != 7 || k.Failed != 1 ||
		k.Recall != 0.72 || k.IdleChecks != 100 || k.IdleRecall != 1 {
		t.Fatalf("merged known items %+v; want the sums, recall 0.72, shard 0's idle figures", k)
	}
	w := knownWarnings(l.Warnings)
	if len(w) != 2 || !strings.HasPrefix(w[1], "known items: 3 answers") || !strings.Contains(w[0], "0.583–0.825") {
		t.Fatalf("merged warnings %q; want the sum's two, once each, with the interval", w)
	}
}

// A ladder's merged reps sum their checks, and the rung sums its reps.
func TestMergeLadderSumsKnownItems(t *testing.T) {
	s0, s1 := ladderShard(t, 0, 2, nil), ladderShard(t, 1, 2, nil)
	for i, s := range []*Result{s0, s1} {
		for j := range s.Engines[0].Ladder.Rungs {
			for k := range s.Engines[0].Ladder.Rungs[j].Reps {
				s.Engines[0].Ladder.Rungs[j].Reps[k].KnownItems = &KnownItems{K: 10, Checks: int64(10 * (i + 1)), Found: int64(10 * (i + 1))}
			}
		}
	}
	m, err := Merge(s0, s1)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Engines[0].Ladder.Rungs[0]
	if k := r.Reps[0].KnownItems; k == nil || k.Checks != 30 || k.Recall != 1 {
		t.Fatalf("merged rep's known items %+v; want 30 checks", k)
	}
	if k := r.KnownItems; k == nil || k.Checks != 60 {
		t.Fatalf("rung's known items %+v; want its two reps' 60 checks", k)
	}
}

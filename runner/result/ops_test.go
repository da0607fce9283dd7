package result

import (
	"math"
	"slices"
	"testing"
)

func TestSortOpsIsTableOrder(t *testing.T) {
	names := []string{"zeta", "get", "search", "alpha", "delete", "upsert"}
	SortOps(names)
	if want := []string{"search", "upsert", "delete", "get", "alpha", "zeta"}; !slices.Equal(names, want) {
		t.Errorf("SortOps = %q; want %q", names, want)
	}
}

// Normalize leaves alone what it cannot read: a mix it cannot parse and an
// operation it does not know keep what the file says.
func TestNormalizeKeepsWhatItDoesNotKnow(t *testing.T) {
	r := Result{Config: Config{Mix: "browse=1", MixWeights: []float64{1}}, Engines: []EngineRun{{Levels: []Level{{Ops: []OpStats{
		{Op: "browse", Writes: true}, {Op: "get"},
	}}}}}}
	r.Normalize()
	if r.Config.Mix != "browse=1" || len(r.Config.MixWeights) != 1 {
		t.Errorf("config %+v; want it as it was", r.Config)
	}
	ops := r.Engines[0].Levels[0].Ops
	if !ops[0].Writes || !ops[1].NotFoundDone || ops[1].Writes {
		t.Errorf("ops %+v; want browse as written and get's facts filled in", ops)
	}
}

func TestMedianAndCV(t *testing.T) {
	if median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 3, 2}) != 2.5 {
		t.Fatal("median")
	}
	if cv([]float64{5, 5, 5}) != 0 || math.Abs(cv([]float64{1, 3})-0.5) > 1e-12 {
		t.Fatal("cv")
	}
}

package result

import (
	"math"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/workload"
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

// A current file's weights are as the run was given them: reading it back
// does not turn 1,1,1 into percentages. An older file's "80/19/1" becomes
// the named form.
func TestNormalizeKeepsCurrentWeights(t *testing.T) {
	r := Result{Config: Config{Mix: "search=33.33,upsert=33.33,delete=33.33", MixWeights: []float64{1, 1, 1, 0}}}
	r.Normalize()
	if !slices.Equal(r.Config.MixWeights, []float64{1, 1, 1, 0}) {
		t.Errorf("weights %v; want 1,1,1,0 as written", r.Config.MixWeights)
	}
	old := Result{Config: Config{Mix: "80/19/1", MixWeights: []float64{80, 19, 1}}}
	old.Normalize()
	if old.Config.Mix != "search=80,upsert=19,delete=1" || !slices.Equal(old.Config.MixWeights, []float64{80, 19, 1, 0}) {
		t.Errorf("old config %+v; want the named form and four weights", old.Config)
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

// The operations this package knows are the runner's table: the same
// names in the same order, with the same facts. A new operation in
// workload's table is added to tableOps too, so that SortOps orders it.
func TestTableOpsAreTheWorkloadTable(t *testing.T) {
	if len(tableOps) != int(workload.NumOps) {
		t.Fatalf("result knows %d operations, workload's table has %d: add the new one to tableOps", len(tableOps), workload.NumOps)
	}
	for _, op := range workload.Ops() {
		o := tableOps[op]
		if o.name != op.String() || o.writes != op.Writes() || o.notFoundDone != op.NotFoundDone() {
			t.Errorf("tableOps[%d] = %+v; workload has %s (writes %v, not-found done %v)", op, o, op, op.Writes(), op.NotFoundDone())
		}
	}
}

// Normalize reads a mix as workload.ParseMix does and writes it as
// workload.Mix.String does.
func TestParseMixIsTheWorkloadForm(t *testing.T) {
	for _, s := range []string{
		"80/19/1", " 70 / 20 / 10 ", "1/1/1", "0/1/0", "80/19", "80/19/1/1", "a/b/c", "-1/2/3", "0/0/0", "NaN/1/1", "Inf/1/1",
		"mixed", "upsert", "search", "get",
		"search=80,upsert=19,delete=1", "search=70, get=10 ,upsert=19,delete=1", "search=1,search=2", "browse=1", "search=x", "get=3",
		"search=33.33,upsert=33.33,delete=33.33", "search=1,upsert=0", "", "80",
	} {
		want, err := workload.ParseMix(s)
		got, ok := parseMix(s)
		if ok != (err == nil) {
			t.Errorf("parseMix(%q): ok %v; workload.ParseMix says %v", s, ok, err)
			continue
		}
		if !ok {
			continue
		}
		if !slices.Equal(got, want[:]) || mixString(got) != want.String() {
			t.Errorf("parseMix(%q) = %v, %q; workload: %v, %q", s, got, mixString(got), want[:], want.String())
		}
	}
}

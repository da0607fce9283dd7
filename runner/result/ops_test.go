package result

import (
	"math"
	"os/exec"
	"slices"
	"strings"
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

// Reading results needs nothing of the runner: of this module, package
// result imports the contract (engines) and the operations' vocabulary
// (workload/ops) only, so reports and compare compile no generator, corpus
// or driver.
func TestResultImportsNothingOfTheRunner(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const module = "github.com/searchbench/searchbench/"
	allowed := []string{module + "engines", module + "workload/ops", module + "runner/result"}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, module) && !slices.Contains(allowed, pkg) {
			t.Errorf("package result imports %s", pkg)
		}
	}
}

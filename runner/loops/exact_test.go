package loops

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// An engine that answers 9 of the true 10 nearest and one ID that is no
// document of the run — past --ids, in the ID space but never written, or
// unreadable — scores 0.9, idle and under load alike: only a document the
// run itself wrote or deleted is excused.
func TestExactForeignHitIsAMiss(t *testing.T) {
	src := runnertest.Products(t, 800, "knn=1")
	tr := runnertest.Truth(t, src, 30, 10)
	absent := uint32(1)
	for src.Prepopulated(absent) {
		absent++
	}
	for _, foreign := range []string{"5000", dataset.DocID(absent), "not-an-id"} {
		e := runnertest.NewVector()
		runnertest.Load(t, e, src)
		e.Foreign = foreign
		idle := checks.CheckExact(context.Background(), e, tr, workload.Ask{K: 10}, 5*time.Second)
		if len(idle) != 1 || idle[0].Expected != 10*idle[0].Checks || idle[0].Found != 9*idle[0].Checks || idle[0].Checks != 30 {
			t.Errorf("foreign %q idle: %+v; want 9 of 10 found in each of 30 answers", foreign, idle)
		}
		// Searches alone: nothing is written, so nothing may be excused.
		cfg := Config{Users: []int{2}, SpawnRate: 1000, Settle: 10 * time.Millisecond, Measure: 500 * time.Millisecond,
			Calls: Calls{Timeout: 5 * time.Second, Mix: workload.Mix{workload.Search: 1}, Seed: 1, K: 10,
				Known: checks.KnownConfig{Fraction: 1, Idle: &result.Relevance{K: 10, Exact: idle}}.WithTruth(tr)}}
		cfg.Freshness.Off = true
		levels := ClosedLoop(context.Background(), e, src, cfg, Emitter{}, nil)
		if len(levels) != 1 || levels[0].KnownItems == nil || len(levels[0].KnownItems.Exact) != 1 {
			t.Fatalf("foreign %q: levels %+v", foreign, levels)
		}
		r := levels[0].KnownItems.Exact[0]
		if r.Checks < 5 || r.Expected != 10*r.Checks || r.Found != 9*r.Checks || math.Abs(r.Recall-0.9) > 1e-12 {
			t.Errorf("foreign %q under load: %+v; want 9 of 10 found in every answer", foreign, r)
		}
	}
}

// Under load, half the checks ask the sample's queries: an exact engine
// keeps recall 1 while documents are rewritten (the truth follows the
// acknowledged writes; a write in flight is excused), a lossy one is below its idle recall and warned of;
// the searches' figures are split by kind, and the kinds add up to the
// searches less the known-item checks. The sample is large enough for a
// perfect idle check to bound recall from below: its interval counts
// queries, and a dozen perfect ones per kind cannot tell 1 from 0.75.
func TestExactUnderLoad(t *testing.T) {
	src := runnertest.Products(t, 800, "knn=1,knn-category=1,sku=1,hybrid=1")
	tr := runnertest.Truth(t, src, 150, 10)
	for _, skip := range []int{0, 3} {
		e := runnertest.NewVector()
		runnertest.Load(t, e, src)
		idle := &result.Relevance{K: 10, Exact: checks.CheckExact(context.Background(), e, tr, workload.Ask{K: 10}, 5*time.Second)}
		e.Skip = skip
		cfg := Config{Users: []int{4}, SpawnRate: 1000, Settle: 20 * time.Millisecond, Measure: 1500 * time.Millisecond,
			Calls: Calls{Timeout: 5 * time.Second, Mix: workload.Mix{workload.Search: 4, workload.Upsert: 1}, Seed: 1, K: 10,
				Known: checks.KnownConfig{Fraction: 0.5, Idle: idle}.WithTruth(tr)}}
		cfg.Freshness.Off = true
		levels := ClosedLoop(context.Background(), e, src, cfg, Emitter{}, nil)
		if len(levels) != 1 || levels[0].KnownItems == nil {
			t.Fatalf("skip %d: levels %+v", skip, levels)
		}
		l := levels[0]
		k := l.KnownItems
		if len(k.Exact) != 3 {
			t.Fatalf("skip %d: exact %+v; want knn, knn-category and sku", skip, k.Exact)
		}
		for _, r := range k.Exact {
			if r.Checks < 5 || r.IdleExpected == 0 {
				t.Fatalf("skip %d: %s %+v; want checks under load beside the idle figures", skip, r.Kind, r)
			}
			switch {
			case skip == 0 && r.Recall != 1, skip == 3 && r.Kind != "sku" && r.Recall > 0.75, skip == 3 && r.Kind == "sku" && r.Recall != 1:
				t.Errorf("skip %d: %s recall %.3f (%d of %d)", skip, r.Kind, r.Recall, r.Found, r.Expected)
			}
		}
		w := strings.Join(l.Warnings.Texts(), "\n")
		if (skip == 3) != strings.Contains(w, "against exact answers under load") {
			t.Errorf("skip %d: warnings %q", skip, l.Warnings)
		}
		search, _ := opByName(l.Ops, "search")
		var sum int64
		names := map[string]bool{}
		for _, ks := range search.Kinds {
			sum += ks.Count
			names[ks.Kind] = true
			if ks.Count > 0 && (ks.Histogram == "" || ks.Latency.P50 <= 0) {
				t.Errorf("kind %s: %+v; want its latencies", ks.Kind, ks)
			}
		}
		if !names["hybrid"] || !names["knn"] || !names["sku"] || names["knn-price"] {
			t.Errorf("kinds %v; want those of the mix", names)
		}
		if checks := k.Checks + k.Skipped + k.Failed; sum != search.Count-checks || sum == 0 {
			t.Errorf("kinds add up to %d; want the %d searches less the %d known-item checks", sum, search.Count, checks)
		}
		if e.Asked[4].Load() == 0 {
			t.Error("no hybrid search reached the engine")
		}
	}
}

func opByName(ops []result.OpStats, name string) (result.OpStats, bool) {
	for _, o := range ops {
		if o.Op == name {
			return o, true
		}
	}
	return result.OpStats{}, false
}

package loops

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/workload/corpus/text"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/internal/testhook"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// knownSetup pre-populates a word engine and checks it idle; the writes
// that follow take 3 ms, so with several writers one is nearly always in
// flight.
func knownSetup(t *testing.T, drop bool) (*runnertest.Word, text.Text, *result.Relevance) {
	t.Helper()
	src := runnertest.Text(t, 3000, 1)
	e := runnertest.NewWord()
	runnertest.Load(t, e, src)
	idle := checks.CheckRelevance(context.Background(), e, src, 100, workload.Ask{K: 10}, 5*time.Second)
	if idle == nil || idle.Recall < 0.95 {
		t.Fatalf("idle relevance %+v; want ≥ 0.95 on the idle word engine", idle)
	}
	e.WriteDelay, e.DropWhileWriting = 3*time.Millisecond, drop
	return e, src, idle
}

// knownCalls is a half-search, half-upsert mix in which half the searches
// are checks, so that a short level has hundreds.
func knownCalls(idle *result.Relevance) Calls {
	return Calls{Timeout: 5 * time.Second, Mix: workload.Mix{workload.Search: 1, workload.Upsert: 1}, Seed: 1, K: 10,
		Known: checks.KnownConfig{Fraction: 0.5, Idle: idle}}
}

func knownClosed(t *testing.T, drop bool) result.Level {
	t.Helper()
	e, src, idle := knownSetup(t, drop)
	cfg := Config{Users: []int{8}, SpawnRate: 1000, Settle: 20 * time.Millisecond, Measure: time.Second, Calls: knownCalls(idle)}
	cfg.Freshness.Off = true
	levels := ClosedLoop(context.Background(), e, src, cfg, Emitter{}, nil)
	if len(levels) != 1 || levels[0].KnownItems == nil {
		t.Fatalf("levels %+v; want one with known-item checks", levels)
	}
	return levels[0]
}

func knownOpen(t *testing.T, drop bool) result.Rep {
	t.Helper()
	e, src, idle := knownSetup(t, drop)
	cfg := OpenConfig{Workers: 16, Arrival: "constant", Calls: knownCalls(idle)}
	rep := OpenLoop(context.Background(), e, src, cfg, workload.Constant{PerSecond: 1000, Duration: time.Second}, checks.NewVersions(src.IDs()+1, shard.Share{}))
	if rep.KnownItems == nil {
		t.Fatalf("rep %+v; want known-item checks", rep)
	}
	return rep
}

func knownWarning(ws result.Warnings) string {
	for _, w := range ws {
		if w.Kind == result.WarningKnownItems {
			return w.String()
		}
	}
	return ""
}

// checkDropped: recall under load below idle, empty answers counted, and
// a warning that states the interval.
func checkDropped(t *testing.T, where string, k *result.KnownItems, warnings result.Warnings) {
	t.Helper()
	if k.Checks < 10 || k.Recall > 0.5 || k.Empty == 0 || k.IdleRecall < 0.95 || k.IdleChecks != 100 {
		t.Fatalf("%s: known items %+v; want ≥ 10 checks, recall under load ≤ 0.5 with empty answers, idle recall ≥ 0.95 over 100", where, k)
	}
	t.Logf("%s: %+v", where, *k)
	w := knownWarning(warnings)
	if !strings.Contains(w, "below the idle recall") || !strings.Contains(w, "Wilson interval") {
		t.Fatalf("%s: warnings %q; want the known-item warning with its interval", where, warnings)
	}
}

// checkCorrect: a correct engine keeps its recall under load, no warning.
func checkCorrect(t *testing.T, where string, k *result.KnownItems, warnings result.Warnings) {
	t.Helper()
	if k.Checks < 10 || k.Recall < 0.95 || k.Empty != 0 || k.TotalBelowHits != 0 {
		t.Fatalf("%s: known items %+v; want ≥ 10 checks at recall ≥ 0.95", where, k)
	}
	t.Logf("%s: %+v", where, *k)
	if w := knownWarning(warnings); w != "" {
		t.Fatalf("%s: warning %q from a correct engine", where, w)
	}
}

func TestKnownItemsCatchHitsDroppedUnderLoadClosedLoop(t *testing.T) {
	l := knownClosed(t, true)
	checkDropped(t, "closed loop", l.KnownItems, l.Warnings)
}

func TestKnownItemsCatchHitsDroppedUnderLoadOpenLoop(t *testing.T) {
	rep := knownOpen(t, true)
	// The rung sums its reps and warns.
	rung := result.Rung{Offered: 1000, Reps: []result.Rep{rep}}
	rung.Summarize()
	checkDropped(t, "open loop", rung.KnownItems, rung.Warnings)
}

func TestKnownItemsOfACorrectEngineClosedLoop(t *testing.T) {
	l := knownClosed(t, false)
	checkCorrect(t, "closed loop", l.KnownItems, l.Warnings)
}

func TestKnownItemsOfACorrectEngineOpenLoop(t *testing.T) {
	rep := knownOpen(t, false)
	rung := result.Rung{Offered: 1000, Reps: []result.Rep{rep}}
	rung.Summarize()
	checkCorrect(t, "open loop", rung.KnownItems, rung.Warnings)
}

// A check that takes 200 ms does not show in the latency of the searches it
// checks: it runs after the clock stops.
func TestKnownItemCheckIsNotTimed(t *testing.T) {
	testhook.AfterKnownCheck = func() { time.Sleep(200 * time.Millisecond) }
	defer func() { testhook.AfterKnownCheck = nil }()
	src := runnertest.Text(t, 500, 1)
	e := runnertest.NewWord()
	runnertest.Load(t, e, src)
	cfg := Config{Users: []int{2}, SpawnRate: 1000, Measure: time.Second,
		Calls: Calls{Timeout: 5 * time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10, Known: checks.KnownConfig{Fraction: 1}}}
	cfg.Freshness.Off = true
	l := ClosedLoop(context.Background(), e, src, cfg, Emitter{}, nil)[0]
	s, _ := l.Op("search")
	if l.KnownItems == nil || l.KnownItems.Checks < 4 || s.Count != l.KnownItems.Checks+l.KnownItems.Skipped {
		t.Fatalf("known items %+v, searches %d; want every search a check", l.KnownItems, s.Count)
	}
	if s.Latency.P50 >= 100 {
		t.Fatalf("search p50 %.2f ms; the 200 ms check must not be inside the timed call", s.Latency.P50)
	}
}

// Off turns the checks off: no block, and the searches are the workload's.
func TestKnownItemsOff(t *testing.T) {
	e, src, idle := knownSetup(t, true)
	calls := knownCalls(idle)
	calls.Known = checks.KnownConfig{Off: true}
	cfg := Config{Users: []int{2}, SpawnRate: 1000, Measure: 200 * time.Millisecond, Calls: calls}
	l := ClosedLoop(context.Background(), e, src, cfg, Emitter{}, nil)[0]
	rep := OpenLoop(context.Background(), e, src, OpenConfig{Workers: 4, Arrival: "constant", Calls: calls},
		workload.Constant{PerSecond: 500, Duration: 200 * time.Millisecond}, checks.NewVersions(src.IDs()+1, shard.Share{}))
	if l.KnownItems != nil || rep.KnownItems != nil || knownWarning(l.Warnings) != "" {
		t.Fatalf("known items %+v / %+v with the checks off", l.KnownItems, rep.KnownItems)
	}
	if err := (Calls{Timeout: time.Second, Mix: workload.DefaultMix, K: 10, Known: checks.KnownConfig{Fraction: 1.5}}).Validate(); err == nil || !strings.HasPrefix(err.Error(), "Known.Fraction:") {
		t.Fatalf("fraction 1.5: %v; want a Known.Fraction error", err)
	}
}

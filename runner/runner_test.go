package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
)

func TestPrepopulate(t *testing.T) {
	c := runnertest.Text(t, 3000, 0.95)
	single := runnertest.NewMem()
	p, err := Prepopulate(context.Background(), single, c, loops.DefaultTimeout, nil)
	if err != nil || p.Bulk || p.Count != int64(c.PrepopulatedCount()) || !p.CountOK {
		t.Fatalf("single upserts: %+v, %v", p, err)
	}
	bulk := &runnertest.Bulk{Mem: runnertest.NewMem()}
	var last int
	p, err = Prepopulate(context.Background(), bulk, c, loops.DefaultTimeout, func(done, total int) { last = max(last, done) })
	if err != nil || !p.Bulk || bulk.Batches.Load() != int64((c.PrepopulatedCount()+preloadBatch-1)/preloadBatch) {
		t.Fatalf("bulk: %+v, %v, %d batches", p, err, bulk.Batches.Load())
	}
	if last != c.PrepopulatedCount() {
		t.Fatalf("progress reached %d of %d", last, c.PrepopulatedCount())
	}
	for id := uint32(1); id <= 3000; id++ {
		_, has := bulk.Docs[dataset.DocID(id)]
		if has != c.Prepopulated(id) {
			t.Fatalf("ID %d loaded %v, pre-populated %v", id, has, c.Prepopulated(id))
		}
	}
	short := runnertest.NewMem()
	short.Drop = 3
	if _, err := Prepopulate(context.Background(), short, c, loops.DefaultTimeout, nil); err == nil {
		t.Fatal("a count 3 short of the corpus was accepted")
	}
}

// A driver that panics fails that call, not the process: the level
// finishes, the call counts as an error whose message names the line, and
// pre-population reports the panic as its error.
func TestDriverPanicsAreFailedCalls(t *testing.T) {
	e := runnertest.NewMem()
	e.Fail = func(op string, call int64) error {
		if op == "search" && call%50 == 0 {
			var m map[string]int
			m["boom"]++ // a nil map write: what a driver bug looks like
		}
		return nil
	}
	c := runnertest.Text(t, 300, 0.9)
	l := loops.ClosedLoop(context.Background(), e, c, quickConfig(4), loops.Emitter{}, nil)[0]
	se, _ := l.Op("search")
	if se.Errors["other"] == 0 || l.Partial || se.Count == 0 {
		t.Fatalf("search: %d ok, errors %v, partial %v; want the panics counted and the level whole", se.Count, se.Errors, l.Partial)
	}
	ex := se.ErrorExamples["other"]
	if len(ex) == 0 || !strings.HasPrefix(ex[0], "driver panicked at github.com/searchbench/searchbench/runner.TestDriverPanicsAreFailedCalls.func1 (runner/runner_test.go:") ||
		!strings.HasSuffix(ex[0], "assignment to entry in nil map") {
		t.Errorf("example %q; want the panic and the line that panicked", ex)
	}

	e = runnertest.NewMem()
	e.Fail = func(op string, call int64) error {
		if call == 10 {
			panic("upsert exploded")
		}
		return nil
	}
	_, err := Prepopulate(context.Background(), e, c, loops.DefaultTimeout, nil)
	var pe *guard.PanicError
	if !errors.As(err, &pe) || pe.Value != "upsert exploded" {
		t.Errorf("pre-population error %v; want the driver's panic", err)
	}
}

// quickConfig is a short closed loop for plans, as the loops' tests have it.
func quickConfig(users ...int) loops.Config {
	return loops.Config{Users: users, SpawnRate: 1000, Settle: 50 * time.Millisecond, Measure: 300 * time.Millisecond, Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10}}
}

// openConfig is an open loop of workers for plans, as the loops' tests have it.
func openConfig(workers int) loops.OpenConfig {
	return loops.OpenConfig{Workers: workers, Arrival: "constant", Calls: loops.Calls{Timeout: 5 * time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10}}
}

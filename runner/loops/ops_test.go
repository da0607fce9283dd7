package loops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// everyOp weighs every operation of the table alike.
func everyOp() workload.Mix {
	var m workload.Mix
	for _, op := range workload.Ops() {
		m[op] = 1
	}
	return m
}

// served counts the calls that reached each of runnertest.Mem's methods.
type served struct {
	mu sync.Mutex
	n  map[string]int64
}

func countCalls(e *runnertest.Mem) *served {
	s := &served{n: map[string]int64{}}
	e.Fail = func(op string, _ int64) error {
		s.mu.Lock()
		s.n[op]++
		s.mu.Unlock()
		return nil
	}
	return s
}

// checkOps holds for a level or a rep that ran every operation against a
// half-populated runnertest.Mem: each operation is reported, under its own
// name, in table order, with calls that reached its own method (an
// operation sent as another would leave its method's count short of what
// was recorded), no failures, and the gets of missing IDs done and
// counted apart.
func checkOps(t *testing.T, where string, ops []result.OpStats, engine map[string]int64) {
	t.Helper()
	var names []string
	for _, o := range ops {
		names = append(names, o.Op)
		if o.Count == 0 || len(o.Errors) != 0 {
			t.Errorf("%s: %s: %d calls, errors %v; want calls and no errors", where, o.Op, o.Count, o.Errors)
		}
		if o.Count > engine[o.Op] {
			t.Errorf("%s: %d %s calls recorded, the engine's %s served %d", where, o.Count, o.Op, o.Op, engine[o.Op])
		}
		op, err := workload.ParseOp(o.Op)
		if err != nil || o.Writes != op.Writes() || o.NotFoundDone != op.NotFoundDone() {
			t.Errorf("%s: %s: writes %v, not-found done %v; want the table's facts", where, o.Op, o.Writes, o.NotFoundDone)
		}
	}
	if want := workload.OpNames(); !slices.Equal(names, want) {
		t.Fatalf("%s: operations %q; want %q", where, names, want)
	}
	get := ops[workload.Get]
	if get.NotFound == 0 || get.NotFound > get.Count {
		t.Errorf("%s: get %+v: want gets of missing IDs counted as done and apart, not as errors", where, get)
	}
}

func TestEveryOpRunsClosedLoop(t *testing.T) {
	e := runnertest.NewMem()
	c := runnertest.Text(t, 400, 0.5)
	runnertest.Load(t, e, c)
	calls := countCalls(e)
	cfg := quickConfig(4)
	cfg.Mix = everyOp()
	l := ClosedLoop(context.Background(), e, c, cfg, Emitter{}, nil)[0]
	calls.mu.Lock()
	defer calls.mu.Unlock()
	checkOps(t, "closed loop", l.Ops, calls.n)
}

func TestEveryOpRunsOpenLoop(t *testing.T) {
	e := runnertest.NewMem()
	c := runnertest.Text(t, 400, 0.5)
	runnertest.Load(t, e, c)
	calls := countCalls(e)
	cfg := openConfig(4)
	cfg.Mix = everyOp()
	rep := OpenLoop(context.Background(), e, c, cfg, workload.Constant{PerSecond: 2000, Duration: 300 * time.Millisecond}, checks.NewVersions(401, shard.Share{}))
	var ops []result.OpStats
	for _, o := range rep.Ops {
		ops = append(ops, o.OpStats)
	}
	// The gets' service times are recorded, one per get done (an
	// in-memory get can take under the histogram's 1 µs unit, so the
	// count says it, not the value).
	get, ok := rep.Op("get")
	if !ok {
		t.Fatal("no get in the rep")
	}
	h, err := result.DecodeHistogram(get.ServiceHistogram)
	if err != nil {
		t.Fatalf("get service histogram: %v", err)
	}
	if h.TotalCount() != get.Count || get.Count == 0 {
		t.Errorf("get service histogram holds %d of %d gets; want every one", h.TotalCount(), get.Count)
	}
	calls.mu.Lock()
	defer calls.mu.Unlock()
	checkOps(t, "open loop", ops, calls.n)
	if rep.Errors != 0 {
		t.Errorf("%d errors; want none (missing gets and deletes are done)", rep.Errors)
	}
}

// A level reports the operations its mix runs, no others.
func TestLevelReportsTheMixOps(t *testing.T) {
	c := runnertest.Text(t, 100, 1)
	cfg := quickConfig(2)
	cfg.Mix, cfg.Measure = workload.Mix{workload.Search: 3, workload.Get: 1}, 100*time.Millisecond
	l := ClosedLoop(context.Background(), runnertest.NewMem(), c, cfg, Emitter{}, nil)[0]
	var names []string
	for _, o := range l.Ops {
		names = append(names, o.Op)
	}
	if !slices.Equal(names, []string{"search", "get"}) {
		t.Errorf("operations %q; want search and get", names)
	}
}

// withoutGetter hides runnertest.Mem's Get: only the Engine interface shows.
type withoutGetter struct{ engines.Engine }

// An engine without Getter never has a get sent as something else: the
// check before the run says so in one line, and if a run goes ahead anyway
// every get fails as unsupported, in the get row, with that reason.
func TestGetWithoutGetter(t *testing.T) {
	mem := runnertest.NewMem()
	calls := countCalls(mem)
	e := withoutGetter{mem}
	c := runnertest.Text(t, 100, 1)
	cfg := quickConfig(2)
	cfg.Mix, cfg.Measure = workload.Mix{workload.Get: 1}, 100*time.Millisecond
	if err := cfg.Mix.CheckEngine("mem", e); err == nil || !strings.Contains(err.Error(), "mem cannot get by ID") {
		t.Errorf("CheckEngine: %v; want mem cannot get by ID", err)
	}
	l := ClosedLoop(context.Background(), e, c, cfg, Emitter{}, nil)[0]
	if len(l.Ops) != 1 {
		t.Fatalf("ops %+v; want the get row only", l.Ops)
	}
	get := l.Ops[0]
	ex := get.ErrorExamples["other"]
	if get.Op != "get" || get.Count != 0 || get.Errors["other"] == 0 || len(ex) != 1 || !strings.Contains(ex[0], "does not implement engines.Getter") {
		t.Errorf("get %+v; want every call failed for want of engines.Getter", get)
	}
	calls.mu.Lock()
	defer calls.mu.Unlock()
	if len(calls.n) != 0 {
		t.Errorf("the engine served %v; want no call", calls.n)
	}
}

// A step of no operation is refused, and the engine sees nothing.
func TestUnknownOpIsNotSent(t *testing.T) {
	e := runnertest.NewMem()
	c := runnertest.Text(t, 100, 1)
	vers := checks.NewVersions(101, shard.Share{})
	call := prepare(c, workload.Ask{K: 10}, vers, workload.Step{Op: workload.NumOps, ID: 5})
	if err := do(context.Background(), e, &call); !errors.Is(err, engines.ErrUnsupported) || e.Calls.Load() != 0 {
		t.Fatalf("error %v, %d engine calls; want unsupported and none", err, e.Calls.Load())
	}
	if vers.Latest(5) != 0 {
		t.Error("a step of no operation took a version")
	}
}

package loops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

func TestClosedLoopMeasuresEveryOperation(t *testing.T) {
	e := runnertest.NewMem()
	e.Delay = 200 * time.Microsecond
	c := runnertest.Text(t, 500, 0.5)
	runnertest.Load(t, e, c)
	levels := ClosedLoop(context.Background(), e, c, quickConfig(4, 16), Emitter{}, nil)
	if len(levels) != 2 || levels[0].Users != 4 || levels[1].Users != 16 {
		t.Fatalf("levels %+v", levels)
	}
	for _, l := range levels {
		if l.Partial || time.Duration(l.Window) != 300*time.Millisecond {
			t.Errorf("%d users: partial %v, window %v; want the full 300ms window", l.Users, l.Partial, time.Duration(l.Window))
		}
		var total int64
		for _, o := range l.Ops {
			total += o.Count
			if len(o.Errors) != 0 {
				t.Errorf("%d users: %s errors %v", l.Users, o.Op, o.Errors)
			}
		}
		search, _ := l.Op("search")
		upsert, _ := l.Op("upsert")
		if search.Count == 0 || upsert.Count == 0 {
			t.Fatalf("%d users: search %d, upsert %d calls; want both", l.Users, search.Count, upsert.Count)
		}
		if f := float64(search.Count) / float64(total); f < 0.7 || f > 0.9 {
			t.Errorf("%d users: search fraction %.2f, want ≈ 0.8", l.Users, f)
		}
		if math.Abs(l.TotalRPS-float64(total)/0.3) > 1e-6 {
			t.Errorf("total RPS %.1f != measured calls / window", l.TotalRPS)
		}
		if search.Latency.P50 <= 0 || search.Latency.P50 > search.Latency.P99 || search.Latency.P99 > search.Latency.Max {
			t.Errorf("search latency %+v is not ordered", search.Latency)
		}
	}
	// Ramp and settle are not measured: the engine saw more calls than the
	// windows recorded.
	var recorded int64
	for _, l := range levels {
		for _, o := range l.Ops {
			recorded += o.Count + o.ErrorCount()
		}
	}
	if recorded >= e.Calls.Load() {
		t.Errorf("recorded %d calls but the engine served %d; the settle phase was measured", recorded, e.Calls.Load())
	}
}

func TestDeletesOfMissingIDsAreCountedApart(t *testing.T) {
	e := runnertest.NewMem()
	c := runnertest.Text(t, 200, 0) // nothing pre-populated: most deletes miss
	cfg := quickConfig(4)
	cfg.Mix = workload.Mix{workload.Delete: 1, workload.Upsert: 1}
	l := ClosedLoop(context.Background(), e, c, cfg, Emitter{}, nil)[0]
	del, _ := l.Op("delete")
	if del.NotFound == 0 || del.NotFound > del.Count || len(del.Errors) != 0 {
		t.Fatalf("delete %+v: want not-found deletes counted as done and apart, not as errors", del)
	}
}

// An engine that starts failing mid-run: every failure is counted by class
// and operation, and the run still completes with a full window.
func TestFailingEngineIsCountedByClass(t *testing.T) {
	e := runnertest.NewMem()
	e.Fail = func(op string, call int64) error {
		if call < 200 {
			return nil
		}
		switch op {
		case "upsert":
			return fmt.Errorf("mem: 429: %w", engines.ErrOverloaded)
		case "search":
			if call%2 == 0 {
				return errors.New("mem: connection reset")
			}
		}
		return nil
	}
	c := runnertest.Text(t, 300, 0.9)
	l := ClosedLoop(context.Background(), e, c, quickConfig(4), Emitter{}, nil)[0]
	up, _ := l.Op("upsert")
	se, _ := l.Op("search")
	if up.Errors["overloaded"] == 0 || se.Errors["other"] == 0 {
		t.Fatalf("errors not counted by class: upsert %v, search %v", up.Errors, se.Errors)
	}
	if l.Partial || se.Count == 0 {
		t.Fatalf("run did not complete: partial %v, %d searches", l.Partial, se.Count)
	}
	// What failed is kept beside how often: the messages in the JSON and in
	// a warning line per operation.
	if ex := up.ErrorExamples["overloaded"]; len(ex) != 1 || ex[0] != "mem: 429: overloaded or rejected" {
		t.Errorf("upsert error examples %q; want the one message", up.ErrorExamples)
	}
	var warned bool
	for _, w := range l.Warnings.Texts() {
		if strings.HasPrefix(w, fmt.Sprintf("search: %d failed calls (other %d), e.g. other: \"mem: connection reset\"", se.Errors["other"], se.Errors["other"])) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no search error warning among %q", l.Warnings)
	}
}

func TestInterruptedLevelIsPartial(t *testing.T) {
	e := runnertest.NewMem()
	e.Delay = time.Millisecond
	c := runnertest.Text(t, 100, 1)
	cfg := quickConfig(4, 4)
	cfg.Measure = time.Hour // only an interrupt ends it
	ctx, cancel := context.WithCancel(context.Background())
	ev := watch(event.Phase, func(e event.Event) {
		if e.Phase == "measure" {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
	})
	levels := ClosedLoop(ctx, e, c, cfg, ev, nil)
	if len(levels) != 1 || !levels[0].Partial {
		t.Fatalf("levels %+v; want one partial level", levels)
	}
	if w := time.Duration(levels[0].Window); w <= 0 || w >= time.Hour {
		t.Fatalf("window %v; want the part that ran", w)
	}
	if s, _ := levels[0].Op("search"); s.Count == 0 || len(s.Errors) != 0 {
		t.Fatalf("search %+v: want what was measured, and no canceled calls counted as errors", s)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := quickConfig(10)
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(*Config){
		func(c *Config) { c.Users = nil },
		func(c *Config) { c.Users = []int{0} },
		func(c *Config) { c.Users = []int{10, -1} },
		func(c *Config) { c.SpawnRate = 0 },
		func(c *Config) { c.Measure = 0 },
		func(c *Config) { c.Settle = -time.Second },
		func(c *Config) { c.Timeout = 0 },
		func(c *Config) { c.K = 0 },
		func(c *Config) { c.Mix = workload.Mix{} },
	}
	for i, f := range bad {
		c := ok
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("case %d: %+v accepted", i, c)
		}
	}
}

// BenchmarkUsers1500 runs 1,500 closed-loop users against an in-memory
// engine with a 2 ms service time and reports the harness's memory.
func BenchmarkUsers1500(b *testing.B) {
	c := runnertest.Text(b, dataset.DefaultIDs, 0)
	for b.Loop() {
		e := runnertest.NewMem()
		e.Delay = 2 * time.Millisecond
		cfg := quickConfig(1500)
		cfg.SpawnRate, cfg.Settle, cfg.Measure = 10_000, 500*time.Millisecond, 2*time.Second
		var peak uint64
		ev := watch(event.Progress, func(event.Event) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.Sys)
		})
		l := ClosedLoop(context.Background(), e, c, cfg, ev, nil)[0]
		b.ReportMetric(float64(peak)/(1<<20), "MB-sys")
		b.ReportMetric(l.TotalRPS, "ops/s")
	}
}

// The client-bound warning follows the harness's self-check readings. They
// are injected (measureSelf is the seam), so the test holds whatever else the
// machine runs: a high CPU share or a late scheduler warns, naming which, and
// calm readings do not; the level carries the readings it was judged on.
func TestClientBoundWarning(t *testing.T) {
	c := runnertest.Text(t, 1000, 0.5)
	real := measureSelf
	t.Cleanup(func() { measureSelf = real })
	cases := []struct {
		cpu, sched float64
		want       string // in the warning; "" for none
	}{
		{0.95, 0.2, "used 95% of its CPUs"},
		{0.30, 2.5, "waited up to 2.50 ms (p99)"},
		{0.97, 3.0, "used 97% of its CPUs and its goroutines waited up to 3.00 ms"},
		{0.30, 0.2, ""},
		{clientBoundCPU, ms(schedLate), ""}, // at the thresholds, not beyond
	}
	for _, k := range cases {
		measureSelf = func() func() (float64, float64) {
			return func() (float64, float64) { return k.cpu, k.sched }
		}
		l := ClosedLoop(context.Background(), runnertest.NewMem(), c, quickConfig(2), Emitter{}, nil)[0]
		var got string
		for _, w := range l.Warnings {
			if w.Kind == result.WarningClientBound {
				got = w.String()
			}
		}
		if l.ClientCPU != k.cpu || l.SchedLatencyP99 != k.sched {
			t.Errorf("level CPU %.2f, scheduler p99 %.2f ms; want the readings %.2f, %.2f", l.ClientCPU, l.SchedLatencyP99, k.cpu, k.sched)
		}
		if (k.want == "") != (got == "") || !strings.Contains(got, k.want) {
			t.Errorf("CPU %.2f, scheduler p99 %.2f ms: warning %q; want one saying %q", k.cpu, k.sched, got, k.want)
		}
	}
}

// The real self-check reads this process: CPU burnt inside the window shows
// as a share above zero (however little of the machine the test was given),
// and the scheduler histogram's quantile reads the right bucket.
func TestSelfCheckReadsTheProcess(t *testing.T) {
	end := measureSelf()
	x := uint64(1)
	for i := range 20_000_000 { // a bounded count, not a bounded time
		x = x*6364136223846793005 + uint64(i)
	}
	cpu, sched := end()
	if !(cpu > 0 && cpu <= 1.05) || sched < 0 || x == 0 {
		t.Errorf("CPU share %.3f, scheduler p99 %.3f ms; want a share in (0, 1] after burning CPU", cpu, sched)
	}
	h := schedHist{counts: []uint64{0, 90, 9, 1}, buckets: []float64{0, 1e-4, 1e-3, 1e-2, math.Inf(1)}}
	prev := schedHist{counts: []uint64{0, 90, 0, 0}, buckets: h.buckets}
	// A quantile is its bucket's upper boundary; the open last bucket
	// reads as its lower one.
	if p50, p99 := h.quantileMS(0.5), h.quantileMS(0.99); p50 != 1 || p99 != 10 {
		t.Errorf("p50 %v ms, p99 %v ms; want 1 and 10", p50, p99)
	}
	if p50 := h.since(prev).quantileMS(0.5); p50 != 10 {
		t.Errorf("p50 since the snapshot %v ms; want 10 (the 90 fast ones were before it)", p50)
	}
}

func quickConfig(users ...int) Config {
	return Config{
		Users: users, SpawnRate: 1000, Settle: 50 * time.Millisecond, Measure: 300 * time.Millisecond,
		Calls: Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10},
	}
}

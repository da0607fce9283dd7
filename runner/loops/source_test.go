package loops

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// statsEngine reports a gauge that holds still and a counter that grows at
// a known rate of its own clock.
type statsEngine struct {
	runnertest.Mem
	t0    time.Time
	calls atomic.Int64
}

func (s *statsEngine) Stats(context.Context) (map[string]float64, error) {
	s.calls.Add(1)
	return map[string]float64{engines.StatQueueDepth: 4, "ingest": 1000 * time.Since(s.t0).Seconds()}, nil
}

// Engine stats are sampled through the measured window: a constant gauge
// keeps its value, a counter's growth over the window gives its rate.
func TestEngineStatsAreSampledWhileMeasuring(t *testing.T) {
	e := &statsEngine{Mem: *runnertest.NewMem(), t0: time.Now()}
	cfg := quickConfig(2)
	cfg.Measure = 2500 * time.Millisecond
	l := ClosedLoop(context.Background(), e, runnertest.Text(t, 200, 1), cfg, Emitter{}, nil)[0]
	q, ok := l.EngineStats[engines.StatQueueDepth]
	if !ok || q.Mean != 4 || q.Max != 4 || q.Last != 4 {
		t.Fatalf("queue depth gauge %+v; want 4 throughout", q)
	}
	in := l.EngineStats["ingest"]
	// One sample when the window opens, one a second, one when it closes.
	if in.Samples < 3 || in.Samples > 5 {
		t.Errorf("%d samples over a 2.5 s window; want 3 to 5", in.Samples)
	}
	if math.Abs(in.PerSecond-1000) > 50 {
		t.Errorf("counter rate %.1f/s; want about 1000/s", in.PerSecond)
	}
	// The open loop samples the same way.
	sched, _ := workload.NewSchedule("constant", 100, 1200*time.Millisecond, 1)
	rep := OpenLoop(context.Background(), e, runnertest.Text(t, 200, 1), openConfig(2), sched, checks.NewVersions(201, shard.Share{}))
	if g := rep.EngineStats[engines.StatQueueDepth]; g.Samples < 2 || g.Mean != 4 {
		t.Errorf("open loop queue depth %+v; want sampled at least twice", g)
	}
}

package loops

import (
	"context"
	"maps"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
)

// liveFigures is what a window's watchers know of an interval by the time
// the collector sends it, besides its calls: the engine's stats sampled in
// it (a launched container's CPU and memory among them), its known-item
// checks answered so far and, in a closed loop, its active users and the
// freshness probes that completed in it. Each is
// read by the rule the window's timeline uses, so a page that shows them
// while the run goes on shows what result.json will say, and the final
// interval replaces them. nil adds nothing.
type liveFigures struct {
	// stats is set once its sampler exists: the open loop starts sampling
	// beside its first arrivals, not before them.
	stats atomic.Pointer[record.StatsSampler]
	known *checks.KnownChecks
	fresh *checks.Prober
	// users is interval k's active users (closed loop; nil: none).
	users func(k int) float64
}

// add puts f's figures of interval k of grid g on iv.
func (f *liveFigures) add(g record.Grid, k int, iv *result.Interval) {
	if f == nil {
		return
	}
	if f.users != nil {
		n := f.users(k)
		iv.ActiveUsers = &n
	}
	iv.KnownItems = f.known.Interval(k)
	iv.Freshness = f.fresh.Interval(k)
	iv.EngineStats = f.stats.Load().In(g, k)
}

// setEngineStats puts the engine's figures sampled in each interval on the
// timeline.
func setEngineStats(tl *result.Timeline, per []map[string]float64) {
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		if k := tl.Index(iv.Start); k < len(per) && len(per[k]) > 0 {
			iv.EngineStats = per[k]
		}
	}
}

// statsFunc reads a set of figures.
type statsFunc func(context.Context) (map[string]float64, error)

// statsSource is what a window samples: the engine's own stats, when its
// driver reports them, and extra (a launched container's CPU and memory),
// when set; nil when neither.
func statsSource(e engines.Engine, extra statsFunc) statsFunc {
	sr, ok := e.(engines.StatsReporter)
	switch {
	case !ok && extra == nil:
		return nil
	case !ok:
		return extra
	case extra == nil:
		return sr.Stats
	}
	return func(ctx context.Context) (map[string]float64, error) {
		m, err := sr.Stats(ctx)
		if err != nil {
			return nil, err
		}
		more, err := extra(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]float64, len(m)+len(more))
		maps.Copy(out, m)
		maps.Copy(out, more)
		return out, nil
	}
}

// sampleStats starts sampling e's stats and extra's (see statsSource);
// with neither it returns nil, whose stop returns nil. A source that panics
// counts as a failed sample.
func sampleStats(ctx context.Context, e engines.Engine, extra statsFunc, timeout time.Duration) *record.StatsSampler {
	src := statsSource(e, extra)
	if src == nil {
		return nil
	}
	return record.StartSampler(ctx, func(ctx context.Context) (map[string]float64, error) {
		return guard.Call(func() (map[string]float64, error) { return src(ctx) })
	}, timeout)
}

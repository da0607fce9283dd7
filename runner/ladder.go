package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// LadderConfig is a rate ladder: each offered rate runs Repeat times for
// Duration, and the medians are kept (Study B's method).
type LadderConfig struct {
	Open        OpenConfig
	Rates       workload.Ladder
	Duration    time.Duration
	Repeat      int
	Factor      float64 // sustainable: p99 ≤ Factor × the first rung's p99 …
	MinAchieved float64 // … and achieved ≥ MinAchieved × offered
	Explode     float64 // stop once the median p99 exceeds Explode × the first rung's
	Reference   float64 // report p99 at the rung nearest this rate; 0: the first rung
}

// Ladder defaults. The step, duration and repetitions are Study B's.
const (
	DefaultStep        = 1.19
	DefaultRungTime    = 25 * time.Second
	DefaultRepeat      = 3
	DefaultFactor      = 5
	DefaultMinAchieved = 0.99
	DefaultExplode     = 50
	// loadedFirstRung: a first rung whose p99 is this many times its median
	// service time is already queueing, and grades the ladder against a
	// loaded baseline.
	loadedFirstRung = 10
	// generatorLate: scheduler lag p99 beyond this means the harness, not
	// the engine, set the pace.
	generatorLate  = time.Millisecond
	clientBoundCPU = 0.9
)

// Validate reports the first bad field.
func (c LadderConfig) Validate() error {
	if err := c.Open.Validate(); err != nil {
		return err
	}
	if err := c.Rates.Validate(); err != nil {
		return err
	}
	switch {
	case c.Duration <= 0:
		return fmt.Errorf("duration: %v must be > 0", c.Duration)
	case c.Repeat < 1:
		return fmt.Errorf("repeat: %d must be ≥ 1", c.Repeat)
	case !(c.Factor > 1):
		return fmt.Errorf("factor: %v must be > 1", c.Factor)
	case !(c.MinAchieved > 0 && c.MinAchieved <= 1):
		return fmt.Errorf("min-achieved: %v must be in (0, 1]", c.MinAchieved)
	case !(c.Explode >= c.Factor):
		return fmt.Errorf("explode: %v must be ≥ factor (%v)", c.Explode, c.Factor)
	case c.Reference < 0:
		return fmt.Errorf("reference-rate: %v must be ≥ 0", c.Reference)
	}
	return nil
}

// RunLadder climbs the ladder on e and finds the sustainable rate.
func RunLadder(ctx context.Context, e engines.Engine, src Source, cfg LadderConfig, ev Events) result.Ladder {
	l := result.Ladder{
		Arrival: cfg.Open.Arrival, Workers: cfg.Open.Workers,
		Start: cfg.Rates.Start, Step: cfg.Rates.Step, Stop: cfg.Rates.Stop,
		Duration: result.Duration(cfg.Duration), Repeat: cfg.Repeat,
		Factor: cfg.Factor, MinAchieved: cfg.MinAchieved, ExplodeFactor: cfg.Explode,
		Reference: cfg.Reference,
	}
	if l.Reference == 0 {
		l.Reference = cfg.Rates.Start
	}
	l.Rule = fmt.Sprintf("sustainable = the highest rung whose median p99 (from the intended send time) is ≤ %g × the first rung's and whose achieved rate is ≥ %g%% of the offered rate", cfg.Factor, 100*cfg.MinAchieved)
	vers := make(versions, src.IDs()+1)
	// A shard's own decision to stop after a rung waits for the next
	// start, where the coordinator makes every shard stop if any does, so
	// the shards always climb the same rungs.
	stop := ""
rungs:
	for i, rate := range cfg.Rates.Rates() {
		rung := result.Rung{Offered: cfg.Open.Share.Rate(rate), QueueDepth: -1}
		for rep := range cfg.Repeat {
			if ctx.Err() != nil {
				break
			}
			if why := ev.barrier(ctx, fmt.Sprintf("rung %d rep %d", i+1, rep+1), stop); why != "" {
				l.StoppedEarly = why
				break rungs
			}
			if ev.Rung != nil {
				ev.Rung(rate, rep+1, cfg.Repeat)
			}
			// Each repetition has its own arrival seed, and a Poisson
			// ladder differs from rung to rung.
			sched, err := workload.NewSchedule(cfg.Open.Arrival, rate, cfg.Duration, cfg.Open.Seed+uint64(i)<<16+uint64(rep))
			if err != nil {
				l.Warnings = append(l.Warnings, err.Error())
				return l
			}
			rung.Reps = append(rung.Reps, OpenLoop(ctx, e, src, cfg.Open, sched, vers))
		}
		if len(rung.Reps) == 0 {
			break
		}
		summarizeRung(&rung)
		l.Rungs = append(l.Rungs, rung)
		// An interrupt first: the calls it left in line are unsent, which
		// would otherwise read as a line that never drained.
		if ctx.Err() != nil {
			l.StoppedEarly = "interrupted"
			break
		}
		if stop = exploded(l.Rungs, cfg.Explode); stop != "" && ev.Barrier == nil {
			l.StoppedEarly = stop
			break
		}
	}
	if l.StoppedEarly == "" && stop != "" {
		l.StoppedEarly = stop // the top rung: no later start to agree at
	}
	judge(&l)
	return l
}

func summarizeRung(r *result.Rung) {
	pick := func(f func(result.Rep) float64) []float64 {
		v := make([]float64, len(r.Reps))
		for i, rep := range r.Reps {
			v[i] = f(rep)
		}
		return v
	}
	p99 := pick(func(x result.Rep) float64 { return x.Latency.P99 })
	ach := pick(func(x result.Rep) float64 { return x.Achieved })
	r.P99, r.P99CV = median(p99), cv(p99)
	r.P99Min, r.P99Max = minOf(p99), maxOf(p99)
	r.Achieved, r.AchievedMin, r.AchievedMax = median(ach), minOf(ach), maxOf(ach)
	r.P50 = median(pick(func(x result.Rep) float64 { return x.Latency.P50 }))
	r.ServiceP50 = median(pick(func(x result.Rep) float64 { return x.Service.P50 }))
	r.ServiceP99 = median(pick(func(x result.Rep) float64 { return x.Service.P99 }))
	var depths []float64
	for _, rep := range r.Reps {
		if d, ok := queueDepth(rep.EngineStats); ok {
			depths = append(depths, d)
		}
	}
	if len(depths) > 0 {
		r.QueueDepth = median(depths)
	}
	for i, rep := range r.Reps {
		if rep.GeneratorLagP99 > float64(generatorLate)/float64(time.Millisecond) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("rep %d: the generator was late (scheduler lag p99 %.2f ms): the harness, not the engine, may have set the pace", i+1, rep.GeneratorLagP99))
		}
		if rep.ClientCPU > clientBoundCPU {
			r.Warnings = append(r.Warnings, fmt.Sprintf("rep %d: client-bound: the searchbench process used %.0f%% of its CPUs", i+1, 100*rep.ClientCPU))
		}
		if rep.Unsent > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("rep %d: %d due calls were still in line at the drain limit and were not sent", i+1, rep.Unsent))
		}
		for _, w := range rep.Warnings {
			r.Warnings = append(r.Warnings, fmt.Sprintf("rep %d: %s", i+1, w))
		}
	}
}

// queueDepth is the engine's queue depth, which drivers that expose one
// report under the key "queue_depth".
func queueDepth(stats map[string]result.Gauge) (float64, bool) {
	if g, ok := stats[QueueDepthStat]; ok {
		return g.Mean, true
	}
	return 0, false
}

// QueueDepthStat is the StatsReporter key of an engine's write queue depth,
// shown beside latency in the ladder tables.
const QueueDepthStat = "queue_depth"

// exploded says why the ladder should stop after its latest rung, or "".
func exploded(rungs []result.Rung, factor float64) string {
	first, last := rungs[0], rungs[len(rungs)-1]
	if len(rungs) > 1 && first.P99 > 0 && last.P99 > factor*first.P99 {
		return fmt.Sprintf("p99 %.1f ms at %.0f/s is more than %g × the first rung's %.2f ms", last.P99, last.Offered, factor, first.P99)
	}
	for _, rep := range last.Reps {
		if rep.Unsent > 0 {
			return fmt.Sprintf("calls were left unsent at %.0f/s: the line never drained", last.Offered)
		}
	}
	return ""
}

// judge marks the rungs that meet the rule, picks the sustainable rate and
// adds the ladder's warnings.
func judge(l *result.Ladder) {
	if len(l.Rungs) == 0 {
		l.Warnings = append(l.Warnings, errors.New("no rung ran").Error())
		return
	}
	first := l.Rungs[0]
	for i := range l.Rungs {
		r := &l.Rungs[i]
		// A rung cut short by an interrupt was not held at its rate.
		cut := slices.ContainsFunc(r.Reps, func(rep result.Rep) bool { return rep.Partial })
		r.Sustainable = !cut && r.P99 <= l.Factor*first.P99 && r.Achieved >= l.MinAchieved*r.Offered
		if r.Sustainable {
			l.Sustainable = r.Offered
		}
	}
	if first.ServiceP50 > 0 && first.P99 > loadedFirstRung*first.ServiceP50 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the first rung (%.0f/s) already looks loaded: its p99 %.2f ms is over %d× its median service time %.3f ms; start lower", first.Offered, first.P99, loadedFirstRung, first.ServiceP50))
	}
	if l.Sustainable == 0 {
		l.Warnings = append(l.Warnings, "no rung met the sustainable-rate rule")
	} else if l.Sustainable == l.Rungs[len(l.Rungs)-1].Offered && l.StoppedEarly == "" {
		l.Warnings = append(l.Warnings, "the top rung still met the rule: the sustainable rate is at least this; raise --stop")
	}
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

package loops

import (
	"context"
	"fmt"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/field"
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
)

// Validate reports the first bad field (a *field.Error).
func (c LadderConfig) Validate() error {
	if err := c.Open.Validate(); err != nil {
		return field.In("Open", err)
	}
	if err := c.Rates.Validate(); err != nil {
		return field.In("Rates", err)
	}
	switch {
	case c.Duration <= 0:
		return field.New("Duration", "duration", "%v must be > 0", c.Duration)
	case c.Duration < MinWindow:
		return field.New("Duration", "duration", "%v is shorter than %v, the shortest window measured", c.Duration, MinWindow)
	case c.Repeat < 1:
		return field.New("Repeat", "repeat", "%d must be ≥ 1", c.Repeat)
	case !(c.Factor > 1):
		return field.New("Factor", "factor", "%v must be > 1", c.Factor)
	case !(c.MinAchieved > 0 && c.MinAchieved <= 1):
		return field.New("MinAchieved", "min-achieved", "%v must be in (0, 1]", c.MinAchieved)
	case !(c.Explode >= c.Factor):
		return field.New("Explode", "explode", "%v must be ≥ factor (%v)", c.Explode, c.Factor)
	case c.Reference < 0:
		return field.New("Reference", "reference-rate", "%v must be ≥ 0", c.Reference)
	}
	if err := c.Open.validateInterval(c.Duration, "duration"); err != nil {
		return field.In("Open", field.In("Calls", err))
	}
	return nil
}

// RunLadder climbs the ladder on e and finds the sustainable rate. Each
// rung's repetition waits at b first (nil: none); em receives its events.
func RunLadder(ctx context.Context, e engines.Engine, src corpus.Source, cfg LadderConfig, em Emitter, b Barrier) result.Ladder {
	l := newLadder(cfg)
	// The truth that follows the writes refills its lists until the
	// ladder ends; every rung scores against it, as the writes accumulate.
	ctx, unfollow := context.WithCancel(ctx)
	defer unfollow()
	lr := ladderRun{e: e, src: src, cfg: cfg, vers: cfg.Open.versions(ctx, src, cfg.Open.Share), em: em, b: b}
	// A shard's own decision to stop after a rung waits for the next
	// start, where the coordinator makes every shard stop if any does, so
	// the shards always climb the same rungs.
	var stop *StopReason
	for i, rate := range cfg.Rates.Rates() {
		// The rung is the whole run's rate on every shard (the rungs are
		// the same ones); each rep offers this shard's share of it.
		rung := result.Rung{Offered: rate, QueueDepth: -1}
		reps, stopped, err := lr.reps(ctx, i, rate, stop)
		if err != nil {
			l.Warnings = append(l.Warnings, result.Note(err.Error()))
			em.warn(cfg.Open.window(result.LadderWindow), l.Warnings)
			return l
		}
		if stopped != nil {
			l.StoppedEarly = stopped.Why
			break
		}
		if rung.Reps = reps; len(rung.Reps) == 0 {
			break
		}
		rung.Summarize()
		em.warn(cfg.Open.window(result.RungWindow(i)), rung.Warnings)
		l.Rungs = append(l.Rungs, rung)
		// An interrupt first: the calls it left in line are unsent, which
		// would otherwise read as a line that never drained.
		if ctx.Err() != nil {
			l.StoppedEarly = "interrupted"
			break
		}
		stop = nil
		if why := exploded(l.Rungs, cfg.Explode); why != "" {
			stop = &StopReason{why}
			if b == nil {
				l.StoppedEarly = why
				break
			}
		}
	}
	if l.StoppedEarly == "" && stop != nil {
		l.StoppedEarly = stop.Why // the top rung: no later start to agree at
	}
	// On a shard, each rep achieves only its share of the rung, so the
	// shard's own verdict meets no rung: the merge judges again.
	l.Judge()
	em.warn(cfg.Open.window(result.LadderWindow), l.Warnings)
	return l
}

// newLadder is the ladder's result before its first rung: its settings
// and the rule that judges it.
func newLadder(cfg LadderConfig) result.Ladder {
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
	return l
}

// ladderRun is what every rung of one ladder shares.
type ladderRun struct {
	e    engines.Engine
	src  corpus.Source
	cfg  LadderConfig
	vers checks.Versions
	em   Emitter
	b    Barrier
}

// reps runs rung i's repetitions at rate, each after its start at b, until
// ctx ends. stop is this shard's own reason to stop, given at the start.
// stopped is why the ladder ends before the rung does (the start's answer:
// the rung's reps are then dropped); err is a schedule that cannot be made.
func (lr ladderRun) reps(ctx context.Context, i int, rate float64, stop *StopReason) (reps []result.Rep, stopped *StopReason, err error) {
	cfg := lr.cfg
	for rep := range cfg.Repeat {
		if ctx.Err() != nil {
			break
		}
		// Each repetition has its own arrival seed, and a Poisson
		// ladder differs from rung to rung.
		sched, err := workload.NewSchedule(cfg.Open.Arrival, rate, cfg.Duration, cfg.Open.Seed+uint64(i)<<16+uint64(rep))
		if err != nil {
			return nil, nil, err
		}
		// The rep is made before its start, so that its schedule
		// begins at the instant the start gives (the rep's origin),
		// not after its recorders are built.
		or := newOpenRun(lr.e, lr.src, cfg.Open, sched, lr.vers)
		window := cfg.Open.window(result.RepWindow(i, rep))
		t0, why := Wait(ctx, lr.b, Start{Window: window, Stop: stop})
		if why != nil {
			return nil, why, nil
		}
		lr.em.emit(event.Event{Kind: event.Rung, Window: window, Rate: rate, Rep: rep + 1, Reps: cfg.Repeat})
		reps = append(reps, or.run(ctx, t0, lr.em.live(window)))
	}
	return reps, nil, nil
}

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

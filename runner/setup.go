package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
)

// setupRun is one setup's run in progress: its result so far, the
// configuration its engine is opened with (a launched engine's address and
// secret in it), and what is to be released when it ends.
type setupRun struct {
	*run
	s        Setup
	name     string
	embedded bool
	cfg      engines.Config
	er       result.EngineRun
	em       loops.Emitter
	shards   shardSteps
	sampled  func(context.Context) (map[string]float64, error) // the launched engine's CPU and memory
	releases []func()                                          // in the order acquired
	done     bool                                              // event.SetupDone was sent
}

// setup runs one setup: it launches the engine (or attaches to it, or
// opens the embedded one), opens it, makes its index ready (prepares it,
// or attaches to another shard's) and drives the loops, always releasing
// what it started. Errors are recorded in the returned run, not returned,
// so the other setups still run and everything measured is kept.
func (r *run) setup(ctx context.Context, s Setup) result.EngineRun {
	d, _ := engines.Lookup(s.Driver) // validated in Plan.Validate
	desc := d.Describe()
	st := &setupRun{run: r, s: s, name: s.Name(), embedded: desc.Embedded, cfg: s.Config,
		em: r.emitter(s.Name(), s.Config.Secrets()), shards: r.shardStepsFor(s)}
	st.er = result.EngineRun{Name: s.Driver, Label: st.name, Visibility: string(engines.WriteMode(s.Driver, s.Config)), Options: s.Config.Options}
	st.guarded(ctx)
	return st.er
}

// guarded runs the steps. However they end (an error, an interrupt, a
// driver that panics while opening, creating or closing: the loops guard
// the calls they make), what was started is released, a shard that failed
// before its index was ready tells the others, event.SetupDone is sent, and
// the result's messages are scrubbed of the setup's secrets (the
// launcher's among them), in that order. A panic fails the setup; the
// other setups still run and the results are written.
func (st *setupRun) guarded(ctx context.Context) {
	defer st.end()
	defer st.setupDone() // a setup that failed before its loops
	defer func() {
		st.shards.abandon(ctx, &loops.StopReason{Why: "failed: " + firstLine(cmp.Or(st.er.Error, "panicked"))})
	}()
	defer st.release()
	if err := st.steps(ctx); err != nil && !errors.Is(err, errInterrupted) {
		st.er.Error = err.Error()
	}
}

// steps are the setup's steps, in order: launch, open, ready, drive.
func (st *setupRun) steps(ctx context.Context) error {
	if err := st.launch(ctx); err != nil {
		return err
	}
	e, err := st.open(ctx)
	if err != nil {
		return err
	}
	if err := st.shards.ready(ctx, e, func() error { return st.prepare(ctx, e) }); err != nil {
		return err
	}
	err = st.drive(ctx, e)
	st.setupDone() // the loops are over; the releases follow
	return err
}

// open opens the engine and checks that it has the operations the mix
// asks for, before anything is loaded or measured, and asks its version.
// Opening is a connection and a request or two, and asking the version one
// request: each is bounded by the request timeout, so an engine that
// accepts connections and never answers fails the setup instead of holding
// the run.
func (st *setupRun) open(ctx context.Context) (engines.Engine, error) {
	calls := st.plan.Calls()
	octx, cancel := context.WithTimeout(ctx, calls.Timeout)
	e, err := engines.Open(octx, st.s.Driver, st.cfg)
	cancel()
	if err != nil {
		return nil, err
	}
	st.onRelease(func() {
		if err := e.Close(); err != nil {
			st.er.Warnings = append(st.er.Warnings, result.Note("close: "+err.Error()))
		}
	})
	// The plan checked the driver's Description; this checks the engine
	// itself, so a driver that claims an operation it lacks fails here.
	if err := calls.Mix.CheckEngine(st.s.Driver, e); err != nil {
		return nil, err
	}
	if v, ok := e.(engines.Versioner); ok {
		vctx, cancel := context.WithTimeout(ctx, calls.Timeout)
		version, err := v.Version(vctx)
		cancel()
		if err == nil {
			st.er.Version = version
		} else {
			st.er.Warnings = append(st.er.Warnings, result.Note("the engine did not say its version: "+err.Error()))
		}
	}
	return e, nil
}

// prepare creates the index, pre-populates it and checks relevance.
func (st *setupRun) prepare(ctx context.Context, e engines.Engine) error {
	p, name := st.plan, st.name
	calls := p.Calls()
	if err := e.Create(ctx, p.Source.Schema()); err != nil {
		return fmt.Errorf("create index: %v", err)
	}
	st.logf(name, "pre-populating %d documents", p.Source.PrepopulatedCount())
	preload, err := Prepopulate(ctx, e, p.Source, calls.Timeout, func(done, total int) {
		st.obs.Observe(event.Event{Kind: event.Preload, Setup: name, Done: done, Total: total})
	})
	st.er.Preload = preload
	st.obs.Observe(event.Event{Kind: event.PreloadDone, Setup: name})
	if err != nil {
		return err
	}
	st.logf(name, "loaded %d documents in %.1fs (%.0f docs/s), engine count %d",
		preload.Documents, preload.Duration.Seconds(), preload.DocsPerS, preload.Count)
	known := checks.CheckRelevance(ctx, e, p.Source, p.Relevance, calls.Ask(), calls.Timeout)
	rel := known
	if st.truth != nil {
		if rel == nil {
			rel = &result.Relevance{K: calls.K, ByKind: map[string]*result.RelevanceKind{}}
		}
		rel.Exact = checks.CheckExact(ctx, e, st.truth, calls.Ask(), calls.Timeout)
		for _, x := range rel.Exact {
			if x.Expected == 0 {
				// No figure: a 0.000 here would read as an index that
				// found nothing.
				st.logf(name, "%s: no recall against exact answers (%d queries: %d unsupported by this configuration, %d failed, %d skipped)",
					x.Kind, x.Checks+x.Unsupported+x.Failed+x.Skipped, x.Unsupported, x.Failed, x.Skipped)
				continue
			}
			st.logf(name, "%s: recall@%d %.3f against exact answers (%d of %d, %d queries)", x.Kind, calls.K, x.Recall, x.Found, x.Expected, x.Checks)
		}
	}
	st.er.Relevance = rel
	if known != nil {
		if rel.Queries > 0 {
			st.logf(name, "recall@%d %.3f over %d known-item searches", rel.K, rel.Recall, rel.Queries)
		} else {
			st.logf(name, "no known-item search could run (the configuration cannot answer them; see relevance in result.json)")
		}
	}
	return nil
}

// drive runs the plan's loop, the closed loop's levels or the ladder's
// rungs (or the sweep's points, each one of them), starting each with the
// other shards when the run is sharded.
func (st *setupRun) drive(ctx context.Context, e engines.Engine) error {
	p := st.plan
	if p.Sweep != nil {
		return st.sweep(ctx, e)
	}
	if p.Closed != nil {
		cfg := *p.Closed
		cfg.Share = p.Shard.Share()
		cfg.Known.Idle = st.er.Relevance
		cfg.Known = cfg.Known.WithTruth(st.truth)
		cfg.Sampled = st.sampled
		st.er.Levels = loops.ClosedLoop(ctx, e, p.Source, cfg, st.em, st.shards.barrier())
		if len(st.er.Levels) < len(cfg.Users) {
			return st.shards.stopped(ctx)
		}
		return nil
	}
	cfg := *p.Ladder
	cfg.Open.Share = p.Shard.Share()
	cfg.Open.Known.Idle = st.er.Relevance
	cfg.Open.Known = cfg.Open.Known.WithTruth(st.truth)
	cfg.Open.Sampled = st.sampled
	l := loops.RunLadder(ctx, e, p.Source, cfg, st.em, st.shards.barrier())
	st.er.Ladder = &l
	return st.shards.lost()
}

// onRelease adds f to what the setup releases when it ends, before what
// it acquired earlier.
func (st *setupRun) onRelease(f func()) { st.releases = append(st.releases, f) }

// release calls the releases, the latest first. Each runs even when a later
// one panicked, as deferred calls do; the panic goes on to end.
func (st *setupRun) release() {
	n := len(st.releases)
	if n == 0 {
		return
	}
	f := st.releases[n-1]
	st.releases = st.releases[:n-1]
	defer st.release()
	f()
}

// setupDone sends the setup's event.SetupDone, once.
func (st *setupRun) setupDone() {
	if !st.done {
		st.done = true
		st.obs.Observe(event.Event{Kind: event.SetupDone, Setup: st.name})
	}
}

// end turns a panic into the setup's error and scrubs the setup's secrets
// from the result's messages. guarded defers it first, so it runs last.
func (st *setupRun) end() {
	if v := recover(); v != nil {
		st.er.Error = guard.Recovered(v).Error()
	}
	RedactMessages(&st.er, st.cfg.Secrets())
}

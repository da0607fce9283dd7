package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// shardSteps are what sharding adds to a setup's steps: a barrier where
// its loops start with the other shards', the index made by shard 0 and
// attached to by the others, and a failure told to the other shards. An
// unsharded run's (alone) adds nothing.
type shardSteps interface {
	// barrier is the loops' Barrier: nil when the run is not synchronised.
	barrier() loops.Barrier
	// ready makes the engine's index ready for the loops. prepare makes it
	// in the process that prepares (an unsharded run, shard 0); the other
	// shards wait until it has and attach to it. A synchronised shard
	// waits for the others once its index is ready ("prepared") and once
	// every shard can use it ("attached").
	ready(ctx context.Context, e engines.Engine, prepare func() error) error
	// abandon tells the other shards why this one's setup failed before
	// ready's first start, so that they stop it too instead of waiting
	// for this shard there.
	abandon(ctx context.Context, why *loops.StopReason)
	// stopped is the error of a closed loop that ended before its last
	// level: the shards stopped it, or the run was interrupted.
	stopped(ctx context.Context) error
	// lost is the coordinator's failure, once it cannot be reached: every
	// later start stops at once.
	lost() error
}

// errInterrupted ends a setup whose start the run's interrupt called off:
// the setup has no error of its own (the run is marked interrupted).
var errInterrupted = errors.New("interrupted")

// shardsStopped is a setup that the shards stopped together at a start:
// why is another shard's reason, or this one's that every shard heeded.
type shardsStopped struct{ why *loops.StopReason }

func (e shardsStopped) Error() string { return "stopped with the other shards: " + e.why.Why }

// stoppedErr is the error of a setup whose start was called off for why.
func stoppedErr(ctx context.Context, why *loops.StopReason) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	return shardsStopped{why}
}

// alone is an unsharded run's shardSteps: the process prepares its own
// index, and nothing waits for anyone.
type alone struct{}

func (alone) barrier() loops.Barrier { return nil }

func (alone) ready(_ context.Context, _ engines.Engine, prepare func() error) error { return prepare() }

func (alone) abandon(context.Context, *loops.StopReason) {}

func (alone) stopped(context.Context) error { return nil }

func (alone) lost() error { return nil }

// shardStepsFor are setup s's steps for the plan's sharding.
func (r *run) shardStepsFor(s Setup) shardSteps {
	if r.plan.Shard == nil {
		return alone{}
	}
	sh := &shardSetup{run: r, setup: s.Name(), driver: s.Driver}
	if r.coord.client != nil {
		sh.b = loops.BarrierFunc(sh.wait)
	}
	return sh
}

// shardSetup is one setup's steps on a shard of a sharded run.
type shardSetup struct {
	*run
	setup, driver string
	b             loops.Barrier // nil: the run is not synchronised
	prepared      bool          // ready reached its first start
	last          *loops.StopReason
}

func (sh *shardSetup) barrier() loops.Barrier { return sh.b }

// wait is the setup's Barrier: the coordinator's start, the latest one
// called off kept for stopped.
func (sh *shardSetup) wait(ctx context.Context, at loops.Start) (time.Time, *loops.StopReason) {
	t0, why := sh.startTogether(ctx, sh.setup, at)
	if why != nil {
		sh.last = why
	}
	return t0, why
}

func (sh *shardSetup) ready(ctx context.Context, e engines.Engine, prepare func() error) error {
	index := sh.plan.Shard.Index
	attacher, canAttach := e.(engines.Attacher)
	switch {
	case index == 0:
		if err := prepare(); err != nil {
			return err
		}
	case !canAttach:
		return fmt.Errorf("%s cannot use an index another shard created (its driver has no Attach); run it unsharded", sh.driver)
	default:
		sh.logf(sh.setup, "shard %s: shard 0 creates, pre-populates and checks the index", sh.plan.Shard.Share())
	}
	sh.prepared = true
	if _, why := loops.Wait(ctx, sh.b, loops.Start{Window: result.PreparedWindow}); why != nil {
		return stoppedErr(ctx, why)
	}
	var err error
	if index > 0 {
		// The index is there now: shard 0 made it before the start above.
		if aerr := attacher.Attach(ctx, sh.plan.Source.Schema()); aerr != nil {
			err = fmt.Errorf("attach to the index shard 0 created: %v", aerr)
		}
	}
	attached := loops.Start{Window: result.AttachedWindow}
	if err != nil {
		attached.Stop = &loops.StopReason{Why: firstLine(err.Error())}
	}
	_, why := loops.Wait(ctx, sh.b, attached)
	switch {
	case err != nil:
		return err
	case why != nil:
		return stoppedErr(ctx, why)
	}
	return nil
}

func (sh *shardSetup) abandon(ctx context.Context, why *loops.StopReason) {
	if sh.b != nil && !sh.prepared {
		sh.b.Wait(ctx, loops.Start{Window: result.PreparedWindow, Stop: why})
	}
}

func (sh *shardSetup) stopped(ctx context.Context) error {
	if sh.last == nil {
		return nil // not called off at a start: only an interrupt ends the loop early
	}
	return stoppedErr(ctx, sh.last)
}

func (sh *shardSetup) lost() error { return sh.coord.lost }

// coordination is a sharded run's link to its coordinator; without a
// client the run is not synchronised.
type coordination struct {
	client *shard.Client
	starts []result.ShardStart
	// lost is set once the coordinator cannot be reached: every later
	// start stops at once, with it as the reason.
	lost error
}

// startTogether waits at the coordinator for setup's start at, then until
// the instant every shard starts: that instant on this process's clock,
// or why the start is called off. The instant is the loop's origin, not
// the moment the wait returns: every shard's ramp, window and intervals
// are then on the one agreed grid (up to its clock estimate's error),
// however late each woke. The lateness logged and recorded is how late
// this shard's load began after it: the loops build everything before
// they wait, so the load begins as the wait returns.
func (r *run) startTogether(ctx context.Context, setup string, at loops.Start) (time.Time, *loops.StopReason) {
	c := &r.coord
	name := setup + " " + at.Window.String()
	if c.lost != nil {
		return time.Time{}, &loops.StopReason{Why: c.lost.Error()}
	}
	own := "" // the coordinator's protocol: "" is ready
	if at.Stop != nil {
		own = at.Stop.Why
	}
	s, err := c.client.Start(ctx, name, own)
	switch {
	case ctx.Err() != nil:
		return time.Time{}, &loops.StopReason{Why: "interrupted"}
	case err != nil:
		c.lost = errors.New("coordinator: " + firstLine(err.Error()))
		return time.Time{}, &loops.StopReason{Why: c.lost.Error()}
	case s.Stop != "":
		return time.Time{}, &loops.StopReason{Why: s.Stop}
	}
	pace.Until(ctx, s.At)
	late := time.Since(s.At)
	if ctx.Err() != nil {
		return time.Time{}, &loops.StopReason{Why: "interrupted"}
	}
	c.starts = append(c.starts, result.ShardStart{Phase: name, Offset: result.Duration(s.Offset), RTT: result.Duration(s.RTT), Late: result.Duration(late)})
	st := c.starts[len(c.starts)-1]
	c.client.Report(event.Event{Kind: event.Start, Setup: setup, Window: at.Window, Start: &st}) // shardlive.go
	r.logf(setup, "%s: started with the other shards (clock offset %v ± %v, %v late)", at.Window, s.Offset, s.RTT/2, late.Round(time.Microsecond))
	return s.At, nil
}

// register connects to the plan's coordinator, if it has one, and waits
// for every shard to register.
func (r *run) register(ctx context.Context, host string) error {
	sp := r.plan.Shard
	if sp.Coordinator == "" {
		r.logf("", "shard %s: no coordinator; running unsynchronised", sp.Share())
		return nil
	}
	r.logf("", "shard %s: registering with the coordinator at %s", sp.Share(), sp.Coordinator)
	c, err := shard.Dial(ctx, sp.Coordinator, shard.Hello{Index: sp.Index, Count: sp.Count, Digest: r.plan.Digest(), Plan: r.plan.DigestFields(), Host: host}, sp.RegisterTimeout)
	if err != nil {
		return err
	}
	r.logf("", "shard %s: all %d shards registered", sp.Share(), sp.Count)
	r.coord.client = c
	r.obs = event.Observers(r.obs, coordinatorObserver(c)) // the coordinator's live view (shardlive.go)
	return nil
}

// coordinatorStop is the cause of a shard's run ending because its
// coordinator asked the shards to stop (it was interrupted).
type coordinatorStop struct{ why string }

func (e *coordinatorStop) Error() string { return "stopped by the coordinator (" + e.why + ")" }

// heed is ctx, ended also when the coordinator asks the shards to stop: the
// run ends as an interrupted one, and submit sends it what was measured.
func (r *run) heed(ctx context.Context) (context.Context, context.CancelFunc) {
	c := r.coord.client
	if c == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-c.Stopped():
			stop := &coordinatorStop{c.StopReason()}
			r.logf("", "%s: stopping, and sending it what was measured", stop)
			cancel(stop)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// interruptReason is the Reason of a run whose ctx ended.
func interruptReason(ctx context.Context) string {
	if stop := (*coordinatorStop)(nil); errors.As(context.Cause(ctx), &stop) {
		return stop.Error()
	}
	return "interrupted"
}

// submit sends the result to the coordinator. It runs after an interrupt
// too (the coordinator keeps what a shard measured), bounded on its own
// and by ctx's cleanup context (WithCleanup).
func (r *run) submit(ctx context.Context, res *result.Result) {
	c := r.coord.client
	if c == nil {
		return
	}
	defer c.Close()
	sctx, cancel := afterEnd(ctx, 30*time.Second)
	defer cancel()
	err := c.Submit(sctx, res)
	if n := c.Dropped(); n > 0 {
		r.logf("", "the coordinator's live view missed %d of this shard's events (the link was slow; the result is whole)", n)
	}
	if err != nil {
		w := "the coordinator did not receive this shard's result: " + err.Error()
		res.Warnings = append(res.Warnings, result.Note(w))
		r.logf("", "%s", w)
		return
	}
	r.logf("", "sent the result to the coordinator")
}

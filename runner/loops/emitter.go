package loops

import (
	"context"
	"time"

	"github.com/searchbench/searchbench/engines/quote"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
)

// Emitter is how the loops report what they do: each event.Event goes to
// Observer, labelled with Setup, so a library caller watching a loop gets
// the same stream Run's Observer (and so the CLI's log and the live view)
// gets. The zero Emitter sends nothing.
type Emitter struct {
	Setup    string
	Observer event.Observer // nil: no one watches
	// scrub, when set, removes the setup's secrets from warnings before
	// any observer sees them: a warning may quote a failure's message, and
	// an observer may show it to anyone who can open a page.
	scrub *quote.Scrubber
}

// emit sends e, labelled with the setup.
func (em Emitter) emit(e event.Event) {
	if em.Observer == nil {
		return
	}
	e.Setup = em.Setup
	if e.Kind == event.Warning && em.scrub != nil {
		e.Text = em.scrub.String(e.Text)
	}
	em.Observer.Observe(e)
}

// phase says closed-loop level w of users enters phase for d.
func (em Emitter) phase(w result.Window, users int, phase string, d time.Duration) {
	em.emit(event.Event{Kind: event.Phase, Window: w, Users: users, Phase: phase, Duration: d})
}

// warn sends each of the window's warnings ("level 2 users=50", "rung 3",
// "ladder") as soon as the window's figures are final: a watcher sees
// them while the run goes on rather than in the result at its end.
func (em Emitter) warn(window result.Window, warnings result.Warnings) {
	for _, w := range warnings {
		em.emit(event.Event{Kind: event.Warning, Window: window, Text: w.String()})
	}
}

// live is the collector's callback for the window ("level 2
// users=50", "rung 3 rep 1"): each interval as it closes, and each once
// more, final, as the window's timeline has it (see record.LiveFunc); nil when no
// one listens, so the collector does not build snapshots for nobody.
func (em Emitter) live(window result.Window) record.LiveFunc {
	if em.Observer == nil {
		return nil
	}
	return func(iv result.Interval) { em.emit(event.Event{Kind: event.Interval, Window: window, Interval: &iv}) }
}

// Barrier is where a sharded run's processes start together: before each
// synchronised start (each closed-loop level, each rung's repetition) the
// loop waits there. It is a control seam, not an observation: its answer
// decides whether the loop goes on.
type Barrier interface {
	// Wait returns at the instant the load starts, that instant on this
	// process's clock (the agreed one, which the return may be a little
	// after: the loop's ramp, window and intervals are timed from it), or
	// why this start is called off instead (this process's reason,
	// at.Stop, or another shard's: any shard's stop stops all).
	Wait(ctx context.Context, at Start) (time.Time, *StopReason)
}

// BarrierFunc adapts a function to a Barrier.
type BarrierFunc func(ctx context.Context, at Start) (time.Time, *StopReason)

// Wait calls f(ctx, at).
func (f BarrierFunc) Wait(ctx context.Context, at Start) (time.Time, *StopReason) { return f(ctx, at) }

// Start is a synchronised start: its window ("level 2 users=50", "rung 3
// rep 1", "prepared") and this process's reason to stop there, nil when it
// is ready to go on.
type Start struct {
	Window result.Window
	Stop   *StopReason
}

// StopReason is why a start was called off ("interrupted", "failed: …",
// "p99 … is more than 50 × the first rung's"); it is never empty.
type StopReason struct{ Why string }

// Wait waits at b and returns the instant the load starts; with no
// barrier, that is now, and only this process's own reason stops.
func Wait(ctx context.Context, b Barrier, at Start) (time.Time, *StopReason) {
	if b == nil {
		return time.Now(), at.Stop
	}
	return b.Wait(ctx, at)
}

// NewEmitter is the Emitter of a setup whose warnings may quote its
// secrets: they are removed before obs sees them.
func NewEmitter(setup string, obs event.Observer, secrets ...string) Emitter {
	return Emitter{Setup: setup, Observer: obs, scrub: quote.NewScrubber(secrets...)}
}

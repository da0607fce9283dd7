// Package pace waits for due times: the runner's one place for sleeping,
// spinning and kernel timers. Every wait is for an absolute time on the
// monotonic clock, ends early when its context ends (false), and never
// returns true before the time. There are three, by how much lateness
// costs the caller:
//
//   - Sleep waits on Go's timers. An idle process's timers wake up to a
//     millisecond late (the runtime's epoll_wait takes a timeout in whole
//     milliseconds), which is fine where nothing is timed from the wake-up:
//     the closed loop's ramp, the freshness prober's pauses.
//   - Until sleeps and then spins through the last stretch when the process
//     has a P to spare: a one-off wait that should be on time, such as a
//     sharded run's synchronised start.
//   - A Waiter waits for a sequence of due times, as the open loop's
//     scheduler does, where the lateness is charged to every call (latency
//     runs from the intended time). Where the platform has one (Linux:
//     timerfd) it sleeps on a kernel timer the runtime's network poller
//     watches, which wakes it within microseconds without a core spent
//     spinning; elsewhere it falls back to Until's sleep and spin.
//
// bench/README.md has the measured lateness and CPU of each way
// (BenchmarkWaiterLateness, and bench/loopback's BenchmarkLadderRates and
// BenchmarkLadderOneCPU).
package pace

import (
	"context"
	"runtime"
	"time"
)

// Sleep waits for t on Go's timers; false when ctx ended first.
func Sleep(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// Until waits for t, sleeping and then spinning through the last part of
// the wait as spinFor allows with the process's Ps; false when ctx ended
// first.
func Until(ctx context.Context, t time.Time) bool {
	return spinUntil(ctx, t, spinFor(runtime.GOMAXPROCS(0)))
}

// spinBelow: the last stretch of a wait that Until spins (yielding to
// other goroutines) instead of sleeping, because a timer wakes up to a
// millisecond late and an open-loop schedule's gaps at tens of thousands
// of calls per second are tens of microseconds.
const spinBelow = 2 * time.Millisecond

// spinFor is how much of each wait is spun with procs Ps. With one P none
// of it: the runtime polls the network only when a P has nothing to run
// (or when sysmon does, every 10 ms), so a goroutine spinning on the only
// P keeps the answers to the calls it sent from being seen, and their
// service time grows by up to sysmon's period. Sleeping costs up to a
// millisecond of lateness instead, which the open loop's lag histogram
// shows.
func spinFor(procs int) time.Duration {
	if procs < 2 {
		return 0
	}
	return spinBelow
}

// spinUntil waits for t, sleeping on Go's timers and then spinning through
// the last spin of the wait; false when ctx ended first.
func spinUntil(ctx context.Context, t time.Time, spin time.Duration) bool {
	if d := time.Until(t) - spin; d > 0 && !Sleep(ctx, t.Add(-spin)) {
		return false
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return ctx.Err() == nil
}

// preciseSpin is how much of each wait a Waiter on a precise clock spins
// when it has a P to spare (two or more): a wake-up from the kernel takes
// a few to tens of microseconds, a spinning goroutine none. With one P it
// spins none of it (spinFor says why).
const preciseSpin = 20 * time.Microsecond

// preciseGapMin: with one P, due times closer together than this are
// waited for as Until waits, on Go's timers, which hand several calls over
// per wake-up. Each precise wake-up costs a context switch on the P the
// calls need; above this rate (about 6,700 due times a second) the
// wake-ups cost more latency than they save.
const preciseGapMin = 150 * time.Microsecond

// Waiter waits for a sequence of due times, on a precise clock where there
// is one. It is not safe for concurrent use; Close releases its clock.
type Waiter struct {
	ctx   context.Context
	procs int
	spin  time.Duration
	clk   clock     // nil: Go's timers
	prev  time.Time // the last due time waited for
}

// clock is a precise one-shot timer: wait blocks the goroutine, not its
// thread, until d has passed or the clock's context ended (false).
type clock interface {
	wait(d time.Duration) bool
	close()
}

// New returns a Waiter for a process with procs Ps whose waits end when
// ctx does.
func New(ctx context.Context, procs int) *Waiter {
	w := &Waiter{ctx: ctx, procs: procs, spin: spinFor(procs)}
	if c, err := newClock(ctx); err == nil {
		w.clk = c
		if procs >= 2 {
			w.spin = preciseSpin
		}
	}
	return w
}

// Until waits for t; false when the context ended first.
func (w *Waiter) Until(t time.Time) bool {
	gap := t.Sub(w.prev)
	w.prev = t
	if w.clk == nil || (w.procs < 2 && gap < preciseGapMin) {
		return spinUntil(w.ctx, t, w.spin)
	}
	if d := time.Until(t) - w.spin; d > 0 && !w.clk.wait(d) {
		return false
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return w.ctx.Err() == nil
}

// Close releases the Waiter's clock.
func (w *Waiter) Close() {
	if w.clk != nil {
		w.clk.close()
	}
}

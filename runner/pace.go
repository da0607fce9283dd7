package runner

import (
	"context"
	"runtime"
	"time"
)

// preciseSpin is how much of each wait the open loop's scheduler spins
// when it has a P to spare (two or more): a wake-up from the kernel takes
// a few to tens of microseconds, a spinning goroutine none. With one P it
// spins none of it (spinFor says why).
const preciseSpin = 20 * time.Microsecond

// waiter waits for the open loop's due times. Go's timers cannot wait less
// than a millisecond once the P is idle (the runtime's epoll_wait takes a
// timeout in whole milliseconds and rounds a shorter one up to 1 ms), so a
// scheduler that sleeps on them hands calls over up to a millisecond late,
// and that lateness is counted, rightly, in latency from the intended time:
// at 5,000 calls/s on one CPU, p50 0.4 ms above vegeta's and wrk's (issue
// 19). Where the platform has one (Linux: timerfd, newClock), the waiter
// sleeps on a kernel timer the runtime's network poller watches, which
// wakes it within microseconds without a core spent spinning; elsewhere it
// falls back to Go's timers.
type waiter struct {
	ctx   context.Context
	procs int
	spin  time.Duration
	clk   clock     // nil: Go's timers
	prev  time.Time // the last due time waited for
}

// preciseGapMin: with one P, due times closer together than this are
// waited for on Go's timers, which hand several calls over per wake-up.
// Each precise wake-up costs a context switch — about 35 µs of CPU on the
// development VM (BenchmarkWaiterLateness) — on the P the calls need: at
// 10,000 calls/s on one P the wake-ups cost more latency than they saved
// (bench/loopback BenchmarkLadderRates), at 5,000/s they cut p50 from
// 1.1 ms to 0.13 ms.
const preciseGapMin = 150 * time.Microsecond

// clock is a precise one-shot timer: wait blocks the goroutine, not its
// thread, until d has passed or the clock is closed (false).
type clock interface {
	wait(d time.Duration) bool
	close()
}

func newWaiter(ctx context.Context, procs int) *waiter {
	w := &waiter{ctx: ctx, procs: procs, spin: spinFor(procs)}
	if c, err := newClock(ctx); err == nil {
		w.clk = c
		if procs >= 2 {
			w.spin = preciseSpin
		}
	}
	return w
}

// until waits for t; false when the context ended first.
func (w *waiter) until(t time.Time) bool {
	gap := t.Sub(w.prev)
	w.prev = t
	if w.clk == nil || (w.procs < 2 && gap < preciseGapMin) {
		return waitUntil(w.ctx, t, w.spin)
	}
	if d := time.Until(t) - w.spin; d > 0 && !w.clk.wait(d) {
		return false
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return w.ctx.Err() == nil
}

func (w *waiter) close() {
	if w.clk != nil {
		w.clk.close()
	}
}

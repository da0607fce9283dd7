package pace

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerfd is a non-blocking timerfd registered with the runtime's network
// poller (os.NewFile of a non-blocking descriptor), so a read parks the
// goroutine and the poller wakes it when the timer expires, at the kernel
// timer's resolution, not the poller's millisecond.
type timerfd struct {
	ctx  context.Context
	f    *os.File
	fd   int
	buf  [8]byte
	stop func() bool
}

func newClock(ctx context.Context) (clock, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	t := &timerfd{ctx: ctx, f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
	// Only a descriptor the poller watches parks the goroutine (a deadline
	// is refused otherwise); without one, Go's timers it is.
	if err := t.f.SetReadDeadline(time.Time{}); err != nil {
		t.f.Close()
		return nil, err
	}
	// An ended context makes the pending read (and every later one) fail.
	t.stop = context.AfterFunc(ctx, func() { t.f.SetReadDeadline(time.Unix(1, 0)) })
	return t, nil
}

func (t *timerfd) wait(d time.Duration) bool {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.fd, 0, &spec, nil); err != nil {
		return Sleep(t.ctx, time.Now().Add(d)) // not expected; Go's timer will do
	}
	if _, err := t.f.Read(t.buf[:]); err != nil {
		return t.ctx.Err() == nil && Sleep(t.ctx, time.Now().Add(d))
	}
	return true
}

func (t *timerfd) close() {
	t.stop()
	t.f.Close()
}

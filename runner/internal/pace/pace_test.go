package pace

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A Waiter never hands a call over before its due time, and an ended
// context ends a wait in progress.
func TestWaiterNotEarlyAndCancels(t *testing.T) {
	for _, procs := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		w := New(ctx, procs)
		for i := range 50 {
			due := time.Now().Add(time.Duration(i*37) * time.Microsecond)
			if !w.Until(due) {
				t.Fatalf("procs %d: wait %d failed with the context alive", procs, i)
			}
			if now := time.Now(); now.Before(due) {
				t.Fatalf("procs %d: woke %v before the due time", procs, due.Sub(now))
			}
		}
		done := make(chan bool, 1)
		go func() { done <- w.Until(time.Now().Add(time.Hour)) }()
		time.Sleep(10 * time.Millisecond)
		cancel()
		select {
		case ok := <-done:
			if ok {
				t.Fatalf("procs %d: a cancelled wait reported success", procs)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("procs %d: cancelling did not end the wait", procs)
		}
		if w.Until(time.Now().Add(time.Millisecond)) {
			t.Fatalf("procs %d: a wait after cancelling reported success", procs)
		}
		w.Close()
	}
}

// Sleep and Until never return true before the time, return false once
// the context has ended, and an ended context ends a wait in progress.
func TestSleepAndUntil(t *testing.T) {
	for name, wait := range map[string]func(context.Context, time.Time) bool{"Sleep": Sleep, "Until": Until} {
		ctx, cancel := context.WithCancel(context.Background())
		for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 3 * time.Millisecond} {
			due := time.Now().Add(d)
			if !wait(ctx, due) {
				t.Fatalf("%s: a wait of %v failed with the context alive", name, d)
			}
			if now := time.Now(); now.Before(due) {
				t.Fatalf("%s: woke %v before the time", name, due.Sub(now))
			}
		}
		time.AfterFunc(10*time.Millisecond, cancel)
		begun := time.Now()
		if wait(ctx, begun.Add(time.Hour)) {
			t.Fatalf("%s: a cancelled wait reported success", name)
		}
		if took := time.Since(begun); took > 10*time.Second {
			t.Fatalf("%s: cancelling took %v to end the wait", name, took)
		}
		if wait(ctx, time.Now()) {
			t.Fatalf("%s: a wait after cancelling reported success", name)
		}
	}
}

// BenchmarkWaiterLateness: how late a Waiter wakes for due times 200 µs
// apart (the open loop's scheduler at 5,000 calls/s) with one P, on its
// precise clock and on Go's timers alone: p50 and p99 lateness in µs, and
// the CPU the waiting costs per wait.
func BenchmarkWaiterLateness(b *testing.B) {
	for _, name := range []string{"waiter", "gotimer"} {
		b.Run(name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			ctx := context.Background()
			w := New(ctx, 1)
			defer w.Close()
			if name == "gotimer" {
				w.clk = nil
			}
			h := hdrhistogram.New(1, 10_000_000, 3)
			cpu0 := cpuTime()
			start := time.Now()
			n := 0
			for b.Loop() {
				due := start.Add(time.Duration(n+1) * 200 * time.Microsecond)
				n++
				w.Until(due)
				_ = h.RecordValue(max(int64(time.Since(due)/time.Microsecond), 1))
			}
			b.ReportMetric(float64(h.ValueAtQuantile(50)), "late-p50-µs")
			b.ReportMetric(float64(h.ValueAtQuantile(99)), "late-p99-µs")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(n)/1000, "cpu-µs/wait")
		})
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/searchbench/searchbench/runner/event"
)

// logger writes progress to stderr. On a terminal it draws with mpb: a bar
// for pre-population, a bar for each phase filling over its duration, and a
// one-line running summary, with log lines printed above them. Anywhere else
// (CI, a file) it writes plain timestamped lines and never a control
// character: pre-population every 10%, each phase as it starts, the running
// summary every plainSummaryEvery.
type logger struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	forceTTY bool // tests: draw as on a terminal into w

	prog      *mpb.Progress // bars on screen; nil when none
	statusBar *mpb.Bar
	statusTxt atomic.Pointer[string] // read by mpb's render goroutine, which must not take mu
	phaseBar  *mpb.Bar
	phaseStop chan struct{}

	live      liveKey   // the level the running summary is about
	lastOps   int64     // its calls at the last summary …
	lastAt    time.Time // … and when
	lastPlain time.Time // the last summary written as a plain line

	preload *bar // the pre-population bar being drawn, if any
}

type liveKey struct {
	engine string
	users  int
}

// plainSummaryEvery spaces the running summary's plain lines: one a second
// would bury the log of a long run.
const plainSummaryEvery = 5 * time.Second

func newLogger(w io.Writer) *logger {
	l := &logger{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			l.terminal = true
		}
	}
	return l
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.printLocked(format, args...)
}

func (l *logger) printLocked(format string, args ...any) {
	line := fmt.Sprintf("%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	if l.prog != nil {
		l.prog.Write([]byte(line)) // printed above the bars
		return
	}
	io.WriteString(l.w, line)
}

// container starts the bars' container if none is on screen.
func (l *logger) containerLocked() *mpb.Progress {
	if l.prog == nil {
		opts := []mpb.ContainerOption{mpb.WithOutput(l.w), mpb.WithWidth(100), mpb.WithRefreshRate(150 * time.Millisecond)}
		if l.forceTTY {
			opts = append(opts, mpb.ForceTTY(), mpb.WithAutoRefresh())
		}
		l.prog = mpb.New(opts...)
	}
	return l.prog
}

// status shows a line that the next one replaces on a terminal; elsewhere
// it is a plain line.
func (l *logger) status(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statusLocked(fmt.Sprintf(format, args...))
}

func (l *logger) statusLocked(text string) {
	if !l.terminal {
		l.printLocked("%s", text)
		return
	}
	l.statusTxt.Store(&text)
	if l.statusBar == nil {
		l.statusBar = l.containerLocked().New(0, mpb.NopStyle(), mpb.BarPriority(math.MaxInt),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
				if s := l.statusTxt.Load(); s != nil {
					return *s
				}
				return ""
			})))
	}
}

// endStatus takes every bar off the screen: what follows is plain lines.
func (l *logger) endStatus() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
}

func (l *logger) endLocked() {
	l.endPhaseLocked()
	if l.statusBar != nil {
		l.statusBar.SetTotal(-1, true)
		l.statusBar = nil
	}
	if l.prog != nil {
		l.prog.Wait()
		l.prog = nil
	}
}

func (l *logger) endPhaseLocked() {
	if l.phaseStop != nil {
		close(l.phaseStop)
		l.phaseStop = nil
	}
	if l.phaseBar != nil {
		l.phaseBar.SetTotal(-1, true)
		l.phaseBar = nil
	}
}

// bar is a progress bar: drawn by mpb on a terminal, a line every 10%
// otherwise.
type bar struct {
	l     *logger
	label string
	mu    sync.Mutex
	last  int // last tenth reported
	mpb   *mpb.Bar
}

func (l *logger) progress(label string) *bar {
	b := &bar{l: l, label: label, last: -1}
	if l.terminal {
		l.mu.Lock()
		b.mpb = l.containerLocked().New(0, mpb.BarStyle(),
			mpb.PrependDecorators(decor.Name(label+" ")),
			mpb.AppendDecorators(decor.CountersNoUnit(" %d/%d "), decor.Percentage(), decor.AverageSpeed(nil, " %.0f/s")))
		l.mu.Unlock()
	}
	return b
}

func (b *bar) update(done, total int) {
	if total <= 0 {
		return
	}
	if b.mpb != nil {
		b.mpb.SetTotal(int64(total), false)
		b.mpb.SetCurrent(int64(done))
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if tenth := done * 10 / total; tenth > b.last {
		b.last = tenth
		b.l.printf("%s: %d%% (%d/%d)", b.label, tenth*10, done, total)
	}
}

func (b *bar) done() {
	if b.mpb != nil {
		b.mpb.SetTotal(-1, true)
	}
	b.l.endStatus()
}

// phase shows a phase of a level starting: a line, and on a terminal a bar
// that fills over the phase's duration. A phase of no set length (the
// drain) ends the bar.
func (l *logger) phase(engine string, users int, phase string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endPhaseLocked()
	if phase == "measure" {
		l.live, l.lastOps, l.lastAt, l.lastPlain = liveKey{engine, users}, 0, time.Now(), time.Time{}
	}
	if l.statusBar != nil && d > 0 {
		// The previous level's summary would read as this one's.
		l.statusLocked(fmt.Sprintf("%s: %d users: %s", engine, users, phase))
	}
	if d <= 0 {
		return
	}
	l.printLocked("%s: %d users: %s %v", engine, users, phase, d.Round(time.Millisecond))
	if !l.terminal {
		return
	}
	total := d.Milliseconds()
	b := l.containerLocked().New(max(total, 1), mpb.BarStyle(), mpb.BarPriority(0), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(fmt.Sprintf("%s: %d users: %s ", engine, users, phase))),
		mpb.AppendDecorators(decor.Any(func(s decor.Statistics) string {
			return fmt.Sprintf(" %v / %v", (time.Duration(s.Current) * time.Millisecond).Round(100*time.Millisecond), d.Round(time.Millisecond))
		})))
	stop := make(chan struct{})
	l.phaseBar, l.phaseStop = b, stop
	start := time.Now()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if e := time.Since(start).Milliseconds(); e < total {
					b.SetCurrent(e)
				} else {
					b.SetCurrent(total)
					return
				}
			}
		}
	}()
}

// running is the live summary of the level being measured: calls per second
// over the last interval, errors and calls so far, and the p50 so far when
// the runner gives one (NaN: not known).
func (l *logger) running(engine string, users int, ops, errs int64, p50ms float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if k := (liveKey{engine, users}); l.live != k {
		l.live, l.lastOps, l.lastAt, l.lastPlain = k, 0, now, time.Time{}
	}
	rate := 0.0
	if dt := now.Sub(l.lastAt).Seconds(); dt > 0 {
		rate = float64(ops-l.lastOps) / dt
	}
	l.lastOps, l.lastAt = ops, now
	text := fmt.Sprintf("%s: %d users: %.0f ops/s, %d errors", engine, users, rate, errs)
	if !math.IsNaN(p50ms) {
		text += fmt.Sprintf(", p50 %.3g ms", p50ms)
	}
	text += fmt.Sprintf(", %d calls measured", ops)
	if !l.terminal {
		if now.Sub(l.lastPlain) < plainSummaryEvery {
			return
		}
		l.lastPlain = now
	}
	l.statusLocked(text)
}

// Observe draws the run's events: the logger is the CLI's event.Observer.
func (l *logger) Observe(e event.Event) {
	switch e.Kind {
	case event.Log:
		if e.Setup != "" {
			l.printf("%s: %s", e.Setup, e.Text)
		} else {
			l.printf("%s", e.Text)
		}
	case event.Preload:
		if l.preload == nil {
			l.preload = l.progress(e.Setup + ": pre-populate")
		}
		l.preload.update(e.Done, e.Total)
	case event.PreloadDone:
		if l.preload != nil {
			l.preload.done()
			l.preload = nil
		}
	case event.Phase:
		l.phase(e.Setup, e.Users, e.Phase, e.Duration)
	case event.Progress:
		ms := math.NaN()
		if e.P50 >= 0 {
			ms = float64(e.P50) / float64(time.Millisecond)
		}
		l.running(e.Setup, e.Users, e.Ops, e.Errs, ms)
	case event.Rung:
		l.printf("%s: %.0f/s: repetition %d of %d", e.Setup, e.Rate, e.Rep, e.Reps)
	case event.SetupDone:
		l.endStatus()
	}
}

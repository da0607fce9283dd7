package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// logger writes progress to stderr: a line rewritten in place on a terminal,
// plain timestamped lines otherwise (CI), never a wall of control characters.
type logger struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	open     bool // a status line is on screen and must be ended first
}

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
	l.endLocked()
	fmt.Fprintf(l.w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// status shows a line that the next one replaces on a terminal.
func (l *logger) status(format string, args ...any) {
	if !l.terminal {
		l.printf(format, args...)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s %s", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	l.open = true
}

func (l *logger) endStatus() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
}

func (l *logger) endLocked() {
	if l.open {
		fmt.Fprintln(l.w)
		l.open = false
	}
}

// bar is a progress bar: redrawn in place on a terminal, a line every 10%
// otherwise.
type bar struct {
	l     *logger
	label string
	mu    sync.Mutex
	last  int // last tenth or redraw tick reported
	t     time.Time
}

func (l *logger) progress(label string) *bar { return &bar{l: l, label: label, last: -1} }

func (b *bar) update(done, total int) {
	if total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.l.terminal {
		if tenth := done * 10 / total; tenth > b.last {
			b.last = tenth
			b.l.printf("%s: %d%% (%d/%d)", b.label, tenth*10, done, total)
		}
		return
	}
	if time.Since(b.t) < 100*time.Millisecond && done < total {
		return
	}
	b.t = time.Now()
	const width = 30
	fill := done * width / total
	b.l.status("%s [%s%s] %d/%d", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
}

func (b *bar) done() { b.l.endStatus() }

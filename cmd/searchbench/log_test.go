package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
)

// syncBuffer is a buffer that mpb's goroutine and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLoggerWritesPlainLinesOffTerminal(t *testing.T) {
	var out syncBuffer
	l := newLogger(&out)
	for i := 0; i <= 1000; i += 7 {
		l.Observe(event.Event{Kind: event.Preload, Setup: "bleve", Done: i, Total: 1000})
	}
	l.Observe(event.Event{Kind: event.Preload, Setup: "bleve", Done: 1000, Total: 1000})
	l.Observe(event.Event{Kind: event.PreloadDone, Setup: "bleve"})
	phase := func(name string, d time.Duration) {
		l.Observe(event.Event{Kind: event.Phase, Setup: "bleve", Users: 50, Phase: name, Duration: d})
	}
	phase("settle", 3*time.Second)
	phase("measure", 15*time.Second)
	for i := int64(1); i <= 5; i++ { // five calls within a second: one line
		l.Observe(event.Event{Kind: event.Progress, Setup: "bleve", Users: 50, Ops: 1000 * i, Errs: i - 1, P50: 2500 * time.Microsecond})
	}
	phase("drain", 0)
	l.endStatus()
	s := out.String()
	if strings.ContainsAny(s, "\r\x1b") {
		t.Errorf("control characters off a terminal:\n%q", s)
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var pre, summary int
	for _, line := range lines {
		if strings.Contains(line, "pre-populate:") {
			pre++
		}
		if strings.Contains(line, "ops/s") {
			summary++
			if !strings.Contains(line, "bleve: 50 users:") || !strings.Contains(line, "0 errors") || !strings.Contains(line, "1000 calls measured") {
				t.Errorf("summary line %q", line)
			}
			if !strings.Contains(line, "p50 2.5") {
				t.Errorf("summary %q lacks the runner's p50 (2.5 ms)", line)
			}
		}
	}
	if pre != 11 || summary != 1 {
		t.Errorf("%d pre-population lines (want 11, one per 10%%) and %d summary lines (want 1 within 5 s):\n%s", pre, summary, s)
	}
	for _, want := range []string{"bleve: 50 users: settle 3s", "bleve: 50 users: measure 15s"} {
		if !strings.Contains(s, want) {
			t.Errorf("no line %q:\n%s", want, s)
		}
	}
}

func TestLoggerDrawsBarsOnATerminal(t *testing.T) {
	var out syncBuffer
	l := &logger{w: &out, terminal: true, forceTTY: true}
	b := l.progress("bleve: pre-populate")
	b.update(500, 1000)
	time.Sleep(200 * time.Millisecond)
	b.update(1000, 1000)
	b.done()
	l.printf("bleve: loaded")
	l.phase("bleve", 10, "measure", 400*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	l.running("bleve", 10, 2500, 3, 3.21)
	time.Sleep(400 * time.Millisecond)
	l.printf("between bars")
	l.endStatus()
	s := out.String()
	for _, want := range []string{"bleve: pre-populate", "1000/1000", "bleve: 10 users: measure", "ops/s, 3 errors, p50 3.21 ms, 2500 calls measured", "bleve: loaded", "between bars"} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, s)
		}
	}
	if !strings.Contains(s, "\x1b[") {
		t.Errorf("no cursor control: the bars were not redrawn in place:\n%q", s)
	}
}

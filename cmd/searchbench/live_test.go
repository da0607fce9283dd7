package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// `run --live` serves the run's events while it goes on, ends the stream
// when the run is done, and the server is gone when the command returns.
// The intervals' final counts a page sums are the result's.
func TestLiveViewServesTheRun(t *testing.T) {
	t.Parallel()
	// A free port: taken and given back, so the CLI can bind it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	type stream struct {
		totals map[string]int64
		last   string
		err    error
	}
	got := make(chan stream, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		latest := map[pageKey]result.Interval{}
		s := stream{totals: map[string]int64{}}
		s.last, s.err = followLive(ctx, addr, func(m event.Event) {
			if m.Interval != nil {
				latest[pageKey{m.Setup, m.Window, m.Interval.Start}] = *m.Interval
			}
		})
		for _, iv := range latest {
			for _, o := range iv.Ops {
				s.totals[o.Op] += o.Count
			}
		}
		got <- s
	}()

	dir := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), quick(dir, "--live", addr)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "live view at http://"+addr+"/") {
		t.Errorf("the URL is not in the log:\n%s", stderr)
	}
	cancel()
	s := <-got
	if s.err != nil {
		t.Fatal(s.err)
	}
	if s.last != "end" {
		t.Errorf("the stream's last message is %q; want the end", s.last)
	}
	res, err := result.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, e := range res.Engines {
		for _, l := range e.Levels {
			for _, o := range l.Ops {
				want[o.Op] += o.Count
			}
		}
	}
	if len(want) == 0 || len(s.totals) != len(want) {
		t.Errorf("streamed totals %v; result's %v", s.totals, want)
	}
	for op, n := range want {
		if s.totals[op] != n {
			t.Errorf("%s: %d calls streamed; result.json has %d", op, s.totals[op], n)
		}
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the live view still serves after the run")
	}
}

// pageKey is an interval's place on the live page: a later message for
// the same one replaces the earlier.
type pageKey struct {
	setup  string
	window result.Window
	start  result.Duration
}

// followLive reads the live view's event stream at addr, connecting as
// soon as the CLI has bound it (until ctx ends), and passes each message
// to f until the stream closes. It returns the last message's kind and the
// first error.
func followLive(ctx context.Context, addr string, f func(event.Event)) (last string, err error) {
	var resp *http.Response
	for {
		if resp, err = http.Get("http://" + addr + "/events"); err == nil {
			break
		}
		if ctx.Err() != nil {
			return "", err
		}
		time.Sleep(20 * time.Millisecond) // the CLI has not bound it yet
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m event.Event
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return last, err
		}
		last = m.Kind.String()
		f(m)
	}
	return last, nil
}

// closeWatch is a listener whose connections, when the server closes them,
// note whether the results were written by then.
type closeWatch struct {
	net.Listener
	results string // result.json's path

	mu       sync.Mutex
	accepted map[string]bool // by the client's address
	closed   map[string]bool // by the client's address: result.json was there
}

func (l *closeWatch) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	l.mu.Lock()
	l.accepted[c.RemoteAddr().String()] = true
	l.mu.Unlock()
	return &watchedConn{Conn: c, l: l}, nil
}

type watchedConn struct {
	net.Conn
	l    *closeWatch
	once sync.Once
}

func (c *watchedConn) Close() error {
	c.once.Do(func() {
		_, err := os.Stat(c.l.results)
		c.l.mu.Lock()
		c.l.closed[c.RemoteAddr().String()] = err == nil
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// A connection to the live view that never completes its request does not
// hold up the results: the server closes it only once result.json is
// written (and the command still returns with the server gone).
func TestAHalfOpenLiveConnectionDoesNotHoldTheResults(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := &closeWatch{Listener: ln, results: filepath.Join(dir, "result.json"), accepted: map[string]bool{}, closed: map[string]bool{}}
	addr := ln.Addr().String()

	// Opened as the level's window opens: the run ends soon after, well
	// within the server's header timeout.
	half := make(chan net.Conn, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go followLive(ctx, addr, func(m event.Event) {
		if m.Kind != event.Phase || m.Phase != "measure" || len(half) > 0 {
			return
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost:") // half a request, never finished
		half <- c
	})

	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	p := runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "bleve"}},
		Closed: &loops.Config{Users: []int{2}, SpawnRate: 1000, Settle: 100 * time.Millisecond, Measure: time.Second,
			Calls: loops.Calls{Timeout: 5 * time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10}}}
	var stderr strings.Builder
	if err := execute(context.Background(), io.Discard, &stderr, p, dir, w); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var c net.Conn
	select {
	case c = <-half:
		defer c.Close()
	default:
		t.Fatal("the half-open connection was never opened (no measure phase came)")
	}
	from := c.LocalAddr().String()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.accepted[from] {
		t.Fatal("the server never accepted the half-open connection")
	}
	if written, ok := w.closed[from]; !ok || !written {
		t.Errorf("the server closed the half-open connection (%v) before result.json was written", ok)
	}
}

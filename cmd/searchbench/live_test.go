package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/live"
	"github.com/searchbench/searchbench/runner/result"
)

// `run --live` serves the run's events while it goes on, ends the stream
// when the run is done, and the server is gone when the command returns.
// The intervals' final counts a page sums are the result's.
func TestLiveViewServesTheRun(t *testing.T) {
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
		latest := map[string]result.Interval{} // by setup, window, start
		s := stream{totals: map[string]int64{}}
		s.last, s.err = followLive(ctx, addr, func(m live.Message) {
			if m.Interval != nil {
				latest[m.Setup+"|"+m.Phase+"|"+m.Interval.Start.String()] = *m.Interval
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

// followLive reads the live view's event stream at addr, connecting as
// soon as the CLI has bound it (until ctx ends), and passes each message
// to f until the stream closes. It returns the last message's kind and the
// first error.
func followLive(ctx context.Context, addr string, f func(live.Message)) (last string, err error) {
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
		var m live.Message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return last, err
		}
		last = m.Kind
		f(m)
	}
	return last, nil
}

package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
)

// messages reads an event stream to its end.
func messages(t *testing.T, body io.Reader) []event.Event {
	t.Helper()
	var out []event.Event
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m event.Event
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("message %q: %v", data, err)
		}
		out = append(out, m)
	}
	return out
}

func kindsOf(ms []event.Event) string {
	var k []string
	for _, m := range ms {
		k = append(k, m.Kind.String())
	}
	return strings.Join(k, ",")
}

// A page open during the run and a page opened after it both receive every
// event in order, a re-sent interval as sent, and the end; both streams end.
func TestStreamsHistoryAndEnds(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	early, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer early.Body.Close()
	iv := result.Interval{Start: result.Duration(time.Second), Length: result.Duration(time.Second),
		Ops: []result.IntervalOp{{Op: "search", Count: 7, Histogram: "HISTFAKE",
			Kinds: []result.IntervalKind{{Kind: "knn", Count: 7, Percentiles: result.Percentiles{P99: 3}, Histogram: "KINDFAKE"}}}}}
	lv1 := result.LevelWindow(0, 2)
	s.Observe(event.Event{Kind: event.Phase, Setup: "bleve", Window: lv1, Users: 2, Phase: "measure", Duration: 2 * time.Second})
	s.Observe(event.Event{Kind: event.Interval, Setup: "bleve", Window: lv1, Interval: &iv})
	first := iv.Ops
	iv.Ops = []result.IntervalOp{{Op: "search", Count: 8}}
	s.Observe(event.Event{Kind: event.Interval, Setup: "bleve", Window: lv1, Interval: &iv})
	s.Observe(event.Event{Kind: event.Warning, Setup: "bleve", Window: lv1, Text: "client-bound"})
	s.Close()
	s.Observe(event.Event{Kind: event.Log, Text: "after the end"})

	late, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer late.Body.Close()
	for name, body := range map[string]io.Reader{"early": early.Body, "late": late.Body} {
		ms := messages(t, body)
		if got, want := kindsOf(ms), "reset,phase,interval,interval,warning,end"; got != want {
			t.Fatalf("%s page: %s; want %s", name, got, want)
		}
		if ms[1].Setup != "bleve" || ms[1].Users != 2 || ms[1].Duration != 2*time.Second || ms[1].Phase != "measure" || ms[1].Window != lv1 || ms[1].T <= 0 {
			t.Errorf("%s page: phase %+v", name, ms[1])
		}
		a, b := ms[2], ms[3]
		if a.Interval.Start != result.Duration(time.Second) || a.Interval.Length != result.Duration(time.Second) || a.Window != lv1 || a.Phase != "" || a.Interval.Ops[0].Count != 7 || b.Interval.Ops[0].Count != 8 {
			t.Errorf("%s page: intervals %+v, %+v", name, a, b)
		}
		if w := ms[4]; w.Window != lv1 || w.Phase != "" || w.Text != "client-bound" {
			t.Errorf("%s page: warning %+v", name, w)
		}
		if a.Interval.Ops[0].Histogram != "" {
			t.Errorf("%s page: the histogram was sent", name)
		}
		if k := a.Interval.Ops[0].Kinds; len(k) != 1 || k[0].Kind != "knn" || k[0].P99 != 3 || k[0].Histogram != "" {
			t.Errorf("%s page: query kinds %+v; want knn's figures without its histogram", name, k)
		}
	}
	if first[0].Histogram != "HISTFAKE" || first[0].Kinds[0].Histogram != "KINDFAKE" {
		t.Error("Observe changed the runner's interval; it must send a copy")
	}
}

// The Observer never waits for a page: a client that never reads is dropped
// once its buffer and the socket's are full, and the run's events go on.
func TestStuckClientIsDroppedNotWaitedFor(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Never read from: the server's writes fill the socket, then block.
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
	for registered := false; !registered; {
		s.mu.Lock()
		registered = len(s.clients) == 1
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond) // waiting for the handler, not timing it
	}

	// Far more than the client's buffer and any socket buffer hold.
	text := strings.Repeat("x", 8<<10)
	events := 4 * clientBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range events {
			s.Observe(event.Event{Kind: event.Log, Text: text})
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a deadlock guard, not a timing claim
		t.Fatal("Observe blocked on a client that does not read")
	}
	if d := s.Dropped(); d != 1 {
		t.Errorf("%d clients dropped; want the stuck one", d)
	}
	s.mu.Lock()
	n := len(s.history)
	s.mu.Unlock()
	if n != events {
		t.Errorf("history holds %d events; want %d", n, events)
	}
}

// stuckClient opens the event stream of s's server at addr and never
// reads it, then fills its socket: the server's handler is left blocked in
// a write, and the client is dropped.
func stuckClient(t *testing.T, s *Server, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
	for registered := false; !registered; {
		s.mu.Lock()
		registered = len(s.clients) == 1
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond) // waiting for the handler, not timing it
	}
	// Far more than the client's buffer and any socket buffer hold.
	text := strings.Repeat("x", 8<<10)
	for range 4 * clientBuffer {
		s.Observe(event.Event{Kind: event.Log, Text: text})
	}
	if s.Dropped() != 1 {
		t.Fatalf("%d clients dropped; the stuck one was not", s.Dropped())
	}
	return conn
}

// Closing the view waits on no client: a handler blocked in a write to a
// client that stopped reading is cut off (closeGrace), not left for its
// write timeout (an hour here), and a client that connects but never
// completes a request is not a stream. Wait returns while the stuck client
// still has not read a byte: it is released only after.
func TestCloseDoesNotWaitOnAStuckClient(t *testing.T) {
	defer func(d time.Duration) { writeTimeout = d }(writeTimeout)
	writeTimeout = time.Hour
	s := New()
	ended := make(chan struct{}, 1) // the stuck client's stream
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r)
		if r.URL.Path == "/events" {
			ended <- struct{}{}
		}
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	stuck := stuckClient(t, s, addr)
	defer stuck.Close() // before srv.Close, which waits for the handlers
	half, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	fmt.Fprintf(half, "GET /events HTTP/1.1\r\nHost:") // half a request

	s.Close()
	select {
	case <-ended:
	case <-time.After(time.Minute): // a deadlock guard, not a timing claim
		t.Fatal("the stream of the client that does not read is still being written after Close")
	}
	s.Wait()      // every stream has ended: it returns at once
	stuck.Close() // released only now
}

// The page and its script come from the binary, and work mounted under a
// prefix of a program's own mux (the page's URLs are relative).
func TestServesEmbeddedPage(t *testing.T) {
	s := New()
	s.Close()
	mux := http.NewServeMux()
	mux.Handle("/live/", http.StripPrefix("/live", s))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for path, want := range map[string]string{"/live/": "<title>searchbench", "/live/live.js": "new EventSource('events')",
		"/live/live.css": ".chart", "/live/events": `{"kind":"end"`} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("%s: %d, lacks %q", path, resp.StatusCode, want)
		}
	}
}

// A shard's events reach the page through the coordinator's view as the
// one event type: a phase once however many shards reach it, its phase
// and window apart, and an interval merged across the shards under its
// window.
func TestShardEventsReachThePageWithPhaseAndWindow(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	view := runner.NewShardView(s)
	win := result.RepWindow(2, 0)
	lvl := result.LevelWindow(1, 8)
	for i := range 2 {
		view.Event(i, event.Event{Kind: event.Phase, Setup: "meilisearch", Window: lvl, Phase: "settle", Users: 8, Duration: time.Second}, 0)
		iv := result.Interval{Start: result.Duration(500 * time.Millisecond), Length: result.Duration(500 * time.Millisecond),
			Ops: []result.IntervalOp{{Op: "search", Count: int64(10 * (i + 1))}}}
		view.Event(i, event.Event{Kind: event.Interval, Setup: "meilisearch", Window: win, Interval: &iv}, 0)
	}
	s.Close()
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ms := messages(t, resp.Body)
	if got, want := kindsOf(ms), "reset,phase,interval,interval,end"; got != want {
		t.Fatalf("page: %s; want %s", got, want)
	}
	if p := ms[1]; p.Phase != "settle" || p.Window != lvl || p.Users != 8 || p.Duration != time.Second {
		t.Errorf("phase %+v; want settle of %v", p, lvl)
	}
	if iv := ms[3]; iv.Window != win || iv.Phase != "" || iv.Interval.Ops[0].Count != 30 || len(iv.Interval.Shards) != 2 {
		t.Errorf("merged interval %+v of %v; want rung 3 rep 1's, 30 searches from 2 shards", iv, iv.Window)
	}
}

// Package live serves a page that shows a run as it goes: the current
// setup and phase, each operation's throughput and latency percentiles
// interval by interval, errors by class, warnings, known-item and
// freshness figures, the engine's stats and its container's CPU and
// memory. Events reach the browser as server-sent events; a browser that
// connects late receives the history first. The page and its script are
// embedded: it needs no network beyond this server.
//
// A Server is both the run's event.Observer and an http.Handler:
//
//	lv := live.New()
//	srv := &http.Server{Handler: lv}
//	go srv.Serve(ln)
//	res, err := runner.Run(ctx, plan, event.Observers(logger, lv))
//	lv.Close() // the page shows the run ended; its stream ends; nothing waits
//	// … write the results …
//	lv.Wait()   // every stream has ended (at most closeGrace after Close)
//	srv.Close() // a connection that never completed a request is cut too
package live

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
)

//go:embed assets
var assets embed.FS

// clientBuffer is how many events a browser may fall behind by before it
// is dropped: the run never waits for a browser. A dropped page's
// EventSource reconnects and receives the history again.
const clientBuffer = 1024

// writeTimeout bounds one write to a browser while the run goes on, so
// that a client that stopped reading frees its handler (the Observer never
// waited for it). A variable for the tests, which make it long.
var writeTimeout = 10 * time.Second

// closeGrace bounds, once the run is done (Close), every write still to
// come to each page open then: the end, or the history a page opened just
// before is still reading. A page that has not taken them by then, or a
// client that stopped reading, is cut off, so that Wait, and the server's
// shutdown after it, waits on no client.
const closeGrace = 2 * time.Second

// Server keeps the run's events and streams them to every page open.
type Server struct {
	start  time.Time
	static http.Handler

	mu      sync.Mutex
	history [][]byte // every event sent, as its SSE message
	clients map[*client]struct{}
	// streams is every event stream opened before Close and still being
	// served, a dropped page's too (its handler may still be in a write);
	// idle is signalled as each ends.
	streams map[*client]struct{}
	idle    *sync.Cond
	closed  bool
	dropped int
}

type client struct {
	ch chan []byte // closed when the client is dropped or the run ends
	rc *http.ResponseController
	// mu orders the handler's write deadlines with Close's cut, so that
	// a deadline set after the cut is no later than it.
	mu  sync.Mutex
	cut time.Time // zero while the run goes on
}

// deadline bounds c's next write: writeTimeout from now, or the cut.
func (c *client) deadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := time.Now().Add(writeTimeout)
	if !c.cut.IsZero() && c.cut.Before(d) {
		d = c.cut
	}
	_ = c.rc.SetWriteDeadline(d)
}

// cutAt makes at the deadline of c's writes, the one under way too.
func (c *client) cutAt(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = at
	_ = c.rc.SetWriteDeadline(at)
}

// New returns a Server with no events yet.
func New() *Server {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	s := &Server{start: time.Now(), static: http.FileServerFS(sub), clients: map[*client]struct{}{}, streams: map[*client]struct{}{}}
	s.idle = sync.NewCond(&s.mu)
	return s
}

// Observe records e and sends it to every page open, without waiting for
// any: a page that has fallen clientBuffer events behind is dropped. The
// page receives e as its JSON, T set to when this server received it.
func (s *Server) Observe(e event.Event) {
	if e.Kind == event.End || e.Kind == event.Reset {
		return // the server's own (Close, a page's reconnection)
	}
	e.T = time.Since(s.start).Seconds()
	if e.Interval != nil {
		iv := *e.Interval
		// The page draws the percentiles the runner computed from each
		// interval's histogram; the encoded histograms would only make
		// the history a late page must read several times longer.
		iv.Ops = append([]result.IntervalOp(nil), iv.Ops...)
		for i := range iv.Ops {
			o := &iv.Ops[i]
			o.Histogram, o.ServiceHistogram = "", ""
			o.Kinds = append([]result.IntervalKind(nil), o.Kinds...)
			for k := range o.Kinds {
				o.Kinds[k].Histogram = ""
			}
		}
		e.Interval = &iv
	}
	s.send(e)
}

// Close says the run is done: every page receives a last "end" message
// and its stream ends; a page opened later receives the history and the
// end. Close does not wait for any page: each page open now has
// closeGrace to take what is still to be written to it, and is cut off
// then (Wait returns once each has). Events observed after Close are
// dropped.
func (s *Server) Close() {
	s.send(event.Event{Kind: event.End, T: time.Since(s.start).Seconds()})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	cut := time.Now().Add(closeGrace)
	for c := range s.clients {
		close(c.ch)
		delete(s.clients, c)
	}
	for c := range s.streams {
		c.cutAt(cut)
	}
}

// Wait returns once every event stream opened before Close has ended.
// After Close that takes at most closeGrace, whatever the clients do: a
// server that Waits and then closes its connections (http.Server.Close)
// waits on no client, and a connection that never completed a request is
// not waited for at all.
func (s *Server) Wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.streams) > 0 {
		s.idle.Wait()
	}
}

// Dropped is how many pages were dropped for falling behind.
func (s *Server) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// sse is e as an SSE message; nil when e cannot be written (only a NaN
// among its figures: the page misses one event).
func sse(e event.Event) []byte {
	data, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	return append(append([]byte("data: "), data...), '\n', '\n')
}

func (s *Server) send(m event.Event) {
	msg := sse(m)
	if msg == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.history = append(s.history, msg)
	for c := range s.clients {
		select {
		case c.ch <- msg:
		default:
			close(c.ch)
			delete(s.clients, c)
			s.dropped++
		}
	}
}

// ServeHTTP serves the page and its assets, and the events at /events.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/events" {
		s.static.ServeHTTP(w, r)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	// Registered and given the history under one lock, so that no event
	// falls between the two or comes twice.
	s.mu.Lock()
	history := s.history[:len(s.history):len(s.history)]
	c := &client{ch: make(chan []byte, clientBuffer), rc: rc}
	if s.closed {
		// A page opened once the run is done reads the history and the
		// end at its pace (each write bounded as during the run): no
		// one waits for it.
		close(c.ch)
	} else {
		s.clients[c] = struct{}{}
		s.streams[c] = struct{}{}
	}
	s.mu.Unlock()
	defer s.forget(c)

	write := func(msg []byte) bool {
		c.deadline()
		if _, err := w.Write(msg); err != nil {
			return false
		}
		return true
	}
	// A page that reconnects (dropped, or the stream broke) starts again
	// from this history: "reset" tells it to forget what it drew.
	if !write(sse(event.Event{Kind: event.Reset})) {
		return
	}
	for _, msg := range history {
		if !write(msg) {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	for {
		select {
		case msg, ok := <-c.ch:
			if !ok {
				return
			}
			if !write(msg) || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// forget unregisters c when its stream has ended.
func (s *Server) forget(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[c]; ok {
		delete(s.clients, c)
		close(c.ch)
	}
	delete(s.streams, c)
	s.idle.Broadcast()
}

package httpwire_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
)

// rawServer answers each request read from a connection with reply (the
// whole response, raw), then closes the connection when keep is false. It
// counts the connections still open.
type rawServer struct {
	ln    net.Listener
	reply func(req *http.Request) []byte
	keep  bool
	got   chan *http.Request // each request as it arrives, if not nil

	mu   sync.Mutex
	open map[net.Conn]bool
	wg   sync.WaitGroup
}

func newRawServer(t testing.TB, keep bool, reply func(req *http.Request) []byte) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, reply: reply, keep: keep, open: map[net.Conn]bool{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.open[c] = true
			s.mu.Unlock()
			s.wg.Add(1)
			go s.serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.open, c)
		s.mu.Unlock()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if s.got != nil {
			s.got <- req
		}
		r := s.reply(req)
		if r == nil { // hang until the client closes
			io.Copy(io.Discard, br)
			return
		}
		if len(r) == 0 { // drop the connection unanswered
			return
		}
		if _, err := c.Write(r); err != nil || !s.keep {
			return
		}
	}
}

func (s *rawServer) url() *url.URL { return &url.URL{Scheme: "http", Host: s.ln.Addr().String()} }

func (s *rawServer) conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

func ok(body string) []byte {
	return fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// call makes one GET of path and returns the status and body.
func call(ctx context.Context, c *httpwire.FastClient, path string, header ...string) (int, string, http.Header, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	c.Prepare(req, http.MethodGet, path)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if err := c.Do(ctx, req, resp); err != nil {
		return 0, "", nil, err
	}
	h := http.Header{}
	for k, v := range resp.Header.All() {
		h.Add(string(k), string(v))
	}
	return resp.StatusCode(), string(resp.Body()), h, nil
}

// A gzipped answer to the Accept-Encoding: gzip the client added comes back
// decompressed, without its Content-Encoding, as net/http returns it; when
// the caller asked for an encoding itself, the answer is left as it came
// (net/http's rule: transport.go, DisableCompression and requestedGzip).
func TestFastClientGzip(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"hits":[]}`))
	zw.Close()
	s := newRawServer(t, true, func(req *http.Request) []byte {
		if req.Header.Get("Accept-Encoding") != "gzip" {
			return ok("plain")
		}
		return append(fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", zipped.Len()), zipped.Bytes()...)
	})
	c := httpwire.NewFastClient(s.url(), 4, 0)
	defer c.Close()
	status, body, h, err := call(context.Background(), c, "/x")
	if err != nil || status != 200 || body != `{"hits":[]}` || h.Get("Content-Encoding") != "" {
		t.Fatalf("gzipped answer: %d %q %v %v", status, body, h, err)
	}
	_, body, _, err = call(context.Background(), c, "/x", "Accept-Encoding", "identity")
	if err != nil || body != "plain" {
		t.Fatalf("the caller's own encoding: %q %v", body, err)
	}
	// As an http.RoundTripper: what net/http's transport returns for it.
	req, err := http.NewRequest(http.MethodGet, s.url().String()+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpwire.RoundTripper{Client: c}.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != `{"hits":[]}` || !resp.Uncompressed || resp.ContentLength != -1 ||
		resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Length") != "" || resp.Header.Get("Content-Type") != "" {
		t.Fatalf("RoundTrip: %q, uncompressed %v, length %d, header %v", b, resp.Uncompressed, resp.ContentLength, resp.Header)
	}
}

// A connection the server closed while it idled in the pool is not used:
// a POST after it succeeds on a new connection (net/http's reader goroutine
// drops such a connection; a POST written on it could not be sent again).
func TestFastClientStaleConnection(t *testing.T) {
	s := newRawServer(t, false, func(*http.Request) []byte { return ok("{}") }) // one answer a connection, no Connection: close
	c := httpwire.NewFastClient(s.url(), 4, time.Second)
	c.SetCheckAfter(0)
	defer c.Close()
	for i := range 3 {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		c.Prepare(req, http.MethodPost, "/x")
		req.SetBodyString("{}")
		err := c.Do(context.Background(), req, resp)
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		// Wait until the server has closed the connection.
		for deadline := time.Now().Add(5 * time.Second); s.conns() > 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		}
		if i == 0 && c.IdleConns() != 1 {
			t.Fatalf("%d idle connections after a call; want the one kept", c.IdleConns())
		}
	}
}

// A POST whose connection the server drops after reading it is an error,
// sent once: the server may have acted on it (net/http does not replay it
// either).
func TestFastClientNoReplayOfWrites(t *testing.T) {
	var mu sync.Mutex
	n := 0
	s := newRawServer(t, true, func(*http.Request) []byte {
		mu.Lock()
		defer mu.Unlock()
		if n++; n == 1 {
			return ok("{}")
		}
		return []byte{} // nothing: the server closes the connection (keep is true, but an empty write ends serve below)
	})
	c := httpwire.NewFastClient(s.url(), 4, time.Second)
	defer c.Close()
	post := func() error {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		c.Prepare(req, http.MethodPost, "/x")
		req.SetBodyString("{}")
		return c.Do(context.Background(), req, resp)
	}
	if err := post(); err != nil {
		t.Fatal(err)
	}
	if err := post(); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("a dropped POST: %v; want an error of class other", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 2 {
		t.Fatalf("the server read %d requests; want 2 (the dropped one not sent again)", n)
	}
}

// The classes of a call that gets no answer: the timeout option and a
// context's deadline are timeouts, a cancel (even while the call waits for
// the answer) is a cancel, a refused connection is neither.
func TestFastClientErrorClasses(t *testing.T) {
	s := newRawServer(t, true, func(*http.Request) []byte { return nil })
	s.got = make(chan *http.Request, 8)

	c := httpwire.NewFastClient(s.url(), 4, 50*time.Millisecond)
	defer c.Close()
	_, _, _, err := call(context.Background(), c, "/hang?id=secret-in-query")
	if engines.Classify(err) != engines.Timeout || !errors.Is(err, engines.ErrTimeout) {
		t.Errorf("timeout option: %v, class %s; want timeout", err, engines.Classify(err))
	}
	if err != nil && strings.Contains(err.Error(), "secret-in-query") {
		t.Errorf("the error quotes the query: %v", err)
	}

	untimed := httpwire.NewFastClient(s.url(), 4, 0)
	defer untimed.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, _, err := call(ctx, untimed, "/hang"); engines.Classify(err) != engines.Timeout {
		t.Errorf("context deadline: %v, class %s; want timeout", err, engines.Classify(err))
	}

	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		<-s.got // the request arrived: the call is waiting for the answer
		cancel()
	}()
	for len(s.got) > 0 {
		<-s.got
	}
	if _, _, _, err := call(ctx, untimed, "/hang"); engines.Classify(err) != engines.Canceled || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled while waiting: %v, class %s; want canceled", err, engines.Classify(err))
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	ln.Close()
	r := httpwire.NewFastClient(refused, 4, time.Second)
	if _, _, _, err := call(context.Background(), r, "/"); engines.Classify(err) != engines.Other || err == nil {
		t.Errorf("refused: %v, class %s; want other", err, engines.Classify(err))
	}
}

// Close closes the idle connections: none stays open to the server.
func TestFastClientCloseClosesConnections(t *testing.T) {
	s := newRawServer(t, true, func(*http.Request) []byte { return ok("{}") })
	c := httpwire.NewFastClient(s.url(), 4, time.Second)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, _, _, err := call(context.Background(), c, "/x"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if c.IdleConns() == 0 || s.conns() == 0 {
		t.Fatalf("%d idle, %d open after the calls; want the connections kept", c.IdleConns(), s.conns())
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.conns() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := s.conns(); n != 0 || c.IdleConns() != 0 {
		t.Fatalf("%d connections open after Close (%d idle)", n, c.IdleConns())
	}
}

// A call on a kept connection allocates almost nothing: with a context
// that cannot be canceled nothing at all, with one that can only what
// context.AfterFunc needs to watch it.
func TestFastClientAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop objects")
	}
	// A server that allocates nothing a request (AllocsPerRun counts every
	// goroutine's): each request arrives in one read (fasthttp flushes it
	// once), and each is answered with the same bytes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reply := ok(`{"hits":[]}`)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
	}()
	c := httpwire.NewFastClient(&url.URL{Scheme: "http", Host: ln.Addr().String()}, 4, 0)
	defer c.Close()
	body := []byte(`{"q":"a"}`)
	run := func(ctx context.Context) func() {
		return func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			c.Prepare(req, http.MethodPost, "/indexes/x/search")
			req.Header.SetContentType("application/json")
			req.SetBodyRaw(body)
			if err := c.Do(ctx, req, resp); err != nil {
				t.Fatal(err)
			}
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
		}
	}
	if n := testing.AllocsPerRun(200, run(context.Background())); n > 0 {
		t.Errorf("%.1f allocations a call without a cancelable context; want 0", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := testing.AllocsPerRun(200, run(ctx))
	t.Logf("%.1f allocations a call with a cancelable context", n)
	if n > 3 {
		t.Errorf("%.1f allocations a call with a cancelable context; want at most 3 (context.AfterFunc's)", n)
	}
}

package enginetest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Captured is one HTTP request as it arrived on the wire, parsed by net/http's
// server-side reader (http.ReadRequest) from the raw bytes a client wrote
// on a TCP connection.
type Captured struct {
	Method, URI, Host, Proto string
	Header                   http.Header // canonical names; Host is in Host
	Body                     []byte
}

// Wire is a raw TCP listener on 127.0.0.1 that records every request sent
// to it and answers each with what answer returns for it: the tool of the
// wire tests, which send one call through a driver's official client and
// the same call through its fast path and compare what arrived.
type Wire struct {
	URL string // http://127.0.0.1:port

	ln     net.Listener
	answer func(r *Captured) (status int, body string)
	extra  string // header lines every answer carries
	mu     sync.Mutex
	got    []Captured
	wg     sync.WaitGroup
	conns  map[net.Conn]bool
}

// NewWire starts a Wire; it stops at the test's end. header is pairs of
// a name and a value that every answer carries besides Content-Type and
// Content-Length (an engine's product header, say).
func NewWire(t testing.TB, answer func(r *Captured) (status int, body string), header ...string) *Wire {
	t.Helper()
	var extra strings.Builder
	for i := 0; i+1 < len(header); i += 2 {
		fmt.Fprintf(&extra, "%s: %s\r\n", header[i], header[i+1])
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &Wire{URL: "http://" + ln.Addr().String(), ln: ln, answer: answer, extra: extra.String(), conns: map[net.Conn]bool{}}
	w.wg.Add(1)
	go w.accept()
	t.Cleanup(w.close)
	return w
}

func (w *Wire) accept() {
	defer w.wg.Done()
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return
		}
		w.mu.Lock()
		w.conns[c] = true
		w.mu.Unlock()
		w.wg.Add(1)
		go w.serve(c)
	}
}

func (w *Wire) serve(c net.Conn) {
	defer w.wg.Done()
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		r := Captured{Method: req.Method, URI: req.RequestURI, Host: req.Host, Proto: req.Proto, Header: req.Header, Body: body}
		w.mu.Lock()
		w.got = append(w.got, r)
		w.mu.Unlock()
		status, answer := w.answer(&r)
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s",
			status, http.StatusText(status), w.extra, len(answer), answer)
	}
}

func (w *Wire) close() {
	w.ln.Close()
	w.mu.Lock()
	for c := range w.conns {
		c.Close()
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// Take returns the requests recorded since the last Take.
func (w *Wire) Take() []Captured {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.got
	w.got = nil
	return got
}

// TakeOne returns the one request recorded since the last Take whose
// request-URI has the prefix, failing the test unless there is exactly one.
func (w *Wire) TakeOne(t testing.TB, method, uriPrefix string) Captured {
	t.Helper()
	var found []Captured
	for _, r := range w.Take() {
		if r.Method == method && strings.HasPrefix(r.URI, uriPrefix) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d requests %s %s*; want 1", len(found), method, uriPrefix)
	}
	return found[0]
}

// SameRequest fails the test unless got is want on the wire: the method,
// the request-URI, the protocol, the Host, the set of headers with their
// values (names compared canonical, as HTTP makes them case-insensitive;
// the order of header lines is not compared, it carries no meaning) and the
// body bytes.
func SameRequest(t testing.TB, want, got Captured) {
	t.Helper()
	if got.Method != want.Method || got.URI != want.URI || got.Proto != want.Proto || got.Host != want.Host {
		t.Errorf("request line and host: got %s %s %s (Host %s); want %s %s %s (Host %s)",
			got.Method, got.URI, got.Proto, got.Host, want.Method, want.URI, want.Proto, want.Host)
	}
	names := func(h http.Header) []string {
		var n []string
		for k := range h {
			n = append(n, k)
		}
		slices.Sort(n)
		return n
	}
	if g, w := names(got.Header), names(want.Header); !slices.Equal(g, w) {
		t.Errorf("header names: got %v; want %v", g, w)
	}
	for k, w := range want.Header {
		if g := got.Header[k]; !slices.Equal(g, w) {
			t.Errorf("header %s: got %q; want %q", k, g, w)
		}
	}
	if !bytes.Equal(got.Body, want.Body) {
		t.Errorf("body:\n got %q\nwant %q", got.Body, want.Body)
	}
}

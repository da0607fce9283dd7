package httpwire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/valyala/fasthttp"
)

// FastClient makes an HTTP driver's hot calls (search, upsert, delete, get)
// with github.com/valyala/fasthttp's request and response types and its
// HTTP/1.1 framing, on a keep-alive pool of its own, beside the net/http
// client the driver's official library keeps for everything else. At the
// maximum rate net/http was most of what a search cost the load generator
// (bench/README.md): a reader and a writer goroutine per connection and
// three goroutine switches a call, 58 allocations a request. Here the caller's
// goroutine writes the request and reads the answer itself, and requests,
// responses and connection buffers are reused.
//
// It is configured as Transport is: up to conns idle keep-alive
// connections kept, none reused after 90 s idle, a 10 s dial timeout with
// 30 s TCP keep-alive, no proxy, TLS for https URLs; Accept-Encoding: gzip
// asked for exactly when net/http asks for it, and a gzipped answer
// decompressed as net/http does (transport.go in net/http, Go 1.26). Like
// http.Client.Timeout, timeout (0: none) bounds the whole exchange, the
// answer's body included.
//
// It does not use fasthttp.HostClient's pool, for two reasons (fasthttp
// client.go at v1.79.0): HostClient takes no context — a call canceled by
// the runner (a window's end, Ctrl-C) would run on to its deadline — and
// its idle-connection cleaner is a goroutine that sleeps for the whole idle
// timeout (90 s) before it notices the client was closed, so a goroutine
// would outlive Engine.Close. Here a canceled context interrupts the call's
// connection at once, and idle connections are closed lazily, when a call
// finds one too old, and all at once by Close.
type FastClient struct {
	host    string // the Host header: the URL's host[:port]
	addr    string // where to dial: host:port
	tls     *tls.Config
	timeout time.Duration
	dialer  net.Dialer
	maxIdle int
	readBuf int
	basic   string // Authorization from the URL's user info, as net/http sends it; "" without
	// checkAfter: an idle connection is checked (closedByPeer) before
	// reuse once it has idled this long.
	checkAfter time.Duration

	mu     sync.Mutex
	idle   []*fastConn // most recently used last
	closed bool
}

// Buffer sizes of a connection. A request is written through a 1 KB buffer
// (a larger body goes past it to the socket). An answer's status line and
// headers must fit in the read buffer (fasthttp parses them in place; a
// larger head is ErrSmallBuffer, class Other): the engines' heads are a few
// hundred bytes, and 2 KB leaves room for a proxy's additions. Smaller
// buffers are memory at 1,500 users (bench/README.md): net/http's default
// 4 KB pair and its two goroutines a connection were most of the heap.
const (
	fastReadBuf  = 2 << 10
	fastWriteBuf = 1 << 10
)

// fastIdleTimeout is Transport's IdleConnTimeout.
const fastIdleTimeout = 90 * time.Second

// fastCheckAfter is how long a connection idles before a call checks that
// the server has not closed it (closedByPeer). The check is a system call
// a reuse, worth saving at the maximum rate (bench/README.md), where
// connections are reused within milliseconds and no server closes them;
// the engines close an idle connection after seconds if at all (a
// keep-alive timeout), so a connection used in the last second is taken
// as open. A server that closes one sooner makes the next POST on it fail
// (class other), as one that closes it while the request is on its way
// does with net/http.
const fastCheckAfter = time.Second

// NewFastClient returns a client for the server at u (an http or https URL,
// as ServerURL returns), keeping up to conns idle connections, each call
// bounded by timeout (0: only by its context).
func NewFastClient(u *url.URL, conns int, timeout time.Duration) *FastClient {
	c := &FastClient{
		host:       u.Host,
		addr:       u.Host,
		timeout:    timeout,
		dialer:     net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		maxIdle:    conns,
		readBuf:    fastReadBuf,
		checkAfter: fastCheckAfter,
	}
	if u.User != nil {
		// net/http sends the URL's user info as Basic authorization when the
		// request has no Authorization of its own (net/http client.go, send).
		pw, _ := u.User.Password()
		r := http.Request{Header: http.Header{}}
		r.SetBasicAuth(u.User.Username(), pw)
		c.basic = r.Header.Get("Authorization")
	}
	port := u.Port()
	if u.Scheme == "https" {
		// ServerName without the port, as net/http sets it.
		c.tls = &tls.Config{ServerName: u.Hostname()}
		if port == "" {
			port = "443"
		}
	} else if port == "" {
		port = "80"
	}
	c.addr = net.JoinHostPort(u.Hostname(), port)
	return c
}

// Prepare sets what every request of this client carries: the method, the
// path (with its query), the Host header; Content-Type is not defaulted, as
// net/http does not default it.
func (c *FastClient) Prepare(req *fasthttp.Request, method, pathAndQuery string) {
	req.Header.SetMethod(method)
	req.Header.SetRequestURI(pathAndQuery)
	req.Header.SetHost(c.host)
	req.Header.SetNoDefaultContentType(true)
}

// Send sends r — a request an official client built (its generated
// request constructor, say), not sent — through the fast client, the answer
// into resp: r's method, request-URI, Host, headers and body, and what Do
// adds as net/http would. r's context is not used: ctx is the call's. It is
// the way to keep a client's exact wire format (query encoding, header
// names) and lose only its transport.
func (c *FastClient) Send(ctx context.Context, r *http.Request, resp *fasthttp.Response) error {
	_, err := c.sendDecoded(ctx, r, resp)
	return err
}

func (c *FastClient) sendDecoded(ctx context.Context, r *http.Request, resp *fasthttp.Response) (bool, error) {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	c.Prepare(req, r.Method, r.URL.RequestURI())
	if r.Host != "" {
		req.Header.SetHost(r.Host)
	} else if r.URL.Host != "" {
		req.Header.SetHost(r.URL.Host)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		_, err := io.Copy(req.BodyWriter(), r.Body)
		r.Body.Close()
		if err != nil {
			return false, fmt.Errorf("%s %s: reading the body: %w", r.Method, r.URL.Path, err)
		}
	}
	return c.doDecoded(ctx, req, resp)
}

// RoundTripper is FastClient as an http.RoundTripper, for a client library
// that builds and sends its requests itself and takes a transport
// (elastic-transport-go): each request goes through Send, with its
// context, and the answer comes back as net/http's transport returns it —
// status, headers, the whole body, and a gzipped body it asked for
// decompressed with Uncompressed set and its Content-Encoding and
// Content-Length removed (net/http transport.go, gzipReader). Building the
// *http.Response and its header map costs a few allocations a call that
// Do does not.
type RoundTripper struct{ Client *FastClient }

// RoundTrip sends r; see RoundTripper.
func (t RoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	uncompressed, err := t.Client.sendDecoded(r.Context(), r, resp)
	if err != nil {
		return nil, err
	}
	// fasthttp reports a default Content-Type for an answer without one;
	// net/http reports none.
	resp.Header.SetNoDefaultContentType(true)
	h := make(http.Header, resp.Header.Len())
	for k, v := range resp.Header.All() {
		h.Add(string(k), string(v))
	}
	body := bytes.Clone(resp.Body())
	length := int64(len(body))
	if uncompressed {
		h.Del("Content-Encoding")
		h.Del("Content-Length")
		length = -1
	}
	status := resp.StatusCode()
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: length,
		Uncompressed:  uncompressed,
		Request:       r,
	}, nil
}

// CloseIdleConnections closes the client's idle connections (http.Client
// and elastic-transport-go call it when they close).
func (t RoundTripper) CloseIdleConnections() { t.Client.Close() }

// fastConn is one keep-alive connection and its buffers.
type fastConn struct {
	c     net.Conn
	br    *bufio.Reader
	bw    *bufio.Writer
	used  time.Time
	wake  func() // interrupts a call blocked on c: made once, so a call's AfterFunc allocates no closure
	fresh bool   // dialed for this call: no request has been written on it yet

	// For closedByPeer: the socket (nil when it has none), and the peek's
	// callback, buffer and result, made once.
	raw      syscall.RawConn
	peekFn   func(fd uintptr) bool
	peekBuf  [1]byte
	peekDead bool
}

// errPast is a deadline long gone: setting it wakes a blocked read or write.
var errPast = time.Unix(1, 0)

// Do sends req and reads the answer into resp: method, request-URI, Host
// and headers as the caller set them (Prepare), plus what net/http adds —
// User-Agent: Go-http-client/1.1 when the caller set none, Content-Length
// when there is a body, Accept-Encoding: gzip when the caller did not ask
// for an encoding or a range and the method is not HEAD. A gzipped answer
// that was asked for in that way comes back decompressed, its
// Content-Encoding removed.
//
// The error is the cause wrapped with the method and the URL's path, never
// its query: a deadline (the context's or the client's timeout) is a
// timeout (TransportError), a canceled context is context.Canceled,
// anything else (refused, reset) as the network reports it.
func (c *FastClient) Do(ctx context.Context, req *fasthttp.Request, resp *fasthttp.Response) error {
	_, err := c.doDecoded(ctx, req, resp)
	return err
}

// doDecoded is Do, and says whether it decompressed the answer.
func (c *FastClient) doDecoded(ctx context.Context, req *fasthttp.Request, resp *fasthttp.Response) (uncompressed bool, err error) {
	gzipped := false
	if !req.Header.IsHead() && len(req.Header.Peek("Accept-Encoding")) == 0 && len(req.Header.Peek("Range")) == 0 {
		req.Header.Set("Accept-Encoding", "gzip")
		gzipped = true
	}
	if c.basic != "" && len(req.Header.Peek("Authorization")) == 0 {
		req.Header.Set("Authorization", c.basic)
	}
	if len(req.Header.UserAgent()) == 0 {
		req.Header.SetUserAgent(goUserAgent)
	}
	if req.Header.IsHead() {
		resp.SkipBody = true
	}
	err = c.do(ctx, req, resp)
	if err == nil && gzipped && string(resp.Header.ContentEncoding()) == "gzip" {
		var b []byte
		if b, err = resp.BodyGunzip(); err == nil {
			resp.SetBodyRaw(b)
			resp.Header.Del("Content-Encoding")
			resp.Header.SetContentLength(len(b))
			uncompressed = true
		}
	}
	if err != nil {
		return false, fmt.Errorf("%s %s: %w", req.Header.Method(), pathOf(req.Header.RequestURI()), err)
	}
	return uncompressed, nil
}

// goUserAgent is net/http's default User-Agent (net/http request.go,
// defaultUserAgent).
const goUserAgent = "Go-http-client/1.1"

// pathOf is a request-URI without its query, for messages: a query can
// hold a document ID or a key.
func pathOf(uri []byte) string {
	for i, b := range uri {
		if b == '?' {
			return string(uri[:i])
		}
	}
	return string(uri)
}

// maxStale bounds how many reused connections a call tries, each failing
// as below, before it dials a new one.
const maxStale = 3

// do makes the exchange. A request goes again on another connection when a
// reused one failed as net/http would retry it (transport.go,
// shouldRetryRequest): nothing of the request could be written, or the
// server closed the connection before the first byte of an answer and the
// request is one net/http replays (GET, HEAD, OPTIONS, TRACE without a
// body). A POST, PUT or DELETE whose answer did not come is an error: the
// server may have acted on it.
func (c *FastClient) do(ctx context.Context, req *fasthttp.Request, resp *fasthttp.Response) error {
	deadline, hasDeadline := ctx.Deadline()
	ctxDeadline := hasDeadline
	if c.timeout > 0 {
		if d := time.Now().Add(c.timeout); !hasDeadline || d.Before(deadline) {
			deadline, hasDeadline, ctxDeadline = d, true, false
		}
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		fc, err := c.conn(ctx, deadline, attempt >= maxStale)
		if err != nil {
			return c.timeoutCause(ctx, err, ctxDeadline)
		}
		retry, err := c.exchange(ctx, fc, req, resp, deadline, hasDeadline)
		if err == nil {
			return nil
		}
		if !retry {
			return c.timeoutCause(ctx, err, ctxDeadline)
		}
	}
}

// timeoutCause names why a call ended early: the context's own error when it
// is done (canceled, or its deadline was the call's), ErrTimeout when the
// deadline passed (the timeout option's, or the context's a moment before
// the context notices), else err. fasthttp reports a deadline on the
// connection as its own fasthttp.ErrTimeout, which has a Timeout method but
// is no net.Error (header.go and client.go at v1.79.0), so the method is
// what is asked.
func (c *FastClient) timeoutCause(ctx context.Context, err error, ctxDeadline bool) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var t interface{ Timeout() bool }
	if !errors.As(err, &t) || !t.Timeout() {
		return err
	}
	if ctxDeadline || c.timeout <= 0 {
		return fmt.Errorf("%w: %w", engines.ErrTimeout, context.DeadlineExceeded)
	}
	return fmt.Errorf("%w (the timeout, %v, ran out)", engines.ErrTimeout, c.timeout)
}

// exchange writes req on fc and reads resp, then returns fc to the pool or
// closes it. retry is true when fc was a reused connection that failed
// before any byte of the answer.
func (c *FastClient) exchange(ctx context.Context, fc *fastConn, req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time, hasDeadline bool) (retry bool, err error) {
	reused := !fc.fresh
	fc.fresh = false
	if hasDeadline {
		err = fc.c.SetDeadline(deadline)
	} else {
		err = fc.c.SetDeadline(time.Time{})
	}
	if err != nil {
		c.drop(fc)
		return false, err
	}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, fc.wake)
	}
	err = req.Write(fc.bw)
	if err == nil {
		err = fc.bw.Flush()
	}
	sent := err == nil
	if sent {
		err = resp.Read(fc.br)
	}
	interrupted := !stop()
	if err != nil || interrupted || resp.ConnectionClose() {
		c.drop(fc)
	} else {
		c.put(fc)
	}
	if err == nil {
		return false, nil
	}
	// The server closed the connection before the first byte of an answer:
	// io.EOF from fasthttp's header reader, or a reset.
	closed := errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
	return reused && !interrupted && (!sent || closed && replayable(req)), err
}

// replayable is net/http's Request.isReplayable: a method without side
// effects and no body.
func replayable(req *fasthttp.Request) bool {
	m := req.Header.Method()
	switch string(m) {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return len(req.Body()) == 0
	}
	return false
}

// conn returns an idle connection (the most recently used) or dials one;
// fresh forces a dial.
func (c *FastClient) conn(ctx context.Context, deadline time.Time, fresh bool) (*fastConn, error) {
	if !fresh {
		now := time.Now()
		c.mu.Lock()
		for n := len(c.idle); n > 0; n = len(c.idle) {
			fc := c.idle[n-1]
			c.idle[n-1] = nil
			c.idle = c.idle[:n-1]
			c.mu.Unlock()
			// Too old: closing it is what net/http's idle timer would
			// have done by now. Closed by the server: net/http would
			// have dropped it.
			idle := now.Sub(fc.used)
			if idle <= fastIdleTimeout && (idle < c.checkAfter || !fc.closedByPeer()) {
				return fc, nil
			}
			fc.c.Close()
			c.mu.Lock()
		}
		c.mu.Unlock()
	}
	return c.dial(ctx, deadline)
}

// dial opens a connection, bounded by the context, the call's deadline and
// the 10 s dial timeout; for https it completes the TLS handshake too.
func (c *FastClient) dial(ctx context.Context, deadline time.Time) (*fastConn, error) {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	var conn net.Conn
	var err error
	if c.tls != nil {
		d := tls.Dialer{NetDialer: &c.dialer, Config: c.tls}
		conn, err = d.DialContext(ctx, "tcp", c.addr)
	} else {
		conn, err = c.dialer.DialContext(ctx, "tcp", c.addr)
	}
	if err != nil {
		return nil, err
	}
	fc := &fastConn{
		c:     conn,
		br:    bufio.NewReaderSize(conn, c.readBuf),
		bw:    bufio.NewWriterSize(conn, fastWriteBuf),
		fresh: true,
	}
	fc.wake = func() { _ = conn.SetDeadline(errPast) }
	tcp := conn
	if t, ok := conn.(*tls.Conn); ok {
		tcp = t.NetConn()
	}
	if sc, ok := tcp.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			fc.raw, fc.peekFn = raw, fc.peek
		}
	}
	return fc, nil
}

// put returns a connection to the pool, or closes it when the pool is full
// or the client closed.
func (c *FastClient) put(fc *fastConn) {
	fc.used = time.Now()
	c.mu.Lock()
	if c.closed || len(c.idle) >= c.maxIdle {
		c.mu.Unlock()
		fc.c.Close()
		return
	}
	c.idle = append(c.idle, fc)
	c.mu.Unlock()
}

// drop closes a connection that is not to be reused.
func (c *FastClient) drop(fc *fastConn) { fc.c.Close() }

// Close closes the idle connections; one in use is closed when its call
// ends (by its deadline or its context at the latest). Calls after Close
// still work, on connections closed as each ends.
func (c *FastClient) Close() {
	c.mu.Lock()
	idle := c.idle
	c.idle, c.closed = nil, true
	c.mu.Unlock()
	for _, fc := range idle {
		fc.c.Close()
	}
}

// IdleConns is how many idle connections the pool holds (for tests).
func (c *FastClient) IdleConns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.idle)
}

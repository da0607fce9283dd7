// Package loopback is a load target for measuring load generators: an
// HTTP/1.1 server on 127.0.0.1 that answers Meilisearch's search endpoint
// (POST /indexes/{uid}/search) with one fixed, small response, as fast as a
// socket allows. It is not a fake of Meilisearch and tests nothing about the
// driver's wire contract (engines/meilisearch/meilifake does that): it
// answers only what the searchbench Meilisearch driver calls on Open, Create
// and Search, and what the runner calls when nothing is pre-populated, so
// that `searchbench run --engine meilisearch --url …` attaches to it and its
// cost per request is small next to any client's.
//
// The HTTP/1.1 framing is written by hand (request line, headers,
// Content-Length bodies, keep-alive, pipelining) so that a request costs one
// read and one write system call and no allocation: with net/http the
// server, not the clients, would set the ceiling. Requests with a chunked
// body, over 4 KB of request line and headers or over 64 KB of body are
// refused.
//
// Routes (everything else is 404):
//
//	POST   /indexes/{uid}/search       200, the fixed hits (counted)
//	GET    /version                     200, pkgVersion "loopback"
//	DELETE /indexes/{uid}               202, a task
//	POST   /indexes                     202, a task
//	PATCH  /indexes/{uid}/settings      202, a task
//	GET    /tasks/{uid}                 200, the task, succeeded
//	GET    /tasks?…                     200, no tasks
//	GET    /indexes/{uid}/stats         200, no documents
//	GET    /indexes/{uid}/settings/searchable-attributes
//	                                    200, ["name","content"]: the text
//	                                    corpus's fields, so a shard attaches
//	GET    /indexes/{uid}/settings/filterable-attributes
//	                                    200, []: the text corpus filters
//	                                    nothing
//	GET    /indexes/{uid}/settings/embedders
//	                                    200, {}: nor has it vectors
//	GET    /loopback/stats              200, {"searches":N,"requests":N}
//
// With a key set, every route but /loopback/stats wants "Authorization:
// Bearer <key>", answering 401 or 403 as Meilisearch does.
//
// With a Delay, every search is answered that long after it was read: a
// target of known service time, against which throughput and latency
// figures can be predicted (Little's law: users = rate × latency). A
// connection answers its requests in order, so pipelined searches on one
// connection wait for each other, as they would on a real server's
// connection.
package loopback

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Hits is the number of hits in the fixed search response: the runner's
// default k, so the driver's "no more than k hits" check passes.
const Hits = 10

// SearchResponse is the body answered to every search.
var SearchResponse = searchResponse()

func searchResponse() []byte {
	var b bytes.Buffer
	b.WriteString(`{"hits":[`)
	for i := range Hits {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%d"}`, 1000+i)
	}
	fmt.Fprintf(&b, `],"query":"","processingTimeMs":0,"limit":%d,"offset":0,"estimatedTotalHits":%d}`, Hits, Hits)
	return b.Bytes()
}

// Server counts what it answers. The zero value serves without a key.
type Server struct {
	Key   string        // the master key; empty: no authorization
	Delay time.Duration // how long each search is held before its answer; 0: none

	searches atomic.Int64
	requests atomic.Int64
	tasks    atomic.Int64

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	ln    net.Listener
	done  bool
}

// Searches is the number of search requests answered 200.
func (s *Server) Searches() int64 { return s.searches.Load() }

// Requests is the number of requests answered, whatever their status.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Listen serves on addr (127.0.0.1 only: it is a load target for this
// machine) until Close.
func (s *Server) Listen(addr string) (net.Addr, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("loopback: %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	go s.Serve(ln)
	return ln.Addr(), nil
}

// Serve accepts connections on ln until it is closed.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	s.ln = ln
	done := s.done
	s.mu.Unlock()
	if done { // closed before it served
		return ln.Close()
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.closed() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.done {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

func (s *Server) closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// Close stops accepting and closes every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	return err
}

const (
	maxHeader = 4 << 10 // bytes of request line and headers (the read buffer)
	maxBody   = 64 << 10
)

// request is what the server reads of one request's head. Its slices point
// into the connection's read buffer and are valid until the next read.
type request struct {
	method, path []byte
	auth         []byte
	length       int
	close        bool
}

var errBadRequest = errors.New("bad request")

func (s *Server) serveConn(c net.Conn) {
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(c, maxHeader)
	w := bufio.NewWriterSize(c, 4<<10)
	scratch := make([]byte, 0, 256)
	for {
		req, head, err := readHead(r)
		if err != nil {
			if errors.Is(err, errBadRequest) {
				w.WriteString("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				w.Flush()
			}
			return
		}
		if req.length > maxBody {
			w.WriteString("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			w.Flush()
			return
		}
		// The head's slices are used before anything more is read.
		status, resp, search := s.route(&req, &scratch)
		if _, err := r.Discard(head + req.length); err != nil {
			return
		}
		if search {
			s.hold()
		}
		s.requests.Add(1)
		if search {
			s.searches.Add(1)
		}
		w.WriteString(status)
		w.WriteString("Content-Type: application/json\r\nContent-Length: ")
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(len(resp)), 10))
		if req.close {
			w.WriteString("\r\nConnection: close")
		}
		w.WriteString("\r\n\r\n")
		w.Write(resp)
		// Pipelined requests already read are answered in one write.
		if r.Buffered() == 0 || req.close {
			if w.Flush() != nil {
				return
			}
		}
		if req.close {
			return
		}
	}
}

// hold waits out the search's service time. time.Sleep reuses the
// goroutine's own timer, so a delayed search allocates nothing either.
func (s *Server) hold() {
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
}

var endOfHead = []byte("\r\n\r\n")

// readHead waits until the buffer holds a whole request head, parses it and
// returns its length; the caller discards it (and the body) when done.
func readHead(r *bufio.Reader) (request, int, error) {
	buf, err := r.Peek(1)
	for err == nil {
		buf, _ = r.Peek(r.Buffered())
		if i := bytes.Index(buf, endOfHead); i >= 0 {
			req, err := parseHead(buf[:i+2])
			return req, i + len(endOfHead), err
		}
		if len(buf) == maxHeader {
			return request{}, 0, errBadRequest
		}
		_, err = r.Peek(len(buf) + 1) // reads more
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		err = errBadRequest
	}
	return request{}, 0, err
}

// parseHead reads the request line and the headers the server needs; head
// ends with the last header's CRLF.
func parseHead(head []byte) (request, error) {
	var req request
	eol := bytes.Index(head, crlf)
	line, head := head[:eol], head[eol+2:]
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 < 0 {
		return req, errBadRequest
	}
	rest := line[sp1+1:]
	sp2 := bytes.IndexByte(rest, ' ')
	if sp2 < 0 {
		return req, errBadRequest
	}
	req.method, req.path = line[:sp1], rest[:sp2]
	if !bytes.Equal(rest[sp2+1:], []byte("HTTP/1.1")) {
		req.close = true // HTTP/1.0: one request per connection
	}
	for len(head) > 0 {
		eol := bytes.Index(head, crlf)
		h := head[:eol]
		head = head[eol+2:]
		colon := bytes.IndexByte(h, ':')
		if colon < 0 {
			return req, errBadRequest
		}
		name, value := h[:colon], bytes.TrimSpace(h[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value)) // the conversion does not allocate
			if err != nil || n < 0 {
				return req, errBadRequest
			}
			req.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return req, errBadRequest // chunked bodies are not read
		case bytes.EqualFold(name, []byte("Authorization")):
			req.auth = value
		case bytes.EqualFold(name, []byte("Connection")):
			req.close = bytes.EqualFold(value, []byte("close"))
		}
	}
	return req, nil
}

var crlf = []byte("\r\n")

const (
	statusOK       = "HTTP/1.1 200 OK\r\n"
	statusAccepted = "HTTP/1.1 202 Accepted\r\n"
	status401      = "HTTP/1.1 401 Unauthorized\r\n"
	status403      = "HTTP/1.1 403 Forbidden\r\n"
	status404      = "HTTP/1.1 404 Not Found\r\n"
)

// Meilisearch's answers to a missing and a wrong key.
var (
	missingKey = []byte(`{"message":"The Authorization header is missing. It must use the bearer authorization method.","code":"missing_authorization_header","type":"auth","link":"https://docs.meilisearch.com/errors#missing_authorization_header"}`)
	invalidKey = []byte(`{"message":"The provided API key is invalid.","code":"invalid_api_key","type":"auth","link":"https://docs.meilisearch.com/errors#invalid_api_key"}`)
	notFound   = []byte(`{"message":"not answered by the loopback load target","code":"not_found","type":"invalid_request","link":""}`)
	version    = []byte(`{"commitSha":"loopback","commitDate":"loopback","pkgVersion":"loopback"}`)
	noTasks    = []byte(`{"results":[],"total":0,"limit":1,"from":null,"next":null}`)
	noDocs     = []byte(`{"numberOfDocuments":0,"isIndexing":false,"fieldDistribution":{}}`)
	searchable = []byte(`["name","content"]`)
	noFilters  = []byte(`[]`)
	noEmbedder = []byte(`{}`)
)

// route answers one request (search: it is a search answered 200);
// scratch holds bodies built per request.
func (s *Server) route(req *request, scratch *[]byte) (status string, body []byte, search bool) {
	method, path := string(req.method), req.path // comparing string(b) does not allocate
	if string(path) == "/loopback/stats" && method == "GET" {
		*scratch = fmt.Appendf((*scratch)[:0], `{"searches":%d,"requests":%d}`, s.searches.Load(), s.requests.Load())
		return statusOK, *scratch, false
	}
	if s.Key != "" {
		switch {
		case len(req.auth) == 0:
			return status401, missingKey, false
		case !bytes.HasPrefix(req.auth, []byte("Bearer ")) || string(req.auth[len("Bearer "):]) != s.Key:
			return status403, invalidKey, false
		}
	}
	if q := bytes.IndexByte(path, '?'); q >= 0 {
		path = path[:q]
	}
	// /indexes/{uid} and /indexes/{uid}/{sub}
	var sub []byte
	isIndex := false
	if rest, ok := bytes.CutPrefix(path, []byte("/indexes/")); ok {
		var uid []byte
		uid, sub, _ = bytes.Cut(rest, []byte("/"))
		isIndex = len(uid) > 0
	}
	switch {
	case method == "POST" && isIndex && string(sub) == "search":
		return statusOK, SearchResponse, true
	case method == "GET" && string(path) == "/version":
		return statusOK, version, false
	case method == "GET" && string(path) == "/tasks":
		return statusOK, noTasks, false
	case method == "GET" && bytes.HasPrefix(path, []byte("/tasks/")):
		n, err := strconv.ParseInt(string(path[len("/tasks/"):]), 10, 64)
		if err != nil {
			return status404, notFound, false
		}
		*scratch = fmt.Appendf((*scratch)[:0], `{"uid":%d,"status":"succeeded","type":"settingsUpdate","details":{}}`, n)
		return statusOK, *scratch, false
	case method == "GET" && isIndex && string(sub) == "stats":
		return statusOK, noDocs, false
	case method == "GET" && isIndex && string(sub) == "settings/searchable-attributes":
		return statusOK, searchable, false
	case method == "GET" && isIndex && string(sub) == "settings/filterable-attributes":
		return statusOK, noFilters, false
	case method == "GET" && isIndex && string(sub) == "settings/embedders":
		return statusOK, noEmbedder, false
	case method == "DELETE" && isIndex && len(sub) == 0,
		method == "PATCH" && isIndex && string(sub) == "settings",
		method == "POST" && string(path) == "/indexes":
		*scratch = fmt.Appendf((*scratch)[:0], `{"taskUid":%d,"status":"enqueued","type":"loopback","enqueuedAt":"2026-01-01T00:00:00Z"}`, s.tasks.Add(1))
		return statusAccepted, *scratch, false
	}
	return status404, notFound, false
}

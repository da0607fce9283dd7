package esfake

import (
	"net/http"
	"net/url"
	"strings"
)

// Test hooks: faults an overloaded or stuck Elasticsearch shows, and
// counters to check what a client sent.

// Fault makes requests fail the way an overloaded or stuck node does.
type Fault struct {
	// Method and Path limit the fault to requests with this method and a
	// path with this prefix ("/idx/_search"); empty matches any.
	Method, Path string
	// Status is the HTTP status to answer: 429 answers Elasticsearch's
	// es_rejected_execution_exception (a full thread-pool queue), 503 its
	// unavailable_shards_exception; Type and Reason, when set, replace the
	// error's type and reason.
	Status       int
	Type, Reason string
	// Hang holds each request without answering until the client gives up;
	// ClearFaults or closing the Server frees it to be answered normally
	// (Status is then unused).
	Hang bool
	// Times is how many requests the fault answers; 0 means until
	// ClearFaults.
	Times int
}

func (f *Fault) matches(r *http.Request) bool {
	return (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(r.URL.Path, f.Path)
}

// rejection is Elasticsearch's answer when a thread pool's queue is full
// (search: 1000 queued, write: 10000).
func rejection(pool string) *esError {
	queue := map[string]int{"search": 1000, "write": 10000}[pool]
	return newError(http.StatusTooManyRequests, "es_rejected_execution_exception",
		"rejected execution of org.elasticsearch.action.support.ContextPreservingActionRunnable@1 on "+
			"EsThreadPoolExecutor[name = esfake/%s, queue capacity = %d, active threads = 4, queued tasks = %d]", pool, queue, queue)
}

func (f *Fault) answer(r *http.Request) *esError {
	typ, reason := f.Type, f.Reason
	switch {
	case typ != "":
	case f.Status == http.StatusTooManyRequests:
		pool := "write"
		if strings.HasSuffix(r.URL.Path, "/_search") || strings.HasSuffix(r.URL.Path, "/_count") {
			pool = "search"
		}
		return rejection(pool)
	case f.Status == http.StatusServiceUnavailable:
		typ, reason = "unavailable_shards_exception", "[esfake][0] primary shard is not active Timeout: [1m]"
	default:
		typ = "exception"
	}
	if reason == "" {
		reason = "esfake: injected fault"
	}
	return newError(f.Status, typ, "%s", reason)
}

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault and bulk-item rejection and frees the
// requests held by Hang.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults, s.bulkRej = nil, 0
	if !s.closed {
		close(s.release)
		s.release = make(chan struct{})
	}
}

// RejectBulkItems makes the next n _bulk items fail with status 429
// es_rejected_execution_exception, each in its own item of an otherwise
// normal response ("errors": true), as a node whose write queue is full
// answers; the rejected items are not written.
func (s *Server) RejectBulkItems(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bulkRej = n
}

// takeBulkRejection reports whether the next bulk item is to be rejected.
func (s *Server) takeBulkRejection() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bulkRej > 0 {
		s.bulkRej--
		return true
	}
	return false
}

// fault answers r with the first matching fault and reports whether it did.
func (s *Server) fault(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	var f *Fault
	for i, c := range s.faults {
		if c.matches(r) {
			f = c
			if f.Times > 0 {
				if f.Times--; f.Times == 0 {
					s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
				}
			}
			break
		}
	}
	release := s.release
	s.mu.Unlock()
	if f == nil {
		return false
	}
	if f.Hang {
		select {
		case <-r.Context().Done():
			return true
		case <-release:
			return false // freed: answer as if nothing had happened
		}
	}
	f.answer(r).write(w)
	return true
}

// Requests counts the requests received (every one, answered or not) with
// this method and path; an empty method or path matches any.
func (s *Server) Requests(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.counts {
		m, p, _ := strings.Cut(k, " ")
		if (method == "" || m == method) && (path == "" || p == path) {
			n += c
		}
	}
	return n
}

// Waiting is how many refresh=wait_for writes on the index wait for its
// next refresh.
func (s *Server) Waiting(indexName string) int {
	s.mu.Lock()
	ix := s.indices[indexName]
	s.mu.Unlock()
	if ix == nil {
		return 0
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.waiting
}

// Recorded is a request as the fake received it.
type Recorded struct {
	Query  url.Values
	Header http.Header
	Body   []byte
}

func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[r.Method+" "+r.URL.Path] = Recorded{Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
}

// LastRequest returns the last request received with this method and path
// (before any fault answered it), and whether there was one.
func (s *Server) LastRequest(method, path string) (Recorded, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.last[method+" "+path]
	return rec, ok
}

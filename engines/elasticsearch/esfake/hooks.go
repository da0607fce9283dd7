package esfake

import (
	"net/http"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Test hooks: faults an overloaded or stuck Elasticsearch shows, and what a
// client sent.

// Fault makes requests fail the way an overloaded or stuck node does
// (fakekit.Fault): Status 429 answers Elasticsearch's
// es_rejected_execution_exception (a full thread-pool queue), 503 its
// unavailable_shards_exception, any other status a plain "exception"; Code
// and Message, when set, replace the error's type and reason. Hang holds
// each request until the client gives up, or ClearFaults or Close lets it
// be answered normally.
type Fault = fakekit.Fault

// Recorded is a request as the fake received it.
type Recorded = fakekit.Recorded

// rejection is Elasticsearch's answer when a thread pool's queue is full
// (search: 1000 queued, write: 10000).
func rejection(pool string) *esError {
	queue := map[string]int{"search": 1000, "write": 10000}[pool]
	return newError(http.StatusTooManyRequests, "es_rejected_execution_exception",
		"rejected execution of org.elasticsearch.action.support.ContextPreservingActionRunnable@1 on "+
			"EsThreadPoolExecutor[name = esfake/%s, queue capacity = %d, active threads = 4, queued tasks = %d]", pool, queue, queue)
}

// faultError is the error body of an injected fault (fakekit.ErrorBody).
func faultError(w http.ResponseWriter, r *http.Request, f Fault) {
	typ, reason := f.Code, f.Message
	switch {
	case typ != "":
	case f.Status == http.StatusTooManyRequests:
		pool := "write"
		if strings.HasSuffix(r.URL.Path, "/_search") || strings.HasSuffix(r.URL.Path, "/_count") {
			pool = "search"
		}
		rejection(pool).write(w)
		return
	case f.Status == http.StatusServiceUnavailable:
		typ, reason = "unavailable_shards_exception", "[esfake][0] primary shard is not active Timeout: [1m]"
	default:
		typ = "exception"
	}
	if reason == "" {
		reason = "esfake: injected fault"
	}
	newError(f.Status, typ, "%s", reason).write(w)
}

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// LastNumCandidates is the num_candidates of the last knn search answered,
// 0 for none yet.
func (s *Server) LastNumCandidates() int { return s.knob.Last() }

// NumCandidates is every num_candidates a knn search carried, ascending.
func (s *Server) NumCandidates() []int { return s.knob.Seen() }

// ClearFaults removes every fault and bulk-item rejection and lets the
// requests held by Hang be answered.
func (s *Server) ClearFaults() {
	s.faults.Clear()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bulkRej = 0
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

// Requests counts the requests received (every one, answered or not) with
// this method and path; an empty method or path matches any.
func (s *Server) Requests(method, path string) int {
	return s.reqs.CountFunc(func(key string) bool {
		m, p, _ := strings.Cut(key, " ")
		return (method == "" || m == method) && (path == "" || p == path)
	})
}

// LastRequest returns the last request received with this method and path
// (before any fault answered it), and whether there was one.
func (s *Server) LastRequest(method, path string) (Recorded, bool) {
	return s.reqs.Last(method + " " + path)
}

// Waiting is how many refresh=wait_for writes on the index wait for its
// next refresh.
func (s *Server) Waiting(indexName string) int {
	ix, _ := s.lookup(indexName)
	if ix == nil {
		return 0
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.waiting
}

package meilifake

import (
	"maps"
	"net/http"
	"slices"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Fault is a failure the fake shows in place of its answer
// (fakekit.Fault): a status with Meilisearch's error body (Meilisearch
// itself sends 503 too_many_search_requests when its search queue is full;
// a 429 comes from a proxy or a rate limiter in front of it), a hang, a
// dropped connection, a delay, a raw answer. A fault without a Path spares
// /health.
type Fault = fakekit.Fault

// errorBody is Meilisearch's error answer for an injected fault's Status,
// Code and Message, empty ones meaning the usual code of the status.
func errorBody(w http.ResponseWriter, _ *http.Request, f Fault) {
	code, msg := f.Code, f.Message
	switch {
	case code != "":
	case f.Status == http.StatusServiceUnavailable:
		code, msg = "too_many_search_requests", "Too many search requests running at the same time: 1000. Retry after 10s."
	case f.Status == http.StatusTooManyRequests:
		code, msg = "too_many_requests", "Too many requests."
	default:
		code, msg = "internal", "meilifake: injected fault"
	}
	e := newError(code, msg)
	e.status = f.Status
	writeError(w, e)
}

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// ClearFaults removes every fault and lets the requests held by Hang go on.
func (s *Server) ClearFaults() { s.faults.Clear() }

// FailTasks makes the next n tasks the scheduler processes fail with the
// given Meilisearch error code and message, changing nothing.
func (s *Server) FailTasks(n int, code, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failNext = append(s.failNext, newError(code, message))
	}
}

// Pause holds the task queue: new tasks stay enqueued until Resume. A batch
// already processing finishes.
func (s *Server) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = true
}

// Resume lets the scheduler process the queue again.
func (s *Server) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = false
	s.wake.Broadcast()
}

// Calls returns how many requests reached a route, by its pattern as
// registered ("POST /indexes/{uid}/search", "GET /tasks/{uid}"); requests
// to routes the fake does not model count under "/".
func (s *Server) Calls(pattern string) int { return s.requests.Count(pattern) }

// Settings is what an index is configured with, for tests to inspect.
type Settings struct {
	PrimaryKey           string
	SearchableAttributes []string // ["*"] when every attribute is searchable
	TypoTolerance        bool
	OneTypo, TwoTypos    int
	Documents            int
	FilterableAttributes []string
	Embedders            map[string]int // userProvided embedders: name → dimensions
}

// Settings returns an index's settings, or false if it does not exist.
func (s *Server) Settings(uid string) (Settings, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, ok := s.indexes[uid]
	if !ok {
		return Settings{}, false
	}
	sa := []string{"*"}
	if ix.searchable != nil {
		sa = slices.Clone(ix.searchable)
	}
	return Settings{
		PrimaryKey: ix.primaryKey, SearchableAttributes: sa,
		TypoTolerance: ix.typo.enabled, OneTypo: ix.typo.oneTypo, TwoTypos: ix.typo.twoTypos,
		Documents:            len(ix.docs),
		FilterableAttributes: slices.Clone(ix.filterable),
		Embedders:            maps.Clone(ix.embedders),
	}, true
}

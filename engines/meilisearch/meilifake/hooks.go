package meilifake

import (
	"net/http"
	"slices"
	"strings"
)

// Fault makes requests fail the way an overloaded or stuck server does.
type Fault struct {
	// Path limits the fault to request paths with this prefix ("/indexes",
	// "/tasks"); empty means every route but /health.
	Path string
	// Status is the HTTP status to answer (503, 429, ...), with a
	// Meilisearch error body. Meilisearch itself sends 503
	// too_many_search_requests when its search queue is full; a 429 comes
	// from a proxy or a rate limiter in front of it.
	Status int
	// Code and Message fill the body; empty means a default for Status.
	Code, Message string
	// Hang holds each request without answering until the client gives up,
	// ClearFaults is called or the Server closes (Status is then unused).
	Hang bool
	// Times is how many requests the fault answers; 0 means until
	// ClearFaults.
	Times int
}

func (f *Fault) apiError() apiError {
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
	if f.Status != 0 {
		e.status = f.Status
	}
	return e
}

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault and frees the requests held by Hang.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	close(s.release)
	s.release = make(chan struct{})
}

// takeFault returns the fault for a request path and uses one of its Times.
// Called with s.mu held.
func (s *Server) takeFault(path string) *Fault {
	for i, f := range s.faults {
		if f.Path == "" && path == "/health" || !strings.HasPrefix(path, f.Path) {
			continue
		}
		if f.Times > 0 {
			if f.Times--; f.Times == 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
		}
		return f
	}
	return nil
}

// TaskFailure is how FailTasks makes a task fail.
type TaskFailure struct {
	Code, Message string
}

// FailTasks makes the next n tasks the scheduler processes fail with the
// given Meilisearch error code and message, changing nothing.
func (s *Server) FailTasks(n int, code, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failNext = append(s.failNext, TaskFailure{Code: code, Message: message})
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
func (s *Server) Calls(pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[pattern]
}

// Settings is what an index is configured with, for tests to inspect.
type Settings struct {
	PrimaryKey           string
	SearchableAttributes []string // ["*"] when every attribute is searchable
	TypoTolerance        bool
	OneTypo, TwoTypos    int
	Documents            int
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
		Documents: len(ix.docs),
	}, true
}

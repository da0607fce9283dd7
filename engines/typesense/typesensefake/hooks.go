package typesensefake

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Fault makes requests fail the way an overloaded or stuck server does.
type Fault struct {
	// Path limits the fault to request paths with this prefix
	// ("/collections/docs/documents/search"); empty means every route but
	// /health.
	Path string
	// Status is the HTTP status to answer (503, 429, ...) with a Typesense
	// error body. Typesense answers 503 "Not Ready or Lagging" when its raft
	// apply lags beyond --healthy-read-lag / --healthy-write-lag, and 429
	// "Rate limit exceeded or blocked" when a rate limit rule applies.
	Status int
	// Message fills the body; empty means Typesense's message for Status.
	Message string
	// Hang holds each request without answering until the client gives up,
	// ClearFaults is called or the Server closes.
	Hang bool
	// Drop closes the connection without answering: the client sees a
	// transport error, as when a server crashes or a proxy resets.
	Drop bool
	// Delay answers normally, this much later: a busy server.
	Delay time.Duration
	// Times is how many requests the fault answers; 0 means until
	// ClearFaults.
	Times int
}

func (f *Fault) message() string {
	switch {
	case f.Message != "":
		return f.Message
	case f.Status == http.StatusServiceUnavailable:
		return "Not Ready or Lagging"
	case f.Status == http.StatusTooManyRequests:
		return "Rate limit exceeded or blocked"
	}
	return "typesensefake: injected fault"
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
		c := *f
		return &c
	}
	return nil
}

// applyFault answers r as f says; false means the request proceeds.
func (s *Server) applyFault(f *Fault, release chan struct{}, w http.ResponseWriter, r *http.Request) bool {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	case f.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler) // closes the connection too
	case f.Status != 0:
		writeReply(w, errorf(f.Status, "%s", f.message()))
		return true
	case f.Delay > 0:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return true
		case <-release:
		case <-t.C:
		}
	}
	return false
}

// Calls returns how many requests reached a route, by its pattern as
// registered ("GET /collections/{c}/documents/search", "POST
// /collections/{c}/documents"; "/" for routes the fake does not model), or
// every request when pattern is "". Requests answered by a fault count:
// they reached the server.
func (s *Server) Calls(pattern string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.calls[pattern]
}

// LastQuery returns the query parameters of the last request to a route
// pattern, or nil.
func (s *Server) LastQuery(pattern string) url.Values {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q, ok := s.lastQuery[pattern]; ok {
		return maps.Clone(q)
	}
	return nil
}

// Document returns a copy of a stored document as Typesense would return
// it, or false if the collection or the document does not exist.
func (s *Server) Document(collection, id string) (map[string]any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.collections[collection]
	if !ok {
		return nil, false
	}
	d, ok := c.docs[id]
	if !ok {
		return nil, false
	}
	return maps.Clone(d.fields), true
}

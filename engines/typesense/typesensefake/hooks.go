package typesensefake

import (
	"cmp"
	"maps"
	"net/http"
	"net/url"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Fault makes requests fail the way an overloaded or stuck server does
// (fakekit.Fault): Path limits it to request paths with this prefix
// ("/collections/docs/documents/search"), empty meaning every route but
// /health; Status answers with a Typesense error body, whose message is
// Message or Typesense's for the status; Hang holds each request until the
// client gives up, or ClearFaults or Close lets it go on; Drop closes the
// connection; Delay answers normally, later; Times is how many requests it
// answers, 0 meaning until ClearFaults.
type Fault = fakekit.Fault

// faultBody is Typesense's error body for an injected status. Typesense
// answers 503 "Not Ready or Lagging" when its raft apply lags beyond
// --healthy-read-lag / --healthy-write-lag, and 429 "Rate limit exceeded or
// blocked" when a rate limit rule applies.
func faultBody(w http.ResponseWriter, _ *http.Request, f Fault) {
	usual := map[int]string{http.StatusServiceUnavailable: "Not Ready or Lagging", http.StatusTooManyRequests: "Rate limit exceeded or blocked"}
	writeReply(w, errorf(f.Status, "%s", cmp.Or(f.Message, usual[f.Status], "typesensefake: injected fault")))
}

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// ClearFaults removes every fault and lets the requests held by Hang go on.
func (s *Server) ClearFaults() { s.faults.Clear() }

// Calls returns how many requests reached a route, by its pattern as
// registered ("GET /collections/{c}/documents/search", "POST
// /collections/{c}/documents"; "/" for routes the fake does not model), or
// every request when pattern is "". Requests answered by a fault count:
// they reached the server.
func (s *Server) Calls(pattern string) int { return s.requests.Count(pattern) }

// LastEF is the ef of the last vector_query that had one, 0 for none yet.
func (s *Server) LastEF() int { return s.knob.Last() }

// EFs is every ef a vector_query carried, ascending.
func (s *Server) EFs() []int { return s.knob.Seen() }

// LastQuery returns the query parameters of the last request to a route
// pattern, or nil.
func (s *Server) LastQuery(pattern string) url.Values {
	if rec, ok := s.requests.Last(pattern); ok {
		return maps.Clone(rec.Query)
	}
	return nil
}

// Document returns a copy of a stored document as Typesense would return
// it, or false if the collection or the document does not exist.
func (s *Server) Document(collection, id string) (map[string]any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if c, ok := s.collections[collection]; ok {
		if d, ok := c.docs[id]; ok {
			return maps.Clone(d.fields), true
		}
	}
	return nil, false
}

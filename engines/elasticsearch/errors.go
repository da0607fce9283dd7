package elasticsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

// ErrNotElasticsearch: the server's answer lacked the header
// X-Elastic-Product: Elasticsearch, so the client refused it.
var ErrNotElasticsearch = errors.New("the server did not identify itself as Elasticsearch (no X-Elastic-Product: Elasticsearch header on its response): " +
	"not Elasticsearch 8, or a proxy in between drops the header")

// HTTPError is a response with a status the call did not expect, with
// Elasticsearch's error type and reason when the body had them.
type HTTPError struct {
	Status int
	Type   string // e.g. "es_rejected_execution_exception"
	Reason string
}

func (h *HTTPError) Error() string {
	switch {
	case h.Type == "" && h.Reason == "":
		return fmt.Sprintf("HTTP %d", h.Status)
	case h.Type == "":
		return fmt.Sprintf("HTTP %d: %s", h.Status, h.Reason)
	}
	return fmt.Sprintf("HTTP %d %s: %s", h.Status, h.Type, h.Reason)
}

// classified wraps h in the runner's class for it: its status's
// (httpwire.StatusError), except where Elasticsearch's error type says more.
// A 404 is never a missing document here: index_not_found_exception is a
// broken setup, and a delete's missing document is read from its body
// (result "not_found").
func (h *HTTPError) classified() error {
	switch {
	case h.Status == http.StatusTooManyRequests && h.Type == "cluster_block_exception":
		// The disk flood-stage block: the index went read-only, which no
		// amount of waiting fixes.
		return h
	case h.Type == "es_rejected_execution_exception" && httpwire.StatusClass(h.Status, false) != engines.ErrTimeout:
		// A full thread-pool queue, whatever status carried it; a gateway
		// that gave up (408, 504) stays a timeout, as the status decides.
		return fmt.Errorf("%w: %w", engines.ErrOverloaded, h)
	}
	return httpwire.StatusError(h.Status, false, h)
}

// errorCause is Elasticsearch's error object ("error", a root_cause entry,
// a shard failure's "reason", a bulk item's "error").
type errorCause struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

func (c errorCause) String() string {
	return quote.Clip(c.Type) + ": " + quote.Clip(c.Reason)
}

// responseError turns an error response into an HTTPError in its class.
// Elasticsearch answers {"error":{"type":…,"reason":…},"status":N}, or for a
// few routing errors {"error":"text","status":N}; anything else (a proxy's
// page, an empty body) leaves only the status.
func responseError(status int, body []byte) error {
	h := &HTTPError{Status: status}
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &r) == nil && len(r.Error) > 0 {
		var c errorCause
		var s string
		switch {
		case json.Unmarshal(r.Error, &c) == nil:
			h.Type, h.Reason = quote.Clip(c.Type), quote.Clip(c.Reason)
		case json.Unmarshal(r.Error, &s) == nil:
			h.Reason = quote.Clip(s)
		}
	}
	return h.classified()
}

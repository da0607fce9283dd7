package elasticsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"unicode/utf8"

	"github.com/searchbench/searchbench/engines"
)

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

// classified wraps h in the runner's class for it.
func (h *HTTPError) classified() error {
	switch {
	case h.Status == http.StatusRequestTimeout, h.Status == http.StatusGatewayTimeout:
		// The status decides: a gateway that gave up is a timeout,
		// whatever body it passes on.
		return fmt.Errorf("%w: %w", engines.ErrTimeout, h)
	case h.Type == "es_rejected_execution_exception",
		h.Status == http.StatusTooManyRequests && h.Type != "cluster_block_exception",
		h.Status == http.StatusServiceUnavailable:
		// A 429 cluster_block_exception is the disk flood-stage block:
		// the index went read-only, which no amount of waiting fixes.
		return fmt.Errorf("%w: %w", engines.ErrOverloaded, h)
	}
	return h
}

// errorCause is Elasticsearch's error object ("error", a root_cause entry,
// a shard failure's "reason", a bulk item's "error").
type errorCause struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

func (c errorCause) String() string {
	return clip(c.Type) + ": " + clip(c.Reason)
}

// clip shortens a server's text for a message: reasons can quote whole
// request bodies.
func clip(s string) string {
	const limit = 300
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
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
			h.Type, h.Reason = clip(c.Type), clip(c.Reason)
		case json.Unmarshal(r.Error, &s) == nil:
			h.Reason = clip(s)
		}
	}
	return h.classified()
}

// transportError classifies a failure that left no response: a deadline, a
// network timeout. (A failed product check is ErrNotElasticsearch already:
// client.Perform returns it.)
func transportError(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: %w", engines.ErrTimeout, err)
	}
	return err
}

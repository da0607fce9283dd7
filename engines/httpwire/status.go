package httpwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/searchbench/searchbench/engines"
)

// What an HTTP driver does with an answer it did not expect, in one place so
// that every HTTP engine's failures land in the same classes: the drivers
// add only what their engine documents beyond the status (an error code in
// the body), and Clip is the one way a server's text reaches a message.

// StatusClass is the class an HTTP status means when a call did not expect
// it: the sentinel to wrap, or nil for class Other.
//
//   - 408 Request Timeout, 504 Gateway Timeout: ErrTimeout. The status
//     decides, whatever the body: a server or a gateway gave up waiting.
//   - 429 Too Many Requests, 503 Service Unavailable: ErrOverloaded. The
//     engine (or a proxy before it) shed the request.
//   - 404 Not Found: ErrNotFound only when missing is true, that is when the
//     engine's answer says the document (or, for an engine that means it so,
//     the index) is missing — each engine marks that its own way, and the
//     driver reads the mark. A bare 404 is a wrong route or a missing index:
//     a broken setup, class Other, which the runner must not ignore the way
//     it ignores a missing ID on delete.
//   - anything else: nil (class Other).
func StatusClass(status int, missing bool) error {
	switch status {
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return engines.ErrTimeout
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return engines.ErrOverloaded
	case http.StatusNotFound:
		if missing {
			return engines.ErrNotFound
		}
	}
	return nil
}

// StatusError wraps err — the driver's description of an answer with an
// unexpected status, which keeps the engine's own error type for errors.As —
// in StatusClass(status, missing); err is returned as it is when the class
// is Other.
func StatusError(status int, missing bool, err error) error {
	if class := StatusClass(status, missing); class != nil {
		return fmt.Errorf("%w: %w", class, err)
	}
	return err
}

// TransportError is err, a call that got no answer, with its class made
// plain: a deadline or a network timeout wraps ErrTimeout (so that the
// message says "timeout" and errors.Is sees it even where a client library
// reports the cause in its own words), a canceled context stays as it is
// (class Canceled), and anything else is returned unchanged (class Other).
// It classifies exactly as Classify does the same error.
func TransportError(err error) error {
	var ne net.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engines.ErrTimeout), errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: %w", engines.ErrTimeout, err)
	}
	return err
}

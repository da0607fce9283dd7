package engines

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"unicode/utf8"
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
		return ErrTimeout
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return ErrOverloaded
	case http.StatusNotFound:
		if missing {
			return ErrNotFound
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
	case errors.Is(err, ErrTimeout), errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

// MaxQuoted is how many bytes of a server's text an error message quotes.
const MaxQuoted = 300

// Clip is a server's text (an error body, an engine's reason) fit for an
// error message: trimmed, invalid UTF-8 replaced by U+FFFD, and at most
// MaxQuoted bytes cut at a character boundary — never inside a multi-byte
// character — followed by a note that says it was clipped and from how much.
// A server's reason can quote a whole request body.
func Clip(s string) string { return clip(s, MaxQuoted) }

// clip is Clip to at most max bytes.
func clip(s string, max int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s%s, %d bytes)", s[:cut], clipMark, len(s))
}

// clipMark follows the text Clip kept (RedactString looks for it).
const clipMark = "… (clipped"

// maxAnswerQuoted is how much of an unreadable answer Unreadable quotes:
// enough to tell an HTML error page, a cut-off JSON answer and a wrong
// route apart in the run's error examples.
const maxAnswerQuoted = 120

// Unreadable is err — the driver could not read an answer that came with a
// success status — with the body's first bytes beside it, so that the
// error examples of a run show what came back. It classifies as Other: an
// answer the driver cannot read is never a success with no hits.
func Unreadable(body []byte, err error) error {
	s := clip(string(body), maxAnswerQuoted)
	if s == "" {
		return fmt.Errorf("unreadable answer (an empty body): %w", err)
	}
	return fmt.Errorf("unreadable answer, beginning %s: %w", s, err)
}

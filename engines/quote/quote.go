package quote

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLen is how many bytes of a server's text an error message quotes.
const MaxLen = 300

// Clip is a server's text (an error body, an engine's reason) fit for an
// error message: trimmed, invalid UTF-8 replaced by U+FFFD, and at most
// MaxLen bytes cut at a character boundary — never inside a multi-byte
// character — followed by a note that says it was clipped and from how much.
// A server's reason can quote a whole request body.
func Clip(s string) string { return clip(s, MaxLen) }

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

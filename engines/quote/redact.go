package quote

import (
	"net/url"
	"strings"
)

// redacted replaces a secret in a message.
const redacted = "[redacted]"

// Redact returns err with every non-empty secret removed from its message
// (a server or a library may echo a credential back); errors.Is and
// errors.As still see the original, so the runner classifies it as before.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := RedactString(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return redactedError{msg: msg, err: err}
}

// RedactString is s with every non-empty secret replaced by "[redacted]",
// and the start of one cut off by Clip: a server that echoed the key near
// the end of a long body leaves its first bytes just before Clip's mark, and
// a scrub after the clip would not see a whole key there.
func RedactString(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		s = strings.ReplaceAll(s, sec, redacted)
		for from := 0; ; {
			i := strings.Index(s[from:], clipMark)
			if i < 0 {
				break
			}
			i += from
			// The longest start of the secret (3 bytes or more: fewer
			// tell nothing) that ends where the text was cut.
			for k := min(len(sec)-1, i); k >= 3; k-- {
				if strings.HasSuffix(s[:i], sec[:k]) {
					s = s[:i-k] + redacted + s[i:]
					i += len(redacted) - k
					break
				}
			}
			from = i + len(clipMark)
		}
	}
	return s
}

type redactedError struct {
	msg string
	err error
}

func (r redactedError) Error() string { return r.msg }
func (r redactedError) Unwrap() error { return r.err }

// SafeURL is an engine URL fit for a message: a scheme://… URL with its
// password replaced, anything else (a key=value connection string, which may
// hold one) not shown at all.
func SafeURL(raw string) string {
	if !strings.Contains(raw, "://") {
		return "(connection string)"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

package engines

import (
	"encoding/json"
	"net/url"
	"strings"
)

// Config is what every driver may be given. Drivers ignore what they do not
// use and reject what they cannot honour.
type Config struct {
	URL      string // attach to a running engine; empty: the driver's default or launcher's
	Username string
	Password Secret
	APIKey   Secret
	DataDir  string // embedded engines: where the index lives; empty: a temporary directory
	// WriteMode asks for a Visibility where the driver offers both; empty
	// means the driver's default.
	WriteMode Visibility
	Options   map[string]string // driver-specific knobs, named in each driver's docs
}

// Secret is a credential. It prints and marshals as "[redacted]" so it never
// reaches a log, a report or an error message by accident; Reveal is the one
// way to read it, and only drivers call it.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the secret.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// MarshalJSON writes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

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

// Secrets is every credential of the configuration: the password, the API
// key, and a password written into the URL — in a scheme://user:pass@host
// URL (raw and as escaped in it) or in a key=value connection string
// (PostgreSQL's "host=… password=…").
func (c Config) Secrets() []string {
	out := []string{c.Password.Reveal(), c.APIKey.Reveal()}
	if strings.Contains(c.URL, "://") {
		if u, err := url.Parse(c.URL); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
			}
		}
		return out
	}
	for _, f := range strings.Fields(c.URL) {
		if k, v, ok := strings.Cut(f, "="); ok && strings.TrimSpace(k) == "password" {
			out = append(out, v, strings.Trim(v, `'"`))
		}
	}
	return out
}

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

package engines

import (
	"encoding/base64"
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

// Secrets is every credential of the configuration, as a driver may send
// it: the password, the API key, a password written into the URL — in a
// scheme://user:pass@host URL (as parsed and as written in it) or in a
// key=value connection string (PostgreSQL's "host=… password=…") — and,
// for each user and password, the token of the HTTP basic authorization a
// driver sends for them (the base64 of "user:password", which decodes to
// the password; an HTTP client sends a URL's userinfo so). A message must
// show none of them: quote.Scrubber derives their other encodings.
func (c Config) Secrets() []string {
	out := []string{c.Password.Reveal(), c.APIKey.Reveal()}
	if c.Password != "" {
		out = append(out, basicToken(c.Username, c.Password.Reveal()))
	}
	if strings.Contains(c.URL, "://") {
		if u, err := url.Parse(c.URL); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, basicToken(u.User.Username(), p))
			}
			if p, ok := writtenPassword(c.URL); ok {
				out = append(out, p)
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

// basicToken is the token of an HTTP basic authorization header
// ("Authorization: Basic <token>", RFC 7617), as net/http's SetBasicAuth
// writes it.
func basicToken(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

// writtenPassword is the password of a scheme://user:pass@host URL as it
// is written there: its escapes may differ from any that url.PathEscape or
// url.QueryEscape makes (%3a or %3A, an escaped letter).
func writtenPassword(raw string) (string, bool) {
	_, rest, _ := strings.Cut(raw, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return "", false
	}
	_, p, ok := strings.Cut(rest[:at], ":")
	return p, ok && p != ""
}

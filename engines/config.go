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

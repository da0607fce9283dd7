package quote

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/searchbench/searchbench/engines"
)

// Redaction removes every secret from the message and keeps the class.
func TestRedact(t *testing.T) {
	base := fmt.Errorf("login as bob:hunter2 with key k-123 failed: %w", engines.ErrOverloaded)
	cfg := engines.Config{URL: "postgres://bob:hunter2@db/x", APIKey: "k-123"}
	err := Redact(base, cfg.Secrets()...)
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "k-123") || !strings.Contains(err.Error(), "bob:[redacted]") {
		t.Errorf("Redact = %q; want both secrets gone", err)
	}
	if !errors.Is(err, engines.ErrOverloaded) || engines.Classify(err) != engines.Overloaded {
		t.Errorf("Redact lost the error's class: %v", engines.Classify(err))
	}
	kv := engines.Config{URL: "host=db user=bob password='hunter2' dbname=x"}
	if err := Redact(base, kv.Secrets()...); strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Redact(key=value connection string) = %q", err)
	}
	if got := SafeURL(kv.URL); got != "(connection string)" {
		t.Errorf("SafeURL(key=value) = %q", got)
	}
	if got := SafeURL(cfg.URL); strings.Contains(got, "hunter2") || !strings.Contains(got, "db/x") {
		t.Errorf("SafeURL(%q) = %q", cfg.URL, got)
	}
	if Redact(base) != base || Redact(nil, "x") != nil {
		t.Error("Redact without secrets (or of nil) must return its argument")
	}
}

// A key a server echoed where Clip cut its answer leaves its start before
// the clip's mark; redaction after the clip removes that start too, and
// leaves a clipped message that holds no secret alone.
func TestRedactClippedSecret(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	for _, keep := range []int{3, 10, len(key) - 1} {
		body := strings.Repeat("x", MaxLen-keep) + key + " and more"
		msg := RedactString(Clip(body), key)
		if strings.Contains(msg, key[:3]) || !strings.Contains(msg, redacted+clipMark) {
			t.Errorf("keeping %d bytes of the key: %q; want its start redacted before the mark", keep, msg)
		}
	}
	plain := Clip(strings.Repeat("y", MaxLen+10))
	if got := RedactString(plain, key); got != plain {
		t.Errorf("a clipped message without the key changed: %q", got)
	}
}

func TestClip(t *testing.T) {
	short := "  index not found \n"
	if got := Clip(short); got != "index not found" {
		t.Errorf("Clip(%q) = %q", short, got)
	}
	if got := Clip(strings.Repeat("a", MaxLen)); got != strings.Repeat("a", MaxLen) {
		t.Errorf("Clip of exactly MaxLen bytes changed it: %q", got)
	}
	// A multi-byte character across the cut, at every offset: é (2 bytes),
	// € (3), 𝄞 (4).
	for _, r := range []string{"é", "€", "𝄞"} {
		for pad := range len(r) {
			s := strings.Repeat("a", MaxLen-pad) + strings.Repeat(r, 10)
			got := Clip(s)
			if !utf8.ValidString(got) {
				t.Fatalf("Clip split %q at the cut (pad %d): %q", r, pad, got)
			}
			kept, note, ok := strings.Cut(got, "…")
			if !ok || !strings.Contains(note, "clipped") || !strings.Contains(note, fmt.Sprint(len(s))) {
				t.Fatalf("Clip(%d bytes) = …%q: does not say it clipped, from how much", len(s), note)
			}
			if len(kept) > MaxLen || len(kept) <= MaxLen-utf8.UTFMax || !strings.HasPrefix(s, kept) {
				t.Fatalf("Clip kept %d bytes (%q…); want a prefix of at most %d bytes, cut at the last whole character", len(kept), kept[len(kept)-8:], MaxLen)
			}
		}
	}
	if got := Clip("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("Clip kept invalid UTF-8: %q", got)
	}
}

// leftRun is the first run of six characters of secret that msg holds,
// in any case and across whitespace; "" when none.
func leftRun(msg, secret string) string {
	flat := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	m, s := flat(msg), []rune(flat(secret))
	for i := 0; i+6 <= len(s); i++ {
		if strings.Contains(m, string(s[i:i+6])) {
			return string(s[i : i+6])
		}
	}
	return ""
}

// A password sent inside an encoded "user:password" starts at any byte
// offset mod 3, and each offset encodes it to other characters; given only
// the password, the scrubber still removes every run of six characters of
// the base64 groups that encode nothing but the password, std or URL-safe,
// padded or not, percent-encoded, in another case, split by spaces. The
// truth here is encoding/base64's, cut at the first group the password
// alone fills.
func TestScrubberRemovesTheEncodedSecretAtEveryAlignment(t *testing.T) {
	for _, pw := range []string{"Sb+s3cr/t?Kx9~Qw7%zA", "hunter22", "Pässwört-Ünïcode", "pw 8 with spaces"} {
		for _, prefix := range []string{"", "u:", "ab:", "admin:", "sb-user:", "elastic:"} {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
				whole := enc.EncodeToString([]byte(prefix + pw))
				// The characters that encode only the password: from the
				// first group of three bytes that starts in it.
				only := whole[(len(prefix)+2)/3*4:]
				for name, echo := range map[string]string{
					"as sent":      whole,
					"lower-cased":  strings.ToLower(whole),
					"upper-cased":  strings.ToUpper(whole),
					"URL-encoded":  url.QueryEscape(whole),
					"path-encoded": url.PathEscape(whole),
					"split":        whole[:len(whole)/2] + " " + whole[len(whole)/2:],
					"in fours":     strings.Join(chunks(whole, 4), "\n"),
					"tail":         whole[len(whole)-8:],
				} {
					msg := "refused: " + echo + " (end)"
					got := RedactString(msg, pw)
					if r := leftRun(got, only); r != "" {
						t.Errorf("%q after %q, %s: %q left in %q", pw, prefix, name, r, got)
					}
					if !strings.HasPrefix(got, "refused: ") || !strings.HasSuffix(got, " (end)") {
						t.Errorf("the scrub took the words around the secret: %q", got)
					}
				}
			}
		}
		for name, echo := range map[string]string{
			"raw":             pw,
			"query-escaped":   url.QueryEscape(pw),
			"path-escaped":    url.PathEscape(pw),
			"userinfo":        url.UserPassword("u", pw).String(),
			"upper-cased":     strings.ToUpper(pw),
			"split in threes": strings.Join(chunks(pw, 3), " "),
		} {
			if got := RedactString("refused: "+echo, pw); leftRun(got, pw) != "" {
				t.Errorf("%q %s: %q", pw, name, got)
			}
		}
	}
}

// chunks is s cut every n bytes.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

// The basic-auth token of a configuration's user and password is among its
// secrets, so the whole header goes, the part that encodes the user name
// too; so does a URL's password as written in it, whatever its escapes.
// Ordinary words stay.
func TestScrubberRemovesTheBasicTokenOfConfigCredentials(t *testing.T) {
	token := base64.StdEncoding.EncodeToString([]byte("sb-user:Kx9~Qw7/zA"))
	echoes := []string{token, strings.ToLower(token[:9]), "Basic " + token, url.QueryEscape(token)}
	for _, c := range []struct {
		cfg    engines.Config
		echoes []string
	}{
		{engines.Config{Username: "sb-user", Password: "Kx9~Qw7/zA"}, echoes},
		{engines.Config{URL: "http://sb-user:Kx9~Qw7%2fzA@host:7700"}, echoes},
		{engines.Config{URL: "http://sb-user:%4bx9~Qw7%2FzA@host:7700"}, append(echoes, "%4bx9~Q")},
	} {
		for _, echo := range c.echoes {
			msg := "HTTP 401: search index not found, bad header " + echo
			got := RedactString(msg, c.cfg.Secrets()...)
			if r := leftRun(got, echo); r != "" {
				t.Errorf("%v: %q left in %q", c.cfg.URL, r, got)
			}
			if !strings.HasPrefix(got, "HTTP 401: search index not found, bad header ") {
				t.Errorf("ordinary words scrubbed: %q", got)
			}
		}
	}
}

// A secret shorter than six characters goes where it stands whole, in any
// case; its base64, too short to tell, is not hunted for in ordinary text.
func TestScrubberShortSecrets(t *testing.T) {
	sc := NewScrubber("pg")
	if got := sc.String("short PG and pg, not pgx; cGc= stays"); got != "short [redacted] and [redacted], not [redacted]x; cGc= stays" {
		t.Errorf("got %q", got)
	}
	if NewScrubber("", "") != nil || NewScrubber().String("x") != "x" || NewScrubber().Error(nil) != nil {
		t.Error("a Scrubber without secrets must change nothing")
	}
}

// The scrub is linear in the message: a long body of near-misses (every
// window one character off a secret's) costs per character, not per
// character times the secrets' forms.
func BenchmarkScrubberString(b *testing.B) {
	sc := NewScrubber("Sb+s3cr/t?Kx9~Qw7%zA", "sk-live-0123456789abcdef", base64.StdEncoding.EncodeToString([]byte("sb-user:Sb+s3cr/t?Kx9~Qw7%zA")))
	for _, n := range []int{MaxLen, 64 << 10} {
		msg := strings.Repeat("Sb+s3Xr/t?Kx9~Qw7%zA sk-live-01234X ", n/36+1)[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				sc.String(msg)
			}
		})
	}
}

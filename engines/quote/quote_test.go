package quote

import (
	"errors"
	"fmt"
	"strings"
	"testing"
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

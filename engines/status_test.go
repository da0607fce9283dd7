package engines

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// The one table of what an unexpected HTTP status means; every HTTP driver
// is checked against the same classes by enginetest.StatusClasses.
func TestStatusClass(t *testing.T) {
	for _, c := range []struct {
		status  int
		missing bool
		want    Class
	}{
		{400, false, Other},
		{401, false, Other},
		{404, false, Other}, // a wrong route or a missing index
		{404, true, NotFound},
		{400, true, Other}, // missing means something only on a 404
		{408, false, Timeout},
		{429, false, Overloaded},
		{500, false, Other},
		{502, false, Other},
		{503, false, Overloaded},
		{503, true, Overloaded},
		{504, false, Timeout},
	} {
		base := fmt.Errorf("HTTP %d", c.status)
		err := StatusError(c.status, c.missing, base)
		if got := Classify(err); got != c.want {
			t.Errorf("StatusError(%d, missing %v) = %v, class %s; want %s", c.status, c.missing, err, got, c.want)
		}
		if !errors.Is(err, base) {
			t.Errorf("StatusError(%d) = %v does not wrap the driver's error", c.status, err)
		}
		if (StatusClass(c.status, c.missing) == nil) != (c.want == Other) {
			t.Errorf("StatusClass(%d, %v) = %v; want class %s", c.status, c.missing, StatusClass(c.status, c.missing), c.want)
		}
	}
}

// TransportError agrees with Classify on every cause, and says "timeout"
// (errors.Is ErrTimeout) for every kind of timeout.
func TestTransportError(t *testing.T) {
	refused := errors.New("connection refused")
	for _, c := range []struct {
		err       error
		want      Class
		isTimeout bool
	}{
		{context.DeadlineExceeded, Timeout, true},
		{fmt.Errorf("Post: %w", context.DeadlineExceeded), Timeout, true},
		{os.ErrDeadlineExceeded, Timeout, true},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, Timeout, true},
		{context.Canceled, Canceled, false},
		{fmt.Errorf("Post: %w", context.Canceled), Canceled, false},
		{refused, Other, false},
	} {
		err := TransportError(c.err)
		if got := Classify(err); got != c.want || got != Classify(c.err) {
			t.Errorf("TransportError(%v) = %v, class %s; want %s (Classify of the cause: %s)", c.err, err, got, c.want, Classify(c.err))
		}
		if errors.Is(err, ErrTimeout) != c.isTimeout {
			t.Errorf("TransportError(%v) = %v: errors.Is ErrTimeout is %v", c.err, err, !c.isTimeout)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("TransportError(%v) = %v lost its cause", c.err, err)
		}
	}
	if TransportError(nil) != nil {
		t.Error("TransportError(nil) is not nil")
	}
	once := TransportError(context.DeadlineExceeded)
	if twice := TransportError(once); twice.Error() != once.Error() {
		t.Errorf("TransportError twice = %q; want %q", twice, once)
	}
}

func TestClip(t *testing.T) {
	short := "  index not found \n"
	if got := Clip(short); got != "index not found" {
		t.Errorf("Clip(%q) = %q", short, got)
	}
	if got := Clip(strings.Repeat("a", MaxQuoted)); got != strings.Repeat("a", MaxQuoted) {
		t.Errorf("Clip of exactly MaxQuoted bytes changed it: %q", got)
	}
	// A multi-byte character across the cut, at every offset: é (2 bytes),
	// € (3), 𝄞 (4).
	for _, r := range []string{"é", "€", "𝄞"} {
		for pad := range len(r) {
			s := strings.Repeat("a", MaxQuoted-pad) + strings.Repeat(r, 10)
			got := Clip(s)
			if !utf8.ValidString(got) {
				t.Fatalf("Clip split %q at the cut (pad %d): %q", r, pad, got)
			}
			kept, note, ok := strings.Cut(got, "…")
			if !ok || !strings.Contains(note, "clipped") || !strings.Contains(note, fmt.Sprint(len(s))) {
				t.Fatalf("Clip(%d bytes) = …%q: does not say it clipped, from how much", len(s), note)
			}
			if len(kept) > MaxQuoted || len(kept) <= MaxQuoted-utf8.UTFMax || !strings.HasPrefix(s, kept) {
				t.Fatalf("Clip kept %d bytes (%q…); want a prefix of at most %d bytes, cut at the last whole character", len(kept), kept[len(kept)-8:], MaxQuoted)
			}
		}
	}
	if got := Clip("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("Clip kept invalid UTF-8: %q", got)
	}
}

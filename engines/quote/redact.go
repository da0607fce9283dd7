package quote

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// redacted replaces a secret in a message.
const redacted = "[redacted]"

// MinRun is the shortest run of a secret's characters that a Scrubber
// removes wherever it appears: long enough that ordinary text rarely holds
// six characters of a random key in a row, short enough that what is left
// of a 20-character key, cut into pieces, tells little.
const MinRun = 6

// minClipped is the shortest start of a secret that a Scrubber removes
// where Clip cut the text: fewer characters tell nothing.
const minClipped = 3

// Scrubber removes secrets from messages, in every form a driver puts them
// on the wire and a server or proxy may echo them back: as they are,
// percent-encoded (a URL's userinfo, a query, a path), and in base64, std
// or URL-safe, with or without padding (a basic-auth header, a key a layer
// encodes). Of a form of MinRun characters or more, every run of MinRun
// consecutive characters goes (its start, its end, its middle, each piece
// of a split quote), in any case, even where whitespace splits the run; a
// secret shorter than MinRun goes where it appears whole; and the start of
// a form that Clip cut off, from minClipped characters on. Only runs of a
// secret's own forms go, so ordinary words stay.
//
// Base64 of a part is not a part of the base64: a password inside an
// encoded "user:password" starts at any of three byte offsets mod 3, and
// each gives different characters. So the base64 of a secret is taken from
// each of its first three bytes on: whatever precedes it, the whole groups
// of its bytes encode to a run of one of the three, and so does its end.
//
// A nil Scrubber (no secrets) leaves every message as it is.
type Scrubber struct {
	grams map[gram]struct{} // every MinRun-character window of the long forms, folded, without whitespace
	short [][]rune          // the short secrets and their escapes, folded
	forms [][]rune          // every form, folded, without whitespace: the clip rule's
}

type gram [MinRun]rune

// NewScrubber is a Scrubber of the non-empty secrets, nil when there are
// none. It derives every form of each: give each secret once, as it is.
func NewScrubber(secrets ...string) *Scrubber {
	sc := &Scrubber{grams: map[gram]struct{}{}}
	seen := map[string]bool{}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		plain, encoded := forms(s)
		for i, f := range append(plain, encoded...) {
			if seen[f] {
				continue
			}
			seen[f] = true
			c := compact(f)
			if len(c) < MinRun {
				// Base64 this short encodes at most 3 bytes: matched
				// whole, it would take ordinary words with it.
				if i < len(plain) {
					sc.short = append(sc.short, fold([]rune(f)))
				}
				continue
			}
			sc.forms = append(sc.forms, c)
			for j := 0; j+MinRun <= len(c); j++ {
				sc.grams[gram(c[j:j+MinRun])] = struct{}{}
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return sc
}

// forms are a secret's forms: plain (as it is and percent-encoded) and
// encoded (base64 from each of its first three bytes, std and URL-safe, as
// they are and percent-encoded). Base64 without padding is a run of the
// padded form.
func forms(s string) (plain, encoded []string) {
	plain = escapes(s)
	for k := 0; k < 3 && k < len(s); k++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			encoded = append(encoded, escapes(enc.EncodeToString([]byte(s[k:])))...)
		}
	}
	return plain, encoded
}

// escapes is s and its percent-encodings: in a query, in a path, in a URL's
// userinfo (each escapes a different set of characters).
func escapes(s string) []string {
	userinfo, _ := strings.CutPrefix(url.UserPassword("", s).String(), ":")
	return []string{s, url.QueryEscape(s), url.PathEscape(s), userinfo}
}

// String is s with every run of a secret replaced by "[redacted]".
func (sc *Scrubber) String(s string) string {
	if sc == nil || s == "" {
		return s
	}
	r := []rune(s)
	// l is the text folded without its whitespace; at maps it back to r.
	l := make([]rune, 0, len(r))
	at := make([]int, 0, len(r))
	for i, c := range r {
		if !unicode.IsSpace(c) {
			l = append(l, unicode.ToLower(c))
			at = append(at, i)
		}
	}
	var hit []bool // the characters of r to remove; nil while there are none
	mark := func(from, to int) {
		if hit == nil {
			hit = make([]bool, len(r))
		}
		for j := from; j < to; j++ {
			hit[j] = true
		}
	}
	for i := 0; i+MinRun <= len(l); i++ {
		if _, ok := sc.grams[gram(l[i:i+MinRun])]; ok {
			mark(at[i], at[i+MinRun-1]+1)
		}
	}
	if len(sc.short) > 0 {
		f := fold(slices.Clone(r))
		for _, sh := range sc.short {
			for i := 0; i+len(sh) <= len(f); i++ {
				if slices.Equal(f[i:i+len(sh)], sh) {
					mark(i, i+len(sh))
				}
			}
		}
	}
	sc.clipped(s, l, at, mark)
	if hit == nil {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if !hit[i] {
			b.WriteRune(r[i])
			continue
		}
		b.WriteString(redacted)
		for i+1 < len(r) && hit[i+1] {
			i++
		}
	}
	return b.String()
}

// clipped marks the start of a form that ends where Clip cut the text: a
// server that echoed the key near the end of a long body leaves its first
// bytes just before Clip's mark, too few for a full run.
func (sc *Scrubber) clipped(s string, l []rune, at []int, mark func(from, to int)) {
	for from := 0; ; {
		i := strings.Index(s[from:], clipMark)
		if i < 0 {
			return
		}
		i += from
		from = i + len(clipMark)
		// j: the compact characters before the mark.
		pos := len([]rune(s[:i]))
		j, _ := slices.BinarySearch(at, pos)
		longest := 0
		for _, f := range sc.forms {
			for k := min(len(f)-1, j); k >= max(minClipped, longest+1); k-- {
				if slices.Equal(l[j-k:j], f[:k]) {
					longest = k
					break
				}
			}
		}
		if longest > 0 {
			mark(at[j-longest], at[j-1]+1)
		}
	}
}

// Error is err with every secret removed from its message; errors.Is and
// errors.As still see the original, so the runner classifies it as before.
func (sc *Scrubber) Error(err error) error {
	if err == nil || sc == nil {
		return err
	}
	msg := sc.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return redactedError{msg: msg, err: err}
}

// Redact returns err with every non-empty secret removed from its message
// (a server or a library may echo a credential back): a Scrubber's Error.
// A driver that redacts on every call keeps a Scrubber instead.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	return NewScrubber(secrets...).Error(err)
}

// RedactString is s with every non-empty secret removed: a Scrubber's
// String.
func RedactString(s string, secrets ...string) string {
	return NewScrubber(secrets...).String(s)
}

// compact is s folded, without whitespace.
func compact(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, c := range s {
		if !unicode.IsSpace(c) {
			out = append(out, unicode.ToLower(c))
		}
	}
	return out
}

// fold lower-cases r in place, character by character, so that indexes
// into the folded text are indexes into the original.
func fold(r []rune) []rune {
	for i, c := range r {
		r[i] = unicode.ToLower(c)
	}
	return r
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

package runner

import (
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

// RedactMessages removes every secret from the free-text messages of the
// record v points to: the strings under fields tagged `redact:"message"`
// (errors, warnings, failure examples), found by walking every struct,
// slice, map and pointer. Drivers redact their own errors, but a run's
// record quotes messages from many places (driver and library errors as the
// runner met them, container logs), and a server or proxy may quote a part
// of a secret, or quote it in another case, which a driver's whole-secret
// scrub misses: see scrubber. Only messages are rewritten: a common password
// such as "postgres" must not turn the engine's name, label or options into
// "[redacted]".
func RedactMessages(v any, secrets []string) {
	if sc := newScrubber(secrets); sc != nil {
		redactValue(reflect.ValueOf(v), sc, false)
	}
}

// minSecretRun is the shortest run of a secret's characters that scrub
// removes wherever it appears: long enough that ordinary text rarely holds
// six characters of a random key in a row, short enough that what is left
// of a 20-character key, cut into pieces, tells little.
const minSecretRun = 6

// scrubber removes secrets from messages: a secret shorter than
// minSecretRun where it appears whole, and of a longer one every run of
// minSecretRun or more consecutive characters (its start, its end, its
// middle, each piece of a split quote), in any case. Only runs of a
// secret's own characters go, so ordinary words stay.
type scrubber struct {
	secrets []string
	grams   map[gram]bool // every minSecretRun-character window of the long secrets, folded
	short   [][]rune      // the short secrets, folded
}

type gram [minSecretRun]rune

// newScrubber is a scrubber for the non-empty secrets, nil when there are
// none.
func newScrubber(secrets []string) *scrubber {
	sc := &scrubber{grams: map[gram]bool{}}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		sc.secrets = append(sc.secrets, s)
		r := fold([]rune(s))
		if len(r) < minSecretRun {
			sc.short = append(sc.short, r)
			continue
		}
		for i := 0; i+minSecretRun <= len(r); i++ {
			sc.grams[gram(r[i:i+minSecretRun])] = true
		}
	}
	if len(sc.secrets) == 0 {
		return nil
	}
	return sc
}

// scrub is msg with every run of a secret replaced by "[redacted]".
func (sc *scrubber) scrub(msg string) string {
	// The drivers' scrub first: it also removes the start of a secret
	// that a clipped quote cut off (3 characters or more).
	msg = quote.RedactString(msg, sc.secrets...)
	r := []rune(msg)
	l := fold(slices.Clone(r))
	var hit []bool // the characters to remove; nil while there are none
	mark := func(i, n int) {
		if hit == nil {
			hit = make([]bool, len(r))
		}
		for j := i; j < i+n; j++ {
			hit[j] = true
		}
	}
	for i := 0; i+minSecretRun <= len(l); i++ {
		if sc.grams[gram(l[i:i+minSecretRun])] {
			mark(i, minSecretRun)
		}
	}
	for _, s := range sc.short {
		for i := 0; i+len(s) <= len(l); i++ {
			if slices.Equal(l[i:i+len(s)], s) {
				mark(i, len(s))
			}
		}
	}
	if hit == nil {
		return msg
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

// redacted is what scrub leaves for a secret: the drivers' mark.
var redacted = engines.Secret("x").String()

// fold lower-cases r in place, character by character, so that indexes
// into the folded text are indexes into the original.
func fold(r []rune) []rune {
	for i, c := range r {
		r[i] = unicode.ToLower(c)
	}
	return r
}

func redactValue(v reflect.Value, sc *scrubber, message bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactValue(v.Elem(), sc, message)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() {
				redactValue(v.Field(i), sc, message || f.Tag.Get("redact") == "message")
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactValue(v.Index(i), sc, message)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			// Map values are not addressable: rewrite a copy, put it back.
			c := reflect.New(v.Type().Elem()).Elem()
			c.Set(v.MapIndex(k))
			redactValue(c, sc, message)
			v.SetMapIndex(k, c)
		}
	case reflect.String:
		if message && v.CanSet() {
			v.SetString(sc.scrub(v.String()))
		}
	}
}

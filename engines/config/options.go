package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines"
)

// Options reads a driver's Config.Options: the driver asks for each option
// it knows, with its default, in the type it wants, and Err then reports the
// first value that did not parse or, failing that, every key the driver
// never asked for. Every driver's options therefore take the same spellings
// (Bool, Duration, Int, Enum) and fail with the same messages:
//
//	meilisearch: option pool="x": must be a whole number from 1 to 1048576
//	meilisearch: unknown option "shards" (known: matching_strategy, pool, task_poll_max, timeout)
//
// A driver reads all its options in one function, called from both
// CheckConfig and Open, so the two cannot disagree. The zero value is not
// usable; an Options is not safe for concurrent use.
type Options struct {
	driver string
	raw    map[string]string
	asked  []string
	err    error // the first bad value
}

// New reads raw (Config.Options) for the named driver.
func New(driver string, raw map[string]string) *Options {
	return &Options{driver: driver, raw: raw}
}

// Value is the generic form of the readers below: key's value parsed
// by parse, or def when the key is absent or an earlier value was bad. A
// parse error becomes Err's "option key=value: why". For an option of the
// driver's own shape (Elasticsearch's time values, Valkey's field lists).
func Value[T any](o *Options, key string, def T, parse func(string) (T, error)) T {
	if !slices.Contains(o.asked, key) {
		o.asked = append(o.asked, key)
	}
	v, ok := o.raw[key]
	if !ok || o.err != nil {
		return def
	}
	t, err := parse(v)
	if err != nil {
		o.err = fmt.Errorf("%s: option %s=%q: %v", o.driver, key, v, err)
		return def
	}
	return t
}

// String is key's value as given (any string, the empty one included), or
// def.
func (o *Options) String(key, def string) string {
	return Value(o, key, def, func(v string) (string, error) { return v, nil })
}

// Enum is key's value, which must be one of allowed, or def (which need not
// be: "" for "not sent").
func (o *Options) Enum(key, def string, allowed ...string) string {
	return Value(o, key, def, func(v string) (string, error) {
		if !slices.Contains(allowed, v) {
			return "", fmt.Errorf("must be %s", oneOf(allowed))
		}
		return v, nil
	})
}

// Bool is key's value as a boolean: what strconv.ParseBool accepts (1, t,
// true, TRUE, 0, f, false …) and on or off, as scenario files write switches
// (hybrid: "on").
func (o *Options) Bool(key string, def bool) bool {
	return Value(o, key, def, func(v string) (bool, error) {
		switch strings.ToLower(v) {
		case "on":
			return true, nil
		case "off":
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, errors.New("must be true or false (or on or off)")
		}
		return b, nil
	})
}

// Duration is key's value as a positive Go duration (time.ParseDuration:
// "5s", "250ms"), or def.
func (o *Options) Duration(key string, def time.Duration) time.Duration {
	return Value(o, key, def, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, errors.New(`must be a positive Go duration such as "5s" or "250ms"`)
		}
		return d, nil
	})
}

// Int is key's value as a whole number from lo to hi (a count: lo >= 0),
// or def.
func (o *Options) Int(key string, def, lo, hi int) int {
	return Value(o, key, def, func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("must be a whole number from %d to %d", lo, hi)
		}
		return n, nil
	})
}

// Fail records that the options, each valid alone, do not go together (or
// break a rule of the driver's); Err reports it unless a value was bad first.
func (o *Options) Fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%s: %s", o.driver, fmt.Sprintf(format, args...))
	}
}

// Err is the first bad value (or Fail), else every key never asked for,
// listed with the keys that were; nil when every option was read and valid.
func (o *Options) Err() error {
	if o.err != nil {
		return o.err
	}
	var unknown []string
	for k := range o.raw {
		if !slices.Contains(o.asked, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return engines.UnknownOptions(o.driver, unknown, o.asked)
}

// oneOf is "a", "a or b", "a, b or c".
func oneOf(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// FieldTypes reads Study B's fields option, which of a schema's field
// types get an index: types from text, tag, numeric and vector, each once,
// comma-separated. Read it with Value(o, "fields", AllFieldTypes(),
// FieldTypes), and add a driver's own rule (at least text, say) after.
func FieldTypes(v string) (map[engines.FieldType]bool, error) {
	out := map[engines.FieldType]bool{}
	for name := range strings.SplitSeq(v, ",") {
		t, ok := fieldType(strings.TrimSpace(name))
		if !ok || out[t] {
			return nil, errors.New("must list field types from text, tag, numeric and vector, each once, comma-separated")
		}
		out[t] = true
	}
	return out, nil
}

// AllFieldTypes is the fields option's default: every type indexed.
func AllFieldTypes() map[engines.FieldType]bool {
	return map[engines.FieldType]bool{engines.Text: true, engines.Tag: true, engines.Numeric: true, engines.Vector: true}
}

func fieldType(name string) (engines.FieldType, bool) {
	for t := range AllFieldTypes() {
		if t.String() == name {
			return t, true
		}
	}
	return 0, false
}

// Names reads a list of field names, comma-separated, each once, each
// passing valid (nil: any non-empty name), whose rule want states.
func Names(v string, valid func(string) bool, want string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" || (valid != nil && !valid(name)) || slices.Contains(out, name) {
			return nil, fmt.Errorf("must list field names (%s), each once, comma-separated", want)
		}
		out = append(out, name)
	}
	return out, nil
}

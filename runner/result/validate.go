package result

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxValue bounds every number a result holds (counts, rates, latencies in
// ms, engine stats): far above any a run measures (10^15 ms is 30,000
// years, 10^15 calls a second no machine makes), far below where the
// reports' arithmetic (sums, axis ranges, logarithms) leaves the floats.
const MaxValue = 1e15

// maxDuration bounds every duration a result holds: a year is beyond any
// window, ramp or timeout a run may have.
const maxDuration = 366 * 24 * time.Hour

// mayBeNegative are the figures that can be below zero, as "Type.Field":
// the engine's count when the driver cannot say (-1), a rung's queue depth
// when the engine reports none (-1), offsets between clocks, and the
// engine's own figures (a counter's rate falls when the counter resets).
// Every other number a run writes is zero or more.
var mayBeNegative = []string{
	"Preload.Count", "Rung.QueueDepth", "Timeline.Offset", "Interval.Start",
	"ShardStart.Offset", "ShardStart.Late",
	"Gauge.Mean", "Gauge.Max", "Gauge.Last", "Gauge.PerSecond", "Interval.EngineStats",
}

// Validate reports the first value in r that no run writes, naming it by
// its place in the JSON (engines[0].levels[2].ops[0].count): a negative
// count, duration or latency, a number beyond MaxValue, a histogram that
// does not decode, a timeline interval of no length or given twice, a
// ladder rung without repetitions, a null where a value must be. The
// reports, compare and merge read results alone, from files anyone may
// have edited: what they render is first checked here, so that a
// corrupt file is bad input, not a panic or a chart of nonsense.
func (r *Result) Validate() error {
	return validate(reflect.ValueOf(r).Elem(), "", "")
}

// validate checks v, found at path; owner is the "Type.Field" that holds it.
func validate(v reflect.Value, path, owner string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return validate(v.Elem(), path, owner)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return nil
		}
		if err := validateStruct(v, path); err != nil {
			return err
		}
		return validateFields(v, path)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := validateElem(v.Index(i), path+"["+strconv.Itoa(i)+"]", owner); err != nil {
				return err
			}
		}
	case reflect.Map:
		// Sorted, so that of several bad entries the same one is named
		// every time.
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			if err := validateElem(v.MapIndex(k), path+"["+k.String()+"]", owner); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		return validateNumber(v, path, owner)
	}
	return nil
}

// validateFields checks each of struct v's fields that the JSON holds,
// naming each by its JSON name and owner as "Type.Field".
func validateFields(v reflect.Value, path string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		at := path + "." + name
		if f.Anonymous {
			at = path // an embedded struct's fields are its holder's in the JSON
		}
		if f.Type.Kind() == reflect.String && strings.HasSuffix(f.Name, "Histogram") && t != reflect.TypeFor[Config]() {
			if err := validateHistogram(v.Field(i).String()); err != nil {
				return fmt.Errorf("%s: %w", strings.TrimPrefix(at, "."), err)
			}
		}
		if err := validate(v.Field(i), at, t.Name()+"."+f.Name); err != nil {
			return err
		}
	}
	return nil
}

// validateElem checks a slice's or map's element e, found at at: a null
// element is an error there, where a null field is merely absent.
func validateElem(e reflect.Value, at, owner string) error {
	if e.Kind() == reflect.Pointer && e.IsNil() {
		return fmt.Errorf("%s: null", strings.TrimPrefix(at, "."))
	}
	return validate(e, at, owner)
}

// validateNumber checks an integer, Duration or float v, found at path and
// held by owner: within range, and not negative unless owner is among
// mayBeNegative.
func validateNumber(v reflect.Value, path, owner string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", strings.TrimPrefix(path, "."), fmt.Sprintf(format, args...))
	}
	signed := slices.Contains(mayBeNegative, owner)
	if v.Kind() == reflect.Float64 {
		switch x := v.Float(); {
		case math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > MaxValue:
			return fail("%g is out of range (at most %g)", x, MaxValue)
		case x < 0 && !signed:
			return fail("%g is negative", x)
		}
		return nil
	}
	n := v.Int()
	if v.Type() == reflect.TypeFor[Duration]() {
		// A duration is bounded by maxDuration and printed as one, not
		// as a count of nanoseconds.
		d := time.Duration(n)
		switch {
		case d < 0 && !signed:
			return fail("%v is negative", d)
		case d > maxDuration || d < -maxDuration:
			return fail("%v is out of range (at most %v)", d, maxDuration)
		}
		return nil
	}
	switch {
	case n < 0 && !signed:
		return fail("%d is negative", n)
	case math.Abs(float64(n)) > MaxValue:
		return fail("%d is out of range (at most %g)", n, MaxValue)
	}
	return nil
}

// validateStruct checks what a struct's fields say together.
func validateStruct(v reflect.Value, path string) error {
	at := strings.TrimPrefix(path, ".")
	switch x := v.Interface().(type) {
	case Timeline:
		// Index divides by it.
		if x.Interval <= 0 {
			return fmt.Errorf("%s.interval: %v is not positive", at, x.Interval)
		}
		seen := make(map[Duration]bool, len(x.Intervals))
		for i, iv := range x.Intervals {
			// Rates are counts over it; a null interval decodes as one of 0.
			if iv.Length <= 0 {
				return fmt.Errorf("%s.intervals[%d].length: %v is not positive", at, i, iv.Length)
			}
			if seen[iv.Start] {
				return fmt.Errorf("%s.intervals[%d]: a second interval at %v", at, i, iv.Start)
			}
			seen[iv.Start] = true
		}
	case Sweep:
		return validateSweep(x, at)
	case Rung:
		// A rung's figures are medians over its reps: the runner keeps
		// none without one.
		if len(x.Reps) == 0 {
			return fmt.Errorf("%s.reps: none (a rung has at least one repetition)", at)
		}
	}
	return nil
}

// validateHistogram checks that an encoded histogram ("" is none) decodes
// and holds values the reports can summarize.
func validateHistogram(s string) error {
	if s == "" {
		return nil
	}
	h, err := DecodeHistogram(s)
	if err != nil {
		return err
	}
	if n := h.TotalCount(); n < 0 || float64(n) > MaxValue {
		return fmt.Errorf("histogram: a count of %d calls is out of range", n)
	}
	if m := h.Max(); m < 0 || float64(m) > MaxValue {
		return fmt.Errorf("histogram: its largest value %d µs is out of range", m)
	}
	return nil
}

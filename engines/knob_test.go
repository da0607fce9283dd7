package engines

import (
	"errors"
	"strings"
	"testing"
)

// knobDriver declares a knob like Elasticsearch's num_candidates.
type knobDriver struct{ stubDriver }

func (knobDriver) Describe() Description {
	return Description{Knob: &Knob{Name: "nc", Min: 1, Max: 100, AtLeastK: true}}
}

func TestKnobCheck(t *testing.T) {
	Register("knob-test", knobDriver{})
	Register("noknob-test", stubDriver{})
	vec := []float32{1, 0}
	for _, c := range []struct {
		driver string
		q      Query
		want   string // "" passes; else a part of the error
	}{
		{"noknob-test", Query{Vector: vec, K: 10}, ""},
		{"knob-test", Query{Vector: vec, K: 10}, ""},
		{"knob-test", Query{Vector: vec, K: 10, Knob: 10}, ""},
		{"knob-test", Query{Vector: vec, K: 10, Knob: 100}, ""},
		{"knob-test", Query{Vector: vec, K: 10, Knob: 101}, "nc=101: must be from 1 to 100"},
		{"knob-test", Query{Vector: vec, K: 10, Knob: -1}, "nc=-1: must be from 1 to 100"},
		{"knob-test", Query{Vector: vec, K: 10, Knob: 9}, "nc=9: must be at least k (10)"},
		{"knob-test", Query{Text: "a b", K: 10, Knob: 20}, "nc=20 on a text search: the knob applies to vector searches only"},
		{"noknob-test", Query{Vector: vec, K: 10, Knob: 20}, "noknob-test: knob 20: the driver has no search-time knob"},
	} {
		err := CheckQuery(c.driver, Config{}, Schema{}, c.q)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.driver, c.q, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: %v, want %q", c.driver, c.q, err, c.want)
		}
	}
	// A driver without a knob refuses as it refuses any member it cannot honour.
	if err := CheckQuery("noknob-test", Config{}, Schema{}, Query{Vector: vec, Knob: 5}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("no knob: %v, want ErrUnsupported", err)
	}
}

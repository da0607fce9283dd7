package workload

import (
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// The knob reaches vector queries only, K every query; a query that came
// with a knob of its own loses it where it has no vector (the contract
// refuses it there).
func TestAskApply(t *testing.T) {
	t.Parallel()
	ask := Ask{K: 7, Knob: 40}
	cases := []struct {
		name     string
		q        engines.Query
		wantKnob int
	}{
		{"vector", engines.Query{Vector: []float32{1, 0}}, 40},
		{"hybrid", engines.Query{Text: "red", Vector: []float32{1, 0}}, 40},
		{"text", engines.Query{Text: "red", Knob: 9}, 0},
	}
	for _, c := range cases {
		q := c.q
		ask.Apply(&q)
		if q.K != 7 || q.Knob != c.wantKnob {
			t.Errorf("%s: K %d, knob %d; want 7, %d", c.name, q.K, q.Knob, c.wantKnob)
		}
	}
	// Through Prepare: the search's query asks so, the maker's text query
	// without the knob.
	c := Prepare(Step{Op: Search, Query: 5}, maker{}, ask, 0)
	if c.Query.K != 7 || c.Query.Knob != 0 {
		t.Errorf("prepared text search: K %d, knob %d; want 7, 0", c.Query.K, c.Query.Knob)
	}
}

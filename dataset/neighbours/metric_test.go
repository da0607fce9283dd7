package neighbours

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// naiveDistance is each metric by its textbook formula, one sum at a
// time: the second implementation Exact and Live are held to.
func naiveDistance(m Metric, a, b []float32) float64 {
	var ab, aa, bb, sq float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
		sq += (x - y) * (x - y)
	}
	switch m {
	case L2:
		return sq
	case Dot:
		return -ab
	}
	if aa == 0 || bb == 0 {
		return 1
	}
	return 1 - ab/math.Sqrt(aa*bb)
}

// Each metric's distance on vectors whose answer is known by hand.
func TestMetricDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m    Metric
		a, b []float32
		want float64
	}{
		{Cosine, []float32{1, 2, 3}, []float32{2, 4, 6}, 0},
		{Cosine, []float32{1, 0}, []float32{0, 5}, 1},
		{L2, []float32{1, 2, 3, 4, 5}, []float32{1, 2, 3, 4, 5}, 0},
		{L2, []float32{0, 0, 0, 0, 0}, []float32{3, 4, 0, 0, 1}, 26}, // 9 + 16 + 1, the fifth past the unrolled four
		{L2, []float32{1, 1}, []float32{-1, -1}, 8},
		{Dot, []float32{1, 2, 3, 4, 5}, []float32{1, 1, 1, 1, 1}, -15},
		{Dot, []float32{1, 0}, []float32{0, 5}, 0},
		{Dot, []float32{2, 0}, []float32{-3, 0}, 6},
	} {
		if got := c.m.Distance(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s.Distance(%v, %v) = %v; want %v", c.m, c.a, c.b, got, c.want)
		}
	}
	for m, name := range map[Metric]string{Cosine: "cosine", L2: "l2", Dot: "dot"} {
		if m.String() != name {
			t.Errorf("%d.String() = %q, want %q", m, m.String(), name)
		}
	}
}

// Exact under L2 and Dot equals sorting every candidate by the metric's
// textbook formula, and the metrics disagree on the order (vectors of
// unequal lengths), so a metric ignored would be seen.
func TestExactMetricsEqualSorting(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	docs := randomDocs(r, 2000, 12)
	for i := range docs { // lengths from 0.1 to 10: cosine, L2 and dot rank differently
		s := float32(0.1 + 9.9*r.Float64())
		for j := range docs[i].Vector {
			docs[i].Vector[j] *= s
		}
	}
	qv := randomDocs(r, 1, 12)[0].Vector
	answers := map[Metric][]Neighbour{}
	for _, m := range []Metric{Cosine, L2, Dot} {
		queries := []Query{{Vector: qv, Metric: m}, {Vector: qv, Metric: m, Keep: func(id uint32) bool { return id%4 == 1 }}}
		got, err := Exact(context.Background(), queries, 15, each(docs))
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range queries {
			if want := naive(q, 15, docs); !sameAnswer(got[i], want) {
				t.Errorf("%s, query %d: %v\nwant %v", m, i, got[i], want)
			}
		}
		answers[m] = got[0]
	}
	if slices.Equal(answers[Cosine], answers[L2]) || slices.Equal(answers[L2], answers[Dot]) {
		t.Error("the metrics gave the same answer: the test cannot tell them apart")
	}
}

// sameAnswer says whether got and want name the same documents in the
// same order at the same distances, to the last bits that two orders of
// summation may differ in.
func sameAnswer(got, want []Neighbour) bool {
	return slices.EqualFunc(got, want, func(a, b Neighbour) bool {
		return a.ID == b.ID && math.Abs(a.Distance-b.Distance) <= 1e-9*(1+math.Abs(b.Distance))
	})
}

// Each metric is asked of the engines by the metric of the same name, and
// back: the schema's metric and the truth's are one choice.
func TestIndexMetricsRoundTrip(t *testing.T) {
	for m, want := range map[Metric]engines.Metric{Cosine: engines.Cosine, L2: engines.L2, Dot: engines.Dot} {
		if got := m.Index(); got != want {
			t.Errorf("%s.Index() = %s, want %s", m, got, want)
		}
		if back, ok := ForIndex(want); !ok || back != m {
			t.Errorf("ForIndex(%s) = %s, %v; want %s", want, back, ok, m)
		}
	}
	if _, ok := ForIndex(engines.Dot + 1); ok {
		t.Error("ForIndex of an unknown engines.Metric found one")
	}
}

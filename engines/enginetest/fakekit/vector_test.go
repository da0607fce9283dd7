package fakekit

import (
	"math"
	"testing"
)

// The expected values are worked by hand from the vectors, not by the
// functions under test.
func TestVectorMath(t *testing.T) {
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	// (3,4)·(4,3) = 24, |a| = |b| = 5: cosine 24/25; l2² = 1+1 = 2.
	a, b := []float64{3, 4}, []float64{4, 3}
	if got := Cosine(a, b); !near(got, 0.96) {
		t.Errorf("Cosine(%v, %v) = %v, want 0.96", a, b, got)
	}
	if got := Dot(a, b); got != 24 {
		t.Errorf("Dot(%v, %v) = %v, want 24", a, b, got)
	}
	if got := L2Squared(a, b); got != 2 {
		t.Errorf("L2Squared(%v, %v) = %v, want 2", a, b, got)
	}
	// float32: (1,2,2)·(2,-1,0) = 0, orthogonal; l2² = 1+9+4 = 14;
	// (1,2,2) with (2,4,4), the same direction: cosine 1, dot 18, l2² 9.
	x, y, z := []float32{1, 2, 2}, []float32{2, -1, 0}, []float32{2, 4, 4}
	for _, c := range []struct {
		a, b           []float32
		cos, dot, l2sq float64
	}{
		{x, y, 0, 0, 14},
		{x, z, 1, 18, 9},
		{z, z, 1, 36, 0},
	} {
		if got := Cosine(c.a, c.b); !near(got, c.cos) {
			t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.cos)
		}
		if got := Dot(c.a, c.b); got != c.dot {
			t.Errorf("Dot(%v, %v) = %v, want %v", c.a, c.b, got, c.dot)
		}
		if got := L2Squared(c.a, c.b); got != c.l2sq {
			t.Errorf("L2Squared(%v, %v) = %v, want %v", c.a, c.b, got, c.l2sq)
		}
	}
	// Opposite directions: cosine -1. A zero vector has no direction: 0.
	if got := Cosine([]float64{1, 1}, []float64{-2, -2}); !near(got, -1) {
		t.Errorf("Cosine of opposite vectors = %v, want -1", got)
	}
	if got := Cosine([]float32{0, 0}, []float32{1, 2}); got != 0 {
		t.Errorf("Cosine with a zero vector = %v, want 0", got)
	}
}

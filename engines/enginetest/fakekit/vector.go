package fakekit

import "math"

// The raw vector math the fakes' kNN scoring shares. Each engine turns it
// into its own score or distance (Elasticsearch (1+cos)/2, Typesense 1−cos,
// …); those transforms stay in each fake, beside the engine rule they copy.
// Sums are taken in float64 whatever the element type, so a float32 fake and
// a float64 fake agree on the same vectors. a and b must have the same
// length: each fake refuses a wrong dimension first, as its engine does.

// Cosine is the cosine similarity of a and b, 0 when either has zero
// magnitude (no direction to compare). It serves Elasticsearch's cosine
// similarity (as Lucene's VectorUtil.cosine: dot / sqrt(|a|²·|b|²)),
// Typesense's cosine vector_distance, Meilisearch's semantic score,
// valkey-search's COSINE metric and Amgix's dense search.
func Cosine[T float32 | float64](a, b []T) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Dot is the inner product of a and b: the one sum under every fake's
// inner-product metric, each scoring it its engine's way (valkey-search's
// IP and Typesense's ip as the distance 1−dot, Elasticsearch's
// max_inner_product and dot_product, Qdrant's Dot under Amgix Now).
func Dot[T float32 | float64](a, b []T) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// L2Squared is the squared Euclidean distance between a and b: the one sum
// under every fake's L2 metric (valkey-search's L2 reports it as is,
// Elasticsearch's l2_norm scores it 1/(1+l2²), Qdrant's Euclid under Amgix
// Now its square root).
func L2Squared[T float32 | float64](a, b []T) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

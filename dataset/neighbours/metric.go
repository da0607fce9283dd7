package neighbours

import (
	"math"

	"github.com/searchbench/searchbench/engines"
)

// Metric is how a query's distance to a document is measured; smaller is
// nearer under every metric, so that one ordering (distance, then ID) and
// one tie rule (Hits) serve all three. Cosine is the zero value: a Query
// or LiveConfig that names no metric is scored as before metrics existed.
type Metric uint8

const (
	// Cosine is 1 − a·b / (|a| |b|), as the engines' cosine metrics
	// define it; a zero vector is at distance 1 from all.
	Cosine Metric = iota
	// L2 is the squared Euclidean distance, Σ (a−b)²: the same order as
	// Euclidean distance without a square root per document.
	L2
	// Dot is the negative inner product, −a·b, so that the largest inner
	// product is the nearest.
	Dot
)

// String is the metric's name: cosine, l2 or dot.
func (m Metric) String() string {
	switch m {
	case L2:
		return "l2"
	case Dot:
		return "dot"
	default:
		return "cosine"
	}
}

// indexMetrics are the engines' metrics that rank as each Metric does
// (squared L2 as L2, the negative inner product as the largest inner
// product): the one table both conversions read.
var indexMetrics = [...]engines.Metric{Cosine: engines.Cosine, L2: engines.L2, Dot: engines.Dot}

// Index is the metric an engine's index is asked for to rank as m does.
func (m Metric) Index() engines.Metric { return indexMetrics[m] }

// ForIndex is the Metric that ranks as an index of metric im does; false
// for a metric it has none for.
func ForIndex(im engines.Metric) (Metric, bool) {
	for m, x := range indexMetrics {
		if x == im {
			return Metric(m), true
		}
	}
	return 0, false
}

// Distance is m's distance between a and b, as Exact and Live score it.
func (m Metric) Distance(a, b []float32) float64 {
	var an, bn float64
	if m == Cosine {
		an, bn = norm(a), norm(b)
	}
	return m.distance(a, b, an, bn)
}

// Distance is the cosine distance of a and b, 1 − a·b / (|a| |b|), as
// Exact scores a Query that names no metric; a zero vector is at distance
// 1 from all.
func Distance(a, b []float32) float64 { return Cosine.Distance(a, b) }

// distance is m's distance given the norms of a and b, which only Cosine
// reads: callers compute a query's norm once and a document's once per
// document rather than once per pair.
func (m Metric) distance(a, b []float32, an, bn float64) float64 {
	switch m {
	case L2:
		return squared(a, b)
	case Dot:
		return -dot(a, b)
	default:
		if an == 0 || bn == 0 {
			return 1
		}
		return 1 - dot(a, b)/(an*bn)
	}
}

// dot is a·b in float64, over four sums at a time so that the additions
// do not wait on each other.
func dot(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < n; i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// squared is Σ (a−b)² in float64, four sums at a time as dot is; the
// difference is taken in float64 so that near vectors keep their bits.
func squared(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		d0 := float64(a[i]) - float64(b[i])
		d1 := float64(a[i+1]) - float64(b[i+1])
		d2 := float64(a[i+2]) - float64(b[i+2])
		d3 := float64(a[i+3]) - float64(b[i+3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < n; i++ {
		d := float64(a[i]) - float64(b[i])
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

package result

import (
	"math"
	"math/big"
)

// RecallSums is recall against exact answers over a set of answers, with
// what its interval needs: the answers grouped into clusters, each way as
// ClusterSums. By sample query always (one level's or rep's repeated asks
// of a query are one cluster); under load by time too (the interval of
// the window's timeline the search was made in) and by both (a query
// within an interval). Every field is a sum, so shards and reps add
// exactly — but for the intervals, which the shards share: a merge sums
// their answers interval by interval and groups them again
// (KnownItems.GroupByInterval).
type RecallSums struct {
	Checks   int64 // answers scored
	Expected int64 // Σe
	Found    int64 // Σf
	Queries  ClusterSums
	// Intervals and Cells are zero without the grouping by time (an idle
	// check; a result written before it).
	Intervals, Cells ClusterSums
}

// ClusterSums are answers grouped into clusters one way: N clusters and,
// over them, the sums of each cluster's found f and expected e as f², e²
// and f·e: what the ratio estimator's cluster-robust variance needs.
type ClusterSums struct {
	N             int64 `json:"n"`
	FoundSq       int64 `json:"found_sq"`
	ExpectedSq    int64 `json:"expected_sq"`
	FoundExpected int64 `json:"found_expected"`
}

// AddCluster adds one cluster: f of the e documents expected in its
// answers found.
func (c *ClusterSums) AddCluster(f, e int64) {
	c.N++
	c.FoundSq += f * f
	c.ExpectedSq += e * e
	c.FoundExpected += f * e
}

// Add sums o's clusters into c (clusters of their own: not shared).
func (c *ClusterSums) Add(o ClusterSums) {
	c.N += o.N
	c.FoundSq += o.FoundSq
	c.ExpectedSq += o.ExpectedSq
	c.FoundExpected += o.FoundExpected
}

// Recall is Found / Expected; 0 when nothing was expected.
func (s RecallSums) Recall() float64 {
	if s.Expected <= 0 {
		return 0
	}
	return float64(s.Found) / float64(s.Expected)
}

// Add sums o into s.
func (s *RecallSums) Add(o RecallSums) {
	s.Checks += o.Checks
	s.Expected += o.Expected
	s.Found += o.Found
	s.Queries.Add(o.Queries)
	s.Intervals.Add(o.Intervals)
	s.Cells.Add(o.Cells)
}

// AddQuery adds one query's answers: f of the e documents expected in
// them found (Checks is the caller's to count).
func (s *RecallSums) AddQuery(f, e int64) {
	s.Found += f
	s.Expected += e
	s.Queries.AddCluster(f, e)
}

// Interval is recall's 95% interval over clusters. The expected documents
// of one query are not independent trials — a query whose neighbourhood
// the index lost misses all of it — so the interval counts queries:
// Korn and Graubard's interval for a proportion from clustered data, with
// Wilson's score interval in place of Clopper–Pearson's. Recall R = Σf/Σe
// is a ratio estimator; its cluster-robust (linearised) variance over G
// clusters is G/(G−1) · Σ(f − R·e)² / (Σe)². Under writes the answers of
// different queries are not independent either: the queries near one
// another share the documents written, so a write hidden from the
// searches (or a slow moment of the engine) costs every query asked at
// the time. There the variance is clustered two ways, by query and by
// interval (Cameron, Gelbach and Miller 2011): the two one-way variances
// summed, less the one over their intersections (a query within an
// interval), counted once; never below either one-way variance (the sum
// can fall below, or below zero, by chance), with the fewer clusters' t
// quantile. The effective number of trials R(1−R)/variance (at most Σe: no
// fewer misses spread than independent ones) is scaled by (z/t)², t the
// t quantile with G−1 degrees of freedom, so that few clusters widen the
// interval as they should; Wilson's interval of R over that many trials
// is the answer. When every document was found (or none), nothing shows
// how misses would spread, and each query counts as one trial. One query
// alone says nothing about the others: 0–1. A result written before the
// per-query sums (Queries.N 0) gets Wilson's interval per document, as it
// had.
func (s RecallSums) Interval() (lo, hi float64) {
	switch {
	case s.Expected <= 0:
		return 0, 1
	case s.Queries.N == 0:
		return Wilson(s.Found, s.Expected)
	case s.Queries.N < 2:
		return 0, 1
	}
	r := s.Recall()
	trials := float64(s.Queries.N)
	v, clusters := s.variance()
	if v > 0 && r > 0 && r < 1 {
		trials = min(r*(1-r)/v, float64(s.Expected))
	}
	c := wilsonZ / t975(clusters-1)
	return wilson(r, trials*c*c)
}

// variance is the ratio estimator's cluster-robust variance, and the
// number of clusters its t quantile counts: by query alone, or, when the
// answers are grouped by interval too (at least two), two ways.
func (s RecallSums) variance() (v float64, clusters int64) {
	v, clusters = s.clustered(s.Queries), s.Queries.N
	if s.Intervals.N < 2 {
		return v, clusters
	}
	vt := s.clustered(s.Intervals)
	return max(v+vt-s.clustered(s.Cells), v, vt), min(clusters, s.Intervals.N)
}

// clustered is the ratio estimator's variance over c's clusters (0 for
// fewer than two). Its sum of squared residuals, Σ(f − R·e)² = Σf² −
// 2R·Σf·e + R²·Σe², is a difference of large near-equal terms: it is
// computed exactly, in integers scaled by (Σe)², and rounded once.
func (s RecallSums) clustered(c ClusterSums) float64 {
	if c.N < 2 {
		return 0
	}
	F, E := big.NewInt(s.Found), big.NewInt(s.Expected)
	E2 := new(big.Int).Mul(E, E)
	// (Σe)² · Σr² = E²·Σf² − 2·F·E·Σfe + F²·Σe²
	res := new(big.Int).Mul(E2, big.NewInt(c.FoundSq))
	res.Sub(res, new(big.Int).Mul(new(big.Int).Lsh(new(big.Int).Mul(F, E), 1), big.NewInt(c.FoundExpected)))
	res.Add(res, new(big.Int).Mul(new(big.Int).Mul(F, F), big.NewInt(c.ExpectedSq)))
	if res.Sign() <= 0 {
		return 0
	}
	// variance = G/(G−1) · res / E⁴
	num, _ := new(big.Float).SetInt(res).Float64()
	e2, _ := new(big.Float).SetInt(E2).Float64()
	n := float64(c.N)
	return n / (n - 1) * num / e2 / e2
}

// t975 is the t distribution's 97.5% quantile with df degrees of freedom
// (df ≥ 1): the two-sided 95% interval's. It inverts the distribution
// function by bisection.
func t975(df int64) float64 {
	if df > 1e7 {
		return wilsonZ
	}
	lo, hi := 0.0, 1e3 // t(0.975, 1) is 12.7
	for range 100 {
		mid := (lo + hi) / 2
		if tUpper(mid, float64(df)) > 0.025 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tUpper is P(T > t) for t ≥ 0: half the regularized incomplete beta
// I_{ν/(ν+t²)}(ν/2, 1/2).
func tUpper(t, nu float64) float64 {
	return betaInc(nu/2, 0.5, nu/(nu+t*t)) / 2
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method), on the side where it converges
// fast.
func betaInc(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1.0; m <= 300; m++ {
		num := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d, c = 1+num*d, 1+num/c
		d = 1 / max(math.Abs(d), tiny) * math.Copysign(1, d)
		c = max(math.Abs(c), tiny) * math.Copysign(1, c)
		h *= d * c
		num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d, c = 1+num*d, 1+num/c
		d = 1 / max(math.Abs(d), tiny) * math.Copysign(1, d)
		c = max(math.Abs(c), tiny) * math.Copysign(1, c)
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

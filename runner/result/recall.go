package result

import (
	"math"
	"math/big"
)

// RecallSums is recall against exact answers over a set of answers, with
// what its interval over queries needs: the answers are grouped by the
// sample query they answer (one level's or rep's repeated asks of a query
// are one group), and each group's found f and expected e summed as f²,
// e² and f·e. Every field is a sum, so shards and reps add exactly.
type RecallSums struct {
	Checks   int64 // answers scored
	Expected int64 // Σe
	Found    int64 // Σf
	// Queries is the groups n; FoundSq Σf², ExpectedSq Σe², FoundExpected
	// Σf·e.
	Queries, FoundSq, ExpectedSq, FoundExpected int64
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
	s.Queries += o.Queries
	s.FoundSq += o.FoundSq
	s.ExpectedSq += o.ExpectedSq
	s.FoundExpected += o.FoundExpected
}

// AddQuery adds one query's answers: f of the e documents expected in
// them found (Checks is the caller's to count).
func (s *RecallSums) AddQuery(f, e int64) {
	s.Queries++
	s.Found += f
	s.Expected += e
	s.FoundSq += f * f
	s.ExpectedSq += e * e
	s.FoundExpected += f * e
}

// Interval is recall's 95% interval over queries. The expected documents
// of one query are not independent trials — a query whose neighbourhood
// the index lost misses all of it — so the interval counts queries:
// Korn and Graubard's interval for a proportion from clustered data, with
// Wilson's score interval in place of Clopper–Pearson's. Recall R = Σf/Σe
// is a ratio estimator; its cluster-robust (linearised) variance over n
// queries is n/(n−1) · Σ(f − R·e)² / (Σe)². The effective number of
// trials R(1−R)/variance (at most Σe: no fewer misses spread than
// independent ones) is scaled by (z/t)², t the t quantile with n−1
// degrees of freedom, so that few queries widen the interval as they
// should; Wilson's interval of R over that many trials is the answer.
// When every document was found (or none), nothing shows how misses
// would spread, and each query counts as one trial. One query alone says
// nothing about the others: 0–1. A result written before the per-query
// sums (Queries 0) gets Wilson's interval per document, as it had.
func (s RecallSums) Interval() (lo, hi float64) {
	switch {
	case s.Expected <= 0:
		return 0, 1
	case s.Queries == 0:
		return Wilson(s.Found, s.Expected)
	case s.Queries < 2:
		return 0, 1
	}
	r, n := s.Recall(), float64(s.Queries)
	trials := n
	if v := s.variance(); v > 0 && r > 0 && r < 1 {
		trials = min(r*(1-r)/v, float64(s.Expected))
	}
	c := wilsonZ / t975(s.Queries-1)
	return wilson(r, trials*c*c)
}

// variance is the ratio estimator's cluster-robust variance. Its sum of
// squared residuals, Σ(f − R·e)² = Σf² − 2R·Σf·e + R²·Σe², is a difference
// of large near-equal terms: it is computed exactly, in integers scaled
// by (Σe)², and rounded once.
func (s RecallSums) variance() float64 {
	F, E := big.NewInt(s.Found), big.NewInt(s.Expected)
	E2 := new(big.Int).Mul(E, E)
	// (Σe)² · Σr² = E²·Σf² − 2·F·E·Σfe + F²·Σe²
	res := new(big.Int).Mul(E2, big.NewInt(s.FoundSq))
	res.Sub(res, new(big.Int).Mul(new(big.Int).Lsh(new(big.Int).Mul(F, E), 1), big.NewInt(s.FoundExpected)))
	res.Add(res, new(big.Int).Mul(new(big.Int).Mul(F, F), big.NewInt(s.ExpectedSq)))
	if res.Sign() <= 0 {
		return 0
	}
	// variance = n/(n−1) · res / E⁴
	num, _ := new(big.Float).SetInt(res).Float64()
	e2, _ := new(big.Float).SetInt(E2).Float64()
	n := float64(s.Queries)
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

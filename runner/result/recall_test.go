package result

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The t quantile is the textbook table's (two-sided 95%, df degrees of
// freedom), and the normal's as df grows.
func TestT975(t *testing.T) {
	for _, c := range []struct {
		df   int64
		want float64
	}{{1, 12.706}, {2, 4.303}, {3, 3.182}, {5, 2.571}, {10, 2.228}, {20, 2.086}, {30, 2.042}, {60, 2.000}, {120, 1.980}, {100000, 1.960}} {
		if got := t975(c.df); math.Abs(got-c.want) > 0.0015 {
			t.Errorf("t(0.975, %d) = %.4f; the table says %.3f", c.df, got, c.want)
		}
	}
}

// A worked example, by hand: four queries found 10 of 10, 0 of 10, 5 of 5
// and 3 of 5. R = 18/30 = 0.6; the residuals f − R·e are 4, −6, 2, 0, so
// Σr² = 56 and the cluster-robust variance 4/3 · 56/30² = 0.08296; the
// effective trials R(1−R)/var = 2.893, times (1.96/t₃)² = 1.0972; Wilson's
// interval at p 0.6 over 1.0972 trials is 0.0832–0.9612.
func TestRecallIntervalWorkedExample(t *testing.T) {
	var s RecallSums
	for _, q := range [][2]int64{{10, 10}, {0, 10}, {5, 5}, {3, 5}} {
		s.AddQuery(q[0], q[1])
	}
	if q := s.Queries; q.N != 4 || s.Found != 18 || s.Expected != 30 || q.FoundSq != 134 || q.ExpectedSq != 250 || q.FoundExpected != 140 {
		t.Fatalf("sums %+v", s)
	}
	lo, hi := s.Interval()
	if math.Abs(lo-0.0832) > 0.0005 || math.Abs(hi-0.9612) > 0.0005 {
		t.Fatalf("interval %.4f–%.4f; by hand 0.0832–0.9612", lo, hi)
	}
	// Per document, Wilson's over 30 trials would say 0.423–0.754.
	if wlo, whi := Wilson(18, 30); wlo < 0.42 || whi > 0.76 {
		t.Fatalf("Wilson %.3f–%.3f", wlo, whi)
	}
}

// clustered draws n queries' answers where misses cluster by query: each
// query's recall p is drawn first (a query whose neighbourhood the index
// lost misses it all), then its k (or fewer: a filter that passes few)
// expected documents are found each with probability p. truth is the
// population's recall.
type clustered struct {
	name  string
	n     int
	draw  func(r *rand.Rand) (p float64, e int64)
	truth float64
}

func (c clustered) sample(r *rand.Rand) RecallSums {
	var s RecallSums
	for range c.n {
		p, e := c.draw(r)
		var f int64
		for range e {
			if r.Float64() < p {
				f++
			}
		}
		s.AddQuery(f, e)
	}
	return s
}

// The interval over queries covers the population's recall at close to
// its nominal 95% when misses cluster by query, where Wilson's, which
// takes every expected document for an independent trial, falls far
// short; with few queries too (its t quantile). The sums add: a sample
// split in two and added gives the same interval.
func TestRecallIntervalCoversUnderClustering(t *testing.T) {
	allOrNothing := func(r *rand.Rand) (float64, int64) {
		if r.Float64() < 0.1 {
			return 0, 10
		}
		return 1, 10
	}
	// Each query's recall uniform on [0.2, 1] (mean 0.6); 1…10 expected.
	spread := func(r *rand.Rand) (float64, int64) { return 0.2 + 0.8*r.Float64(), 1 + r.Int64N(10) }
	// A mixture: most queries near-perfect, one in five at 0.3.
	mixed := func(r *rand.Rand) (float64, int64) {
		if r.Float64() < 0.2 {
			return 0.3, 10
		}
		return 0.97, 10
	}
	for _, c := range []clustered{
		{"all or nothing, 100 queries", 100, allOrNothing, 0.9},
		{"all or nothing, 12 queries", 12, allOrNothing, 0.9},
		{"spread, 100 queries", 100, spread, 0.6},
		{"spread, 8 queries", 8, spread, 0.6},
		{"mixed, 300 queries", 300, mixed, 0.2*0.3 + 0.8*0.97},
	} {
		const runs = 2000
		r := rand.New(rand.NewPCG(7, uint64(c.n)))
		var covered, wilsonCovered int
		for range runs {
			s := c.sample(r)
			if lo, hi := s.Interval(); lo <= c.truth && c.truth <= hi {
				covered++
			}
			if lo, hi := Wilson(s.Found, s.Expected); lo <= c.truth && c.truth <= hi {
				wilsonCovered++
			}
		}
		cov, wcov := float64(covered)/runs, float64(wilsonCovered)/runs
		t.Logf("%s: coverage %.3f over queries, %.3f Wilson per document", c.name, cov, wcov)
		if cov < 0.925 || cov > 0.99 {
			t.Errorf("%s: the interval over queries covers the truth %.3f of the time; want about 0.95", c.name, cov)
		}
		if c.n >= 100 && wcov > 0.85 {
			t.Errorf("%s: Wilson per document covers %.3f: the test's misses do not cluster", c.name, wcov)
		}
	}
}

// Under writes the answers of one moment miss together across queries (a
// write hidden from every search of the moment): there the interval over
// queries alone falls short, and the one clustered by query and interval
// covers the population's recall at close to 95%; where the moments do
// not matter it is not much wider than the one over queries. Each of 60
// queries is asked 1 to 3 times in each of 20 intervals; a query's recall
// is 0.8 + u (its neighbourhood), moved by v in each interval (the
// moment), u and v uniform and centred, so the population's recall is 0.8.
func TestRecallIntervalCoversTwoWays(t *testing.T) {
	const queries, intervals, runs, truth = 60, 20, 2000, 0.8
	for _, moment := range []float64{0.2, 0} {
		r := rand.New(rand.NewPCG(11, 3))
		var twoWays, oneWay int
		for range runs {
			u := make([]float64, queries)
			for q := range u {
				u[q] = 0.16 * (r.Float64() - 0.5)
			}
			var s RecallSums
			perQuery := make([][2]int64, queries)
			for range intervals {
				v := moment * (r.Float64() - 0.5)
				var ivF, ivE int64
				for q := range queries {
					var f, e int64
					for range 1 + r.IntN(3) { // 10 expected each
						for range 10 {
							if r.Float64() < truth+u[q]+v {
								f++
							}
						}
						e += 10
						s.Checks++
					}
					s.Cells.AddCluster(f, e)
					perQuery[q][0] += f
					perQuery[q][1] += e
					ivF, ivE = ivF+f, ivE+e
				}
				s.Intervals.AddCluster(ivF, ivE)
			}
			for _, q := range perQuery {
				s.AddQuery(q[0], q[1])
			}
			if lo, hi := s.Interval(); lo <= truth && truth <= hi {
				twoWays++
			}
			one := s
			one.Intervals, one.Cells = ClusterSums{}, ClusterSums{}
			if lo, hi := one.Interval(); lo <= truth && truth <= hi {
				oneWay++
			}
		}
		two, one := float64(twoWays)/runs, float64(oneWay)/runs
		t.Logf("moments ±%.2f: coverage %.3f clustered two ways, %.3f by query alone", moment/2, two, one)
		if two < 0.925 || two > 0.99 {
			t.Errorf("moments ±%.2f: the interval clustered two ways covers the truth %.3f of the time; want about 0.95", moment/2, two)
		}
		if moment > 0 && one > 0.85 {
			t.Errorf("moments ±%.2f: by query alone it covers %.3f: the test's misses do not cluster by time", moment/2, one)
		}
	}
}

// The sums add across shards and reps: two halves added are the whole.
func TestRecallSumsAdd(t *testing.T) {
	var a, b, whole RecallSums
	for i, q := range [][2]int64{{10, 10}, {0, 10}, {5, 5}, {3, 5}, {7, 9}, {2, 2}} {
		whole.AddQuery(q[0], q[1])
		if i%2 == 0 {
			a.AddQuery(q[0], q[1])
		} else {
			b.AddQuery(q[0], q[1])
		}
	}
	a.Checks, b.Checks, whole.Checks = 3, 3, 6
	m := addRecall(nil, []KindRecall{KindRecall{Kind: "knn"}.withLoad(a)})
	m = addRecall(m, []KindRecall{KindRecall{Kind: "knn"}.withLoad(b)})
	if got := m[0].Load(); got != whole || m[0].Recall != float64(whole.Found)/float64(whole.Expected) {
		t.Fatalf("merged %+v; want %+v", got, whole)
	}
}

// Below idle is judged by the intervals over queries: a load whose misses
// all fall on two queries of a hundred is no evidence against a perfect
// idle check, though per document (Wilson) it would be; one that lost a
// document in most of its answers is.
func TestBelowIdleOverQueries(t *testing.T) {
	idle := RecallSums{}
	for range 100 {
		idle.AddQuery(10, 10)
	}
	idle.Checks = 100
	twoQueries := RecallSums{}
	for i := range 100 {
		f := int64(10)
		if i < 2 {
			f = 2
		}
		twoQueries.AddQuery(f, 10)
	}
	twoQueries.Checks = 100
	r := KindRecall{Kind: "knn"}.withLoad(twoQueries).withIdle(idle)
	if wHi := func() float64 { _, hi := Wilson(r.Found, r.Expected); return hi }(); wHi >= func() float64 { lo, _ := Wilson(idle.Found, idle.Expected); return lo }() {
		t.Fatalf("the case is meant to be one Wilson calls below idle")
	}
	if r.BelowIdle() {
		t.Errorf("misses on 2 queries of 100 (%d of %d): below idle; the queries are the trials", r.Found, r.Expected)
	}
	lossy := RecallSums{}
	for i := range 100 {
		f := int64(10)
		if i%4 != 0 {
			f = 9
		}
		lossy.AddQuery(f, 10)
	}
	lossy.Checks = 100
	if r := (KindRecall{Kind: "knn"}).withLoad(lossy).withIdle(idle); !r.BelowIdle() {
		t.Errorf("a document lost in 75 answers of 100: not below idle")
	}
	k := &KnownItems{K: 10, Exact: []KindRecall{KindRecall{Kind: "knn"}.withLoad(lossy).withIdle(idle)}}
	if w := strings.Join(k.Warnings().Texts(), "\n"); !strings.Contains(w, "95% interval over 100 queries") {
		t.Errorf("warning %q; want it to name the interval over queries", w)
	}
}

// A measured idle recall of 0 is written (idle_found and idle_recall 0),
// a kind with no idle check writes none of the idle figures, and a file
// written before them still reads.
func TestIdleZeroIsWritten(t *testing.T) {
	idle := RecallSums{Checks: 10}
	for range 10 {
		idle.AddQuery(0, 10)
	}
	measured := KindRecall{Kind: "knn", Checks: 1}.withIdle(idle)
	b, err := json.Marshal(measured)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"idle_checks":10`, `"idle_expected":100`, `"idle_found":0`, `"idle_recall":0`, `"idle_queries":10`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back KindRecall
	if err := json.Unmarshal(b, &back); err != nil || back != measured {
		t.Errorf("read back %+v (%v); want %+v", back, err, measured)
	}
	b, _ = json.Marshal(KindRecall{Kind: "knn", Checks: 3, Expected: 30, Found: 30, Recall: 1})
	if strings.Contains(string(b), "idle") {
		t.Errorf("no idle check, yet %s", b)
	}
	var old KindRecall
	if err := json.Unmarshal([]byte(`{"kind":"knn","checks":5,"expected":50,"found":45,"recall":0.9,"idle_checks":10,"idle_expected":100}`), &old); err != nil ||
		old.IdleChecks != 10 || old.IdleFound != 0 || old.Queries != 0 {
		t.Fatalf("an older file: %+v, %v", old, err)
	}
	// Its interval, without the per-query sums, is Wilson's per document.
	if lo, hi := old.Load().Interval(); lo <= 0 || hi >= 1 {
		t.Errorf("older file's interval %.3f–%.3f", lo, hi)
	} else if wlo, whi := Wilson(45, 50); lo != wlo || hi != whi {
		t.Errorf("older file's interval %.3f–%.3f; want Wilson's %.3f–%.3f", lo, hi, wlo, whi)
	}
}

// withLoad is r with s's figures under load.
func (r KindRecall) withLoad(s RecallSums) KindRecall {
	r.SetLoad(s)
	return r
}

// withIdle is r with s's figures as the idle ones.
func (r KindRecall) withIdle(s RecallSums) KindRecall {
	r.setIdle(s)
	return r
}

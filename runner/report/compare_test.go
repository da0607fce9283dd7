package report

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/runner/result"
)

// compareRow is the cells of the comparison's row for one figure.
func compareRow(t *testing.T, out, engine, at, op, metric string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 9 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[1] == engine && cells[2] == at && cells[3] == op && cells[4] == metric {
			return cells[1:9]
		}
	}
	t.Fatalf("no row %s %s %s %s in:\n%s", engine, at, op, metric, out)
	return nil
}

func compare(t *testing.T, a, b []Input) string {
	t.Helper()
	var sb strings.Builder
	if err := Compare(&sb, a, b); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func TestCompareMarksSamplingNoise(t *testing.T) {
	t.Parallel()
	a, b := sampleResult(t), sampleResult(t)
	// B's alpha at 10 users: the same distribution drawn again (noise);
	// at 100 users: searches 30% slower (beyond noise).
	b.Engines[0].Levels[0] = sampleLevel(t, 10, 4000, 2, 99)
	b.Engines[0].Levels[1].Ops[0] = sampleOp(t, "search", 8000, 3*1.3, 98, 15e9)
	// B's beta at 100 users: 10% more searches done.
	b.Engines[1].Levels[1].Ops[0] = sampleOp(t, "search", 6600, 45, 21, 15e9)
	out := compare(t, []Input{{Name: "a.json", Result: a}}, []Input{{Name: "b.json", Result: b}})

	if r := compareRow(t, out, "alpha", "10 users", "search", "p50_ms"); r[7] != "noise" || !strings.Contains(r[4], "[") {
		t.Errorf("same distribution redrawn: %q; want noise with an interval", r)
	}
	if r := compareRow(t, out, "alpha", "100 users", "search", "p50_ms"); r[7] != "worse" || !strings.HasPrefix(r[6], "+") {
		t.Errorf("30%% slower: %q; want worse, a positive change", r)
	}
	if r := compareRow(t, out, "alpha", "100 users", "search", "p99_ms"); r[7] != "worse" {
		t.Errorf("30%% slower p99: %q", r)
	}
	if r := compareRow(t, out, "beta", "100 users", "search", "rps"); r[7] != "better" || r[6] != "+10.0%" {
		t.Errorf("10%% more searches (6600 vs 6000 in 15 s): %q; want better, +10.0%%", r)
	}
	if r := compareRow(t, out, "beta", "500 users", "all", "total_rps"); r[7] != "noise" || r[6] != "+0.0%" {
		t.Errorf("identical level: %q", r)
	}
	// The ladder: identical rungs are noise; the same sustainable rate too.
	if r := compareRow(t, out, "gamma", "2800/s", "all", "p99_ms"); r[7] != "noise" {
		t.Errorf("identical rung: %q", r)
	}
	if !strings.Contains(out, "order-statistic confidence interval") || !strings.Contains(out, "not beyond run-to-run spread") {
		t.Errorf("the noise rule is not stated:\n%s", out)
	}
}

func TestCompareLadderSpreadAndSteps(t *testing.T) {
	t.Parallel()
	a, b := sampleResult(t), sampleResult(t)
	lb := b.Engines[2].Ladder
	lb.Sustainable = 3920 * 1.4                                           // one step up: the ladder cannot tell
	lb.Rungs[1].P99, lb.Rungs[1].P99Min, lb.Rungs[1].P99Max = 3, 2.5, 3.5 // wholly below A's 3.6–4.8
	lb.Rungs[2].P99 = lb.Rungs[2].P99 * 1.1                               // inside A's min–max
	ins := func(r *result.Result, n string) []Input { return []Input{{Name: n, Result: r}} }
	out := compare(t, ins(a, "a.json"), ins(b, "b.json"))
	if r := compareRow(t, out, "gamma", "ladder", "all", "sustainable_rate"); r[7] != "noise" {
		t.Errorf("one ladder step: %q; want noise", r)
	}
	if r := compareRow(t, out, "gamma", "2800/s", "all", "p99_ms"); r[7] != "better" {
		t.Errorf("p99 range below A's: %q; want better", r)
	}
	if r := compareRow(t, out, "gamma", "3920/s", "all", "p99_ms"); r[7] != "noise" {
		t.Errorf("p99 within the repetitions' range: %q; want noise", r)
	}
	lb.Sustainable = 3920 * 1.4 * 1.4
	out = compare(t, ins(a, "a.json"), ins(b, "b.json"))
	if r := compareRow(t, out, "gamma", "ladder", "all", "sustainable_rate"); r[7] != "better" {
		t.Errorf("two ladder steps: %q; want better", r)
	}
}

func TestCompareRepeatedRunsUseTheirRange(t *testing.T) {
	t.Parallel()
	mk := func(searches int) *result.Result {
		r := sampleResult(t)
		r.Engines[0].Levels[0].Ops[0] = sampleOp(t, "search", searches, 2, 5, 15e9)
		return r
	}
	// A: three runs doing 3000, 4000 and 5000 searches; B: one run at 4400.
	// Each alone is far beyond the others' sampling error, but within the
	// spread of A's runs.
	a := []Input{{Name: "a1.json", Result: mk(3000)}, {Name: "a2.json", Result: mk(4000)}, {Name: "a3.json", Result: mk(5000)}}
	b := []Input{{Name: "b.json", Result: mk(4400)}}
	out := compare(t, a, b)
	r := compareRow(t, out, "alpha", "10 users", "search", "rps")
	if r[7] != "noise" || !strings.HasPrefix(r[4], "267 [") || r[6] != "+10.0%" {
		t.Errorf("row %q; want A's median 266.7 with the runs' range, noise", r)
	}
	if !strings.Contains(out, "a1.json, a2.json, a3.json (3 runs)") || !strings.Contains(out, "warning: one run on a side") {
		t.Errorf("side A not named:\n%s", out)
	}
}

func TestCompareWarnsWhenConfigurationsDiffer(t *testing.T) {
	t.Parallel()
	a, b := sampleResult(t), sampleResult(t)
	b.Corpus.Hash = "sha256:ffffffffffffffffffffffffffff"
	b.Config.Mix = "upsert=100"
	b.Engines = b.Engines[:1]
	a.Config.Measure, b.Config.Measure = result.Duration(2*time.Second), result.Duration(90*time.Second)
	out := compare(t, []Input{{Name: "a.json", Result: a}}, []Input{{Name: "b.json", Result: b}})
	for _, s := range []string{"differ in corpus", "differ in mix (search=80,upsert=19,delete=1 / upsert=100)", "differ in measure window (2s / 1m30s)", "Only in A: beta (10 users, 100 users, 500 users); gamma (ladder, 2000/s, 2800/s, 3920/s, 5488/s)"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestQuantileIntervalCoversTheQuantile(t *testing.T) {
	t.Parallel()
	o := sampleOp(t, "search", 10000, 5, 3, 15e9)
	h, err := result.DecodeHistogram(o.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0.5, 0.95, 0.99} {
		lo, hi := quantileInterval(h, q)
		v := float64(h.ValueAtQuantile(100*q)) / 1000
		if lo > v || hi < v || lo == hi {
			t.Errorf("q %g: interval %g–%g around %g", q, lo, hi, v)
		}
	}
	// The interval narrows as calls grow: ~1/√n.
	big := sampleOp(t, "search", 160000, 5, 3, 15e9)
	hb, _ := result.DecodeHistogram(big.Histogram)
	lo1, hi1 := quantileInterval(h, 0.5)
	lo2, hi2 := quantileInterval(hb, 0.5)
	if ratio := (hi1 - lo1) / (hi2 - lo2); ratio < 2.5 || ratio > 6 {
		t.Errorf("16× the calls narrowed the interval %.1f×; want about 4×", ratio)
	}
}

// The ranks are checked against the exact binomial sums (the published
// tables give x(40)–x(61) for the median of 100) and where no bound exists.
func TestOrderRanksAreExactBinomialBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		q    float64
		l, u int64
	}{
		{100, 0.5, 40, 61},
		{20, 0.5, 6, 15},
		{1000, 0.99, 983, 997},
		{1000, 0.95, 936, 964},
		{8, 0.99, 7, 9},       // no upper bound: all 8 below the true p99 92% of the time
		{367, 0.99, 359, 368}, // still none
		{3, 0.5, 0, 4},        // 3 calls bound their median on neither side
	} {
		if l, u := orderRanks(c.n, c.q); l != c.l || u != c.u {
			t.Errorf("orderRanks(%d, %g) = %d, %d; want %d, %d", c.n, c.q, l, u, c.l, c.u)
		}
	}
}

// Coverage by simulation: samples of a known distribution, the interval
// from their order statistics, the true quantile inside it at least ~95% of
// the time — including the tail quantiles of small samples, where the normal
// approximation this replaced covered the true p99 of 8 calls 8% of the time.
func TestOrderRanksCoverTheTrueQuantile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, c := range []struct {
		n int64
		q float64
	}{{8, 0.99}, {50, 0.95}, {200, 0.5}, {2000, 0.99}} {
		const trials = 4000
		covered := 0
		sample := make([]float64, c.n)
		for range trials {
			for i := range sample {
				sample[i] = rng.Float64() // uniform: the true q-quantile is q
			}
			slices.Sort(sample)
			l, u := orderRanks(c.n, c.q)
			lo, hi := math.Inf(-1), math.Inf(1)
			if l >= 1 {
				lo = sample[l-1]
			}
			if u <= c.n {
				hi = sample[u-1]
			}
			if lo <= c.q && c.q <= hi {
				covered++
			}
		}
		if share := float64(covered) / trials; share < 0.94 {
			t.Errorf("n %d, q %g: the interval covered the true quantile in %.1f%% of trials; want ≥ 95%%", c.n, c.q, 100*share)
		}
	}
}

// A p99 of a handful of calls has no upper bound, so a difference in it is
// noise however large.
func TestCompareFewCallsTailIsNoise(t *testing.T) {
	t.Parallel()
	few := func(ms int64) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for i := range int64(8) {
			h.RecordValue(ms*1000 + i)
		}
		return h
	}
	lo, hi := quantileInterval(few(100), 0.99)
	if !math.IsInf(hi, 1) || lo <= 0 {
		t.Fatalf("p99 of 8 calls: interval %g–%g; want a lower bound and none above", lo, hi)
	}
	a := estimate{v: 100, lo: lo, hi: hi}
	lo, hi = quantileInterval(few(300), 0.99)
	b := estimate{v: 300, lo: lo, hi: hi}
	if v := verdict("p99_ms", a, b); v != "noise" {
		t.Errorf("p99 of 8 calls, 100 ms vs 300 ms: verdict %q; want noise", v)
	}
	if s := a.String(); !strings.HasSuffix(s, "–∞]") {
		t.Errorf("unbounded interval shown as %q", s)
	}
}

// Two product runs of different query mixes: the level is on both sides,
// so it is not "only in A"; the kinds each side alone has are named, and
// the mixes are said to differ.
func TestCompareNamesTheKindsOnOneSide(t *testing.T) {
	t.Parallel()
	a, b := kindResult(t), kindResult(t)
	b.Corpus.Queries = "knn=2,knn-price=2"
	for i := range b.Engines[0].Levels {
		b.Engines[0].Levels[i].Ops[0].Kinds[1] = sampleKind(t, "knn-price", 500, 2, uint64(400+i), 15*time.Second)
	}
	out := compare(t, []Input{{Name: "a.json", Result: a}}, []Input{{Name: "b.json", Result: b}})
	for _, s := range []string{
		"differ in query mix (knn=2,knn-category=4,knn-price=2,sku=2 / knn=2,knn-price=2)",
		"Query kinds only in A: sku (alpha)",
		"Query kinds only in B: knn-price (alpha)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "Only in A") || strings.Contains(out, "Only in B") {
		t.Errorf("a level on both sides is said to be on one:\n%s", out)
	}
	// An operation one mix has and the other lacks is named as such.
	b = sampleResult(t)
	b.Config.Mix = "search=80,upsert=20"
	for i := range b.Engines[0].Levels {
		b.Engines[0].Levels[i].Ops = b.Engines[0].Levels[i].Ops[:2]
	}
	out = compare(t, []Input{{Name: "a.json", Result: sampleResult(t)}}, []Input{{Name: "b.json", Result: b}})
	if !strings.Contains(out, "Operations only in A: delete (alpha)") || strings.Contains(out, "Only in A") {
		t.Errorf("an operation only A ran:\n%s", out)
	}
}

// A ladder (open loop: latency at offered rates) and a closed-loop run
// (users) hold no figure in common: compare says so and stops, instead
// of warning about a "measure window (0s / 2s)" the ladder never had.
func TestCompareRefusesALadderAgainstARun(t *testing.T) {
	t.Parallel()
	run, ladder := sampleResult(t), sampleResult(t)
	run.Engines = run.Engines[:2]
	ladder.Engines = ladder.Engines[2:]
	ladder.Config.Measure, ladder.Config.Settle = 0, 0
	var sb strings.Builder
	err := Compare(&sb, []Input{{Name: "ladder.json", Result: ladder}}, []Input{{Name: "run.json", Result: run}})
	if !errors.Is(err, ErrDifferentKinds) || !strings.Contains(err.Error(), "A (ladder.json) is a rate ladder (open loop) and B (run.json) closed-loop user levels") {
		t.Errorf("a ladder against a run: %v; want ErrDifferentKinds naming both", err)
	}
	if strings.Contains(sb.String(), "measure window") {
		t.Errorf("a ladder against a run warns of a measure window:\n%s", sb.String())
	}
	// A side that holds both kinds (a run and a ladder in one file)
	// compares on what the other side has; the ladder's lack of a window
	// is no difference.
	ladder.Engines = append(ladder.Engines, run.Engines[0])
	ladder.Config.Measure = run.Config.Measure
	out := compare(t, []Input{{Name: "a.json", Result: ladder}}, []Input{{Name: "b.json", Result: run}})
	if strings.Contains(out, "measure window") {
		t.Errorf("same window:\n%s", out)
	}
}

package report

import (
	"strings"
	"testing"

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
	a, b := sampleResult(t), sampleResult(t)
	b.Corpus.Hash = "sha256:ffffffffffffffffffffffffffff"
	b.Config.Mix = "0/100/0"
	b.Engines = b.Engines[:1]
	out := compare(t, []Input{{Name: "a.json", Result: a}}, []Input{{Name: "b.json", Result: b}})
	for _, s := range []string{"differ in corpus", "differ in mix (0/100/0 / 80/19/1)", "Only in A: beta (10 users, 100 users, 500 users); gamma (ladder, 2000/s, 2800/s, 3920/s, 5488/s)"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestQuantileIntervalCoversTheQuantile(t *testing.T) {
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

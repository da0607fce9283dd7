package report

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// sampleKind is one kind's share of a search operation, drawn as sampleOp
// draws an operation.
func sampleKind(t testing.TB, kind string, n int, medianMS float64, seed uint64, window time.Duration) result.KindStats {
	o := sampleOp(t, "search", n, medianMS, seed, window)
	return result.KindStats{Kind: kind, Count: o.Count, RPS: o.RPS, Latency: o.Latency, Histogram: o.Histogram}
}

// kindResult is sampleResult with the product workload's figures: alpha's
// levels and gamma's ladder reps split their searches by kind, both check
// recall against exact answers idle and under load, and the run has a
// query mix and a ground truth.
func kindResult(t testing.TB) *result.Result {
	r := sampleResult(t)
	r.Corpus.Queries = "knn=2,knn-category=4,knn-price=2,sku=2"
	r.GroundTruth = &result.GroundTruth{Queries: 200, Documents: 950, Dim: 384, Depth: 20, Seconds: 1.234, Bytes: 52_400_000}
	window := 15 * time.Second
	idle := []result.KindRecall{
		withSums(result.KindRecall{Kind: "knn"}, 10, 10, 2),
		withSums(result.KindRecall{Kind: "sku"}, 20, 1, 0),
	}
	alpha := &r.Engines[0]
	alpha.Relevance = &result.Relevance{K: 10, Queries: 100, Found: 99, Recall: 0.99, Exact: idle}
	for i := range alpha.Levels {
		l := &alpha.Levels[i]
		l.Ops[0].Kinds = []result.KindStats{
			sampleKind(t, "knn", 1000*(i+1), 3+float64(i), uint64(100+i), window),
			sampleKind(t, "sku", 500*(i+1), 1, uint64(200+i), window),
		}
		if i > 0 {
			l.Ops[0].Kinds[1].Errors = map[string]int64{"timeout": int64(i)}
		}
		// 40 checks: 20 queries asked twice, 10 expected each time.
		load := []result.KindRecall{
			withSums(result.KindRecall{Kind: "knn", Skipped: 3, Failed: int64(i)}, 20, 20, 8+100*int64(i)),
			withSums(result.KindRecall{Kind: "sku"}, 50, 1, 0),
		}
		load[0].Checks = 40
		l.KnownItems = &result.KnownItems{K: 10, Checks: 90, Found: 90, Recall: 1, Exact: result.SetIdle(load, idle)}
	}
	gamma := &r.Engines[2]
	gamma.Relevance = &result.Relevance{K: 10, Exact: idle}
	for i := range gamma.Ladder.Rungs {
		rung := &gamma.Ladder.Rungs[i]
		for j := range rung.Reps {
			knn := sampleKind(t, "knn", 1000, 4*float64(j+1), uint64(300+10*i+j), 25*time.Second)
			rung.Reps[j].Ops = []result.OpenOp{{OpStats: result.OpStats{Op: "search", Count: 1000, Kinds: []result.KindStats{knn}}}}
			rung.Reps[j].KnownItems = &result.KnownItems{K: 10, Exact: result.SetIdle([]result.KindRecall{
				{Kind: "knn", Checks: 10, Expected: 100, Found: 97, Recall: 0.97}}, idle)}
		}
		rung.Summarize()
	}
	return r
}

// withSums is r with n queries' figures, each query e expected, misses
// spread over the queries as evenly as they go.
func withSums(r result.KindRecall, n, e, misses int64) result.KindRecall {
	var s result.RecallSums
	for q := range n {
		f := e - misses/n
		if q < misses%n {
			f--
		}
		s.AddQuery(f, e)
	}
	s.Checks = n
	r.SetLoad(s)
	return r
}

func markdown(t *testing.T, rep *Report) string {
	t.Helper()
	var b strings.Builder
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tableRow is the cells of the Markdown row whose first cells are first.
func tableRow(t *testing.T, md string, first ...string) []string {
	t.Helper()
	row := findRow(md, first...)
	if row == nil {
		t.Fatalf("no row %q in:\n%s", first, md)
	}
	return row
}

// findRow is the cells of the Markdown row whose first cells are first;
// nil when there is none.
func findRow(md string, first ...string) []string {
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) >= len(first) && slices.Equal(cells[:len(first)], first) {
			return cells
		}
	}
	return nil
}

func TestKindTablesHoldTheFigures(t *testing.T) {
	t.Parallel()
	r := kindResult(t)
	md := markdown(t, New(Input{Name: "r.json", Result: r}))

	for _, want := range []string{"## By query kind (product workload)", "### alpha: latency by query kind",
		"### gamma: latency by query kind", "### Recall against exact answers", "| engine | kind |        at | recall@10 | found / expected | 95% interval |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "### beta: latency by query kind") {
		t.Error("beta has no kinds, yet a kind table")
	}
	// A level's kind: its figures as the result holds them.
	k := r.Engines[0].Levels[1].Ops[0].Kinds[0]
	if row := tableRow(t, md, "100 users", "knn"); !slices.Equal(row[2:], []string{"2000", rps(k.RPS), num(k.Latency.P50), num(k.Latency.P99), "0"}) {
		t.Errorf("alpha's 100-user knn row %q; want count 2000, %s/s, p50 %s, p99 %s", row, rps(k.RPS), num(k.Latency.P50), num(k.Latency.P99))
	}
	if row := tableRow(t, md, "500 users", "sku"); row[6] != "2 timeout" {
		t.Errorf("alpha's 500-user sku errors %q", row[6])
	}
	// A rung's kind: counts summed over the reps, p99 the reps' median.
	reps := r.Engines[2].Ladder.Rungs[1].Reps
	if row := tableRow(t, md, "2800/s", "knn"); row[2] != "3000" || row[5] != num(reps[1].Ops[0].Kinds[0].Latency.P99) {
		t.Errorf("gamma's 2800/s knn row %q; want 3000 calls, p99 %s (the middle rep's)", row, num(reps[1].Ops[0].Kinds[0].Latency.P99))
	}

	// Recall: idle, then each level, with the interval over queries.
	alpha := r.Engines[0]
	lo, hi := alpha.Relevance.Exact[0].Load().Interval()
	if wlo, _ := result.Wilson(98, 100); lo >= wlo {
		t.Fatalf("the interval over 10 queries %.3f–%.3f is no wider than Wilson's over 100 documents", lo, hi)
	}
	if row := tableRow(t, md, "alpha", "knn", "idle"); !slices.Equal(row[3:], []string{"0.980", "98 / 100", fmt.Sprintf("%.3f–%.3f", lo, hi), "10", "10", "0", "0", "0"}) {
		t.Errorf("alpha's idle knn row %q; want the interval %.3f–%.3f over 10 queries", row, lo, hi)
	}
	lo, hi = alpha.Levels[0].KnownItems.Exact[0].Load().Interval()
	if row := tableRow(t, md, "alpha", "knn", "10 users"); !slices.Equal(row[3:], []string{"0.980", "392 / 400", fmt.Sprintf("%.3f–%.3f", lo, hi), "40", "20", "3", "0", "0"}) {
		t.Errorf("alpha's 10-user knn row %q; want the interval %.3f–%.3f over 20 queries", row, lo, hi)
	}
	// 192 of 400 is below 98 of 100 beyond sampling: flagged.
	if row := tableRow(t, md, "alpha", "knn", "500 users"); row[3] != "0.480 ⚠" || row[9] != "2" {
		t.Errorf("alpha's 500-user knn row %q; want 0.480 ⚠ and 2 failed", row)
	}
	if row := tableRow(t, md, "alpha", "sku", "100 users"); row[3] != "1.000" || row[4] != "50 / 50" {
		t.Errorf("alpha's 100-user sku row %q", row)
	}
	// A rung's: its reps summed.
	// A result written before the per-query sums: Wilson's interval per
	// document, no count of queries.
	lo, hi = result.Wilson(291, 300)
	if row := tableRow(t, md, "gamma", "knn", "2000/s"); row[3] != "0.970" || row[4] != "291 / 300" || row[5] != fmt.Sprintf("%.3f–%.3f", lo, hi) || row[7] != "—" {
		t.Errorf("gamma's 2000/s knn row %q; want 291 of 300, Wilson's interval and no queries", row)
	}
	// A kind a rung did not check shows no row for it.
	if findRow(md, "gamma", "sku", "2000/s") != nil {
		t.Error("gamma's rungs checked no sku, yet an sku row")
	}

	// The run's query mix and the ground truth's cost.
	if row := tableRow(t, md, "query mix (weights)"); row[1] != r.Corpus.Queries {
		t.Errorf("query mix row %q", row)
	}
	if row := tableRow(t, md, "exact answers (ground truth)"); row[1] != "200 queries × 950 documents (dim 384, depth 20): 1.23 s, 52.4 MB allocated" {
		t.Errorf("ground truth row %q", row)
	}
}

// A result of one kind of query (the text corpus) gets none of it.
func TestNoKindSectionsWithoutKinds(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "r.json", Result: sampleResult(t)})
	md := markdown(t, rep)
	var html, out strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.CSV(&out); err != nil {
		t.Fatal(err)
	}
	for _, unwanted := range []string{"By query kind", "latency by query kind", "Recall against exact answers", "query mix", "ground truth"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("the Markdown has %q", unwanted)
		}
		if strings.Contains(html.String(), unwanted) {
			t.Errorf("the HTML has %q", unwanted)
		}
	}
	for _, unwanted := range []string{"kind.", "exact.", "ground_truth", ",corpus,"} {
		if strings.Contains(out.String(), unwanted) {
			t.Errorf("the CSV has %q", unwanted)
		}
	}
}

func TestKindFiguresInCSV(t *testing.T) {
	t.Parallel()
	r := kindResult(t)
	var out strings.Builder
	if err := New(Input{Name: "r.json", Result: r}).CSV(&out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], CSVHeader) {
		t.Fatalf("header %q", recs[0])
	}
	// label|users|offered|rep|op|metric=value
	var got []string
	for _, rec := range recs[1:] {
		if len(rec) != len(CSVHeader) {
			t.Fatalf("row %q has %d cells", rec, len(rec))
		}
		got = append(got, strings.Join(rec[3:9], "|")+"="+rec[9])
	}
	k := r.Engines[0].Levels[0].Ops[0].Kinds[0]
	lo, hi := r.Engines[0].Levels[0].KnownItems.Exact[0].Load().Interval()
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, want := range []string{
		"||||corpus|queries.knn-category=4", "||||corpus|queries.sku=2",
		"||||ground_truth|queries=200", "||||ground_truth|dim=384", "||||ground_truth|seconds=1.234", "||||ground_truth|bytes_allocated=5.24e+07",
		"alpha||||relevance|exact.knn.recall=0.98", "alpha||||relevance|exact.knn.expected=100", "alpha||||relevance|exact.sku.found=20",
		"alpha|10|||search|kind.knn.count=1000", "alpha|10|||search|kind.knn.p50_ms=" + g(k.Latency.P50),
		"alpha|10|||search|kind.knn.p99_ms=" + g(k.Latency.P99), "alpha|500|||search|kind.sku.errors.timeout=2",
		"alpha|10|||all|exact.knn.recall=0.98", "alpha|10|||all|exact.knn.recall_lo=" + g(lo), "alpha|10|||all|exact.knn.recall_hi=" + g(hi),
		"alpha|10|||all|exact.knn.skipped=3", "alpha|10|||all|exact.knn.idle_recall=0.98", "alpha|10|||all|exact.knn.idle_expected=100",
		"alpha|10|||all|exact.knn.queries=20", "alpha|10|||all|exact.knn.idle_queries=10", "alpha||||relevance|exact.knn.queries=10",
		"gamma||2000||all|exact.knn.found=291", "gamma||2000|1|all|exact.knn.found=97", "gamma||2000|1|search|kind.knn.count=1000",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the CSV lacks %s", want)
		}
	}
}

func TestKindSectionsInHTML(t *testing.T) {
	t.Parallel()
	var html strings.Builder
	if err := New(Input{Name: "r.json", Result: kindResult(t)}).HTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h2>By query kind (product workload)</h2>", `<section id="alpha-latency-by-query-kind">`,
		`<section id="recall-against-exact-answers">`, "<h3>Recall against exact answers</h3>", "<td>0.480 ⚠</td>", "<td>392 / 400</td>",
		"<td>query mix (weights)</td>", "<td>knn=2,knn-category=4,knn-price=2,sku=2</td>"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
}

// Compare puts each kind's p50 and p99 side by side, levels and rungs.
func TestCompareByKind(t *testing.T) {
	t.Parallel()
	a, b := kindResult(t), kindResult(t)
	// B's knn at 10 users: 50% slower, beyond noise.
	b.Engines[0].Levels[0].Ops[0].Kinds[0] = sampleKind(t, "knn", 1000, 3*1.5, 999, 15*time.Second)
	out := compare(t, []Input{{Name: "a.json", Result: a}}, []Input{{Name: "b.json", Result: b}})
	if r := compareRow(t, out, "alpha", "10 users", "search:knn", "p50_ms"); r[7] != "worse" || !strings.Contains(r[4], "[") {
		t.Errorf("knn 50%% slower: %q; want worse, with an interval", r)
	}
	if r := compareRow(t, out, "alpha", "10 users", "search:sku", "p99_ms"); r[7] != "noise" {
		t.Errorf("identical sku: %q", r)
	}
	if r := compareRow(t, out, "gamma", "2000/s", "search:knn", "p99_ms"); r[7] != "noise" || !strings.Contains(r[4], "[") {
		t.Errorf("identical rung's knn: %q; want noise, with the reps' spread", r)
	}
	if strings.Contains(out, "beta") && strings.Contains(out, "| beta | 10 users | search:") {
		t.Error("beta has no kinds, yet kind figures")
	}
}

// A measured idle recall of 0 is a figure like any other: the CSV has
// idle_found 0 and idle_recall 0; a load with no idle check beside it
// (a shard that did not prepare) has no idle figures, not zeros.
func TestIdleZeroInCSV(t *testing.T) {
	t.Parallel()
	r := kindResult(t)
	alpha := &r.Engines[0]
	zero := withSums(result.KindRecall{Kind: "knn"}, 10, 10, 100)
	alpha.Relevance.Exact = []result.KindRecall{zero}
	for i := range alpha.Levels {
		alpha.Levels[i].KnownItems.Exact = result.SetIdle([]result.KindRecall{withSums(result.KindRecall{Kind: "knn"}, 20, 20, 8)}, alpha.Relevance.Exact)
	}
	gamma := &r.Engines[2]
	gamma.Relevance = nil
	for i := range gamma.Ladder.Rungs {
		for j := range gamma.Ladder.Rungs[i].Reps {
			gamma.Ladder.Rungs[i].Reps[j].KnownItems.Exact = []result.KindRecall{withSums(result.KindRecall{Kind: "knn"}, 10, 10, 3)}
		}
		gamma.Ladder.Rungs[i].Summarize()
	}
	var out strings.Builder
	if err := New(Input{Name: "r.json", Result: r}).CSV(&out); err != nil {
		t.Fatal(err)
	}
	// Each row ends with the empty sweep columns (knob, knob_value, writes).
	for _, want := range []string{",alpha,10,,,all,exact.knn.idle_found,0,,,\n", ",alpha,10,,,all,exact.knn.idle_recall,0,,,\n", ",alpha,,,,relevance,exact.knn.recall,0,,,\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the CSV lacks %q", want)
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, ",gamma,") && strings.Contains(line, "exact.knn.idle_") {
			t.Errorf("no idle check, yet %q", line)
		}
	}
	md := markdown(t, New(Input{Name: "r.json", Result: r}))
	if row := tableRow(t, md, "alpha", "knn", "idle"); row[3] != "0.000" || row[4] != "0 / 100" {
		t.Errorf("alpha's idle row %q; want 0.000, 0 of 100", row)
	}
}

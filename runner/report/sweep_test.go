package report

import (
	"bytes"
	"encoding/csv"
	"image"
	"image/png"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// fixturePoint is one sweep point as a test builds it: QPS of kNN
// searches and recall (idle, strict under load, lag-excused) in
// thousandths.
type fixturePoint struct {
	value       int
	writes      bool
	qps         float64
	idle, load  int64 // found of 1000 expected; 0: not measured
	lag, recent int64 // lag-excused found of 1000; recent misses
}

// sweepPoint builds the point as the runner writes one: a closed-loop
// level whose search operation has the kind's rate, p50 and p99, and whose
// known-item checks hold the exact recall.
func (f fixturePoint) point() result.SweepPoint {
	k := result.KindStats{Kind: "knn", Count: int64(f.qps * 10), RPS: f.qps, Latency: result.Latency{P50: 1000 / f.qps, P99: 4000 / f.qps}}
	l := result.Level{Users: 8, Window: result.Duration(10 * time.Second), TotalRPS: f.qps,
		Ops: []result.OpStats{{Op: "search", Count: k.Count, RPS: f.qps, Latency: k.Latency, Kinds: []result.KindStats{k}}}}
	if f.load > 0 {
		r := result.KindRecall{Kind: "knn", Checks: 100, Expected: 1000, Found: f.load, Recall: float64(f.load) / 1000}
		if f.writes {
			r.LagExpected, r.LagFound, r.RecentMisses, r.Lag = 1000, f.lag, f.recent, result.Duration(30*time.Millisecond)
		}
		l.KnownItems = &result.KnownItems{K: 10, Exact: []result.KindRecall{r}}
	}
	p := result.SweepPoint{Value: f.value, Writes: f.writes, Level: &l}
	if f.idle > 0 {
		p.Idle = []result.KindRecall{{Kind: "knn", Checks: 100, Expected: 1000, Found: f.idle, Recall: float64(f.idle) / 1000}}
	}
	return p
}

// sweepResult is two setups' sweeps whose frontier and QPS at each target
// are known by construction: alpha's idle frontier is ef 10, 20, 40, 160
// (80 is dominated by 40: less recall, less QPS); at recall ≥ 0.90 its
// best idle QPS is 3000 (ef=20), at ≥ 0.95 2000 (ef=40); under writes
// strict recall reaches 0.90 only at ef=160 (700) and 0.95 never, and
// lag-excused recall reaches both at ef=40 (1800). beta has no knob:
// one point, recall 0.85, which reaches neither target.
func sweepResult(qpsScale float64) *result.Result {
	alpha := []fixturePoint{
		{value: 10, qps: 4000, idle: 800, load: 800},
		{value: 20, qps: 3000, idle: 900, load: 900},
		{value: 40, qps: 2000, idle: 950, load: 950},
		{value: 80, qps: 1500, idle: 940, load: 940},
		{value: 160, qps: 800, idle: 990, load: 990},
		{value: 40, writes: true, qps: 1800, idle: 950, load: 850, lag: 960, recent: 110},
		{value: 160, writes: true, qps: 700, idle: 990, load: 920, lag: 990, recent: 70},
	}
	s := &result.Sweep{Knob: "hnsw.ef_search"}
	for _, f := range alpha {
		f.qps *= qpsScale
		s.Points = append(s.Points, f.point())
	}
	beta := &result.Sweep{Points: []result.SweepPoint{fixturePoint{qps: 500, idle: 850, load: 850}.point()}}
	// ef=80's level warns: the report shows it beside the points.
	s.Points[3].Level.Warnings = result.Warnings{result.Note("a warning of ef=80's level")}
	start := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	return &result.Result{SchemaVersion: result.SchemaVersion, StartedAt: start, FinishedAt: start.Add(time.Hour),
		Config:  result.Config{K: 10, Users: []int{8}},
		Engines: []result.EngineRun{{Name: "pgvector", Label: "alpha", Sweep: s}, {Name: "meilisearch", Label: "beta", Sweep: beta}}}
}

// dominatedBrute is the definition: some other point has recall and QPS
// both at least as high, one of them higher.
func dominatedBrute(pts []sweepXY, i int) bool {
	for j, q := range pts {
		if j != i && q.recall >= pts[i].recall && q.qps >= pts[i].qps && (q.recall > pts[i].recall || q.qps > pts[i].qps) {
			return true
		}
	}
	return false
}

// The frontier is exactly the points no other dominates, on random sets
// with many ties (values drawn from a few levels) and on the fixture's.
func TestFrontierIsTheUndominatedPoints(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for n := range 400 {
		pts := make([]sweepXY, 1+n%12)
		for i := range pts {
			pts[i] = sweepXY{value: i, recall: float64(rng.IntN(6)) / 5, qps: float64(1 + rng.IntN(5))}
		}
		on := frontier(pts)
		for i := range pts {
			if on[i] == dominatedBrute(pts, i) {
				t.Fatalf("%+v: point %d on the frontier %v, dominated %v", pts, i, on[i], dominatedBrute(pts, i))
			}
		}
	}
	pts := sweepCurve(sweepResult(1).Engines[0].Sweep, "knn", condIdle)
	var values []int
	for i, on := range frontier(pts) {
		if on {
			values = append(values, pts[i].value)
		}
	}
	if !slices.Equal(values, []int{10, 20, 40, 160}) {
		t.Errorf("alpha's idle frontier %v; want ef 10, 20, 40, 160", values)
	}
}

// The QPS-at-recall table gives, per engine, kind and target, the best
// point meeting it with its knob value, idle and under writes (strict and
// lag-excused), or "not reached".
func TestSweepTableGivesQPSAtTarget(t *testing.T) {
	t.Parallel()
	secs := sweepSections(sweepResult(1).Engines)
	if len(secs) != 2 || secs[0].Title != "QPS at recall@10 target" {
		t.Fatalf("sections %+v", secs)
	}
	got := secs[0].Parts[0].Table.Rows
	want := [][]string{
		{"alpha", "knn", "≥ 0.90", "3000 (hnsw.ef_search=20, recall 0.900)", "700 (hnsw.ef_search=160, recall 0.920)", "1800 (hnsw.ef_search=40, recall 0.960)"},
		{"alpha", "knn", "≥ 0.95", "2000 (hnsw.ef_search=40, recall 0.950)", "not reached", "1800 (hnsw.ef_search=40, recall 0.960)"},
		{"beta", "knn", "≥ 0.90", "not reached", "—", "—"},
		{"beta", "knn", "≥ 0.95", "not reached", "—", "—"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	points := secs[1].Parts[0].Table.Rows
	if len(points) != 8 || !slices.Equal(points[5], []string{"alpha", "knn", "hnsw.ef_search=40", "yes", "0.950", "0.850", "0.960", "110 of 150", "30ms", "1800", num(1000.0 / 1800), num(4000.0 / 1800)}) {
		t.Errorf("point rows %q", points)
	}
	if points[7][2] != "default" {
		t.Errorf("beta's one point is %q; want the engine's default", points[7][2])
	}
	ws := Warnings(secs)
	if len(ws) != 1 || ws[0].Where != "alpha, hnsw.ef_search=80" || !strings.Contains(ws[0].Text, "a warning of ef=80's level") {
		t.Errorf("warnings %v; want ef=80's level's", ws)
	}
	var html strings.Builder
	if err := New(Input{Name: "s.json", Result: sweepResult(1)}).HTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="chart-sweep-knn"`, "<h2>" + sweepsTitle + "</h2>", "<h3>QPS at recall@10 target</h3>", "alpha: knob hnsw.ef_search.", "beta: the engine has no search-time knob"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	var md strings.Builder
	if err := New(Input{Name: "s.json", Result: sweepResult(1)}).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## "+sweepsTitle) || !regexp.MustCompile(`\| alpha +\| +knn \| +≥ 0.95 \| +2000 \(hnsw.ef_search=40, recall 0.950\) \| +not reached \|`).MatchString(md.String()) {
		t.Errorf("markdown lacks the sweep table:\n%s", md.String())
	}
}

var pathPoint = regexp.MustCompile(`[ML]\s*(-?[0-9.]+)[ ,](-?[0-9.]+)`)

// The chart per kind draws each setup's frontier as one line through the
// frontier points, QPS falling as recall rises (right and down: vgsvg's
// y grows upwards, so its y falls), dominated points as rings, every point labelled with its value.
func TestSweepChartDrawsTheFrontier(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "s.json", Result: sweepResult(1)})
	var c Chart
	for _, ch := range rep.Charts() {
		if ch.Name == "sweep-knn" {
			c = ch
		}
	}
	if c.plot == nil {
		t.Fatal("no sweep-knn chart")
	}
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	content := parseSVG(t, svg)
	text := strings.Join(content.texts, "|")
	for _, want := range []string{"alpha idle", "alpha under writes", "beta idle", "recall@10", "knn searches per second", "10", "20", "40", "80", "160", "default"} {
		if !slices.Contains(content.texts, want) {
			t.Errorf("chart lacks text %q: %q", want, text)
		}
	}
	// alpha's idle frontier: four points, one path of three segments;
	// under writes two points, one segment (the frontier of 40 and 160:
	// neither dominates). Rings are closed paths.
	lines := map[int][]string{}
	for _, d := range content.strokes[hexColor(0)] {
		if !strings.HasSuffix(strings.TrimSpace(d), "Z") {
			lines[strings.Count(d, "L")] = append(lines[strings.Count(d, "L")], d)
		}
	}
	if len(lines[3]) != 1 || len(lines[1]) < 1 {
		t.Fatalf("alpha's lines by segments %v; want one of three (idle) and one of one (writes)", lines)
	}
	var xs, ys []float64
	for _, m := range pathPoint.FindAllStringSubmatch(lines[3][0], -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		xs, ys = append(xs, x), append(ys, y)
	}
	slices.Reverse(ys)
	if len(xs) != 4 || !slices.IsSorted(xs) || !slices.IsSorted(ys) {
		t.Errorf("frontier path %q: x %v should rise and y (reversed: %v) fall (recall up, QPS down)", lines[3][0], xs, ys)
	}
	// The PNG has both setups' colours: alpha's lines and beta's one
	// point (a filled circle of radius 3 points, about 50 pixels at
	// 150 dpi).
	raw, err := c.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	pixels, ok := img.(image.RGBA64Image)
	if !ok {
		t.Fatalf("a PNG decoded to %T", img)
	}
	for i, least := range []int{300, 30} {
		if n := colorPixels(pixels, i); n < least {
			t.Errorf("%d pixels of setup %d's colour; want at least %d", n, i, least)
		}
	}
}

// figures.csv holds every point's rows, with the knob's name and value
// and whether it ran under writes; compare gives QPS at each target
// before and after.
func TestSweepInCSVAndCompare(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if err := New(Input{Name: "s.json", Result: sweepResult(1)}).CSV(&out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs[1:] {
		got = append(got, strings.Join(append(rec[3:10:10], rec[10:]...), "|"))
	}
	for _, want := range []string{
		"alpha||||idle|exact.knn.recall|0.95|hnsw.ef_search|40|0",
		"alpha|8|||search|kind.knn.rps|1800|hnsw.ef_search|40|1",
		"alpha|8|||all|exact.knn.lag_recall|0.96|hnsw.ef_search|40|1",
		"alpha|8|||all|exact.knn.recent_misses|110|hnsw.ef_search|40|1",
		"beta|8|||search|kind.knn.rps|500||0|0",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("CSV lacks %q", want)
		}
	}
	var cmp strings.Builder
	if err := Compare(&cmp, []Input{{Name: "a.json", Result: sweepResult(1)}}, []Input{{Name: "b.json", Result: sweepResult(2)}}); err != nil {
		t.Fatal(err)
	}
	// The table's cells, without the padding that aligns them.
	table := regexp.MustCompile(` *\| *`).ReplaceAllString(cmp.String(), "|")
	for _, want := range []string{
		"|alpha|recall ≥ 0.90, idle|search:knn|qps_at_recall|3000|6000|+100.0%|no spread known|",
		"|alpha|recall ≥ 0.95, under writes|search:knn|qps_at_recall|0.000|0.000|—|",
		"|alpha|recall ≥ 0.95, under writes, lag-excused|search:knn|qps_at_recall|1800|3600|+100.0%|",
		"|alpha|hnsw.ef_search=40 under writes, 8 users|search:knn|p99_ms|2.22|1.11|-50.0%|",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("compare lacks %q:\n%s", want, table)
		}
	}
}

// A merged sweep's shards table has a column per point's level, headed
// by its knob value, each shard's own rate in it.
func TestShardsTableHasSweepPoints(t *testing.T) {
	t.Parallel()
	var shards []*result.Result
	for i := range 2 {
		r := sweepResult(float64(i + 1))
		r.Engines = r.Engines[:1]
		r.Shard = &result.Shard{Index: i, Count: 2, Coordinator: "c:1"}
		// Shards merge histograms: each level's searches are drawn as the
		// runner records them, over a 1 s window.
		for j, p := range r.Engines[0].Sweep.Points {
			o := sampleOp(t, "search", int(p.Level.TotalRPS), 1, uint64(10*i+j), time.Second)
			o.Kinds = []result.KindStats{{Kind: "knn", Count: o.Count, RPS: o.RPS, Latency: o.Latency, Histogram: o.Histogram}}
			p.Level.Ops, p.Level.Window = []result.OpStats{o}, result.Duration(time.Second)
		}
		shards = append(shards, r)
	}
	m, err := result.Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	secs := New(Input{Name: "m.json", Result: m}).shardSections()
	if len(secs) == 0 {
		t.Fatal("no shards section")
	}
	tab := secs[0].Parts[1].Table // after the text that says how to read it
	col := slices.Index(tab.Head, "alpha hnsw.ef_search=40 under writes 16 users: RPS")
	if col < 0 {
		t.Fatalf("head %q lacks the ef=40 point under writes", tab.Head)
	}
	for i, want := range []string{rps(1800) + " (8)", rps(3600) + " (8)"} {
		if got := tab.Rows[i][col]; got != want {
			t.Errorf("shard %d: %q; want %q", i, got, want)
		}
	}
	if p := m.Engines[0].Sweep.Points[5]; p.Level.TotalRPS != 5400 {
		t.Errorf("merged ef=40 under writes: %v RPS; want 5400", p.Level.TotalRPS)
	}
}

// A point whose load made no exact check of the kind (a slow point's few
// searches drew none) is still on the idle curve, at its idle recall: the
// idle recall is looked up by the kind, not by the load's recall, which
// has no kind to name when there was no check. Under writes it has no
// recall, so no place.
func TestSweepIdlePointWithoutLoadChecks(t *testing.T) {
	t.Parallel()
	s := &result.Sweep{Knob: "hnsw.ef_search", Points: []result.SweepPoint{
		fixturePoint{value: 160, qps: 9, idle: 1000}.point(),
		fixturePoint{value: 160, writes: true, qps: 7, idle: 1000}.point(),
	}}
	if pts := sweepCurve(s, "knn", condIdle); len(pts) != 1 || pts[0].recall != 1 || pts[0].qps != 9 || pts[0].value != 160 {
		t.Errorf("idle curve %+v; want the point at recall 1, 9 QPS", pts)
	}
	if pts := sweepCurve(s, "knn", condWrites); len(pts) != 0 {
		t.Errorf("under writes %+v; want no point: its load measured no recall", pts)
	}
}

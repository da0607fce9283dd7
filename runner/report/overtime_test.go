package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot"

	"github.com/searchbench/searchbench/runner/result"
)

// sampleTimeline is a timeline of n intervals of the given length, each
// operation's calls drawn as sampleOp draws them (so each interval's
// percentiles are its histogram's), load rising interval by interval, a
// timeout in the third interval, the engine's queue depth, a thread count
// that never changes, and the container's CPU and memory.
func sampleTimeline(t testing.TB, n int, length time.Duration, seed uint64) *result.Timeline {
	t.Helper()
	tl := &result.Timeline{Interval: result.Duration(length)}
	rng := rand.New(rand.NewPCG(seed, 3))
	for k := range n {
		iv := result.Interval{Start: result.Duration(time.Duration(k) * length), Length: result.Duration(length),
			EngineStats: map[string]float64{"queue_depth": float64(3 * k), "writer_threads": 4,
				statCPU: 0.5 + 0.1*float64(k), statMemory: float64(200+10*k) * (1 << 20)}}
		for j, op := range []string{"search", "upsert"} {
			h := hdrhistogram.New(1, 300_000_000, 3)
			calls := 50*(k+1) + 7*j
			for range calls {
				if err := h.RecordValue(int64(1000 * float64(j+1) * (1 + 0.5*rng.ExpFloat64()))); err != nil {
					t.Fatal(err)
				}
			}
			o := result.IntervalOp{Op: op, Count: h.TotalCount()}
			if err := o.SetLatency(h); err != nil {
				t.Fatal(err)
			}
			if k == 2 && op == "upsert" {
				o.Errors = map[string]int64{"timeout": 4, "5xx": 1}
			}
			iv.Ops = append(iv.Ops, o)
		}
		tl.Intervals = append(tl.Intervals, iv)
	}
	return tl
}

// timelineResult is sampleResult with a timeline on each of alpha's levels
// and each of gamma's ladder repetitions; beta has none (an engine run of
// an older searchbench beside a newer one).
func timelineResult(t testing.TB) *result.Result {
	res := sampleResult(t)
	for j := range res.Engines[0].Levels {
		res.Engines[0].Levels[j].Timeline = sampleTimeline(t, 5, time.Second, uint64(j))
	}
	for j, rung := range res.Engines[2].Ladder.Rungs {
		for k := range rung.Reps {
			tl := sampleTimeline(t, 3, 500*time.Millisecond, uint64(100+10*j+k))
			for i := range tl.Intervals {
				tl.Intervals[i].ScheduledRate = rung.Offered
			}
			// A rep's last interval is cut short by its end: its rate is
			// over its own length, not the timeline's interval.
			tl.Intervals[2].Length = result.Duration(300 * time.Millisecond)
			res.Engines[2].Ladder.Rungs[j].Reps[k].Timeline = tl
		}
	}
	return res
}

// plottedRow is one row of an over-time values table, read back from the
// page's data attributes.
type plottedRow struct {
	window, op                       string
	start, rate, p50, p99, max, errs float64
	slow                             int64
	shards                           string
}

var rowRE = regexp.MustCompile(`<tr data-window="([^"]*)" data-op="([^"]*)" data-start="([^"]*)" data-rate="([^"]*)" data-p50="([^"]*)" data-p99="([^"]*)" data-max="([^"]*)" data-slow="([^"]*)" data-errors="([^"]*)" data-shards="([^"]*)">`)

// plotted is every over-time values row of the chart with the given id.
func plotted(t *testing.T, page, id string) []plottedRow {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no %s on the page", id)
	}
	sec := page[i:]
	if j := strings.Index(sec, "</details>"); j >= 0 {
		sec = sec[:j]
	}
	var out []plottedRow
	for _, m := range rowRE.FindAllStringSubmatch(sec, -1) {
		f := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %q is not a number", id, s)
			}
			return v
		}
		out = append(out, plottedRow{window: html.UnescapeString(m[1]), op: m[2], start: f(m[3]), rate: f(m[4]), p50: f(m[5]), p99: f(m[6]),
			max: f(m[7]), slow: int64(f(m[8])), errs: f(m[9]), shards: m[10]})
	}
	return out
}

func renderHTML(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.HTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// plottedWindow is a window an over-time chart should show.
type plottedWindow struct {
	window string
	tl     *result.Timeline
}

// checkPlotted checks that the values table of chart id holds the
// windows' timelines, interval by interval, end to end: throughput is
// count over the interval's own length, p50 and p99 the interval's,
// errors per second all classes.
func checkPlotted(t *testing.T, page, id string, windows []plottedWindow) {
	t.Helper()
	rows := plotted(t, page, id)
	n := 0
	at := 0.0
	for _, w := range windows {
		for _, iv := range w.tl.Intervals {
			length := time.Duration(iv.Length).Seconds()
			for _, o := range seriesOf(iv) {
				if n >= len(rows) {
					t.Fatalf("%s: %d rows; the timelines have more", id, len(rows))
				}
				r := rows[n]
				n++
				var errs int64
				for _, e := range o.Errors {
					errs += e
				}
				start := at + time.Duration(iv.Start).Seconds()
				if r.window != w.window || r.op != o.Op || math.Abs(r.start-start) > 1e-9 || r.rate != float64(o.Count)/length ||
					r.p50 != o.P50 || r.p99 != o.P99 || r.max != o.Max || r.errs != float64(errs)/length {
					t.Errorf("%s row %d: %+v; want %s at %gs, %s: %g/s, p50 %g, p99 %g, max %g, %g errors/s",
						id, n, r, w.window, start, o.Op, float64(o.Count)/length, o.P50, o.P99, o.Max, float64(errs)/length)
				}
			}
		}
		last := w.tl.Intervals[len(w.tl.Intervals)-1]
		at += time.Duration(last.Start + last.Length).Seconds()
	}
	if n != len(rows) {
		t.Errorf("%s: %d rows; the timelines have %d", id, len(rows), n)
	}
}

// overTimeChart is the report's over-time chart of the named run.
func overTimeChart(t *testing.T, rep *Report, run string) *Chart {
	t.Helper()
	for _, ch := range rep.Charts() {
		if ch.Name == "overtime-"+run {
			return &ch
		}
	}
	t.Fatalf("no over-time chart for %s", run)
	return nil
}

// seriesOf is an interval's rows in the values table: its operations, then
// their query kinds as operations named "<op>:<kind>".
func seriesOf(iv result.Interval) []result.IntervalOp {
	out := slices.Clone(iv.Ops)
	for _, o := range iv.Ops {
		for _, k := range o.Kinds {
			out = append(out, result.IntervalOp{Op: o.Op + ":" + k.Kind, Count: k.Count, Errors: k.Errors, P50: k.P50, P99: k.P99, Max: k.Max})
		}
	}
	return out
}

// withKinds splits the searches of every interval of alpha's levels into
// two query kinds, knn (the slower) and sku, each with its own histogram;
// sku's calls in the third interval all time out.
func withKinds(t *testing.T, res *result.Result) *result.Result {
	rng := rand.New(rand.NewPCG(7, 7))
	for j := range res.Engines[0].Levels {
		for k := range res.Engines[0].Levels[j].Timeline.Intervals {
			iv := &res.Engines[0].Levels[j].Timeline.Intervals[k]
			for _, kind := range []struct {
				name  string
				ms    float64
				calls int
			}{{"knn", 8, 30 + 5*k}, {"sku", 0.5, 10 + k}} {
				h := hdrhistogram.New(1, 300_000_000, 3)
				for range kind.calls {
					if err := h.RecordValue(int64(1000 * kind.ms * (1 + rng.ExpFloat64()))); err != nil {
						t.Fatal(err)
					}
				}
				ik := result.IntervalKind{Kind: kind.name, Count: h.TotalCount()}
				if k == 2 && kind.name == "sku" {
					h.Reset()
					ik = result.IntervalKind{Kind: kind.name, Errors: map[string]int64{"timeout": 3}}
				}
				if err := ik.SetLatency(h); err != nil {
					t.Fatal(err)
				}
				iv.Ops[0].Kinds = append(iv.Ops[0].Kinds, ik)
			}
		}
	}
	return res
}

// A run whose searches are split by kind of query (the product corpus's)
// has a panel of each kind's p99 under the latency panel, and a values row
// per interval and kind, as the timeline holds them; an interval where a
// kind had no successful call has no point of it.
func TestOverTimeSplitsSearchesByKind(t *testing.T) {
	t.Parallel()
	res := withKinds(t, timelineResult(t))
	rep := New(Input{Name: "tl.json", Result: res})
	page := renderHTML(t, rep)
	var alpha []plottedWindow
	for _, l := range res.Engines[0].Levels {
		alpha = append(alpha, plottedWindow{fmt.Sprintf("%d users", l.Users), l.Timeline})
	}
	checkPlotted(t, page, "chart-overtime-alpha", alpha)
	if rows := plotted(t, page, "chart-overtime-alpha"); !slices.ContainsFunc(rows, func(r plottedRow) bool { return r.op == "search:sku" }) {
		t.Error("no values row of search:sku")
	}
	c := overTimeChart(t, rep, "alpha")
	var ys []string
	for _, p := range c.panels {
		ys = append(ys, p.Y.Label.Text)
	}
	if got, want := strings.Join(ys[:4], "; "), "calls/s; latency (ms, log); slowest call (ms, log); search p99 by kind (ms, log)"; got != want {
		t.Errorf("panels %q, want %q first", got, want)
	}
	kinds := otPanel(t, c, "search p99 by kind (ms, log)").p
	// The fastest kind's p99 (sku, about 1–3 ms) is above the log axis's
	// floor, which the panel's own lowest value sets.
	var lowest float64 = math.Inf(1)
	for _, l := range res.Engines[0].Levels {
		for _, iv := range l.Timeline.Intervals {
			for _, k := range iv.Ops[0].Kinds {
				if k.Count > 0 {
					lowest = min(lowest, k.P99)
				}
			}
		}
	}
	if kinds.Y.Min <= 0 || kinds.Y.Min > lowest || kinds.Y.Max < lowest {
		t.Errorf("the kinds panel's axis spans %g–%g ms; its lowest p99 is %g", kinds.Y.Min, kinds.Y.Max, lowest)
	}
	if !strings.Contains(c.Note, "by kind of query") {
		t.Errorf("the chart's note %q does not say what the kinds panel shows", c.Note)
	}
	// The other engines' charts, with searches of no kind, have no such panel.
	for _, ch := range rep.Charts() {
		if ch.Name == "overtime-gamma" {
			for _, p := range ch.panels {
				if strings.Contains(p.Y.Label.Text, "by kind") {
					t.Error("gamma's searches have no kinds, yet a kinds panel")
				}
			}
		}
	}
}

// The over-time values are the timeline's own, interval by interval and
// window after window: throughput is count over the interval's length, p50
// and p99 the interval's (never averaged), errors per second all classes.
func TestOverTimePlotsTheTimelinesValues(t *testing.T) {
	t.Parallel()
	res := timelineResult(t)
	page := renderHTML(t, New(Input{Name: "tl.json", Result: res}))
	var alpha []plottedWindow
	for _, l := range res.Engines[0].Levels {
		alpha = append(alpha, plottedWindow{fmt.Sprintf("%d users", l.Users), l.Timeline})
	}
	checkPlotted(t, page, "chart-overtime-alpha", alpha)
	var gamma []plottedWindow
	for _, rung := range res.Engines[2].Ladder.Rungs {
		for k, rep := range rung.Reps {
			gamma = append(gamma, plottedWindow{fmt.Sprintf("%s/s #%d", rate(rung.Offered), k+1), rep.Timeline})
		}
	}
	checkPlotted(t, page, "chart-overtime-gamma", gamma)
	if strings.Contains(page, `id="chart-overtime-beta"`) {
		t.Error("beta has no timeline, yet an over-time chart")
	}
}

// Every panel the timeline supports is drawn, on one axis: throughput,
// latency, the slowest call, errors (there are some), the queue depth,
// container CPU and memory; slow calls (there are none) and a stat that
// never changes (a thread count) are not.
func TestOverTimePanels(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "tl.json", Result: timelineResult(t)})
	c := overTimeChart(t, rep, "alpha")
	var ys []string
	for _, p := range c.panels {
		ys = append(ys, p.Y.Label.Text)
		if p.X.Min != c.panels[0].X.Min || p.X.Max != c.panels[0].X.Max {
			t.Errorf("panel %q spans %g–%g s, the first %g–%g: not one time axis", p.Y.Label.Text, p.X.Min, p.X.Max, c.panels[0].X.Min, c.panels[0].X.Max)
		}
	}
	got := strings.Join(ys, "; ")
	if want := "calls/s; latency (ms, log); slowest call (ms, log); errors/s; container CPU (cores); container memory (MiB); queue depth"; got != want {
		t.Errorf("panels %q, want %q", got, want)
	}
	// 3 levels of 5 one-second intervals: the axis is 15 s long.
	if c.panels[0].X.Max != 15 {
		t.Errorf("axis ends at %g s, want 15", c.panels[0].X.Max)
	}
	// The SVG has the drawn lines: each operation's throughput is a path
	// per window (broken at each boundary) with a point per interval.
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, d := range regexp.MustCompile(` d="([^"]*)"`).FindAllStringSubmatch(string(svg), -1) {
		if strings.Count(d[1], "L") >= 4 { // M and 4 L: 5 intervals
			long++
		}
	}
	if long < 3*2*2 { // 3 windows × 2 operations × (throughput, p50, p99…)
		t.Errorf("the SVG has %d paths of 5 points or more; the lines are not drawn", long)
	}
}

// A result without a timeline renders exactly as before: the page of a
// result with timelines, less its over-time section, is the page of the
// same result without them, and that page has no over-time section.
func TestAResultWithoutATimelineRendersAsBefore(t *testing.T) {
	t.Parallel()
	old := renderHTML(t, New(Input{Name: "r.json", Result: sampleResult(t)}))
	if strings.Contains(old, "over-time") || strings.Contains(old, "overtime") {
		t.Error("a result without timelines has an over-time section")
	}
	newer := renderHTML(t, New(Input{Name: "r.json", Result: timelineResult(t)}))
	i, j := strings.Index(newer, `<h2 id="over-time">`), strings.Index(newer, "<h2>Summary</h2>")
	if i < 0 || j < i {
		t.Fatalf("over-time section at %d, next section at %d", i, j)
	}
	if cut := newer[:i] + newer[j:]; cut != old {
		t.Error("the over-time section is not the only difference a timeline makes to the page")
	}
	for _, c := range New(Input{Name: "r.json", Result: sampleResult(t)}).Charts() {
		if c.ot != nil || strings.HasPrefix(c.Name, "overtime-") {
			t.Errorf("chart %s for a result without timelines", c.Name)
		}
	}
}

// A merged run's over-time chart shows each shard's throughput beside the
// merged lines, and its values table each shard's calls per second.
func TestMergedOverTimeShowsEachShard(t *testing.T) {
	t.Parallel()
	res := timelineResult(t)
	for _, l := range res.Engines[0].Levels {
		for k, iv := range l.Timeline.Intervals {
			var all int64
			for _, o := range iv.Ops {
				all += o.Count
			}
			// Shard 1 falls behind in the last interval; shard 0 makes up.
			behind := int64(0)
			if k == len(l.Timeline.Intervals)-1 {
				behind = all / 4
			}
			l.Timeline.Intervals[k].Shards = []result.IntervalShard{{Shard: 0, Count: all/2 + behind}, {Shard: 1, Count: all - all/2 - behind}}
		}
	}
	rep := New(Input{Name: "merged.json", Result: res})
	page := renderHTML(t, rep)
	rows := plotted(t, page, "chart-overtime-alpha")
	tl := res.Engines[0].Levels[0].Timeline
	for k, iv := range tl.Intervals {
		length := time.Duration(iv.Length).Seconds()
		want := fmt.Sprintf("0:%v 1:%v", float64(iv.Shards[0].Count)/length, float64(iv.Shards[1].Count)/length)
		if r := rows[2*k]; r.shards != want {
			t.Errorf("interval %d: shards %q, want %q", k, r.shards, want)
		}
	}
	for _, s := range []string{"shard 0 calls/s (all ops)", "shard 1 calls/s (all ops)", "each shard&#39;s throughput"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	for _, c := range rep.Charts() {
		if c.Name != "overtime-alpha" {
			continue
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"shard 0 (all ops)", "shard 1 (all ops)"} {
			if !bytes.Contains(svg, []byte(s)) {
				t.Errorf("the chart's legend lacks %q", s)
			}
		}
		for i := range 2 {
			r, g, b, _ := shardColor(i).RGBA()
			if hex := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8); !bytes.Contains(bytes.ToUpper(svg), []byte(hex)) {
				t.Errorf("no line in shard %d's colour %s", i, hex)
			}
		}
	}
}

// A real run's result.json (searchbench run --ids 2000 --users 4
// --settle 1s --measure 3s, the embedded bleve) loads with its timeline
// and its over-time values are the file's.
func TestOverTimeOfARealRun(t *testing.T) {
	t.Parallel()
	in, err := Load("testdata/v1-timeline.json")
	if err != nil {
		t.Fatal(err)
	}
	l := in.Result.Engines[0].Levels[0]
	if l.Timeline == nil || len(l.Timeline.Intervals) == 0 {
		t.Fatal("the fixture has no timeline")
	}
	page := renderHTML(t, New(in))
	checkPlotted(t, page, "chart-overtime-bleve", []plottedWindow{{"4 users", l.Timeline}})
}

// otPanel is the panel of an over-time chart whose y axis reads y.
func otPanel(t *testing.T, c *Chart, y string) *panel {
	t.Helper()
	var ys []string
	for _, pn := range c.otPanels {
		if pn.p.Y.Label.Text == y {
			return pn
		}
		ys = append(ys, pn.p.Y.Label.Text)
	}
	t.Fatalf("%s: no panel %q; panels %q", c.Name, y, ys)
	return nil
}

// at is the value a panel's series named key draws at x; false when it
// draws none there.
func (pn *panel) at(key string, x float64) (float64, bool) {
	for _, d := range pn.drawn {
		if d.key != key {
			continue
		}
		for _, p := range d.xy {
			if math.Abs(p.X-x) < 1e-9 {
				return p.Y, true
			}
		}
	}
	return 0, false
}

// frozenCalls is, per operation, the calls that an engine's 1 s freeze in
// freezeInterval held (each took 1000 ms and more); every other call
// takes 1 to 6 ms.
var frozenCalls = map[string]int{"search": 2, "upsert": 1, "delete": 1}

const freezeInterval = 5

// freezeResult is a closed-loop run of 4 users, 8 intervals of 500 ms of
// search, upsert and delete, in which the engine froze for about a second
// in interval freezeInterval: the call each user had in flight took about
// 1 s (frozenCalls). The searches are so many that the freeze leaves
// their p99 alone; the deletes so few that their p99 is the frozen call.
func freezeResult(t *testing.T) *result.Result {
	res := sampleResult(t)
	res.Engines = res.Engines[:1]
	res.Engines[0].Levels = res.Engines[0].Levels[:1]
	res.Engines[0].Levels[0].Users = 4
	length := 500 * time.Millisecond
	tl := &result.Timeline{Interval: result.Duration(length)}
	rng := rand.New(rand.NewPCG(5, 5))
	for k := range 8 {
		iv := result.Interval{Start: result.Duration(time.Duration(k) * length), Length: result.Duration(length)}
		for _, op := range []struct {
			name  string
			calls int
		}{{"search", 400}, {"upsert", 90}, {"delete", 4}} {
			h := hdrhistogram.New(1, 300_000_000, 3)
			calls := op.calls
			if k == freezeInterval {
				calls /= 2 // the freeze took half the interval
				for i := range frozenCalls[op.name] {
					if err := h.RecordValue(int64(1_000_000 + 3_000*i)); err != nil {
						t.Fatal(err)
					}
				}
			}
			for range calls {
				if err := h.RecordValue(int64(1000 + 5000*rng.Float64())); err != nil {
					t.Fatal(err)
				}
			}
			o := result.IntervalOp{Op: op.name, Count: h.TotalCount()}
			if err := o.SetLatency(h); err != nil {
				t.Fatal(err)
			}
			iv.Ops = append(iv.Ops, o)
		}
		tl.Intervals = append(tl.Intervals, iv)
	}
	res.Engines[0].Levels[0].Timeline = tl
	return res
}

// A 1 s freeze in one interval is plain in the over-time chart: each
// operation's slowest call in that interval is drawn at its 1 s and more
// (within the axis), though only the deletes' p99 shows it, and the count
// of each operation's calls over its slow threshold is the frozen calls
// there and none elsewhere.
func TestOverTimeDrawsAFreeze(t *testing.T) {
	t.Parallel()
	res := freezeResult(t)
	rep := New(Input{Name: "freeze.json", Result: res})
	c := overTimeChart(t, rep, "alpha")
	tl := res.Engines[0].Levels[0].Timeline
	mid := func(k int) float64 {
		return (time.Duration(tl.Intervals[k].Start) + time.Duration(tl.Intervals[k].Length)/2).Seconds()
	}

	// The latency panel's p99 shows the freeze only for the deletes.
	lat := otPanel(t, c, "latency (ms, log)")
	if p99, _ := lat.at("search p99", mid(freezeInterval)); p99 >= 1000 {
		t.Fatalf("the fixture's search p99 in the freeze is %g ms: it should hide the freeze", p99)
	}

	slowest := otPanel(t, c, "slowest call (ms, log)")
	for op, n := range frozenCalls {
		o, _ := tl.Intervals[freezeInterval].Op(op)
		got, ok := slowest.at(op+" max", mid(freezeInterval))
		if !ok || got != o.Max || got < 1000 {
			t.Errorf("%s: slowest call in the freeze drawn at %g (%v); the interval's max is %g ms", op, got, ok, o.Max)
		}
		if got > slowest.p.Y.Max || got < slowest.p.Y.Min {
			t.Errorf("%s: the slowest call %g ms is off the axis (%g–%g)", op, got, slowest.p.Y.Min, slowest.p.Y.Max)
		}
		slow := otPanel(t, c, "slow calls (per interval)")
		for k := range tl.Intervals {
			want := 0.0
			if k == freezeInterval {
				want = float64(n)
			}
			if got, ok := slow.at(op+" slow", mid(k)); !ok || got != want {
				t.Errorf("%s, interval %d: %g slow calls drawn (%v), want %g", op, k, got, ok, want)
			}
		}
	}
	if !strings.Contains(c.Note, "slowest call") {
		t.Errorf("the note %q does not say what the slowest-call panel shows", c.Note)
	}
}

// The time axis is ticked in seconds from each window's start: every
// label is a number, the time since the start of the window it is in, a
// window of 5 s has a label each second, each window starts at "0"; no
// tick sits mid-window as a boundary would. The windows' names are still
// on the chart.
func TestOverTimeTicksAreSecondsFromEachWindowsStart(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "tl.json", Result: timelineResult(t)})
	for _, run := range []string{"alpha", "gamma"} {
		c := overTimeChart(t, rep, run)
		ot := c.ot
		end := ot.end()
		for _, p := range c.panels[len(c.panels)-1:] { // the bottom panel's labels are shown
			labels := map[int][]string{} // by window
			for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
				if tk.Label == "" {
					continue
				}
				w := len(ot.Windows) - 1
				for w > 0 && tk.Value < ot.Windows[w].At-1e-9 {
					w--
				}
				v, err := strconv.ParseFloat(tk.Label, 64)
				if err != nil || math.Abs(v-(tk.Value-ot.Windows[w].At)) > 1e-9 {
					t.Errorf("%s: tick %q at %g s on the axis; window %q starts at %g s", run, tk.Label, tk.Value, ot.Windows[w].Label, ot.Windows[w].At)
					continue
				}
				labels[w] = append(labels[w], tk.Label)
			}
			for w, win := range ot.Windows {
				if len(labels[w]) == 0 || labels[w][0] != "0" {
					t.Errorf("%s: window %q has ticks %q; want 0 at its start", run, win.Label, labels[w])
				}
				if next := end; run == "alpha" {
					if w+1 < len(ot.Windows) {
						next = ot.Windows[w+1].At
					}
					if got, want := strings.Join(labels[w], ","), "0,1,2,3,4"; next-win.At == 5 && got != want {
						t.Errorf("%s: window %q ticked %s, want %s", run, win.Label, got, want)
					}
				}
			}
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		texts := strings.Join(parseSVG(t, svg).texts, "|")
		for _, w := range ot.Windows[:1] {
			if !strings.Contains(texts, w.Label) {
				t.Errorf("%s: window %q is not named on the chart", run, w.Label)
			}
		}
	}
}

// checkTickLabels checks that every labelled tick of ticks reads as its
// value (to 1e-9 of the step) in the fewest digits: "250", never
// "250.00"; "0.25", never "0.3" or "0".
func checkTickLabels(t *testing.T, where string, ticks []plot.Tick) {
	t.Helper()
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		v, err := strconv.ParseFloat(tk.Label, 64)
		if err != nil || math.Abs(v-tk.Value) > 1e-9*max(1, math.Abs(tk.Value)) || strconv.FormatFloat(v, 'f', -1, 64) != tk.Label {
			t.Errorf("%s: tick at %g labelled %q", where, tk.Value, tk.Label)
		}
	}
}

// The over-time panels' y labels carry no needless decimals, and small
// values keep theirs; the drawn chart has no label such as "250.00".
func TestOverTimeYLabels(t *testing.T) {
	t.Parallel()
	for _, r := range [][2]float64{{0, 250}, {0, 287.5}, {0, 0.03}, {0, 1.04}, {0, 7}, {0, 2.6e6}} {
		checkTickLabels(t, fmt.Sprintf("linear %g–%g", r[0], r[1]), (plainTicks{}).Ticks(r[0], r[1]))
	}
	res := timelineResult(t)
	rep := New(Input{Name: "tl.json", Result: res})
	c := overTimeChart(t, rep, "alpha")
	for _, p := range c.panels {
		checkTickLabels(t, p.Y.Label.Text, p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max))
	}
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	needless := regexp.MustCompile(`^-?[0-9]+\.([0-9]*0)?$`)
	for _, s := range parseSVG(t, svg).texts {
		if needless.MatchString(s) {
			t.Errorf("the chart has a label %q", s)
		}
	}
}

// svgText is a text of an SVG chart and where it starts.
type svgText struct {
	x, y float64
	s    string
}

var (
	svgTextRE = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)
	// An axis line: a thin black horizontal stroke.
	svgHLineRE = regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)" style="fill:none;stroke:#000000;stroke-width:0.5"`)
)

// The legends of an over-time chart are beside its panels, right of every
// panel's x axis, so no legend covers a line.
func TestOverTimeLegendBesideThePlot(t *testing.T) {
	t.Parallel()
	res := timelineResult(t)
	for _, l := range res.Engines[0].Levels {
		for k := range l.Timeline.Intervals {
			l.Timeline.Intervals[k].Shards = []result.IntervalShard{{Shard: 0, Count: 100}, {Shard: 1, Count: 120}}
		}
	}
	c := overTimeChart(t, New(Input{Name: "merged.json", Result: res}), "alpha")
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	right := 0.0
	for _, m := range svgHLineRE.FindAllStringSubmatch(string(svg), -1) {
		x0, _ := strconv.ParseFloat(m[1], 64)
		y0, _ := strconv.ParseFloat(m[2], 64)
		x1, _ := strconv.ParseFloat(m[3], 64)
		y1, _ := strconv.ParseFloat(m[4], 64)
		if y0 == y1 && x1-x0 > 200 {
			right = max(right, x1)
		}
	}
	if right == 0 {
		t.Fatal("no x axis found in the SVG")
	}
	legend := map[string]bool{"search": true, "upsert": true, "p50": true, "p99": true, "shard 0 (all ops)": true, "shard 1 (all ops)": true}
	found := 0
	for _, m := range svgTextRE.FindAllStringSubmatch(string(svg), -1) {
		if !legend[m[3]] {
			continue
		}
		found++
		if x, _ := strconv.ParseFloat(m[1], 64); x < right {
			t.Errorf("legend entry %q starts at x=%g, inside the plot (its x axis ends at %g)", m[3], x, right)
		}
	}
	if found < len(legend) {
		t.Errorf("%d legend entries found, want %d at least", found, len(legend))
	}
}

// A merged run's shards are told apart by colour and by dash: no two
// shards' lines share either, and no shard has an operation's colour.
func TestOverTimeShardsHaveDistinctStyles(t *testing.T) {
	t.Parallel()
	res := timelineResult(t)
	for _, l := range res.Engines[0].Levels {
		for k := range l.Timeline.Intervals {
			l.Timeline.Intervals[k].Shards = []result.IntervalShard{{Shard: 0, Count: 100}, {Shard: 1, Count: 104}, {Shard: 2, Count: 97}}
		}
	}
	c := overTimeChart(t, New(Input{Name: "merged.json", Result: res}), "alpha")
	thr := otPanel(t, c, "calls/s")
	hex := func(col color.Color) string {
		r, g, b, _ := col.RGBA()
		return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	colours, dashes := map[string]string{}, map[string]string{}
	for i, op := range c.ot.Ops {
		colours[hex(opColor(i))] = op
	}
	for s := range 3 {
		key := fmt.Sprintf("shard %d", s)
		var d *drawnSeries
		for i := range thr.drawn {
			if thr.drawn[i].key == key {
				d = &thr.drawn[i]
				break
			}
		}
		if d == nil {
			t.Fatalf("no line of %s", key)
		}
		col, dash := hex(d.color), fmt.Sprint(d.lineDashes())
		if other, ok := colours[col]; ok {
			t.Errorf("%s has %s's colour %s", key, other, col)
		}
		if other, ok := dashes[dash]; ok || len(d.lineDashes()) == 0 {
			t.Errorf("%s has %s's dashes %s", key, other, dash)
		}
		colours[col], dashes[dash] = key, key
	}
}

// Values no real run has (zero latencies of successful calls, the
// largest float, one value throughout) do not break the chart: it draws,
// its axes finite, each log axis above zero.
func TestOverTimeSurvivesDegenerateValues(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{0, 1e-300, 5, math.MaxFloat64} {
		res := timelineResult(t)
		res.Engines = res.Engines[:1]
		for _, l := range res.Engines[0].Levels {
			for k := range l.Timeline.Intervals {
				iv := &l.Timeline.Intervals[k]
				for j := range iv.Ops {
					o := &iv.Ops[j]
					o.P50, o.P95, o.P99, o.Max = v, v, v, v
				}
				for name := range iv.EngineStats {
					iv.EngineStats[name] = v
				}
			}
		}
		c := overTimeChart(t, New(Input{Name: "odd.json", Result: res}), "alpha")
		for _, p := range c.panels {
			if lo, hi := p.Y.Min, p.Y.Max; math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || hi <= lo {
				t.Errorf("values %g: panel %q spans %g–%g", v, p.Y.Label.Text, lo, hi)
			}
			if _, log := p.Y.Scale.(plot.LogScale); log && p.Y.Min <= 0 {
				t.Errorf("values %g: log panel %q starts at %g", v, p.Y.Label.Text, p.Y.Min)
			}
		}
		if _, err := c.PNG(); err != nil {
			t.Errorf("values %g: %v", v, err)
		}
		if _, err := c.SVG(); err != nil {
			t.Errorf("values %g: %v", v, err)
		}
	}
}

// A line is broken where an interval has no value of it (an operation
// without a successful call there has no latency): a line across the
// interval would draw figures nothing measured, as through a stall.
func TestOverTimeLinesBreakWhereAnIntervalHasNoValue(t *testing.T) {
	t.Parallel()
	res := freezeResult(t)
	tl := res.Engines[0].Levels[0].Timeline
	// No delete succeeded in interval 2: it failed.
	del := &tl.Intervals[2].Ops[2]
	*del = result.IntervalOp{Op: "delete", Errors: map[string]int64{"timeout": 4}}
	c := overTimeChart(t, New(Input{Name: "gap.json", Result: res}), "alpha")
	mid := (time.Duration(tl.Intervals[2].Start) + time.Duration(tl.Intervals[2].Length)/2).Seconds()
	for _, y := range []string{"latency (ms, log)", "slowest call (ms, log)"} {
		pn := otPanel(t, c, y)
		for _, d := range pn.drawn {
			if !strings.HasPrefix(d.key, "delete") {
				continue
			}
			if first, last := d.xy[0].X, d.xy[len(d.xy)-1].X; first < mid && last > mid {
				t.Errorf("%s: %s drawn from %g s to %g s, across interval 2 (at %g s), where no delete succeeded", y, d.key, first, last, mid)
			}
		}
	}
}

// However long the windows, the time axis has about maxTimeLabels ticks,
// at a step of 1, 2 or 5 × 10ⁿ hours past the longest step.
func TestOverTimeTicksOfALongRun(t *testing.T) {
	t.Parallel()
	for _, end := range []float64{0.3, 7, 86400, 3e8} {
		ot := otRun{Windows: []otWindow{{Label: "w", At: 0}}}
		ticks := ot.timeTicks(end)
		if len(ticks) < 2 || len(ticks) > maxTimeLabels+2 {
			t.Errorf("a window of %g s: %d ticks", end, len(ticks))
		}
	}
}

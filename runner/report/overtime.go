package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/searchbench/searchbench/runner/result"
)

// Over time: each engine run's measured windows (closed-loop levels in the
// order they ran, a ladder's rungs and repetitions) laid end to end on one
// time axis, the unmeasured gaps between them (ramp, settle, pauses) left
// out, with a dashed line and the window's name at each boundary. One
// chart per run, its panels stacked on the shared axis, reads better than
// one chart per window: a trend across levels (a queue that grows level
// after level, memory that never comes back) shows as one line, and a
// level's spike stands against its neighbours. Only the timeline's own
// figures are drawn: an interval's p50 and p99 are from its own histogram,
// never averaged across intervals.

// otWindow is one measured window of a run on the over-time axis.
type otWindow struct {
	Label string
	At    float64 // where it starts on the axis (s)
	tl    *result.Timeline
}

// otPoint is one interval as the chart and the table show it.
type otPoint struct {
	Window      int     // index into the run's windows
	Start       float64 // the interval's start on the axis (s)
	Mid         float64 // where it is plotted (s)
	Length      float64 // s
	Ops         []otOp
	Kinds       []otOp  // the searches by query kind, Op "search:<kind>"
	Scheduled   float64 // open loop: calls due per second (0: closed loop)
	Shards      []result.IntervalShard
	EngineStats map[string]float64
}

// otOp is one operation in one interval.
type otOp struct {
	Op            string
	Rate          float64 // successful calls per second: count / length
	Errors        float64 // failed calls per second, all classes
	P50, P99, Max float64 // the interval's own, ms; 0 without a successful call
	Count         int64
	// Slow is the successful calls at or over the operation's slow
	// threshold (otRun.Slow), from the interval's histogram; -1 when
	// unknown (no histogram, or no threshold).
	Slow      int64
	histogram string // the interval's, encoded
}

// otRun is one engine run's over-time figures.
type otRun struct {
	Label   string
	Windows []otWindow
	Points  []otPoint
	Ops     []string // in order of first appearance
	Kinds   []string // the searches' query kinds, "search:<kind>", in order of first appearance
	Stats   []string // engine stat names, sorted
	Shards  []int    // shard indices of a merged run, sorted
	// Slow is each operation's slow threshold (ms): slowFactor times its
	// typical p99, rounded up (slowThreshold); absent without one.
	Slow map[string]float64
}

// overTime is the run's windows that have a timeline, laid end to end;
// false when none has one (an older result).
func overTime(r Run) (otRun, bool) {
	out := otRun{Label: r.Label}
	at := 0.0
	stats, shards := map[string]bool{}, map[int]bool{}
	for _, win := range timelineWindows(r) {
		if len(win.tl.Intervals) == 0 {
			continue
		}
		win.At = at
		first := time.Duration(win.tl.Intervals[0].Start)
		end := at
		for _, iv := range win.tl.Intervals {
			start := at + (time.Duration(iv.Start) - first).Seconds()
			length := time.Duration(iv.Length).Seconds()
			if length <= 0 {
				continue
			}
			out.Points = append(out.Points, out.point(len(out.Windows), iv, start, length))
			for name := range iv.EngineStats {
				stats[name] = true
			}
			for _, s := range iv.Shards {
				shards[s.Shard] = true
			}
			end = max(end, start+length)
		}
		out.Windows = append(out.Windows, win)
		at = end
	}
	for name := range stats {
		out.Stats = append(out.Stats, name)
	}
	slices.Sort(out.Stats)
	for s := range shards {
		out.Shards = append(out.Shards, s)
	}
	slices.Sort(out.Shards)
	out.countSlow()
	return out, len(out.Points) > 0
}

// timelineWindows are the run's measured windows that have a timeline,
// in the order they ran: its levels, then each rung's reps.
func timelineWindows(r Run) []otWindow {
	var wins []otWindow
	for _, l := range r.Levels {
		if l.Timeline != nil {
			wins = append(wins, otWindow{Label: fmt.Sprintf("%d users", l.Users), tl: l.Timeline})
		}
	}
	if r.Ladder != nil {
		for _, rung := range r.Ladder.Rungs {
			for k, rep := range rung.Reps {
				if rep.Timeline != nil {
					wins = append(wins, otWindow{Label: fmt.Sprintf("%s/s #%d", rate(rung.Offered), k+1), tl: rep.Timeline})
				}
			}
		}
	}
	return wins
}

// point is interval iv of window, start seconds along the axis and length
// long, with its operations and their query kinds; it adds to out.Ops and
// out.Kinds those not yet among them.
func (out *otRun) point(window int, iv result.Interval, start, length float64) otPoint {
	p := otPoint{Window: window, Start: start, Mid: start + length/2, Length: length,
		Scheduled: iv.ScheduledRate, Shards: iv.Shards, EngineStats: iv.EngineStats}
	for _, o := range iv.Ops {
		op := newOtOp(o.Op, o.Count, o.Errors, o.P50, o.P99, length)
		op.Max, op.histogram = o.Max, o.Histogram
		p.Ops = append(p.Ops, op)
		if !slices.Contains(out.Ops, o.Op) {
			out.Ops = append(out.Ops, o.Op)
		}
		for _, k := range o.Kinds {
			name := kindOp(o.Op, k.Kind)
			kind := newOtOp(name, k.Count, k.Errors, k.P50, k.P99, length)
			kind.Max = k.Max
			p.Kinds = append(p.Kinds, kind)
			if !slices.Contains(out.Kinds, name) {
				out.Kinds = append(out.Kinds, name)
			}
		}
	}
	return p
}

// slowFactor is how many times its operation's typical slowest call a
// call takes to count as slow (before the threshold is rounded up).
const slowFactor = 2

// countSlow sets each operation's slow threshold, slowFactor times its
// typical slowest call (the median of its intervals' maxima, so that the
// stalls it is to find do not raise it) rounded up to 1, 2 or 5 × 10ⁿ ms,
// and counts each interval's calls at or over it in the interval's
// histogram. A threshold from the typical p99 instead misses a 1 s stall
// of an engine whose p99 is a few hundred ms.
func (ot *otRun) countSlow() {
	maxima := map[string][]float64{}
	for _, p := range ot.Points {
		for _, o := range p.Ops {
			if o.Count > 0 {
				maxima[o.Op] = append(maxima[o.Op], o.Max)
			}
		}
	}
	ot.Slow = map[string]float64{}
	for op, vs := range maxima {
		slices.Sort(vs)
		if t := roundUp125(slowFactor * vs[len(vs)/2]); t > 0 {
			ot.Slow[op] = t
		}
	}
	for i := range ot.Points {
		for j := range ot.Points[i].Ops {
			o := &ot.Points[i].Ops[j]
			o.Slow = -1
			if t, ok := ot.Slow[o.Op]; ok {
				o.Slow = countAtOrOver(o.histogram, o.Count, t)
			}
		}
	}
}

// countAtOrOver is the calls of the encoded histogram (microseconds) at
// or over ms, to the histogram's precision: none when count is 0, -1 when
// the histogram is absent or does not decode.
func countAtOrOver(enc string, count int64, ms float64) int64 {
	if count == 0 {
		return 0
	}
	if enc == "" {
		return -1
	}
	h, err := result.DecodeHistogram(enc)
	if err != nil {
		return -1
	}
	var n int64
	for _, b := range h.Distribution() {
		if float64(b.From) >= ms*1000 {
			n += b.Count
		}
	}
	return n
}

// roundUp125 is the least 1, 2 or 5 × 10ⁿ at or above v; 0 for a v that
// is not positive and finite.
func roundUp125(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 1) {
		return 0
	}
	e := math.Pow10(int(math.Floor(math.Log10(v))))
	for _, m := range []float64{1, 2, 5, 10} {
		if t := m * e; t >= v*(1-1e-12) && !math.IsInf(t, 1) {
			return t
		}
	}
	return 0
}

// newOtOp is an operation's (or a query kind's) figures in an interval of
// length seconds.
func newOtOp(name string, count int64, errors map[string]int64, p50, p99, length float64) otOp {
	var errs int64
	for _, n := range errors {
		errs += n
	}
	return otOp{Op: name, Rate: float64(count) / length, Errors: float64(errs) / length, P50: p50, P99: p99, Count: count, Slow: -1}
}

// The container's own figures (engines/container's StatCPU, StatMemory),
// drawn in panels of their own units.
const (
	statCPU    = "container_cpu_cores"
	statMemory = "container_memory_bytes"
)

// opColor is the colour of an operation in the over-time charts.
func opColor(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// shardColors are the shards' throughput lines' colours: hues apart from
// one another and from the operations' (red, green, blue, orange) and the
// grey of the scheduled rate.
var shardColors = []color.Color{
	color.RGBA{R: 0, G: 150, B: 160, A: 255},  // teal
	color.RGBA{R: 200, G: 30, B: 170, A: 255}, // magenta
	color.RGBA{R: 140, G: 90, B: 20, A: 255},  // brown
	color.RGBA{R: 120, G: 140, B: 0, A: 255},  // olive
}

// shardDashes are the shards' dash patterns, one more than the colours, so
// that colour and dash together tell twenty shards apart.
var shardDashes = [][]vg.Length{
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	{vg.Points(12), vg.Points(4)},
	{vg.Points(4), vg.Points(2), vg.Points(1), vg.Points(2), vg.Points(1), vg.Points(2)},
}

// shardGlyphs are the shards' points: filled shapes (plotutil's circle,
// box and pyramid), unlike the operations' rings.
var shardGlyphs = []int{5, 6, 7}

// shardColor is the colour of the i-th shard's throughput line.
func shardColor(i int) color.Color { return shardColors[i%len(shardColors)] }

// panelHeight is the height of one panel of an over-time chart.
const panelHeight = 2.1 * vg.Inch

// overTimeCharts is one chart per engine run with a timeline: stacked
// panels on one time axis (throughput; p50 and p99; errors, when any;
// each engine stat that varies; container CPU and memory, when sampled).
func (rep *Report) overTimeCharts() []Chart {
	var out []Chart
	for _, r := range rep.Runs {
		ot, ok := overTime(r)
		if !ok {
			continue
		}
		out = append(out, ot.chart(rep.chartName(r)))
	}
	return out
}

// chartName is the file name of a run's over-time chart: its label, made
// safe for a file name.
func (rep *Report) chartName(r Run) string {
	return "overtime-" + anchor(map[string]int{}, r.Label)
}

// panel is one panel of an over-time chart.
type panel struct {
	p       *plot.Plot
	top     float64 // highest value drawn
	bottom  float64 // lowest value drawn above zero (0: none yet)
	log     bool
	seconds *timeGrid // set by frame
	// drawn is every series the panel draws (a line broken at window
	// boundaries is one series per piece), by key: what a reader, or a
	// test, reads back of the panel.
	drawn []drawnSeries
}

// drawnSeries is a series of a panel and its key (the operation and what
// of it: "search p99", "shard 1").
type drawnSeries struct {
	key string
	series
}

// chart is the run's over-time chart, named name: its panels stacked on
// one time axis (throughput, latency, the slowest call, slow calls when
// any, errors when any, the engine's and the container's figures), each
// window's boundary marked.
func (ot otRun) chart(name string) Chart {
	panels := []*panel{ot.throughputPanel(), ot.latencyPanel(), ot.slowestPanel()}
	slow, anySlow := ot.slowPanel()
	if anySlow {
		panels = append(panels, slow)
	}
	if kinds, ok := ot.kindsPanel(); ok {
		panels = append(panels, kinds)
	}
	if errs, ok := ot.errorsPanel(); ok {
		panels = append(panels, errs)
	}
	panels = append(panels, ot.statPanels()...)
	ot.frame(panels)
	last := panels[len(panels)-1]
	last.p.X.Label.Text = "seconds from each window's start (ramp and settle left out)"

	note := "One window after another on one axis, each ticked in seconds from its own start (the time between them, ramp and settle, left out); a dashed line marks each boundary and the window's name is at its top left. " +
		"Throughput is each interval's successful calls over its length; p50 (solid) and p99 (dashed) are the interval's own, from its histogram. " +
		"The slowest call is each interval's maximum: a stall that holds only a few calls (a closed loop holds one per user) shows there, though it barely moves a p99 or the throughput. "
	var thresholds []string
	for _, op := range ot.Ops {
		if t, ok := ot.Slow[op]; ok {
			thresholds = append(thresholds, fmt.Sprintf("%s ≥ %s ms", op, plainNumber(t)))
		}
	}
	if len(thresholds) > 0 {
		rule := fmt.Sprintf("each %d × the operation's typical slowest call (the median of its intervals' maxima), rounded up to 1, 2 or 5 × 10ⁿ ms", slowFactor)
		if anySlow {
			note += fmt.Sprintf("Slow calls are each interval's calls at or over their operation's threshold (%s; %s), counted in the interval's histogram. ", strings.Join(thresholds, ", "), rule)
		} else {
			note += fmt.Sprintf("No call took its operation's slow threshold or longer (%s; %s). ", strings.Join(thresholds, ", "), rule)
		}
	}
	if len(ot.Shards) > 0 {
		note += "Lines named shard 0, 1…, each in a colour and dash of its own: each shard's throughput, all operations (together they add up to the operations' lines). "
	}
	if len(ot.Kinds) > 0 {
		note += "The searches by kind of query: each kind's p99 in the interval, from the kind's own histogram (known-item checks are searches of no kind). "
	}
	var ps []*plot.Plot
	for _, pn := range panels {
		ps = append(ps, pn.p)
	}
	return Chart{Name: name, Title: ot.Label + " over time", Note: strings.TrimSpace(note), panels: ps, ot: &ot, otPanels: panels}
}

// newPanel is an empty panel with a title (the top panel's only) and a
// y axis label.
func newPanel(title, y string) *panel {
	p := newBarePlot(title, "", y)
	p.Y.Label.TextStyle.Font.Size = vg.Points(10)
	g := plotter.NewGrid()
	g.Vertical.Color = nil // seconds draws them
	seconds := &timeGrid{}
	p.Add(g, seconds)
	return &panel{p: p, seconds: seconds}
}

// timeGrid is the vertical grid of an over-time panel: a line at each
// labelled second, in every panel, whether or not its axis shows labels.
type timeGrid struct{ at []float64 }

func (g *timeGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, v := range g.at {
		x := trX(v)
		c.StrokeLine2(plotter.DefaultGridLineStyle, x, c.Min.Y, x, c.Max.Y)
	}
}

// line adds one series to a panel, broken at window boundaries (the time
// between two windows was not measured) and at an interval without a
// value of it (an operation with no successful call there has no
// latency): no line crosses what was not measured. It reports whether the
// series had any point to draw.
func (ot otRun) line(pn *panel, key string, style series, value func(otPoint) (float64, bool)) bool {
	var parts []plotter.XYs
	last, gap := -1, true
	for _, p := range ot.Points {
		v, ok := value(p)
		if !ok || (pn.log && v <= 0) {
			gap = true
			continue
		}
		if p.Window != last || gap {
			parts = append(parts, nil)
			last, gap = p.Window, false
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], plotter.XY{X: p.Mid, Y: v})
		pn.top = max(pn.top, v)
		if v > 0 && (pn.bottom == 0 || v < pn.bottom) {
			pn.bottom = v
		}
	}
	if len(parts) == 0 {
		return false
	}
	for i, xy := range parts {
		s := style
		s.xy = xy
		if i == 0 && s.label != "" {
			s.add(pn.p)
		} else {
			s.addUnlabelled(pn.p)
		}
		pn.drawn = append(pn.drawn, drawnSeries{key, s})
	}
	return true
}

// opValue reads one operation's value from a point, through f; a point
// without the operation has no value.
func opValue(op string, f func(otOp) (float64, bool)) func(otPoint) (float64, bool) {
	return seriesValue(op, func(p otPoint) []otOp { return p.Ops }, f)
}

// seriesValue reads the named series' value from those of a point that in
// gives (its operations, its query kinds), through f; a point without it
// has no value.
func seriesValue(name string, in func(otPoint) []otOp, f func(otOp) (float64, bool)) func(otPoint) (float64, bool) {
	return func(p otPoint) (float64, bool) {
		for _, o := range in(p) {
			if o.Op == name {
				return f(o)
			}
		}
		return 0, false
	}
}

// throughputPanel is the top panel: each operation's calls/s, each
// shard's (all operations), and the scheduled rate.
func (ot otRun) throughputPanel() *panel {
	thr := newPanel(ot.Label+": over time", "calls/s")
	for i, op := range ot.Ops {
		ot.line(thr, op, series{label: op, color: opColor(i)}, opValue(op, func(o otOp) (float64, bool) { return o.Rate, true }))
	}
	for i, s := range ot.Shards {
		style := series{label: fmt.Sprintf("shard %d (all ops)", s), color: shardColor(i), dashes: shardDashes[i%len(shardDashes)], glyph: shardGlyphs[i%len(shardGlyphs)]}
		ot.line(thr, fmt.Sprintf("shard %d", s), style, func(p otPoint) (float64, bool) {
			for _, sh := range p.Shards {
				if sh.Shard == s {
					return float64(sh.Count) / p.Length, true
				}
			}
			return 0, false
		})
	}
	ot.line(thr, "scheduled", series{label: "scheduled (all ops)", color: color.Gray{Y: 90}, dashed: true, glyph: -1}, func(p otPoint) (float64, bool) { return p.Scheduled, p.Scheduled > 0 })
	return thr
}

// latencyPanel is each operation's p50 (solid) and p99 (dashed), on a log
// axis.
func (ot otRun) latencyPanel() *panel {
	lat := newPanel("", "latency (ms, log)")
	lat.log = true
	for i, op := range ot.Ops {
		// The operations' colours are in the throughput panel's legend;
		// this one says only which line is which percentile.
		ot.line(lat, op+" p50", series{color: opColor(i)}, opValue(op, func(o otOp) (float64, bool) { return o.P50, o.Count > 0 }))
		ot.line(lat, op+" p99", series{color: opColor(i), dashed: true, glyph: 2}, opValue(op, func(o otOp) (float64, bool) { return o.P99, o.Count > 0 }))
	}
	for _, k := range []struct {
		label  string
		dashed bool
	}{{"p50", false}, {"p99", true}} {
		key := &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1.5)}}
		if k.dashed {
			key.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		lat.p.Legend.Add(k.label, key)
	}
	return lat
}

// slowestPanel is each operation's slowest call in each interval (its
// maximum), on a log axis.
func (ot otRun) slowestPanel() *panel {
	pn := newPanel("", "slowest call (ms, log)")
	pn.log = true
	for i, op := range ot.Ops {
		ot.line(pn, op+" max", series{label: op, color: opColor(i), glyph: 3}, opValue(op, func(o otOp) (float64, bool) { return o.Max, o.Count > 0 }))
	}
	return pn
}

// slowPanel is each operation's calls at or over its slow threshold, per
// interval; ok is false when there are none, and the chart leaves the
// panel out (its note says so).
func (ot otRun) slowPanel() (pn *panel, ok bool) {
	pn = newPanel("", "slow calls (per interval)")
	for i, op := range ot.Ops {
		t, has := ot.Slow[op]
		if !has {
			continue
		}
		label := fmt.Sprintf("%s ≥ %s ms", op, plainNumber(t))
		ot.line(pn, op+" slow", series{label: label, color: opColor(i), glyph: 1}, opValue(op, func(o otOp) (float64, bool) { return float64(o.Slow), o.Slow >= 0 }))
	}
	pn.p.Y.Tick.Marker = countTicks{}
	return pn, pn.top > 0
}

// kindsPanel is the searches' p99 by kind of query (the product corpus's
// knn, sku, …), on a log axis, a line per kind; ok is false for a run whose
// searches are not split by kind.
func (ot otRun) kindsPanel() (pn *panel, ok bool) {
	if len(ot.Kinds) == 0 {
		return nil, false
	}
	pn = newPanel("", "search p99 by kind (ms, log)")
	pn.log = true
	kinds := func(p otPoint) []otOp { return p.Kinds }
	for i, name := range ot.Kinds {
		ot.line(pn, name, series{label: strings.TrimPrefix(name, "search:"), color: kindColor(i), glyph: i},
			seriesValue(name, kinds, func(o otOp) (float64, bool) { return o.P99, o.Count > 0 }))
	}
	return pn, true
}

// kindColor is the colour of a query kind's line: the dark palette's
// colours after the operations' (four of them) first.
func kindColor(i int) color.Color { return opColor(i + 4) }

// errorsPanel is each operation's errors/s; ok is false when no
// operation had an error, and the chart leaves the panel out.
func (ot otRun) errorsPanel() (errs *panel, ok bool) {
	errs = newPanel("", "errors/s")
	anyErr := false
	for i, op := range ot.Ops {
		if ot.line(errs, op+" errors", series{label: op + " errors", color: opColor(i)}, opValue(op, func(o otOp) (float64, bool) { return o.Errors, true })) && errs.top > 0 {
			anyErr = true
		}
	}
	return errs, anyErr
}

// statPanels is a panel for each engine stat that varies over the run,
// and for the container's CPU and memory, when sampled, even when flat.
func (ot otRun) statPanels() []*panel {
	var panels []*panel
	for _, name := range ot.Stats {
		scale, axis := 1.0, strings.ReplaceAll(name, "_", " ")
		switch name {
		case statCPU:
			axis = "container CPU (cores)"
		case statMemory:
			scale, axis = 1.0/(1<<20), "container memory (MiB)"
		}
		var lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range ot.Points {
			if v, ok := p.EngineStats[name]; ok {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		// A stat that never changes (a thread count) says nothing over time;
		// the container's figures are kept even when flat.
		if lo == hi && name != statCPU && name != statMemory {
			continue
		}
		pn := newPanel("", axis)
		ot.line(pn, name, series{color: color.Gray{Y: 60}}, func(p otPoint) (float64, bool) {
			v, ok := p.EngineStats[name]
			return v * scale, ok
		})
		panels = append(panels, pn)
	}
	return panels
}

// end is where the last measured window ends on the chart's time axis.
func (ot otRun) end() float64 {
	end := 0.0
	for _, p := range ot.Points {
		end = max(end, p.Start+p.Length)
	}
	return end
}

// maxTimeLabels is about how many second labels fit under a chart.
const maxTimeLabels = 20

// timeSteps are the steps the time axis may be ticked at (seconds).
var timeSteps = []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}

// timeTicks are the time axis's ticks: each window's own seconds, from 0
// at its start, at a step that fits about maxTimeLabels labels on the
// axis. A second too near the next window's start to be read apart from
// its 0 is a tick without a label. Nothing else is ticked, so the grid's
// lines are seconds only and a boundary is the dashed line alone.
func (ot otRun) timeTicks(end float64) plot.ConstantTicks {
	step := 0.0
	for _, s := range timeSteps {
		if end/s <= maxTimeLabels {
			step = s
			break
		}
	}
	if step == 0 { // longer than the steps go: hours times 1, 2 or 5 × 10ⁿ
		last := timeSteps[len(timeSteps)-1]
		if step = last * roundUp125(end/maxTimeLabels/last); step == 0 {
			step = end
		}
	}
	var ticks plot.ConstantTicks
	for i, w := range ot.Windows {
		next := end
		if i+1 < len(ot.Windows) {
			next = ot.Windows[i+1].At
		}
		for k := 0; ; k++ {
			since := roundTo(float64(k)*step, 6)
			at := w.At + since
			if at >= next-1e-9 {
				break
			}
			t := plot.Tick{Value: at}
			if k == 0 || next-at >= 0.5*step {
				t.Label = plainNumber(since)
			}
			ticks = append(ticks, t)
		}
	}
	return append(ticks, plot.Tick{Value: end})
}

// windowNames are the windows' names, each at the top left of its window
// in the top panel; a long ladder (rungs × repetitions) has more windows
// than there is room for names, and then every step-th is named, from the
// first.
func (ot otRun) windowNames(pn *panel) {
	sty := pn.p.X.Tick.Label
	sty.Font.Size = vg.Points(9)
	sty.Color = color.Gray{Y: 70}
	widest := 0.0
	for _, w := range ot.Windows {
		widest = max(widest, float64(sty.Width(w.Label)))
	}
	// The panels are about 6.5 inches wide beside their legends.
	room, end := float64(6.5*vg.Inch), ot.end()
	step := 1
	for i := 0; i+1 < len(ot.Windows); i++ {
		width := room * (ot.Windows[i+1].At - ot.Windows[i].At) / end
		step = max(step, int(math.Ceil((widest+8)/width)))
	}
	var xys plotter.XYs
	var names []string
	for i, w := range ot.Windows {
		if i%step == 0 {
			xys = append(xys, plotter.XY{X: w.At, Y: pn.p.Y.Max})
			names = append(names, w.Label)
		}
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return // only for values that are not finite, which the axis never has
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i] = sty
	}
	labels.Offset = vg.Point{X: vg.Points(3), Y: -sty.Height("0") - vg.Points(1)}
	pn.p.Add(labels)
}

// frame sets every panel's axes: the y range, one time axis with each
// window's seconds ticked, a dashed line at each window's start, and the
// windows' names in the top panel.
func (ot otRun) frame(panels []*panel) {
	end := ot.end()
	ticks := ot.timeTicks(end)
	var seconds []float64
	for _, t := range ticks {
		if t.Label != "" {
			seconds = append(seconds, t.Value)
		}
	}
	for i, pn := range panels {
		lo, hi := ot.yRange(pn, i == 0)
		pn.p.Y.Min, pn.p.Y.Max = lo, hi
		pn.p.X.Min, pn.p.X.Max = 0, end
		// Only the bottom panel's axis is ticked: the panels share it, and
		// each panel's grid marks the seconds.
		pn.p.X.Tick.Marker, pn.p.X.Tick.Length = plot.ConstantTicks{}, 0
		if i == len(panels)-1 {
			pn.p.X.Tick.Marker, pn.p.X.Tick.Length = ticks, plot.New().X.Tick.Length
		}
		pn.seconds.at = seconds
		for _, w := range ot.Windows[1:] {
			series{color: color.Gray{Y: 140}, dashed: true, xy: plotter.XYs{{X: w.At, Y: lo}, {X: w.At, Y: hi}}}.addMarker(pn.p)
		}
	}
	ot.windowNames(panels[0])
}

// yRange is a panel's y axis range: from zero to a little above its
// highest value (the top panel's higher, for the windows' names); a log
// panel from below its lowest value to above its highest, on a log scale.
// The range is finite, and above zero on a log axis, whatever the values.
func (ot otRun) yRange(pn *panel, top bool) (lo, hi float64) {
	room := 1.1
	if top {
		room = 1.3
	}
	if pn.log {
		pn.p.Y.Scale, pn.p.Y.Tick.Marker = plot.LogScale{}, decadeTicks{}
		if pn.bottom <= 0 {
			return 0.1, 10
		}
		lo, hi = pn.bottom/logPad, pn.top*logPad*room
		if hi > math.MaxFloat64 {
			hi = math.MaxFloat64
		}
		if hi <= lo {
			lo = hi / 10
		}
		return lo, hi
	}
	hi = pn.top * room
	switch {
	case hi > math.MaxFloat64:
		hi = math.MaxFloat64
	case hi <= 0:
		hi = 1
	}
	return 0, hi
}

// countTicks is a count's axis: plainTicks without fractions.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plainTicks{}).Ticks(lo, hi) {
		if t.Label == "" || t.Value == math.Trunc(t.Value) {
			out = append(out, t)
		}
	}
	return out
}

// otRow is one row of the values an over-time chart plots: the cells as
// shown, and the plotted values unrounded (the row's data attributes), so
// a reader or a test reads back exactly what was drawn.
type otRow struct {
	Cells                           []string
	Window, Op                      string
	Start, Rate, P50, P99, Max, Err float64
	Slow                            int64  // calls at or over the slow threshold; -1: not counted
	Shards                          string // "<shard>:<calls/s>" separated by spaces
}

// tableHead is the head of the values table.
func (ot otRun) tableHead() []string {
	head := []string{"window", "start (s)", "op", "calls/s", "p50 (ms)", "p99 (ms)", "max (ms)", "slow calls", "errors/s"}
	for _, s := range ot.Shards {
		head = append(head, fmt.Sprintf("shard %d calls/s (all ops)", s))
	}
	return append(head, ot.Stats...)
}

// rows is the values table: one row per interval and operation, and per
// interval and query kind of the searches ("search:<kind>").
func (ot otRun) rows() []otRow {
	var out []otRow
	for _, p := range ot.Points {
		shard := map[int]float64{}
		var shards []string
		for _, sh := range p.Shards {
			shard[sh.Shard] = float64(sh.Count) / p.Length
			shards = append(shards, fmt.Sprintf("%d:%v", sh.Shard, shard[sh.Shard]))
		}
		for _, o := range slices.Concat(p.Ops, p.Kinds) {
			r := otRow{Window: ot.Windows[p.Window].Label, Op: o.Op, Start: p.Start, Rate: o.Rate, P50: o.P50, P99: o.P99, Max: o.Max,
				Slow: o.Slow, Err: o.Errors, Shards: strings.Join(shards, " ")}
			slow := ""
			if o.Slow >= 0 {
				slow = strconv.FormatInt(o.Slow, 10)
			}
			r.Cells = []string{r.Window, strconv.FormatFloat(p.Start, 'f', 1, 64), o.Op, rps(o.Rate), num(o.P50), num(o.P99), num(o.Max), slow, rps(o.Errors)}
			for _, s := range ot.Shards {
				cell := ""
				if v, ok := shard[s]; ok {
					cell = rps(v)
				}
				r.Cells = append(r.Cells, cell)
			}
			for _, name := range ot.Stats {
				cell := ""
				if v, ok := p.EngineStats[name]; ok {
					cell = num(v)
				}
				r.Cells = append(r.Cells, cell)
			}
			out = append(out, r)
		}
	}
	return out
}

// decadeTicks labels a log axis at 1, 2 and 5 times each power of ten
// (ticks125) when it spans at most two decades, and at powers of ten only
// when it spans more, every few when it spans many: a short panel has no
// room for more labels.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := ticks125{}.Ticks(lo, hi)
	if hi/lo <= 100 {
		return ts
	}
	every := max(1, int(math.Ceil(math.Log10(hi/lo)/maxDecadeLabels)))
	for i := range ts {
		e := math.Log10(ts[i].Value)
		if math.Abs(e-math.Round(e)) > 1e-9 || int(math.Round(e))%every != 0 {
			ts[i].Label = ""
		}
	}
	return ts
}

// maxDecadeLabels is how many powers of ten a panel's log axis labels at
// most.
const maxDecadeLabels = 6

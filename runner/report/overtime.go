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
	Op       string
	Rate     float64 // successful calls per second: count / length
	Errors   float64 // failed calls per second, all classes
	P50, P99 float64 // the interval's own, ms; 0 without a successful call
	Count    int64
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
}

// overTime is the run's windows that have a timeline, laid end to end;
// false when none has one (an older result).
func overTime(r Run) (otRun, bool) {
	out := otRun{Label: r.Label}
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
	at := 0.0
	stats, shards := map[string]bool{}, map[int]bool{}
	for _, win := range wins {
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
			p := otPoint{Window: len(out.Windows), Start: start, Mid: start + length/2, Length: length,
				Scheduled: iv.ScheduledRate, Shards: iv.Shards, EngineStats: iv.EngineStats}
			for _, o := range iv.Ops {
				p.Ops = append(p.Ops, newOtOp(o.Op, o.Count, o.Errors, o.P50, o.P99, length))
				if !slices.Contains(out.Ops, o.Op) {
					out.Ops = append(out.Ops, o.Op)
				}
				for _, k := range o.Kinds {
					name := o.Op + ":" + k.Kind
					p.Kinds = append(p.Kinds, newOtOp(name, k.Count, k.Errors, k.P50, k.P99, length))
					if !slices.Contains(out.Kinds, name) {
						out.Kinds = append(out.Kinds, name)
					}
				}
			}
			for name := range iv.EngineStats {
				stats[name] = true
			}
			for _, s := range iv.Shards {
				shards[s.Shard] = true
			}
			out.Points = append(out.Points, p)
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
	return out, len(out.Points) > 0
}

// newOtOp is an operation's (or a query kind's) figures in an interval of
// length seconds.
func newOtOp(name string, count int64, errors map[string]int64, p50, p99, length float64) otOp {
	var errs int64
	for _, n := range errors {
		errs += n
	}
	return otOp{Op: name, Rate: float64(count) / length, Errors: float64(errs) / length, P50: p50, P99: p99, Count: count}
}

// The container's own figures (engines/container's StatCPU, StatMemory),
// drawn in panels of their own units.
const (
	statCPU    = "container_cpu_cores"
	statMemory = "container_memory_bytes"
)

// opColor is the colour of an operation in the over-time charts.
func opColor(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// shardColor is the colour of a shard's throughput line: the dark
// palette from its far end, away from the operations' colours at its start
// (a softer palette's colours are the dark ones' tints, and would read as
// an operation's line).
func shardColor(i int) color.Color {
	n := len(plotutil.DarkColors)
	return plotutil.DarkColors[n-1-i%n]
}

// maxWindowNames is how many window names fit under an over-time chart.
const maxWindowNames = 12

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
	entries int // in the legend
}

// chart is the run's over-time chart, named name: its panels stacked on
// one time axis (throughput, latency, errors when any, the engine's and
// the container's figures), each window's boundary marked.
func (ot otRun) chart(name string) Chart {
	panels := []*panel{ot.throughputPanel(), ot.latencyPanel()}
	if kinds, ok := ot.kindsPanel(); ok {
		panels = append(panels, kinds)
	}
	if errs, ok := ot.errorsPanel(); ok {
		panels = append(panels, errs)
	}
	panels = append(panels, ot.statPanels()...)
	ot.frame(panels)
	last := panels[len(panels)-1]
	last.p.X.Label.Text = "measured windows end to end (a point per interval; ramp and settle left out)"

	note := "One window after another on one axis (the time between them, ramp and settle, left out); a dashed line and the window's name mark each boundary. " +
		"Throughput is each interval's successful calls over its length; p50 (solid) and p99 (dashed) are the interval's own, from its histogram."
	if len(ot.Shards) > 0 {
		note += " Dashed lines named shard 0, 1…: each shard's throughput, all operations (together they add up to the operations' lines)."
	}
	if len(ot.Kinds) > 0 {
		note += " The searches by kind of query: each kind's p99 in the interval, from the kind's own histogram (known-item checks are searches of no kind)."
	}
	var ps []*plot.Plot
	for _, pn := range panels {
		ps = append(ps, pn.p)
	}
	return Chart{Name: name, Title: ot.Label + " over time", Note: note, panels: ps, ot: &ot}
}

// newPanel is an empty panel with a title (the top panel's only) and a
// y axis label.
func newPanel(title, y string) *panel { return &panel{p: newPlot(title, "", y)} }

// line adds one series to a panel, broken at window boundaries: the time
// between two windows was not measured, so no line crosses it. It reports
// whether the series had any point to draw.
func (ot otRun) line(pn *panel, label string, c color.Color, dashed bool, glyph int, value func(otPoint) (float64, bool)) bool {
	var parts []plotter.XYs
	last := -1
	for _, p := range ot.Points {
		v, ok := value(p)
		if !ok || (pn.log && v <= 0) {
			continue
		}
		if p.Window != last || len(parts) == 0 {
			parts = append(parts, nil)
			last = p.Window
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
		s := series{label: label, color: c, dashed: dashed, glyph: glyph, xy: xy}
		if i == 0 && label != "" {
			s.add(pn.p)
			pn.entries++
		} else {
			s.addUnlabelled(pn.p)
		}
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
		ot.line(thr, op, opColor(i), false, 0, opValue(op, func(o otOp) (float64, bool) { return o.Rate, true }))
	}
	for i, s := range ot.Shards {
		ot.line(thr, fmt.Sprintf("shard %d (all ops)", s), shardColor(i), true, -1, func(p otPoint) (float64, bool) {
			for _, sh := range p.Shards {
				if sh.Shard == s {
					return float64(sh.Count) / p.Length, true
				}
			}
			return 0, false
		})
	}
	ot.line(thr, "scheduled (all ops)", color.Gray{Y: 90}, true, -1, func(p otPoint) (float64, bool) { return p.Scheduled, p.Scheduled > 0 })
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
		ot.line(lat, "", opColor(i), false, 0, opValue(op, func(o otOp) (float64, bool) { return o.P50, o.Count > 0 }))
		ot.line(lat, "", opColor(i), true, 2, opValue(op, func(o otOp) (float64, bool) { return o.P99, o.Count > 0 }))
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
		lat.entries++
	}
	return lat
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
		ot.line(pn, strings.TrimPrefix(name, "search:"), kindColor(i), false, i,
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
		if ot.line(errs, op+" errors", opColor(i), false, 0, opValue(op, func(o otOp) (float64, bool) { return o.Errors, true })) && errs.top > 0 {
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
		ot.line(pn, "", color.Gray{Y: 60}, false, 0, func(p otPoint) (float64, bool) {
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

// windowTicks are the time axis's ticks. Each window's name is a tick
// label at its middle, so no label sits on the lines; its boundaries are
// unlabelled ticks. A long ladder (rungs × repetitions) has more windows
// than the axis has room for names: then every step-th is named, from the
// first.
func (ot otRun) windowTicks(end float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	step := (len(ot.Windows) + maxWindowNames - 1) / maxWindowNames
	for i, w := range ot.Windows {
		next := end
		if i+1 < len(ot.Windows) {
			next = ot.Windows[i+1].At
		}
		t := plot.Tick{Value: (w.At + next) / 2}
		if i%step == 0 {
			t.Label = w.Label
		}
		ticks = append(ticks, plot.Tick{Value: w.At}, t)
	}
	return append(ticks, plot.Tick{Value: end})
}

// frame sets every panel's axes: the y range (with room for the legend),
// one time axis with the windows' ticks, and a dashed line at each
// window's start.
func (ot otRun) frame(panels []*panel) {
	end := ot.end()
	ticks := ot.windowTicks(end)
	for _, pn := range panels {
		lo, hi := ot.yRange(pn)
		pn.p.Y.Min, pn.p.Y.Max = lo, hi
		pn.p.X.Min, pn.p.X.Max = 0, end
		pn.p.X.Tick.Marker = ticks
		for _, w := range ot.Windows[1:] {
			series{color: color.Gray{Y: 140}, dashed: true, xy: plotter.XYs{{X: w.At, Y: lo}, {X: w.At, Y: hi}}}.addMarker(pn.p)
		}
	}
}

// yRange is a panel's y axis range: from zero to above its highest value,
// with room for the legend in the top left corner; a log panel starts
// below the lowest p50 and gets a log scale.
func (ot otRun) yRange(pn *panel) (lo, hi float64) {
	room := 1.15 + 0.14*float64(pn.entries)
	lo, hi = 0.0, pn.top*room
	if hi <= 0 {
		hi = 1
	}
	if !pn.log {
		return lo, hi
	}
	lo = pn.bottom / logPad
	if pn.bottom <= 0 || pn.top <= lo {
		lo, pn.top = 0.1, 10
	}
	// Its legend (two entries) sits above the axis: a little room.
	hi = pn.top * 2
	pn.p.Y.Scale, pn.p.Y.Tick.Marker = plot.LogScale{}, decadeTicks{}
	return lo, hi
}

// otRow is one row of the values an over-time chart plots: the cells as
// shown, and the plotted values unrounded (the row's data attributes), so
// a reader or a test reads back exactly what was drawn.
type otRow struct {
	Cells                      []string
	Window, Op                 string
	Start, Rate, P50, P99, Err float64
	Shards                     string // "<shard>:<calls/s>" separated by spaces
}

// tableHead is the head of the values table.
func (ot otRun) tableHead() []string {
	head := []string{"window", "start (s)", "op", "calls/s", "p50 (ms)", "p99 (ms)", "errors/s"}
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
			r := otRow{Window: ot.Windows[p.Window].Label, Op: o.Op, Start: p.Start, Rate: o.Rate, P50: o.P50, P99: o.P99, Err: o.Errors,
				Shards: strings.Join(shards, " ")}
			r.Cells = []string{r.Window, strconv.FormatFloat(p.Start, 'f', 1, 64), o.Op, rps(o.Rate), num(o.P50), num(o.P99), rps(o.Errors)}
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
// when it spans more: a short panel has no room for more labels.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := ticks125{}.Ticks(lo, hi)
	if hi/lo <= 100 {
		return ts
	}
	for i := range ts {
		if e := math.Log10(ts[i].Value); math.Abs(e-math.Round(e)) > 1e-9 {
			ts[i].Label = ""
		}
	}
	return ts
}

package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/searchbench/searchbench/runner/result"
)

// Chart is one figure of the report, drawn by gonum/plot from the result's
// figures alone.
type Chart struct {
	Name  string // file name without extension, e.g. latency-search
	Title string
	Note  string // how to read it (what the zoom clips, what a marker means)
	plot  *plot.Plot
	// panels, instead of plot, are plots stacked on one shared x axis
	// (aligned by plot.Align, so a moment is at the same x in each).
	panels []*plot.Plot
	// ot is the figures of an over-time chart, which goes in the report's
	// over-time section, full width, with a table of its values.
	ot *otRun
	// otPanels is the over-time chart's panels with the series each draws.
	otPanels []*panel
}

// size is the chart's drawn size: a stacked chart grows by its panels.
func (c Chart) size() (vg.Length, vg.Length) {
	if len(c.panels) > 0 {
		return chartWidth, vg.Length(len(c.panels)) * panelHeight
	}
	return chartWidth, chartHeight
}

// draw draws the chart, or its panels, on dc. A stacked chart's legends
// go in a column right of its panels, each beside its own panel, so no
// legend covers a line: the lines of a panel span its whole width.
func (c Chart) draw(dc draw.Canvas) {
	if len(c.panels) == 0 {
		c.plot.Draw(dc)
		return
	}
	edge := vg.Points(3)
	dc = draw.Crop(dc, edge, -edge, edge, -edge)
	var column vg.Length
	for _, p := range c.panels {
		r := p.Legend.Rectangle(dc)
		column = max(column, r.Max.X-r.Min.X)
	}
	if column > 0 {
		column += legendGap
	}
	plots := dc
	plots.Max.X -= column
	stacked := make([]stackedPlot, len(c.panels))
	for i, p := range c.panels {
		stacked[i] = newStackedPlot(p)
	}
	for i, cv := range stack(stacked, plots) {
		stacked[i].draw(cv)
		data := stacked[i].dataCanvas(cv)
		legend := c.panels[i].Legend
		legend.Top, legend.Left, legend.XOffs, legend.YOffs = true, true, 0, 0
		legend.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: plots.Max.X + legendGap, Y: data.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: data.Max.Y}}})
	}
}

// stackedPlot is a panel of a stacked chart as drawn: the plot without
// its legend (drawn beside it) and without its y label, which the panel
// draws itself, centred on the data area, in a strip left of the plot
// (plot centres a log axis's label box off the middle, near its top, and
// pads the data area down to make room for it).
type stackedPlot struct {
	p       *plot.Plot
	label   string
	style   text.Style
	padding vg.Length
}

func newStackedPlot(p *plot.Plot) stackedPlot {
	q := *p
	q.Legend = plot.NewLegend()
	q.Y.Label.Text = ""
	return stackedPlot{p: &q, label: p.Y.Label.Text, style: p.Y.Label.TextStyle, padding: p.Y.Label.Padding}
}

// plotCanvas is the part of the panel's canvas cv the plot takes.
func (s stackedPlot) plotCanvas(cv draw.Canvas) draw.Canvas {
	if s.label == "" {
		return cv
	}
	strip := s.style.Height(s.label) + s.style.FontExtents().Descent + s.padding
	return draw.Crop(cv, strip, 0, 0, 0)
}

func (s stackedPlot) dataCanvas(cv draw.Canvas) draw.Canvas { return s.p.DataCanvas(s.plotCanvas(cv)) }

func (s stackedPlot) draw(cv draw.Canvas) {
	s.p.Draw(s.plotCanvas(cv))
	if s.label == "" {
		return
	}
	sty := s.style
	sty.Rotation += math.Pi / 2
	x := cv.Min.X + s.style.Height(s.label) - s.style.FontExtents().Descent
	data := s.dataCanvas(cv)
	cv.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, s.label)
}

// stack lays panels out top to bottom in dc, their data areas of one
// height and between the same two x: a panel's axes and title take what
// room they need (only the bottom panel's time axis has labels), so no
// panel's data area is cut to the size of another's. (plot.Align makes
// the tiles' data areas even by cutting every one to the smallest.)
func stack(panels []stackedPlot, dc draw.Canvas) []draw.Canvas {
	const gap = 10 // points between panels
	n := vg.Length(len(panels))
	cvs := make([]draw.Canvas, len(panels))
	for i := range cvs {
		cvs[i] = dc
		cvs[i].Min.Y = dc.Max.Y - dc.Size().Y/n
	}
	// What a panel takes beside its data area (title, x axis, room for
	// its glyphs) depends a little on its height: a second step settles it.
	for range 2 {
		around := make([]vg.Length, len(panels))
		var sum vg.Length
		for i, p := range panels {
			around[i] = cvs[i].Size().Y - p.dataCanvas(cvs[i]).Size().Y
			sum += around[i]
		}
		data := (dc.Size().Y - sum - vg.Points(gap)*(n-1)) / n
		top := dc.Max.Y
		for i := range panels {
			cvs[i].Max.Y, cvs[i].Min.Y = top, top-around[i]-data
			top = cvs[i].Min.Y - vg.Points(gap)
		}
	}
	// The y axes' labels differ in width: move each panel's sides until
	// every data area spans the same x (a glyph at a data area's edge
	// makes its padding shift a little as it moves: a few steps).
	for range 3 {
		left, right := vg.Length(math.Inf(-1)), vg.Length(math.Inf(1))
		for i, p := range panels {
			d := p.dataCanvas(cvs[i])
			left, right = max(left, d.Min.X), min(right, d.Max.X)
		}
		for i, p := range panels {
			d := p.dataCanvas(cvs[i])
			cvs[i].Min.X += left - d.Min.X
			cvs[i].Max.X += right - d.Max.X
		}
	}
	return cvs
}

// legendGap is the room between a stacked chart's panels and its legends.
const legendGap = vg.Inch / 16

const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
	chartDPI    = 150
)

// PNG renders the chart as a PNG image.
func (c Chart) PNG() ([]byte, error) {
	w, h := c.size()
	canvas := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(chartDPI))}
	c.draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// SVG renders the chart as an SVG document.
func (c Chart) SVG() ([]byte, error) {
	canvas := vgsvg.New(c.size())
	c.draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
}

// Charts is every chart the report's figures support: for the closed loop,
// p50 and p95 against users per operation (a full-range and a zoomed view)
// and total RPS against users; for ladders, p99 and achieved rate against
// offered rate with each sustainable rate marked; for knob sweeps, recall
// against QPS per query kind with each setup's frontier marked. An engine
// keeps its colour in every chart.
func (rep *Report) Charts() []Chart {
	var out []Chart
	out = append(out, rep.latencyCharts()...)
	if c, ok := rep.rpsChart(); ok {
		out = append(out, c)
	}
	out = append(out, rep.ladderCharts()...)
	out = append(out, rep.sweepCharts()...)
	return append(out, rep.overTimeCharts()...)
}

// engineColor is the colour of the report's i-th column.
func engineColor(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// series is one line of a chart.
type series struct {
	label  string
	color  color.Color
	dashed bool
	dashes []vg.Length // a dash pattern of its own, instead of dashed's
	glyph  int         // index into plotutil's shapes
	xy     plotter.XYs
}

// lineDashes is the series' dash pattern: its own, the common dash when
// dashed, none when solid.
func (s series) lineDashes() []vg.Length {
	switch {
	case len(s.dashes) > 0:
		return s.dashes
	case s.dashed:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return nil
}

func (s series) add(p *plot.Plot) {
	if line, points := s.addUnlabelled(p); line != nil {
		p.Legend.Add(s.label, line, points)
	}
}

// addUnlabelled draws the series without a legend entry (a further piece
// of a series already in it); nil when it cannot be drawn.
func (s series) addUnlabelled(p *plot.Plot) (*plotter.Line, *plotter.Scatter) {
	line, points, err := plotter.NewLinePoints(s.xy)
	if err != nil {
		return nil, nil // only for NaN or infinite values, which series never hold
	}
	line.Color, line.Width, line.Dashes = s.color, vg.Points(1.5), s.lineDashes()
	points.Color, points.Shape, points.Radius = s.color, plotutil.Shape(s.glyph), vg.Points(2.5)
	p.Add(line, points)
	return line, points
}

func newPlot(title, x, y string) *plot.Plot {
	p := newBarePlot(title, x, y)
	p.Add(plotter.NewGrid())
	return p
}

// newBarePlot is a plot in the report's style without a grid.
func newBarePlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	sans := func(f *font.Font) { f.Typeface, f.Variant = "Liberation", "Sans" }
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		sans(f)
	}
	p.Title.Padding = vg.Points(8)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Y.Tick.Marker = plainTicks{}
	return p
}

// sortedLevels is a run's levels in ascending order of users.
func sortedLevels(r result.EngineRun) []result.Level {
	ls := append([]result.Level(nil), r.Levels...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Users < ls[j].Users })
	return ls
}

// zoomFactor is the headroom above the curve the zoomed view is cut to.
const zoomFactor = 1.2

func (rep *Report) latencyCharts() []Chart {
	var out []Chart
	for _, op := range opsOf(rep.EngineRuns()) {
		var lines []series
		var p50Peaks, p95Peaks []float64
		for i, r := range rep.Runs {
			var p50, p95 plotter.XYs
			for _, l := range sortedLevels(r.EngineRun) {
				if s, ok := l.Op(op); ok && s.Count > 0 {
					p50 = append(p50, plotter.XY{X: float64(l.Users), Y: s.Latency.P50})
					p95 = append(p95, plotter.XY{X: float64(l.Users), Y: s.Latency.P95})
				}
			}
			if len(p50) == 0 {
				continue
			}
			lines = append(lines,
				series{label: r.Label + " p50", color: engineColor(i), glyph: 0, xy: p50},
				series{label: r.Label + " p95", color: engineColor(i), dashed: true, glyph: 2, xy: p95})
			p50Peaks, p95Peaks = append(p50Peaks, peak(p50)), append(p95Peaks, peak(p95))
		}
		if len(lines) == 0 {
			continue // no call of this operation succeeded anywhere
		}
		title := op + " latency by users"
		full := rep.usersPlot(title, "latency (ms)")
		for _, s := range lines {
			s.add(full)
		}
		full.Y.Min = 0
		out = append(out, Chart{Name: "latency-" + op, Title: title + " (full range)",
			Note: "p50 solid, p95 dashed; one colour per engine.", plot: full})

		// The zoomed view shows the low range in detail: cut just above the
		// lowest engine's p95 curve, so the best engine is wholly visible and
		// the others wherever they are as low; when that would show
		// everything anyway (one engine, or all alike), cut above the lowest
		// p50 curve instead.
		top, basis := zoomFactor*slices.Min(p95Peaks), "the lowest engine's peak p95"
		if top >= 0.8*slices.Max(p95Peaks) {
			top, basis = zoomFactor*slices.Min(p50Peaks), "the lowest engine's peak p50"
		}
		if top <= 0 {
			top, basis = slices.Max(p95Peaks), "the highest peak p95"
		}
		zoom := rep.usersPlot(title+" (zoomed)", "latency (ms)")
		for _, s := range lines {
			s.add(zoom)
		}
		zoom.Y.Min, zoom.Y.Max = 0, top
		out = append(out, Chart{Name: "latency-" + op + "-zoom", Title: title + " (zoomed, low range)",
			Note: fmt.Sprintf("Latency axis cut at %s ms (%g × %s); lines above it leave the chart.", num(top), zoomFactor, basis),
			plot: zoom})
	}
	return out
}

// usersPlot is a plot against users, ticked at the levels that ran.
func (rep *Report) usersPlot(title, y string) *plot.Plot {
	p := newPlot(title, "users", y)
	users, _ := levelsByUsers(rep.EngineRuns())
	var ticks plot.ConstantTicks
	for _, u := range users {
		ticks = append(ticks, plot.Tick{Value: float64(u), Label: strconv.Itoa(u)})
	}
	p.X.Tick.Marker = ticks
	return p
}

func (rep *Report) rpsChart() (Chart, bool) {
	p := rep.usersPlot("throughput by users", "total RPS (successful calls/s)")
	any := false
	for i, r := range rep.Runs {
		var xy plotter.XYs
		for _, l := range sortedLevels(r.EngineRun) {
			xy = append(xy, plotter.XY{X: float64(l.Users), Y: l.TotalRPS})
		}
		if len(xy) > 0 {
			series{label: r.Label, color: engineColor(i), xy: xy}.add(p)
			any = true
		}
	}
	p.Y.Min = 0
	return Chart{Name: "rps", Title: "Total RPS by users", Note: "Successful calls per second across operations.", plot: p}, any
}

// ladderRun is an engine run with a ladder, and its index among the
// report's runs (its colour).
type ladderRun struct {
	i   int
	run Run
}

// ladderCharts is two charts across every run with a ladder: p99 by
// offered rate, and achieved by offered rate, each with the ladders'
// sustainable rates marked.
func (rep *Report) ladderCharts() []Chart {
	var ls []ladderRun
	for i, r := range rep.Runs {
		if r.Ladder != nil && len(r.Ladder.Rungs) > 0 {
			ls = append(ls, ladderRun{i, r})
		}
	}
	if len(ls) == 0 {
		return nil
	}
	p99 := newPlot("p99 by offered rate", "offered rate (calls/s)", "p99 from the intended send time (ms)")
	achieved := newPlot("achieved by offered rate", "offered rate (calls/s)", "achieved rate (calls/s)")
	p99Range, rateRange := emptyRange(), emptyRange()
	for _, l := range ls {
		l.plot(p99, achieved, &p99Range, &rateRange)
	}
	p99Range, rateRange = p99Range.orDefault(), rateRange.orDefault()
	// Offered = achieved, the line a ladder follows while it keeps up.
	diag := plotter.XYs{{X: rateRange[0], Y: rateRange[0]}, {X: rateRange[1], Y: rateRange[1]}}
	series{label: "achieved = offered", color: color.Gray{Y: 150}, dashed: true, glyph: -1, xy: diag}.addLine(achieved)
	for _, l := range ls {
		s := l.run.Ladder.Sustainable
		if s <= 0 {
			continue
		}
		label := fmt.Sprintf("%s sustainable: %s/s", l.run.Label, rate(s))
		marker := series{label: label, color: engineColor(l.i), dashed: true}
		marker.xy = plotter.XYs{{X: s, Y: p99Range[0] / logPad}, {X: s, Y: p99Range[1] * logPad}}
		marker.addLine(p99)
		marker.xy = plotter.XYs{{X: s, Y: rateRange[0] / logPad}, {X: s, Y: rateRange[1] * logPad}}
		marker.addLine(achieved)
	}
	logAxes(p99, rateRange, p99Range)
	logAxes(achieved, rateRange, rateRange)
	note := "Log scales. Vertical dashed lines mark each ladder's sustainable rate (the rule is in the ladder's table)."
	return []Chart{
		{Name: "ladder-p99", Title: "Open loop: p99 by offered rate", Note: note, plot: p99},
		{Name: "ladder-achieved", Title: "Open loop: achieved by offered rate", Note: note, plot: achieved},
	}
}

// valueRange is the lowest and highest positive value drawn on an axis.
type valueRange [2]float64

// emptyRange is a range no value has widened yet.
func emptyRange() valueRange { return valueRange{math.Inf(1), 0} }

// widen takes a positive value into the range; others are not drawn on a
// log axis.
func (r *valueRange) widen(v float64) {
	if v > 0 {
		r[0], r[1] = math.Min(r[0], v), math.Max(r[1], v)
	}
}

// orDefault is the range, or 1 to 10 when nothing widened it.
func (r valueRange) orDefault() valueRange {
	if math.IsInf(r[0], 1) {
		return valueRange{1, 10}
	}
	return r
}

// plot draws one ladder: its p99 per rung with the repetitions' min–max as
// error bars, and its achieved rate per rung, widening the axes' ranges.
func (l ladderRun) plot(p99, achieved *plot.Plot, p99Range, rateRange *valueRange) {
	var p, a plotter.XYs
	var bars plotter.YErrors
	for _, r := range l.run.Ladder.Rungs {
		rateRange.widen(r.Offered)
		if r.P99 > 0 {
			p = append(p, plotter.XY{X: r.Offered, Y: r.P99})
			lo, hi := math.Min(r.P99Min, r.P99), math.Max(r.P99Max, r.P99)
			if lo <= 0 {
				lo = r.P99
			}
			bars = append(bars, struct{ Low, High float64 }{r.P99 - lo, hi - r.P99})
			p99Range.widen(lo)
			p99Range.widen(hi)
		}
		if r.Achieved > 0 {
			a = append(a, plotter.XY{X: r.Offered, Y: r.Achieved})
			rateRange.widen(r.Achieved)
		}
	}
	c := engineColor(l.i)
	if len(p) > 0 {
		series{label: l.run.Label + " p99 (bars: min–max of repetitions)", color: c, xy: p}.add(p99)
		if eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{p, bars}); err == nil {
			eb.Color = c
			p99.Add(eb)
		}
	}
	if len(a) > 0 {
		series{label: l.run.Label, color: c, xy: a}.add(achieved)
	}
}

// addLine adds a line without point markers (references and markers).
func (s series) addLine(p *plot.Plot) {
	if line := s.addMarker(p); line != nil {
		p.Legend.Add(s.label, line)
	}
}

// addMarker draws the series as a thin line kept out of the legend (a
// boundary); nil when it cannot be drawn.
func (s series) addMarker(p *plot.Plot) *plotter.Line {
	line, err := plotter.NewLine(s.xy)
	if err != nil {
		return nil
	}
	line.Color, line.Width = s.color, vg.Points(1)
	if s.dashed {
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(line)
	return line
}

// logPad is the room left above and below the data on a log axis.
const logPad = 1.4

func logAxes(p *plot.Plot, x, y [2]float64) {
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks125{}, ticks125{}
	p.X.Min, p.X.Max = x[0]/1.1, x[1]*1.1
	p.Y.Min, p.Y.Max = y[0]/logPad, y[1]*logPad
}

// ticks125 labels a log axis at 1, 2 and 5 times each power of ten, so a
// ladder's range of less than two decades still gets several labels.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if lo <= 0 || hi <= lo {
		return out
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

func peak(xy plotter.XYs) float64 {
	m := 0.0
	for _, p := range xy {
		m = math.Max(m, p.Y)
	}
	return m
}

// plainTicks is a linear axis's ticks where plot puts them (about three
// labels), each labelled in the fewest digits that tell the ticks apart:
// "250", not plot's "250.00"; "0.25" keeps its digits.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	step := math.Inf(1)
	for i := 1; i < len(ts); i++ {
		if ts[i].Label != "" && ts[i-1].Label != "" {
			step = min(step, ts[i].Value-ts[i-1].Value)
		}
	}
	if math.IsInf(step, 1) {
		step = hi - lo
	}
	// The fewest decimals that keep every labelled value to a millionth
	// of the step (the ticks' floating-point error is far below that).
	decimals := 0
	for ; decimals < 15; decimals++ {
		exact := true
		for _, t := range ts {
			if t.Label != "" && math.Abs(roundTo(t.Value, decimals)-t.Value) > step*1e-6 {
				exact = false
				break
			}
		}
		if exact {
			break
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = plainNumber(roundTo(ts[i].Value, decimals))
		}
	}
	return ts
}

// roundTo is v rounded to the given decimals.
func roundTo(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	if r := math.Round(v*p) / p; !math.IsInf(r, 0) && !math.IsNaN(r) {
		return r
	}
	return v
}

// plainNumber is v in the fewest digits, without an exponent unless v is
// too large to read without one.
func plainNumber(v float64) string {
	if v == 0 {
		return "0" // never "-0"
	}
	if math.Abs(v) >= 1e12 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/searchbench/searchbench/runner/result"
)

// sweepCond is which recall a sweep's curve plots against QPS.
type sweepCond int

const (
	// condIdle: the points loaded without writes; recall is the idle
	// check's at the point's knob value (what ann-benchmarks plots).
	condIdle sweepCond = iota
	// condWrites: the points loaded under the mix's writes; recall is
	// strict recall under load against the truth that follows the writes.
	condWrites
	// condLag: the same points, recall lag-excused (KindRecall).
	condLag
)

var condNames = [...]string{"idle", "under writes", "under writes, lag-excused"}

// sweepsTitle heads the knob sweeps' sections.
const sweepsTitle = "Knob sweeps: recall against QPS"

// sweepTargets are the recall targets the QPS-at-recall table gives: the
// first is big-ann-benchmarks' headline (QPS at recall@10 ≥ 0.90).
var sweepTargets = []float64{0.90, 0.95}

// sweepXY is one sweep point of one kind: its knob value, recall and the
// kind's searches per second.
type sweepXY struct {
	value       int
	recall, qps float64
}

// sweepCurve is the points of one kind under one condition, in the
// sweep's order; a point that measured no recall or no QPS of the kind
// is not on it.
func sweepCurve(s *result.Sweep, kind string, c sweepCond) []sweepXY {
	var out []sweepXY
	for _, p := range s.Points {
		if p.Writes != (c != condIdle) {
			continue
		}
		load, ok := p.Load(kind)
		if !ok || load.QPS <= 0 {
			continue
		}
		recall, ok := pointRecall(p, kind, load, c)
		if ok {
			out = append(out, sweepXY{value: p.Value, recall: recall, qps: load.QPS})
		}
	}
	return out
}

// pointRecall is the point's recall of kind under c. The idle recall is
// looked up by kind, not by the load's recall: a load that made no check
// of the kind has no recall to name it by.
func pointRecall(p result.SweepPoint, kind string, load result.KindLoad, c sweepCond) (float64, bool) {
	switch c {
	case condIdle:
		if r, ok := p.IdleRecall(kind); ok {
			return r.Load().Recall(), true
		}
		// Without an idle check, the load without writes is the measure.
		return load.Recall.Load().Recall(), load.HasRecall
	case condWrites:
		return load.Recall.Load().Recall(), load.HasRecall
	}
	return load.Recall.LagRecall()
}

// frontier marks the points no other point dominates: none has recall and
// QPS both at least as high and one higher. They are the Pareto frontier
// ann-benchmarks draws; sorted by recall, their QPS falls.
func frontier(pts []sweepXY) []bool {
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	// By recall, highest first, then QPS: a point is on the frontier iff
	// its QPS beats every point before it (those have at least its recall),
	// or ties one of equal recall and QPS (then neither dominates).
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(pts[b].recall, pts[a].recall), cmp.Compare(pts[b].qps, pts[a].qps))
	})
	on := make([]bool, len(pts))
	best := math.Inf(-1)
	var prev sweepXY
	for n, i := range order {
		p := pts[i]
		if p.qps > best || n > 0 && on[order[n-1]] && p.recall == prev.recall && p.qps == prev.qps {
			on[i] = true
		}
		best, prev = math.Max(best, p.qps), p
	}
	return on
}

// bestAt is the point of highest QPS whose recall meets target.
func bestAt(pts []sweepXY, target float64) (sweepXY, bool) {
	var best sweepXY
	ok := false
	for _, p := range pts {
		if p.recall >= target && (!ok || p.qps > best.qps) {
			best, ok = p, true
		}
	}
	return best, ok
}

// sweepRuns is the report's runs that hold a sweep, with their colour
// index.
func (rep *Report) sweepRuns() []ladderRun {
	var out []ladderRun
	for i, r := range rep.Runs {
		if r.Sweep != nil && len(r.Sweep.Points) > 0 {
			out = append(out, ladderRun{i, r})
		}
	}
	return out
}

// sweepKinds is every kind any of runs' sweeps measured, in order.
func sweepKinds(runs []result.EngineRun) []string {
	var out []string
	for _, r := range runs {
		if r.Sweep == nil {
			continue
		}
		for _, k := range r.Sweep.Kinds() {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// sweepK is the k of the runs' recall@k, 0 when none says.
func sweepK(runs []result.EngineRun) int {
	for _, r := range runs {
		if r.Sweep == nil {
			continue
		}
		for _, p := range r.Sweep.Points {
			if p.Level != nil && p.Level.KnownItems != nil && p.Level.KnownItems.K > 0 {
				return p.Level.KnownItems.K
			}
			for _, rung := range ladderRungs(p.Ladder) {
				if rung.KnownItems != nil && rung.KnownItems.K > 0 {
					return rung.KnownItems.K
				}
			}
		}
	}
	return 0
}

func ladderRungs(l *result.Ladder) []result.Rung {
	if l == nil {
		return nil
	}
	return l.Rungs
}

// recallAtK is "recall@10", or "recall" when k is unknown.
func recallAtK(k int) string {
	if k > 0 {
		return "recall@" + strconv.Itoa(k)
	}
	return "recall"
}

// knobValue is a point's knob value in words: "ef_search=40", "default".
func knobValue(knob string, v int) string {
	switch {
	case v == 0:
		return "default"
	case knob == "":
		return strconv.Itoa(v)
	}
	return knob + "=" + strconv.Itoa(v)
}

// pointName is sweep point i in words: "ef_search=40", "ef_search=40
// under writes".
func pointName(s *result.Sweep, i int) string {
	p := s.Points[i]
	if p.Writes {
		return knobValue(s.Knob, p.Value) + " under writes"
	}
	return knobValue(s.Knob, p.Value)
}

// bestCell is the QPS-at-target table's cell for one curve.
func bestCell(knob string, pts []sweepXY, target float64) string {
	if len(pts) == 0 {
		return "—"
	}
	b, ok := bestAt(pts, target)
	if !ok {
		return "not reached"
	}
	return fmt.Sprintf("%s (%s, recall %.3f)", rate(b.qps), knobValue(knob, b.value), b.recall)
}

// sweepCharts is a recall–QPS chart per query kind, as ann-benchmarks
// draws it: recall on x, the kind's QPS on a log y axis, one colour per
// engine setup; each of its points labelled with the knob value, filled
// when on the setup's Pareto frontier and a ring when dominated, the
// frontier joined by a line (solid idle, dashed under writes).
func (rep *Report) sweepCharts() []Chart {
	runs := rep.sweepRuns()
	if len(runs) == 0 {
		return nil
	}
	k := recallAtK(sweepK(rep.EngineRuns()))
	var out []Chart
	for _, kind := range sweepKinds(rep.EngineRuns()) {
		p := newPlot("Recall against QPS: "+kind, k, kind+" searches per second")
		type curve struct {
			r   ladderRun
			c   sweepCond
			pts []sweepXY
		}
		var curves []curve
		minRecall, qps := 1.0, emptyRange()
		for _, r := range runs {
			for _, c := range []sweepCond{condIdle, condWrites} {
				pts := sweepCurve(r.run.Sweep, kind, c)
				for _, pt := range pts {
					minRecall = math.Min(minRecall, pt.recall)
					qps.widen(pt.qps)
				}
				if len(pts) > 0 {
					curves = append(curves, curve{r, c, pts})
				}
			}
		}
		if len(curves) == 0 {
			continue
		}
		qps = qps.orDefault()
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, ticks125{}
		p.Y.Min, p.Y.Max = qps[0]/logPad, qps[1]*logPad
		lo := math.Max(0, minRecall-0.05) // a linear axis: a recall of 0 is drawn
		p.X.Min, p.X.Max = lo, 1.0
		// The targets of the QPS-at-recall table, under the curves.
		for _, t := range sweepTargets {
			if t > lo {
				target := series{color: color.Gray{Y: 150}, dashed: true, xy: plotter.XYs{{X: t, Y: p.Y.Min}, {X: t, Y: p.Y.Max}}}
				target.addMarker(p)
			}
		}
		for _, c := range curves {
			drawSweepCurve(p, c.r, c.c, c.pts)
		}
		p.Legend.Top, p.Legend.Left = false, true
		out = append(out, Chart{Name: "sweep-" + kind, Title: "Knob sweep: " + k + " against QPS, " + kind,
			Note: "One colour per engine setup; each point labelled with the knob's value; grey dashed lines at the recall targets of the QPS-at-recall table. Filled points are the setup's Pareto frontier " +
				"(no other point has both higher recall and higher QPS), joined solid when idle (load without writes) and dashed under writes; rings are dominated. QPS on a log scale.",
			plot: p})
	}
	return out
}

// drawSweepCurve draws one setup's points of one condition on p.
func drawSweepCurve(p *plot.Plot, r ladderRun, c sweepCond, pts []sweepXY) {
	on := frontier(pts)
	var front, dominated plotter.XYs
	var labels []string
	var frontPts []sweepXY
	for i, pt := range pts {
		xy := plotter.XY{X: pt.recall, Y: pt.qps}
		if on[i] {
			frontPts = append(frontPts, pt)
		} else {
			dominated = append(dominated, xy)
		}
		labels = append(labels, knobValue("", pt.value))
	}
	slices.SortFunc(frontPts, func(a, b sweepXY) int { return cmp.Compare(a.recall, b.recall) })
	for _, pt := range frontPts {
		front = append(front, plotter.XY{X: pt.recall, Y: pt.qps})
	}
	col := engineColor(r.i)
	s := series{label: r.run.Label + " " + condNames[c], color: col, dashed: c != condIdle, xy: front}
	if line, points, err := plotter.NewLinePoints(front); err == nil {
		line.Color, line.Width, line.Dashes = col, vg.Points(1.5), s.lineDashes()
		points.Color, points.Shape, points.Radius = col, draw.CircleGlyph{}, vg.Points(3)
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
	}
	if len(dominated) > 0 {
		if sc, err := plotter.NewScatter(dominated); err == nil {
			sc.Color, sc.Shape, sc.Radius = col, draw.RingGlyph{}, vg.Points(3)
			p.Add(sc)
		}
	}
	xys := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xys[i] = plotter.XY{X: pt.recall, Y: pt.qps}
	}
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].Color = col
			l.TextStyle[i].Font.Size = vg.Points(8)
			l.TextStyle[i].Font.Typeface, l.TextStyle[i].Font.Variant = "Liberation", "Sans"
		}
		l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3)}
		p.Add(l)
	}
}

// sweepSections is, when any run holds a sweep, the QPS-at-recall table
// and the table of every point.
func sweepSections(runs []result.EngineRun) []Section {
	kinds := sweepKinds(runs)
	if len(kinds) == 0 {
		return nil
	}
	k := recallAtK(sweepK(runs))
	best := Section{Title: "QPS at " + k + " target"}
	var rows [][]string
	for _, r := range runs {
		if r.Sweep == nil {
			continue
		}
		for _, kind := range kinds {
			curves := [3][]sweepXY{}
			for c := range curves {
				curves[c] = sweepCurve(r.Sweep, kind, sweepCond(c))
			}
			for _, t := range sweepTargets {
				row := []string{r.Label, kind, "≥ " + strconv.FormatFloat(t, 'f', 2, 64)}
				for _, pts := range curves {
					row = append(row, bestCell(r.Sweep.Knob, pts, t))
				}
				rows = append(rows, row)
			}
		}
	}
	best.table([]string{"engine", "kind", k, "QPS idle", "QPS under writes", "QPS under writes, lag-excused"}, rows)
	best.text("The best QPS of the kind's searches among the sweep's points whose %s meets the target, with that point's knob value and recall; "+
		"\"not reached\": no point meets it; —: no point was measured so. Idle: points loaded without writes, recall from the idle check at the knob's value. "+
		"Under writes: points loaded with the mix's writes, recall under that load against a truth that follows the run's acknowledged writes — "+
		"strict (a document acknowledged before the search was sent is expected; one whose write overlaps the search is excused) and lag-excused "+
		"(a document acknowledged within the engine's measured freshness lag before the send is excused too). QPS is the kind's searches per second in the point's closed-loop level, or at its ladder's highest sustainable rung.", k)
	return []Section{best, sweepPointsSection(runs, k)}
}

// sweepPointsSection is every point of every sweep, per kind.
func sweepPointsSection(runs []result.EngineRun, k string) Section {
	sec := Section{Title: "Knob sweep points"}
	var rows [][]string
	for _, r := range runs {
		if r.Sweep == nil {
			continue
		}
		for _, kind := range r.Sweep.Kinds() {
			for _, p := range r.Sweep.Points {
				rows = append(rows, sweepPointRow(r.Label, r.Sweep.Knob, kind, p))
			}
		}
	}
	sec.table([]string{"engine", "kind", "knob", "writes", "idle " + k, k + " under load", "lag-excused", "recent misses", "lag", "QPS", "p50 ms", "p99 ms"}, rows)
	sec.text("Recent misses: of the strict misses under writes, those that were documents acknowledged within the lag before the search was sent. A knob value of default is the engine's own.")
	for _, r := range runs {
		if r.Sweep == nil {
			continue
		}
		if r.Sweep.Knob == "" {
			sec.text("%s: the engine has no search-time knob; its sweep is one point at its defaults.", r.Label)
		} else {
			sec.text("%s: knob %s.", r.Label, r.Sweep.Knob)
		}
		for i, p := range r.Sweep.Points {
			sweepPointWarnings(&sec, r.Label+", "+pointName(r.Sweep, i), p)
		}
		if r.Error != "" {
			sec.warn(r.Label, "the engine stopped early: "+r.Error)
		}
	}
	return sec
}

// sweepPointWarnings adds the warnings about a point's load: its level's,
// or its ladder's and its rungs'.
func sweepPointWarnings(sec *Section, where string, p result.SweepPoint) {
	if p.Level != nil {
		for _, w := range levelWarnings(*p.Level) {
			sec.warn(where, w)
		}
	}
	if l := p.Ladder; l != nil {
		for _, r := range l.Rungs {
			for _, w := range rungWarnings(r) {
				sec.warn(fmt.Sprintf("%s, %s/s", where, rate(r.Offered)), w)
			}
		}
		for _, w := range l.Warnings {
			sec.warn(where, w.String())
		}
	}
}

// sweepPointRow is one point's row of one kind.
func sweepPointRow(label, knob, kind string, p result.SweepPoint) []string {
	row := []string{label, kind, knobValue(knob, p.Value), "no"}
	if p.Writes {
		row[3] = "yes"
	}
	cell := func(ok bool, format string, v ...any) {
		if ok {
			row = append(row, fmt.Sprintf(format, v...))
		} else {
			row = append(row, "—")
		}
	}
	idle, ok := p.IdleRecall(kind)
	cell(ok, "%.3f", idle.Load().Recall())
	load, loaded := p.Load(kind)
	cell(load.HasRecall, "%.3f", load.Recall.Load().Recall())
	lag, ok := load.Recall.LagRecall()
	cell(ok, "%.3f", lag)
	cell(p.Writes && load.HasRecall, "%d of %d", load.Recall.RecentMisses, load.Recall.Expected-load.Recall.Found)
	cell(load.Recall.Lag > 0, "%v", load.Recall.Lag)
	cell(loaded, "%s", rate(load.QPS))
	cell(loaded, "%s", num(load.P50))
	cell(loaded, "%s", num(load.P99))
	return row
}

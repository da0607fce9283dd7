package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// Ladders writes Study B's tables for every engine run that has a ladder:
// per rung, offered and achieved rate, p50 and p99 (from the intended send
// time) with their spread across repetitions, service time, late starts,
// the generator's own lag and the engine's queue depth; then, across
// configurations, the sustainable rate and the p99 at the reference rate.
func Ladders(w io.Writer, runs []result.EngineRun) error {
	return writeSections(w, 3, ladderSections(runs))
}

// coarseStep is the step above which a ladder is flagged: the published
// method steps by ×1.19 because ×1.4 hid differences between configurations.
const coarseStep = 1.25

func ladderSections(runs []result.EngineRun) []Section {
	var ladders []result.EngineRun
	for _, r := range runs {
		if r.Ladder != nil {
			ladders = append(ladders, r)
		}
	}
	if len(ladders) == 0 {
		return nil
	}
	var out []Section
	for _, run := range ladders {
		out = append(out, ladderSection(run))
	}
	return append(append(out, sustainedSection(ladders)), studyBSections(ladders)...)
}

// ladderSection is one engine run's ladder: a row per rung, then the
// sustainable rate, and warnings about rungs, the ladder and the run.
func ladderSection(run result.EngineRun) Section {
	l := run.Ladder
	sec := Section{Title: fmt.Sprintf("%s: open-loop ladder (%s arrivals, %d workers, ×%g steps, %v × %d per rung)",
		run.Label, l.Arrival, l.Workers, l.Step, time.Duration(l.Duration), l.Repeat)}
	head := []string{"offered/s", "achieved/s", "p50 (ms)", "p99 (ms)", "p99 min–max", "p99 CV", "service p99 (ms)", "late starts", "gen lag p99 (ms)", "queue", "meets rule"}
	known := slices.ContainsFunc(l.Rungs, func(r result.Rung) bool { return r.KnownItems != nil })
	if known {
		head = append(head, "recall under load (checks)")
	}
	var rows [][]string
	for _, r := range l.Rungs {
		rows = append(rows, rungRow(r, known))
	}
	sec.table(head, rows)
	if rel := run.Relevance; known && rel != nil && rel.Queries > 0 {
		sec.text("Recall@%d idle, after pre-population: %s (%d checks); under load, per rung: the last column.", rel.K, strconv.FormatFloat(rel.Recall, 'f', 3, 64), rel.Queries)
	}
	if l.Sustainable > 0 {
		sec.text("Sustainable rate: %s/s. Rule: %s.", rate(l.Sustainable), l.Rule)
	} else {
		sec.text("Sustainable rate: none. Rule: %s.", l.Rule)
	}
	if l.StoppedEarly != "" {
		sec.text("Stopped early: %s.", l.StoppedEarly)
	}
	for _, r := range l.Rungs {
		for _, warn := range rungWarnings(r) {
			sec.warn(fmt.Sprintf("%s, %s/s", run.Label, rate(r.Offered)), warn)
		}
	}
	for _, warn := range l.Warnings {
		sec.warn(run.Label, warn.String())
	}
	if l.Step > coarseStep {
		sec.warn(run.Label, fmt.Sprintf("coarse ladder step ×%g: the sustainable rate is resolved only to within ×%g; the published method steps by ×1.19 because ×1.4 hid differences between configurations", l.Step, l.Step))
	}
	if run.Error != "" {
		sec.warn(run.Label, "the engine stopped early: "+run.Error)
	}
	return sec
}

// rungRow is one rung's row of its ladder's table; known adds the
// known-item recall column.
func rungRow(r result.Rung, known bool) []string {
	var late int64
	var lag float64
	for _, rep := range r.Reps {
		late += rep.LateStarts
		lag = math.Max(lag, rep.GeneratorLagP99)
	}
	queue := "—"
	if r.QueueDepth >= 0 {
		queue = strconv.FormatFloat(r.QueueDepth, 'f', 0, 64)
	}
	meets := "no"
	if r.Sustainable {
		meets = "yes"
	}
	if len(rungWarnings(r)) > 0 {
		meets += " ⚠"
	}
	row := []string{
		rate(r.Offered), rate(r.Achieved), num(r.P50), num(r.P99),
		num(r.P99Min) + "–" + num(r.P99Max), strconv.FormatFloat(r.P99CV, 'f', 2, 64),
		num(r.ServiceP99), strconv.FormatInt(late, 10), num(lag), queue, meets,
	}
	if known {
		row = append(row, knownCell(r.KnownItems))
	}
	return row
}

// sustainedSection is Study B's summary layout across configurations:
// setup | sustained rate | p99 at the reference.
func sustainedSection(ladders []result.EngineRun) Section {
	sec := Section{Title: "Sustained rates"}
	var rows [][]string
	for _, run := range ladders {
		l := run.Ladder
		ref, p99 := "—", "—"
		if r, ok := referenceRung(*l); ok {
			ref, p99 = rate(r.Offered), num(r.P99)
		}
		rows = append(rows, []string{run.Label, rate(l.Sustainable), ref, p99})
	}
	sec.table([]string{"setup", "sustained/s", "reference/s", "p99 at reference (ms)"}, rows)
	for _, warn := range stepWarnings(ladders) {
		sec.warn("", warn)
	}
	return sec
}

// rungWarnings is the runner's warnings about a rung and a derived one for
// repetitions that stopped early.
func rungWarnings(r result.Rung) []string {
	out := r.Warnings.Texts()
	for _, rep := range r.Reps {
		if w, ok := saturationWarning(rep.EngineStats); ok {
			out = append(out, w)
			break
		}
	}
	for i, rep := range r.Reps {
		if rep.Partial {
			out = append(out, fmt.Sprintf("rep %d is partial: it did not run its whole schedule", i+1))
		}
	}
	return out
}

// stepWarnings flags pairs of configurations whose sustainable rates differ
// by less than one ladder step: the ladder cannot resolve that difference.
func stepWarnings(runs []result.EngineRun) []string {
	var out []string
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			a, b := runs[i].Ladder, runs[j].Ladder
			if a.Sustainable == 0 || b.Sustainable == 0 || a.Sustainable == b.Sustainable {
				continue
			}
			ratio := math.Max(a.Sustainable, b.Sustainable) / math.Min(a.Sustainable, b.Sustainable)
			if step := math.Max(a.Step, b.Step); ratio < step*1.0001 {
				out = append(out, fmt.Sprintf("%s and %s differ by ×%.3f, within one ladder step (×%g): the difference is not resolved; use a finer step",
					runs[i].Label, runs[j].Label, ratio, step))
			}
		}
	}
	return out
}

// referenceRung is the rung nearest the ladder's reference rate.
func referenceRung(l result.Ladder) (result.Rung, bool) {
	best, ok := result.Rung{}, false
	for _, r := range l.Rungs {
		if !ok || math.Abs(math.Log(r.Offered/l.Reference)) < math.Abs(math.Log(best.Offered/l.Reference)) {
			best, ok = r, true
		}
	}
	return best, ok
}

func rate(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// num formats milliseconds with about three significant digits.
func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

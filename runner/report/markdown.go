package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// document is the report's sections, grouped as every format shows them.
type document struct {
	runs, engines Section
	closed        []Section
	summary       *Section
	ladders       []Section
}

func (rep *Report) document() document {
	runs := rep.EngineRuns()
	d := document{runs: rep.runsSection(), engines: rep.enginesSection(), closed: closedSections(runs), ladders: ladderSections(runs)}
	if s, ok := summarySection(runs); ok {
		d.summary = &s
	}
	return d
}

// all is every section in the order shown.
func (d document) all() []Section {
	out := []Section{d.runs, d.engines}
	out = append(out, d.closed...)
	if d.summary != nil {
		out = append(out, *d.summary)
	}
	return append(out, d.ladders...)
}

// Warnings is every warning in the report: the runner's and the ones the
// report derives (failed calls, partial runs, coarse steps…).
func (rep *Report) Warnings() []Warning { return Warnings(rep.document().all()) }

// Markdown writes the whole report: runs, engines, Study A's per-level and
// summary tables, Study B's ladder and sustained-rate tables, each with the
// warnings about its figures right after it.
func (rep *Report) Markdown(w io.Writer) error {
	d := rep.document()
	var b strings.Builder
	b.WriteString("# searchbench results\n\n")
	if err := writeSections(&b, 2, []Section{d.runs, d.engines}); err != nil {
		return err
	}
	if len(d.closed) > 0 {
		b.WriteString("\n## Closed loop: mixed workload by users (Study A layout)\n\n")
		closed := d.closed
		if d.summary != nil {
			closed = append(closed[:len(closed):len(closed)], *d.summary)
		}
		if err := writeSections(&b, 3, closed); err != nil {
			return err
		}
	}
	if len(d.ladders) > 0 {
		b.WriteString("\n## Open loop: rate ladders (Study B layout)\n\n")
		if err := writeSections(&b, 3, d.ladders); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// runsSection lists the inputs and warns about partial runs.
func (rep *Report) runsSection() Section {
	sec := Section{Title: "Runs"}
	var rows [][]string
	for _, in := range rep.Inputs {
		r := in.Result
		status := "complete"
		if r.Partial {
			status = "partial: " + r.Reason
		}
		rows = append(rows, []string{
			in.Name, r.StartedAt.UTC().Format(time.DateTime),
			r.FinishedAt.Sub(r.StartedAt).Round(time.Second).String(),
			r.Tool.Version, r.Config.Mix, strconv.FormatUint(r.Config.Seed, 10), shortHash(r.Corpus.Hash), status,
		})
	}
	sec.table([]string{"run", "started (UTC)", "took", "searchbench", "mix", "seed", "corpus", "status"}, rows)
	for _, in := range rep.Inputs {
		if in.Result.Partial {
			sec.warn(in.Name, "partial run ("+in.Result.Reason+"): figures are what was measured before it stopped")
		}
		for _, w := range in.Result.Warnings {
			sec.warn(in.Name, w)
		}
	}
	return sec
}

// enginesSection lists every column's engine: what ran, where, and how the
// pre-population went.
func (rep *Report) enginesSection() Section {
	sec := Section{Title: "Engines"}
	var rows [][]string
	for _, r := range rep.Runs {
		image := r.Image
		if r.ImageDigest != "" {
			image += "@" + r.ImageDigest
		}
		cpu := "—"
		if r.CPULimit > 0 {
			cpu = strconv.FormatFloat(r.CPULimit, 'g', -1, 64)
		}
		if r.CPUSet != "" {
			cpu += " (cpuset " + r.CPUSet + ")"
		}
		rows = append(rows, []string{
			r.Label, r.Name, r.Mode, dash(r.Version), r.Visibility, dash(image), cpu,
			fmt.Sprintf("%d docs, %.0f/s", r.Preload.Documents, r.Preload.DocsPerS),
		})
	}
	sec.table([]string{"column", "engine", "mode", "version", "writes", "image", "CPU limit", "pre-populated"}, rows)
	for _, r := range rep.Runs {
		if r.Error != "" {
			sec.warn(r.Label, "the engine stopped early: "+r.Error)
		}
		if r.Preload.Errors > 0 {
			sec.warn(r.Label, fmt.Sprintf("pre-population had %d failed writes", r.Preload.Errors))
		}
		if r.Preload.Count >= 0 && !r.Preload.CountOK && r.Preload.Documents > 0 {
			sec.warn(r.Label, fmt.Sprintf("after pre-population the engine counts %d documents, not %d", r.Preload.Count, r.Preload.Documents))
		}
		for _, w := range r.Warnings {
			sec.warn(r.Label, w)
		}
	}
	return sec
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// shortHash keeps a hash recognisable in a table; the HTML shows it whole.
func shortHash(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+13 {
		return h[:i+13]
	}
	return h
}

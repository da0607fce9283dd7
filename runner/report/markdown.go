package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// document is the report's sections, grouped as every format shows them.
type document struct {
	runs, engines Section
	shards        []Section // a merged run's shards
	config        Section
	closed        []Section
	summary       *Section
	ladders       []Section
	kinds         []Section // the product workload's figures by query kind
	sweeps        []Section // knob sweeps: QPS at a recall target, every point
}

func (rep *Report) document() document {
	runs := rep.EngineRuns()
	d := document{runs: rep.runsSection(), engines: rep.enginesSection(), config: rep.configSection(), shards: rep.shardSections(), closed: closedSections(runs), ladders: ladderSections(runs), kinds: kindSections(runs), sweeps: sweepSections(runs)}
	if s, ok := summarySection(runs); ok {
		d.summary = &s
	}
	return d
}

// all is every section in the order shown.
func (d document) all() []Section {
	out := append([]Section{d.runs}, d.shards...)
	out = append(out, d.engines, d.config)
	out = append(out, d.closed...)
	if d.summary != nil {
		out = append(out, *d.summary)
	}
	out = append(out, d.ladders...)
	out = append(out, d.kinds...)
	return append(out, d.sweeps...)
}

// Warnings is every warning in the report: the runner's and the ones the
// report derives (failed calls, partial runs, coarse steps…).
func (rep *Report) Warnings() []Warning { return Warnings(rep.document().all()) }

// Markdown writes the whole report: runs, engines, Study A's per-level and
// summary tables, Study B's ladder and sustained-rate tables, and, for the
// product workload, latency and recall against exact answers by query kind,
// each with the warnings about its figures right after it.
func (rep *Report) Markdown(w io.Writer) error {
	d := rep.document()
	var b strings.Builder
	b.WriteString("# " + rep.title() + "\n\n")
	head := append(append([]Section{d.runs}, d.shards...), d.engines, d.config)
	if err := writeSections(&b, 2, head); err != nil {
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
	if len(d.kinds) > 0 {
		b.WriteString("\n## " + kindsTitle + "\n\n")
		if err := writeSections(&b, 3, d.kinds); err != nil {
			return err
		}
	}
	if len(d.sweeps) > 0 {
		b.WriteString("\n## " + sweepsTitle + "\n\n")
		if err := writeSections(&b, 3, d.sweeps); err != nil {
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
		rows = append(rows, []string{
			in.Name, r.StartedAt.UTC().Format(time.DateTime),
			r.FinishedAt.Sub(r.StartedAt).Round(time.Second).String(),
			r.Tool.Version, r.Config.Mix, strconv.FormatUint(r.Config.Seed, 10), shortHash(r.Corpus.Hash), runStatus(r),
		})
	}
	sec.table([]string{"run", "started (UTC)", "took", "searchbench", "mix", "seed", "corpus", "status"}, rows)
	for _, in := range rep.Inputs {
		if in.Result.Partial {
			sec.warn(in.Name, "partial run ("+in.Result.Reason+"): figures are what was measured before it stopped")
		}
		for _, w := range in.Result.Warnings {
			sec.warn(in.Name, w.String())
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
			sec.warn(r.Label, w.String())
		}
	}
	return sec
}

// configSection is each input's configuration, corpus and load generator:
// what it takes to run it again and to judge whether two runs compare.
func (rep *Report) configSection() Section {
	sec := Section{Title: "Configuration"}
	head := []string{""}
	for _, in := range rep.Inputs {
		head = append(head, in.Name)
	}
	rows := [][]string{}
	row := func(label string, f func(r *result.Result) string) {
		cells := []string{label}
		for _, in := range rep.Inputs {
			cells = append(cells, dash(f(in.Result)))
		}
		rows = append(rows, cells)
	}
	d := func(v result.Duration) string {
		if v == 0 {
			return ""
		}
		return time.Duration(v).String()
	}
	row("engines", func(r *result.Result) string { return strings.Join(r.Config.Engines, ", ") })
	row("users", func(r *result.Result) string { return joinInts(r.Config.Users) })
	row("mix (% of calls)", func(r *result.Result) string { return r.Config.Mix })
	row("seed", func(r *result.Result) string { return strconv.FormatUint(r.Config.Seed, 10) })
	row("spawn rate (users/s)", func(r *result.Result) string { return fmtFloat(r.Config.SpawnRate) })
	row("settle", func(r *result.Result) string { return d(r.Config.Settle) })
	row("measure", func(r *result.Result) string { return d(r.Config.Measure) })
	row("request timeout", func(r *result.Result) string { return d(r.Config.RequestTimeout) })
	row("hits per search (k)", func(r *result.Result) string { return fmtFloat(float64(r.Config.K)) })
	row("write mode", func(r *result.Result) string { return r.Config.WriteMode })
	row("histograms", func(r *result.Result) string { return r.Config.Histogram })
	row("corpus", func(r *result.Result) string {
		c := r.Corpus
		return fmt.Sprintf("%s, seed %d, %d IDs, %d pre-populated (%g)", c.Generator, c.Seed, c.IDs, c.Prepopulated, c.Prepopulate)
	})
	row("corpus hash", func(r *result.Result) string { return r.Corpus.Hash })
	// The product corpus's: a text corpus's report has neither row.
	if slices.ContainsFunc(rep.Inputs, func(in Input) bool { return in.Result.Corpus.Queries != "" }) {
		row("query mix (weights)", func(r *result.Result) string { return r.Corpus.Queries })
	}
	if slices.ContainsFunc(rep.Inputs, func(in Input) bool { return in.Result.GroundTruth != nil }) {
		row("exact answers (ground truth)", func(r *result.Result) string { return groundTruthCell(r.GroundTruth) })
	}
	row("searchbench", func(r *result.Result) string { return r.Tool.Version + " (" + r.Tool.GoVersion + ")" })
	row("load generator", func(r *result.Result) string {
		h := r.Host
		s := fmt.Sprintf("%s/%s, %d CPUs (GOMAXPROCS %d) %s", h.OS, h.Arch, h.CPUs, h.GOMAXPROCS, h.CPUModel)
		if len(r.Shards) > 0 {
			s += fmt.Sprintf(" (the first shard's, of %d; see Shards)", len(r.Shards))
		}
		return s
	})
	sec.table(head, rows)
	return sec
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func fmtFloat(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
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

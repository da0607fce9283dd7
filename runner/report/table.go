// Package report renders results: it reads the result types only and never
// re-runs anything, so any past run can be rendered again.
package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// column is one engine (or configuration) at one user level.
type column struct {
	label     string
	level     result.Level
	relevance *result.Relevance
}

// levelsByUsers groups the levels of every engine run by user count, in
// ascending order of users.
func levelsByUsers(runs []result.EngineRun) ([]int, map[int][]column) {
	byUsers := map[int][]column{}
	for _, run := range runs {
		for _, l := range run.Levels {
			byUsers[l.Users] = append(byUsers[l.Users], column{label: run.Label, level: l, relevance: run.Relevance})
		}
	}
	users := make([]int, 0, len(byUsers))
	for u := range byUsers {
		users = append(users, u)
	}
	sort.Ints(users)
	return users, byUsers
}

// Tables writes, for each user level, the published study's table (rows:
// p50 per operation, p95 per operation, RPS per operation, total RPS; one
// column per engine), followed by the tails and errors the study did not
// show, and every warning about the level's figures.
func Tables(w io.Writer, runs []result.EngineRun) error {
	return writeSections(w, 3, closedSections(runs))
}

// closedSections is one section per user level.
func closedSections(runs []result.EngineRun) []Section {
	users, byUsers := levelsByUsers(runs)
	ops := opsOf(runs)
	var out []Section
	for _, u := range users {
		cols := byUsers[u]
		sec := Section{Title: fmt.Sprintf("%d users", u)}
		sec.table(header(cols), headlineRows(cols, ops))
		sec.table(header(cols), detailRows(cols, ops))
		for _, c := range cols {
			where := fmt.Sprintf("%s, %d users", c.label, u)
			for _, warn := range levelWarnings(c.level) {
				sec.warn(where, warn)
			}
		}
		for _, run := range runs {
			if run.Error != "" && !hasLevel(run, u) && len(run.Levels) > 0 {
				sec.warn(run.Label, fmt.Sprintf("no %d-user level: the engine stopped early: %s", u, run.Error))
			}
		}
		out = append(out, sec)
	}
	return out
}

// headlineRows are a level's first table: each operation's p50, p95 and
// rate, and the total rate.
func headlineRows(cols []column, ops []string) [][]string {
	var rows [][]string
	rows = append(rows, opRows(cols, ops, " p50 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P50) })...)
	rows = append(rows, opRows(cols, ops, " p95 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P95) })...)
	rows = append(rows, opRows(cols, ops, " RPS", func(s result.OpStats) string { return rps(s.RPS) })...)
	total := []string{"Total RPS"}
	for _, c := range cols {
		total = append(total, rps(c.level.TotalRPS))
	}
	return append(rows, total)
}

// detailRows are a level's second table: each operation's p99, count,
// errors and misses, and the rows that say how far to trust the figures.
func detailRows(cols []column, ops []string) [][]string {
	var rows [][]string
	rows = append(rows, opRows(cols, ops, " p99 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P99) })...)
	rows = append(rows, opRows(cols, ops, " count", func(s result.OpStats) string { return strconv.FormatInt(s.Count, 10) })...)
	rows = append(rows, opRows(cols, ops, " errors", errorCell)...)
	// Where a miss is done (delete, get), its count is in the
	// operation's count, not in its errors: shown apart.
	for _, op := range ops {
		if notFoundDone(cols, op) {
			rows = append(rows, opRow(cols, op, op+" not found", func(s result.OpStats) string { return strconv.FormatInt(s.NotFound, 10) }))
		}
	}
	return append(rows, trustRows(cols)...)
}

// opRows is a row per operation of ops, labelled with the operation and
// suffix, of the figure f gives.
func opRows(cols []column, ops []string, suffix string, f func(result.OpStats) string) [][]string {
	rows := make([][]string, 0, len(ops))
	for _, op := range ops {
		rows = append(rows, opRow(cols, op, op+suffix, f))
	}
	return rows
}

// opRow is the row labelled label of op's figure f in each column: "—"
// where the column's level has no such operation.
func opRow(cols []column, op, label string, f func(result.OpStats) string) []string {
	row := []string{label}
	for _, c := range cols {
		s, ok := c.level.Op(op)
		if !ok {
			row = append(row, "—")
			continue
		}
		row = append(row, f(s))
	}
	return row
}

// notFoundDone says whether op's misses count as done in any column.
func notFoundDone(cols []column, op string) bool {
	for _, c := range cols {
		if s, ok := c.level.Op(op); ok && s.NotFoundDone {
			return true
		}
	}
	return false
}

func hasLevel(run result.EngineRun, users int) bool {
	for _, l := range run.Levels {
		if l.Users == users {
			return true
		}
	}
	return false
}

// levelWarnings is the runner's warnings about a level and the ones the
// report derives from its figures: failed calls and a cut-short window.
func levelWarnings(l result.Level) []string {
	out := l.Warnings.Texts()
	var failed int64
	var parts []string
	for _, o := range l.Ops {
		if n := o.ErrorCount(); n > 0 {
			failed += n
			parts = append(parts, o.Op+": "+errorCell(o))
		}
	}
	if failed > 0 {
		out = append(out, fmt.Sprintf("%d failed calls (%s): failures are kept out of the latencies, and RPS counts successes only", failed, strings.Join(parts, "; ")))
	}
	if l.Partial {
		out = append(out, partialWarning(l))
	}
	if a := l.Active; a != nil && a.Min < l.Users {
		out = append(out, fmt.Sprintf("only %d of the %d users were running at some point in the window (%s on average): the figures are of fewer users than the level's", a.Min, l.Users, meanUsers(a.Mean)))
	}
	if w, ok := saturationWarning(l.EngineStats); ok {
		out = append(out, w)
	}
	return out
}

// partialWarning says how long a cut-short level measured; a level merged
// from shards says which shard stopped when, and that each shard's rates
// are over its own window.
func partialWarning(l result.Level) string {
	round := func(d result.Duration) string { return time.Duration(d).Round(time.Millisecond).String() }
	var stopped, whole []string
	var full result.Duration
	for _, w := range l.ShardWindows {
		if w.Partial {
			stopped = append(stopped, fmt.Sprintf("shard %d stopped after %s", w.Shard, round(w.Window)))
		} else {
			whole = append(whole, strconv.Itoa(w.Shard))
			full = max(full, w.Window)
		}
	}
	if len(stopped) == 0 {
		return fmt.Sprintf("partial level: measured for %s only", round(l.Window))
	}
	msg := "partial level: " + strings.Join(stopped, ", ")
	if len(whole) > 0 {
		msg += fmt.Sprintf("; shard(s) %s measured for %s", strings.Join(whole, ", "), round(full))
	}
	return msg + "; each shard's rates are its calls over its own window"
}

// The Valkey driver's names for searches whose total reached
// valkey-search's max-nonvector-search-results-fetched, and for that cap
// (engines/valkey: SaturatedStat, MaxResultsStat).
const (
	saturatedStat  = "search_total_saturated"
	maxResultsStat = "max_nonvector_results"
)

// saturationWarning says when searches' totals stopped at the engine's cap
// during the window: those totals are floors, not counts.
func saturationWarning(stats map[string]result.Gauge) (string, bool) {
	g, ok := stats[saturatedStat]
	if !ok || g.PerSecond <= 0 {
		return "", false
	}
	return fmt.Sprintf("about %.3g searches/s returned a total at valkey-search's cap (max-nonvector-search-results-fetched %.0f): those totals are capped counts, not the number of documents matched, and each such search collected that many keys whatever its k",
		g.PerSecond, stats[maxResultsStat].Last), true
}

// Summary writes the published summary table: one row per (users,
// operation), the p50 of each engine in a column.
func Summary(w io.Writer, runs []result.EngineRun) error {
	sec, ok := summarySection(runs)
	if !ok {
		return nil
	}
	return writeSections(w, 3, []Section{sec})
}

func summarySection(runs []result.EngineRun) (Section, bool) {
	users, _ := levelsByUsers(runs)
	if len(users) == 0 {
		return Section{}, false
	}
	head := []string{"users", "operation"}
	for _, r := range runs {
		if len(r.Levels) > 0 {
			head = append(head, r.Label)
		}
	}
	var rows [][]string
	for _, u := range users {
		for _, op := range opsOf(runs) {
			row := []string{strconv.Itoa(u), op}
			for _, r := range runs {
				if len(r.Levels) == 0 {
					continue
				}
				cell := "—"
				for _, l := range r.Levels {
					if s, ok := l.Op(op); ok && l.Users == u {
						cell = ms(s, s.Latency.P50)
					}
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
	}
	sec := Section{Title: "Summary: p50 (ms) by users and operation"}
	sec.table(head, rows)
	return sec, true
}

// header is the columns' labels; a column whose figures the harness may
// have set (a client-bound level) is marked, the warning under the table
// says why.
func header(cols []column) []string {
	h := []string{""}
	for _, c := range cols {
		label := c.label
		if c.level.ClientBound() {
			label += " ⚠"
		}
		h = append(h, label)
	}
	return h
}

// trustRows are the figures that say whether the others can be trusted:
// how long acknowledged writes took to become searchable (the freshness
// probe), recall@k of known-item searches, and the harness's own load.
func trustRows(cols []column) [][]string {
	row := func(label string, f func(c column) string) []string {
		r := []string{label}
		for _, c := range cols {
			r = append(r, f(c))
		}
		return r
	}
	fresh := func(q func(result.Latency) float64) func(column) string {
		return func(c column) string {
			if f := c.level.Freshness; f != nil && f.Visible > 0 {
				return num(q(f.Lag))
			}
			return "—"
		}
	}
	k := 10
	for _, c := range cols {
		if c.relevance != nil {
			k = c.relevance.K
		}
	}
	return [][]string{
		row("upsert visible p50 (ms)", fresh(func(l result.Latency) float64 { return l.P50 })),
		row("upsert visible p95 (ms)", fresh(func(l result.Latency) float64 { return l.P95 })),
		row("writes probed (seen)", func(c column) string {
			if f := c.level.Freshness; f != nil {
				return fmt.Sprintf("%d (%d)", f.Probes, f.Visible)
			}
			return "—"
		}),
		row(fmt.Sprintf("recall@%d idle (known items)", k), func(c column) string {
			if r := c.relevance; r != nil && r.Queries > 0 {
				return strconv.FormatFloat(r.Recall, 'f', 3, 64)
			}
			return "—"
		}),
		row(fmt.Sprintf("recall@%d under load (checks)", k), func(c column) string { return knownCell(c.level.KnownItems) }),
		row("checks empty, total < hits", func(c column) string { return knownFaults(c.level.KnownItems) }),
		row("users running mean (min)", func(c column) string { return activeCell(c.level) }),
		row("client CPU", func(c column) string { return strconv.FormatFloat(100*c.level.ClientCPU, 'f', 0, 64) + "%" }),
		row("client scheduler p99 (ms)", func(c column) string { return num(c.level.SchedLatencyP99) }),
	}
}

// activeCell is the users running over the window, time-weighted mean
// and minimum: "—" where the result does not say (an older searchbench);
// ⚠ when some of the level's users were not running for part of it.
func activeCell(l result.Level) string {
	a := l.Active
	if a == nil {
		return "—"
	}
	cell := fmt.Sprintf("%s (%d)", meanUsers(a.Mean), a.Min)
	if a.Min < l.Users {
		cell += " ⚠"
	}
	return cell
}

// meanUsers is a mean number of users to a tenth.
func meanUsers(v float64) string { return strconv.FormatFloat(math.Round(10*v)/10, 'f', -1, 64) }

// knownCell is recall under load and the checks it is over: "—" without
// checks; ⚠ when it is below the idle recall beyond sampling (the
// warnings say by how much).
func knownCell(k *result.KnownItems) string {
	if k == nil || k.Checks == 0 {
		return "—"
	}
	cell := fmt.Sprintf("%s (%d)", strconv.FormatFloat(k.Recall, 'f', 3, 64), k.Checks)
	if len(k.Warnings()) > 0 {
		cell += " ⚠"
	}
	return cell
}

// knownFaults is the checks' empty answers and answers whose total was
// below their hits.
func knownFaults(k *result.KnownItems) string {
	if k == nil || k.Checks == 0 {
		return "—"
	}
	return fmt.Sprintf("%d, %d", k.Empty, k.TotalBelowHits)
}

func errorCell(s result.OpStats) string {
	if len(s.Errors) == 0 {
		return "0"
	}
	classes := make([]string, 0, len(s.Errors))
	for c := range s.Errors {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%d %s", s.Errors[c], c)
	}
	return strings.Join(parts, ", ")
}

// ms formats a latency; "—" when the operation never succeeded.
func ms(s result.OpStats, v float64) string {
	if s.Count == 0 {
		return "—"
	}
	return num(v)
}

func rps(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// writeTable writes an aligned Markdown table: readable as text and as
// Markdown alike.
func writeTable(b *strings.Builder, head []string, rows [][]string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				fmt.Fprintf(b, " %s%s |", c, pad)
			} else {
				fmt.Fprintf(b, " %s%s |", pad, c)
			}
		}
		b.WriteString("\n")
	}
	line(head)
	b.WriteString("|")
	for i, wd := range width {
		if i == 0 {
			b.WriteString(" " + strings.Repeat("-", wd) + " |")
		} else {
			b.WriteString(" " + strings.Repeat("-", wd-1) + ": |")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
}

// Package report renders results: it reads the result types only and never
// re-runs anything, so any past run can be rendered again.
package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/runner/result"
)

var tableOps = []string{"search", "upsert", "delete"}

// column is one engine (or configuration) at one user level.
type column struct {
	label string
	level result.Level
}

// levelsByUsers groups the levels of every engine run by user count, in
// ascending order of users.
func levelsByUsers(runs []result.EngineRun) ([]int, map[int][]column) {
	byUsers := map[int][]column{}
	for _, run := range runs {
		for _, l := range run.Levels {
			byUsers[l.Users] = append(byUsers[l.Users], column{label: run.Label, level: l})
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
// show.
func Tables(w io.Writer, runs []result.EngineRun) error {
	users, byUsers := levelsByUsers(runs)
	var b strings.Builder
	for i, u := range users {
		cols := byUsers[u]
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %d users\n\n", u)
		rows := [][]string{}
		stat := func(label string, f func(result.OpStats) string, op string) {
			row := []string{label}
			for _, c := range cols {
				s, ok := c.level.Op(op)
				if !ok {
					row = append(row, "—")
					continue
				}
				row = append(row, f(s))
			}
			rows = append(rows, row)
		}
		for _, op := range tableOps {
			stat(op+" p50 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P50) }, op)
		}
		for _, op := range tableOps {
			stat(op+" p95 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P95) }, op)
		}
		for _, op := range tableOps {
			stat(op+" RPS", func(s result.OpStats) string { return rps(s.RPS) }, op)
		}
		total := []string{"Total RPS"}
		for _, c := range cols {
			total = append(total, rps(c.level.TotalRPS))
		}
		rows = append(rows, total)
		writeTable(&b, header(cols), rows)

		b.WriteString("\n")
		rows = rows[:0]
		for _, op := range tableOps {
			stat(op+" p99 (ms)", func(s result.OpStats) string { return ms(s, s.Latency.P99) }, op)
		}
		for _, op := range tableOps {
			stat(op+" count", func(s result.OpStats) string { return strconv.FormatInt(s.Count, 10) }, op)
		}
		for _, op := range tableOps {
			stat(op+" errors", errorCell, op)
		}
		stat("delete not found", func(s result.OpStats) string { return strconv.FormatInt(s.NotFound, 10) }, "delete")
		writeTable(&b, header(cols), rows)
		for _, c := range cols {
			for _, warn := range c.level.Warnings {
				fmt.Fprintf(&b, "\n> warning (%s, %d users): %s\n", c.label, u, warn)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func header(cols []column) []string {
	h := []string{""}
	for _, c := range cols {
		h = append(h, c.label)
	}
	return h
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

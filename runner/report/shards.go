package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// shardNote says what a result is in a sharded run: merged from N shards,
// one shard of N, or "" for a run on one machine.
func shardNote(r *result.Result) string {
	switch {
	case len(r.Shards) > 0:
		note := fmt.Sprintf("one run merged from %d shards", len(r.Shards))
		if n := missingShards(r); n > 0 {
			note += fmt.Sprintf(" (%d missing)", n)
		}
		return note
	case r.Shard != nil:
		return fmt.Sprintf("shard %d of %d", r.Shard.Index, r.Shard.Count)
	}
	return ""
}

func missingShards(r *result.Result) int {
	n := 0
	for _, s := range r.Shards {
		if s.Missing {
			n++
		}
	}
	return n
}

// title is the report's heading: a report of one sharded result says so.
// title is the report's title: tables.md's first line and the page's.
const title = "searchbench results"

func (rep *Report) title() string {
	if len(rep.Inputs) == 1 {
		if note := shardNote(rep.Inputs[0].Result); note != "" {
			return title + ": " + note
		}
	}
	return title
}

// shardSections is, for each merged input, its shards: each one's host,
// throughput at each level or rung, and how its starts lined up with the
// coordinator's.
func (rep *Report) shardSections() []Section {
	var out []Section
	for _, in := range rep.Inputs {
		r := in.Result
		if len(r.Shards) == 0 {
			continue
		}
		title := "Shards"
		if len(rep.Inputs) > 1 {
			title = "Shards of " + in.Name
		}
		out = append(out, shardSection(title, r))
	}
	return out
}

// shardSection is one merged result's shards table: a row per shard, a
// column per closed-loop level and per rung, then its start's timing and
// status.
func shardSection(title string, r *result.Result) Section {
	sec := Section{Title: title}
	sec.text("%s: each shard's own throughput (its users or offered rate in brackets; ⚠ where it stopped before the window's end, over its own shorter window); offset is its clock's estimated offset from the coordinator's (within ±RTT/2), late how long after the agreed instant its load began.", shardNote(r))
	head, cols := shardColumns(r)
	var rows [][]string
	var warns []Warning
	for _, s := range r.Shards {
		row := []string{strconv.Itoa(s.Index), dash(s.Hostname)}
		if s.Missing {
			for range len(head) - 3 {
				row = append(row, "—")
			}
			rows = append(rows, append(row, "missing"))
			warns = append(warns, Warning{fmt.Sprintf("shard %d", s.Index), "missing: no result from this shard reached the merge; the figures are the other shards'"})
			continue
		}
		for _, c := range cols {
			row = append(row, c.cell(s))
		}
		status := "complete"
		if s.Partial {
			status = "partial: " + s.Reason
			warns = append(warns, Warning{fmt.Sprintf("shard %d", s.Index), "partial: " + s.Reason})
		}
		rows = append(rows, append(row, startCells(s.Starts, status)...))
	}
	sec.table(head, rows)
	for _, w := range warns {
		sec.warn(w.Where, w.Text)
	}
	return sec
}

// shardCol is one column of the shards table: an engine's closed-loop
// level or ladder rung, within a sweep point (from 1) or not (0).
type shardCol struct {
	engine  string
	level   int
	windows []result.ShardWindow // a closed-loop level's
	point   int
}

// shardColumns is the shards table's head and its level and rung columns.
func shardColumns(r *result.Result) ([]string, []shardCol) {
	head := []string{"shard", "host"}
	var cols []shardCol
	add := func(label, at string, levels []result.Level, ladder *result.Ladder, point int) {
		for j, l := range levels {
			head = append(head, fmt.Sprintf("%s%s %d users: RPS", label, at, l.Users))
			cols = append(cols, shardCol{label, j, l.ShardWindows, point})
		}
		for j, g := range ladderRungs(ladder) {
			head = append(head, fmt.Sprintf("%s%s %s/s: achieved", label, at, rate(g.Offered)))
			cols = append(cols, shardCol{label, j, nil, point})
		}
	}
	for _, e := range r.Engines {
		e.Loads(func(point int, levels []result.Level, ladder *result.Ladder) {
			at := ""
			if point > 0 {
				at = " " + pointName(e.Sweep, point-1)
			}
			add(e.Label, at, levels, ladder, point)
		})
	}
	head = append(head, "max abs(offset) (ms)", "max RTT (ms)", "max late (ms)", "status")
	return head, cols
}

// cell is a shard's throughput in the column, with its users or offered
// rate, and a mark where it stopped before the window's end.
func (c shardCol) cell(s result.ShardSummary) string {
	cell := "—"
	for _, l := range s.Levels {
		if l.Engine != c.engine || l.Level != c.level || l.Point != c.point {
			continue
		}
		if l.Offered > 0 {
			cell = fmt.Sprintf("%s (%s/s)", rps(l.TotalRPS), rate(l.Offered))
		} else {
			cell = fmt.Sprintf("%s (%d)", rps(l.TotalRPS), l.Users)
		}
	}
	for _, w := range c.windows {
		if w.Shard == s.Index && w.Partial {
			cell += fmt.Sprintf(" ⚠ stopped after %v", time.Duration(w.Window).Round(time.Millisecond))
		}
	}
	return cell
}

// startCells are a shard's last four cells: the largest clock offset,
// round trip and late start over its starts, and its status.
func startCells(starts []result.ShardStart, status string) []string {
	if len(starts) == 0 {
		return []string{"—", "—", "—", status}
	}
	var offset, rtt, late time.Duration
	for _, st := range starts {
		offset = max(offset, time.Duration(st.Offset).Abs())
		rtt, late = max(rtt, time.Duration(st.RTT)), max(late, time.Duration(st.Late))
	}
	return []string{durMS(offset), durMS(rtt), durMS(late), status}
}

func durMS(d time.Duration) string { return num(float64(d) / float64(time.Millisecond)) }

// runStatus is an input's status cell: complete or partial, and its place
// in a sharded run.
func runStatus(r *result.Result) string {
	status := "complete"
	if r.Partial {
		status = "partial: " + r.Reason
	}
	if note := shardNote(r); note != "" {
		status = note + "; " + status
	}
	return strings.TrimSpace(status)
}

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
func (rep *Report) title() string {
	const title = "searchbench results"
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
		sec := Section{Title: "Shards"}
		if len(rep.Inputs) > 1 {
			sec.Title = "Shards of " + in.Name
		}
		sec.text("%s: each shard's own throughput (its users or offered rate in brackets; ⚠ where it stopped before the window's end, over its own shorter window); offset is its clock's estimated offset from the coordinator's (within ±RTT/2), late how long after the agreed instant its load began.", shardNote(r))
		type col struct {
			engine  string
			level   int
			windows []result.ShardWindow // a closed-loop level's
		}
		head := []string{"shard", "host"}
		var cols []col
		for _, e := range r.Engines {
			for j, l := range e.Levels {
				head = append(head, fmt.Sprintf("%s %d users: RPS", e.Label, l.Users))
				cols = append(cols, col{e.Label, j, l.ShardWindows})
			}
			if e.Ladder != nil {
				for j, g := range e.Ladder.Rungs {
					head = append(head, fmt.Sprintf("%s %s/s: achieved", e.Label, rate(g.Offered)))
					cols = append(cols, col{e.Label, j, nil})
				}
			}
		}
		head = append(head, "max abs(offset) (ms)", "max RTT (ms)", "max late (ms)", "status")
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
				cell := "—"
				for _, l := range s.Levels {
					if l.Engine != c.engine || l.Level != c.level {
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
				row = append(row, cell)
			}
			var offset, rtt, late time.Duration
			for _, st := range s.Starts {
				offset = max(offset, time.Duration(st.Offset).Abs())
				rtt, late = max(rtt, time.Duration(st.RTT)), max(late, time.Duration(st.Late))
			}
			status := "complete"
			if s.Partial {
				status = "partial: " + s.Reason
				warns = append(warns, Warning{fmt.Sprintf("shard %d", s.Index), "partial: " + s.Reason})
			}
			if len(s.Starts) == 0 {
				row = append(row, "—", "—", "—", status)
			} else {
				row = append(row, durMS(offset), durMS(rtt), durMS(late), status)
			}
			rows = append(rows, row)
		}
		sec.table(head, rows)
		for _, w := range warns {
			sec.warn(w.Where, w.Text)
		}
		out = append(out, sec)
	}
	return out
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

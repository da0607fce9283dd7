package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// CSVHeader is the CSV's columns: one figure per row (tidy, long format),
// ready for pandas' read_csv or R's read.csv and a pivot.
//
//   - run: the input (result file) the figure came from; started_at its start
//   - engine: the driver; label: the column heading in the tables
//   - users: the closed-loop level, or empty; offered_rate: the ladder rung
//     (calls/s), or empty
//   - rep: empty for a level or a rung's medians, 1… for one repetition
//   - op: search, upsert, delete, …; "all" for figures across operations;
//     "preload" for the pre-population phase; "relevance" for the checks
//     on the idle engine; "corpus" (the query mix's weights, queries.<kind>)
//     and "ground_truth" (the exact answers' cost) for the run, on rows
//     with no engine
//   - figures by query kind (the product workload) are metrics named
//     kind.<kind>.<figure> (an operation's: count, rps, errors, p50_ms …)
//     and exact.<kind>.<figure> (recall against exact answers: checks,
//     expected, found, recall, queries, recall_lo and recall_hi (the 95%
//     interval over queries; Wilson's per document for a result without
//     the per-query sums), skipped, failed, unsupported, and under load
//     the idle_… figures beside when there was an idle check)
//   - metric, value: e.g. p50_ms 3.2, rps 31.9, errors.timeout 2
//   - knob, knob_value, writes: on a knob sweep's rows, the knob's name, the
//     point's value (0: the engine's default) and whether its load ran
//     with writes (1/0); empty elsewhere. A point's idle recall is op
//     "idle" (exact.<kind>.…); its level's and ladder's rows are as any
//     other's. Under writes exact.<kind>.lag_expected, lag_found,
//     lag_recall, recent_misses and lag_ms give the lag-excused figures.
var CSVHeader = []string{"run", "started_at", "engine", "label", "users", "offered_rate", "rep", "op", "metric", "value", "knob", "knob_value", "writes"}

// CSV writes every figure of the report in one long-format table.
func (rep *Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, in := range rep.Inputs {
		base := []string{in.Name, in.Result.StartedAt.UTC().Format(time.RFC3339), "", "", "", "", ""}
		for _, f := range []struct {
			op   string
			vals []value
		}{{"corpus", queryMixValues(in.Result.Corpus.Queries)}, {"ground_truth", groundTruthValues(in.Result.GroundTruth)}} {
			for _, v := range f.vals {
				cw.Write(append(base[:7:7], f.op, v.metric, strconv.FormatFloat(v.v, 'g', -1, 64), "", "", ""))
			}
		}
	}
	for _, run := range rep.Runs {
		in := rep.Inputs[run.Input]
		c := csvRun{cw: cw, base: []string{in.Name, in.Result.StartedAt.UTC().Format(time.RFC3339), run.Name, run.Label}, point: []string{"", "", ""}}
		c.emit("", "", "", "preload", preloadValues(run.Preload))
		c.emit("", "", "", "relevance", relevanceValues(run.Relevance))
		run.Loads(func(point int, levels []result.Level, ladder *result.Ladder) {
			if point > 0 {
				p := run.Sweep.Points[point-1]
				c.point = []string{run.Sweep.Knob, strconv.Itoa(p.Value), strconv.Itoa(int(b2f(p.Writes)))}
				c.emit("", "", "", "idle", exactValues(p.Idle, false))
			}
			c.load(levels, ladder)
		})
	}
	cw.Flush()
	return cw.Error()
}

// csvRun writes one engine run's rows; point is the sweep point's
// columns (empty outside a sweep).
type csvRun struct {
	cw          *csv.Writer
	base, point []string
}

func (c csvRun) emit(users, offered, repN, op string, vals []value) {
	for _, v := range vals {
		row := append(c.base[:4:4], users, offered, repN, op, v.metric, strconv.FormatFloat(v.v, 'g', -1, 64))
		c.cw.Write(append(row, c.point...))
	}
}

// load writes the rows of closed-loop levels and a ladder.
func (c csvRun) load(levels []result.Level, l *result.Ladder) {
	for _, lv := range levels {
		u := strconv.Itoa(lv.Users)
		c.emit(u, "", "", "all", levelValues(lv))
		for _, o := range lv.Ops {
			c.emit(u, "", "", o.Op, opValues(o))
		}
	}
	if l == nil {
		return
	}
	c.emit("", "", "", "all", []value{{"sustainable_rate", l.Sustainable}})
	for _, r := range l.Rungs {
		offered := strconv.FormatFloat(r.Offered, 'g', -1, 64)
		c.emit("", offered, "", "all", rungValues(r))
		for i, rp := range r.Reps {
			n := strconv.Itoa(i + 1)
			c.emit("", offered, n, "all", repValues(rp))
			for _, o := range rp.Ops {
				c.emit("", offered, n, o.Op, append(opValues(o.OpStats), latencyValues("service_", o.Service)...))
			}
		}
	}
}

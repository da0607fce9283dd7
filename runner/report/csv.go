package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
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
var CSVHeader = []string{"run", "started_at", "engine", "label", "users", "offered_rate", "rep", "op", "metric", "value"}

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
				cw.Write(append(base[:7:7], f.op, v.metric, strconv.FormatFloat(v.v, 'g', -1, 64)))
			}
		}
	}
	for _, run := range rep.Runs {
		in := rep.Inputs[run.Input]
		base := []string{in.Name, in.Result.StartedAt.UTC().Format(time.RFC3339), run.Name, run.Label}
		emit := func(users, offered, repN, op string, vals []value) {
			for _, v := range vals {
				cw.Write(append(base[:4:4], users, offered, repN, op, v.metric, strconv.FormatFloat(v.v, 'g', -1, 64)))
			}
		}
		emit("", "", "", "preload", preloadValues(run.Preload))
		emit("", "", "", "relevance", relevanceValues(run.Relevance))
		for _, l := range run.Levels {
			u := strconv.Itoa(l.Users)
			emit(u, "", "", "all", levelValues(l))
			for _, o := range l.Ops {
				emit(u, "", "", o.Op, opValues(o))
			}
		}
		if l := run.Ladder; l != nil {
			emit("", "", "", "all", []value{{"sustainable_rate", l.Sustainable}})
			for _, r := range l.Rungs {
				offered := strconv.FormatFloat(r.Offered, 'g', -1, 64)
				emit("", offered, "", "all", rungValues(r))
				for i, rp := range r.Reps {
					n := strconv.Itoa(i + 1)
					emit("", offered, n, "all", repValues(rp))
					for _, o := range rp.Ops {
						emit("", offered, n, o.Op, append(opValues(o.OpStats), latencyValues("service_", o.Service)...))
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

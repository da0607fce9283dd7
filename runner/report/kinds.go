package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/runner/result"
)

// The product workload's figures by query kind (whatever kinds the result
// names, in its order: the runner takes them from dataset's table of
// kinds, and a report reads results of any version, so it knows no kind
// of its own): each engine's search latency split by kind, per
// level or rung, and recall against exact answers, idle and under load.
// A result of one kind of query (the text corpus) has none of them, and its
// report shows no such section.

// kindsTitle heads the sections of figures by query kind.
const kindsTitle = "By query kind (product workload)"

// kindSections is a "Latency by query kind" section per engine run whose
// operations are split by kind, then the exact-answer recall section when
// any run checked against exact answers.
func kindSections(runs []result.EngineRun) []Section {
	var out []Section
	for _, run := range runs {
		if s, ok := kindLatencySection(run); ok {
			out = append(out, s)
		}
	}
	if s, ok := exactSection(runs); ok {
		out = append(out, s)
	}
	return out
}

// kindRow is one kind's figures at one level or rung, as the result holds
// them (a rung's: result.RungKind).
type kindRow struct {
	op, kind      string
	count         int64
	rps, p50, p99 float64
	errors        map[string]int64
}

func (k kindRow) label() string {
	if k.op == "search" || k.op == "" {
		return k.kind
	}
	return k.op + " " + k.kind
}

// levelKinds is the kinds of a level's operations, in the result's order.
func levelKinds(ops []result.OpStats) []kindRow {
	var out []kindRow
	for _, o := range ops {
		for _, k := range o.Kinds {
			out = append(out, kindRow{op: o.Op, kind: k.Kind, count: k.Count, rps: k.RPS, p50: k.Latency.P50, p99: k.Latency.P99, errors: k.Errors})
		}
	}
	return out
}

// rungKinds is a rung's kinds as the result summarizes them
// (result.RungKind).
func rungKinds(r result.Rung) []kindRow {
	out := make([]kindRow, len(r.Kinds))
	for i, k := range r.Kinds {
		out[i] = kindRow{op: "search", kind: k.Kind, count: k.Count, rps: k.RPS, p50: k.P50, p99: k.P99, errors: k.Errors}
	}
	return out
}

// kindAt is one level's or rung's kinds, with where it is.
type kindAt struct {
	at    string
	kinds []kindRow
}

// runKinds is the run's levels (by users) then rungs that split their
// operations by kind.
func runKinds(run result.EngineRun) []kindAt {
	var out []kindAt
	for _, l := range sortedLevels(run) {
		if ks := levelKinds(l.Ops); len(ks) > 0 {
			out = append(out, kindAt{fmt.Sprintf("%d users", l.Users), ks})
		}
	}
	if l := run.Ladder; l != nil {
		for _, r := range l.Rungs {
			if ks := rungKinds(r); len(ks) > 0 {
				out = append(out, kindAt{rate(r.Offered) + "/s", ks})
			}
		}
	}
	return out
}

// kindLatencySection is one engine run's searches by kind of query: a row
// per level or rung and kind.
func kindLatencySection(run result.EngineRun) (Section, bool) {
	ats := runKinds(run)
	if len(ats) == 0 {
		return Section{}, false
	}
	sec := Section{Title: run.Label + ": latency by query kind"}
	var rows [][]string
	for _, a := range ats {
		for _, k := range a.kinds {
			p50, p99 := "—", "—"
			if k.count > 0 {
				p50, p99 = num(k.p50), num(k.p99)
			}
			rows = append(rows, []string{a.at, k.label(), strconv.FormatInt(k.count, 10), rps(k.rps), p50, p99, errorCell(result.OpStats{Errors: k.errors})})
		}
	}
	sec.table([]string{"at", "kind", "count", "RPS", "p50 (ms)", "p99 (ms)", "errors"}, rows)
	if run.Ladder != nil && slices.ContainsFunc(ats, func(a kindAt) bool { return strings.HasSuffix(a.at, "/s") }) {
		sec.text("A rung's count and errors are its repetitions' together; its RPS, p50 and p99 the median across them. Latency is from the intended send time, as in the ladder's table.")
	}
	sec.text("Known-item checks are searches of no kind: the kinds' counts add up to the search count less those.")
	return sec, true
}

// recallAt is one row of the exact-answer table: a kind's figures idle
// (after pre-population) or under load at one level or rung.
type recallAt struct {
	at   string
	r    result.KindRecall
	idle bool
}

// exactRows is one engine run's exact-answer recall by kind: the idle row,
// then a row per level and rung that checked the kind.
func exactRows(run result.EngineRun) (kinds []string, rows map[string][]recallAt, k int) {
	rows = map[string][]recallAt{}
	add := func(kind string, ra recallAt) {
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
		rows[kind] = append(rows[kind], ra)
	}
	if rel := run.Relevance; rel != nil {
		k = rel.K
		for _, r := range rel.Exact {
			add(r.Kind, recallAt{at: "idle", r: r, idle: true})
		}
	}
	load := func(at string, known *result.KnownItems) {
		if known == nil {
			return
		}
		if k == 0 {
			k = known.K
		}
		for _, r := range known.Exact {
			// Without an idle check in the engine's relevance (a shard
			// that did not prepare the index), the idle figures copied
			// into the load's make the idle row.
			if !slices.ContainsFunc(rows[r.Kind], func(x recallAt) bool { return x.idle }) && r.IdleChecks > 0 {
				idle := result.KindRecall{Kind: r.Kind}
				idle.SetLoad(r.Idle())
				add(r.Kind, recallAt{at: "idle", idle: true, r: idle})
			}
			// A kind the idle check had and this load did not check
			// (result.SetIdle adds it) has nothing to show here.
			if r.Checks+r.Expected+r.Skipped+r.Failed+r.Unsupported > 0 {
				add(r.Kind, recallAt{at: at, r: r})
			}
		}
	}
	for _, l := range sortedLevels(run) {
		load(fmt.Sprintf("%d users", l.Users), l.KnownItems)
	}
	if l := run.Ladder; l != nil {
		for _, r := range l.Rungs {
			load(rate(r.Offered)+"/s", r.KnownItems)
		}
	}
	return kinds, rows, k
}

// exactSection is recall@K against exact answers, per engine and kind:
// idle, then under load at every level and rung.
func exactSection(runs []result.EngineRun) (Section, bool) {
	var rows [][]string
	k := 0
	for _, run := range runs {
		kinds, byKind, rk := exactRows(run)
		k = max(k, rk)
		for _, kind := range kinds {
			for _, ra := range byKind[kind] {
				r := ra.r
				recall, interval := "—", "—"
				if r.Expected > 0 {
					lo, hi := r.Load().Interval()
					recall = strconv.FormatFloat(r.Recall, 'f', 3, 64)
					interval = fmt.Sprintf("%.3f–%.3f", lo, hi)
					if !ra.idle && r.BelowIdle() {
						recall += " ⚠"
					}
				}
				queries := "—" // a result before the per-query sums
				if r.Queries > 0 {
					queries = strconv.FormatInt(r.Queries, 10)
				}
				rows = append(rows, []string{run.Label, kind, ra.at, recall, fmt.Sprintf("%d / %d", r.Found, r.Expected), interval,
					strconv.FormatInt(r.Checks, 10), queries, strconv.FormatInt(r.Skipped, 10), strconv.FormatInt(r.Failed, 10), strconv.FormatInt(r.Unsupported, 10)})
			}
		}
	}
	if len(rows) == 0 {
		return Section{}, false
	}
	recallHead := "recall"
	if k > 0 {
		recallHead = fmt.Sprintf("recall@%d", k)
	}
	sec := Section{Title: "Recall against exact answers"}
	sec.table([]string{"engine", "kind", "at", recallHead, "found / expected", "95% interval", "checks", "queries", "skipped", "failed", "unsupported"}, rows)
	sec.text("Recall is the exact answers' documents found in the top k over those expected: the exact nearest neighbours (brute force, with the kind's filter) of a seeded sample of queries, the one product an SKU names. " +
		"Idle: after pre-population, before any load. Under load, a kNN kind's exact answers follow the run's own acknowledged writes: a document acknowledged before the search was sent is expected at its current version, one whose write overlaps the search is excused, neither expected nor held against the answer (strict recall; a knob sweep's tables add recall with the freshness lag excused); an SKU whose product the run rewrote or deleted is not expected. Any other hit counts as it is: an ID the corpus does not have, one the run never wrote (a leftover in the index) or an unreadable one is a miss. " +
		"The 95%% interval is over queries, not documents: one query's documents are missed together, so the answers to one sample query (a level's repeated asks of it together) are one trial — the ratio's cluster-robust variance over the queries gives the effective trials (Korn–Graubard), fewer with a t quantile when the queries are few, and Wilson's interval is taken over them; with no miss (or no find) at all each query counts as one trial. Under load the answers of one moment share the writes they miss, so the interval is clustered two ways, by query and by the timeline's interval (Cameron–Gelbach–Miller: the two variances less their intersections', never below either, with the fewer clusters' t quantile). Queries: the sample queries the checks answered (—: a result written before these sums, whose interval is Wilson's per document). " +
		"Skipped: the answer tests nothing — too many of its documents had been written for the rest to say what it should hold, or none was left to expect (an SKU whose product was rewritten); failed: the search failed; unsupported: the engine's configuration cannot run the kind. " +
		"⚠: the interval under load lies wholly below the idle one.")
	return sec, true
}

// kindValues is the figures of an operation's kinds, as
// kind.<kind>.<figure>.
func kindValues(o result.OpStats) []value {
	var out []value
	for _, k := range o.Kinds {
		p := "kind." + k.Kind + "."
		var errs int64
		for _, n := range k.Errors {
			errs += n
		}
		out = append(out, value{p + "count", float64(k.Count)}, value{p + "rps", k.RPS}, value{p + "errors", float64(errs)})
		for _, c := range sortedKeys(k.Errors) {
			out = append(out, value{p + "errors." + c, float64(k.Errors[c])})
		}
		if k.Count > 0 {
			out = append(out, latencyValues(p, k.Latency)...)
		}
	}
	return out
}

// exactValues is recall against exact answers by kind, as
// exact.<kind>.<figure>, with its 95% interval over queries; idle adds
// the idle figures a load's figures carry, when there was an idle check
// (a measured zero is written; an absent figure was not measured).
func exactValues(rs []result.KindRecall, idle bool) []value {
	var out []value
	for _, r := range rs {
		p := "exact." + r.Kind + "."
		out = append(out, value{p + "checks", float64(r.Checks)}, value{p + "expected", float64(r.Expected)},
			value{p + "found", float64(r.Found)}, value{p + "recall", r.Recall})
		if r.Queries > 0 {
			out = append(out, value{p + "queries", float64(r.Queries)})
		}
		if r.Expected > 0 {
			lo, hi := r.Load().Interval()
			out = append(out, value{p + "recall_lo", lo}, value{p + "recall_hi", hi})
		}
		out = append(out, value{p + "skipped", float64(r.Skipped)}, value{p + "failed", float64(r.Failed)},
			value{p + "unsupported", float64(r.Unsupported)})
		if lag, ok := r.LagRecall(); ok {
			out = append(out, value{p + "lag_expected", float64(r.LagExpected)}, value{p + "lag_found", float64(r.LagFound)},
				value{p + "lag_recall", lag}, value{p + "recent_misses", float64(r.RecentMisses)}, value{p + "lag_ms", float64(r.Lag) / 1e6})
		}
		if idle && r.IdleChecks > 0 {
			out = append(out, value{p + "idle_checks", float64(r.IdleChecks)}, value{p + "idle_expected", float64(r.IdleExpected)},
				value{p + "idle_found", float64(r.IdleFound)}, value{p + "idle_recall", r.IdleRecall})
			if r.IdleQueries > 0 {
				out = append(out, value{p + "idle_queries", float64(r.IdleQueries)})
			}
		}
	}
	return out
}

// queryMixValues is the corpus's query mix ("knn=2,sku=1") as
// queries.<kind> = weight; a part that is not kind=number is left out.
func queryMixValues(mix string) []value {
	var out []value
	for _, part := range strings.Split(mix, ",") {
		kind, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(w, 64); err == nil {
			out = append(out, value{"queries." + kind, v})
		}
	}
	return out
}

// groundTruthValues is the exact answers' cost.
func groundTruthValues(g *result.GroundTruth) []value {
	if g == nil {
		return nil
	}
	return []value{{"queries", float64(g.Queries)}, {"documents", float64(g.Documents)}, {"dim", float64(g.Dim)},
		{"depth", float64(g.Depth)}, {"seconds", g.Seconds}, {"bytes_allocated", float64(g.Bytes)}}
}

// groundTruthCell is the exact answers' cost in words.
func groundTruthCell(g *result.GroundTruth) string {
	if g == nil {
		return ""
	}
	return fmt.Sprintf("%d queries × %d documents (dim %d, depth %d): %s s, %s MB allocated",
		g.Queries, g.Documents, g.Dim, g.Depth, strconv.FormatFloat(math.Round(g.Seconds*100)/100, 'f', -1, 64),
		strconv.FormatFloat(math.Round(float64(g.Bytes)/1e5)/10, 'f', -1, 64))
}

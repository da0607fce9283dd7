package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/runner/result"
)

// A comparison puts two sides next to each other, figure by figure. A side
// is one result or several results of the same configuration (repeated
// runs). Each figure carries an interval, its spread, and a difference is
// called noise when the two sides' intervals overlap. The interval is:
//
//   - a latency percentile of one run: the distribution-free 95% confidence
//     interval of that percentile from the run's HDR histogram — the order
//     statistics whose ranks bracket it with 95% probability, from the exact
//     binomial distribution of the count of calls below it (unbounded where
//     the run has too few calls: the p99 of 50 calls has no upper bound);
//   - a rate of one run: the 95% interval of a Poisson count, (N ± 1.96·√N)
//     over the window;
//   - a ladder rung: the minimum and maximum over its repetitions;
//   - a sustainable rate: from itself to one ladder step above, since the
//     ladder cannot resolve anything finer;
//   - several runs on a side: the median of their values, and from the
//     lowest to the highest of their intervals.
//
// The one-run intervals count sampling error only: they assume calls are
// independent, and a run's calls are not (a merge or a GC pause slows many
// in a row), and nothing in one run measures what changes between runs
// (caches, the host's other work). Repeated runs measure that; with one run
// per side, "beyond noise" means "beyond sampling error", not proof.
const noiseRule = `Noise: a difference is marked "noise" when the two sides' 95% intervals overlap. ` +
	`A latency percentile's interval is the order-statistic confidence interval from the run's HDR histogram ` +
	`(ranks from the exact binomial; unbounded, shown as ∞, where too few calls bound it); a rate's is a Poisson count's (N ± 1.96·√N over the window); ` +
	`a ladder rung's is the min–max of its repetitions; a sustainable rate's is one ladder step; ` +
	`with several runs on a side, the median value and the min–max of the runs' intervals. ` +
	`One-run intervals count sampling error only (calls assumed independent), so with one run per side ` +
	`"better"/"worse" means beyond sampling error, not beyond run-to-run spread: repeat runs to measure that.`

// compareMetrics is the figures compared, picked by name from the lists in
// figures.go; better says which direction is an improvement.
var compareMetrics = map[string]struct{ higherIsBetter bool }{
	"p50_ms": {}, "p95_ms": {}, "p99_ms": {},
	"rps": {true}, "total_rps": {true}, "achieved_rate": {true}, "sustainable_rate": {true}, "qps_at_recall": {true},
}

// figureKey names one figure of one engine.
type figureKey struct {
	engine, at, op, metric string
}

// estimate is a figure and its interval; lo and hi are NaN when the result
// holds nothing to estimate its spread from.
type estimate struct {
	v, lo, hi float64
}

func (e estimate) known() bool { return !math.IsNaN(e.lo) }

// ErrDifferentKinds is returned by Compare when one side holds only rate
// ladders and the other only closed-loop user levels: no figure of one is
// a figure of the other (latency at an offered rate is not latency at a
// number of users), and the configurations differ in every setting.
var ErrDifferentKinds = errors.New("different kinds of result")

// kindsOf says what a side measured: closed-loop levels, rate ladders, or
// both (a file may hold both).
func kindsOf(side []Input) (closed, ladder bool) {
	for _, in := range side {
		for _, e := range in.Result.Engines {
			closed = closed || len(e.Levels) > 0
			ladder = ladder || e.Ladder != nil
		}
	}
	return closed, ladder
}

// kindName is what kindsOf found, in words.
func kindName(closed, ladder bool) string {
	switch {
	case closed && ladder:
		return "closed-loop user levels and rate ladders"
	case ladder:
		return "a rate ladder (open loop)"
	}
	return "closed-loop user levels"
}

// Compare writes side a next to side b. Engines are matched by label. A
// side of ladders only against one of closed-loop levels only is
// ErrDifferentKinds.
func Compare(w io.Writer, a, b []Input) error {
	ca, la := kindsOf(a)
	cb, lb := kindsOf(b)
	if (ca || la) && (cb || lb) && !(ca && cb) && !(la && lb) {
		return fmt.Errorf("%w: A (%s) is %s and B (%s) %s: compare ladders with ladders and runs with runs",
			ErrDifferentKinds, sideName(a), kindName(ca, la), sideName(b), kindName(cb, lb))
	}
	fa, err := sideFigures(a)
	if err != nil {
		return err
	}
	fb, err := sideFigures(b)
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# Compare\n\nA: %s\nB: %s\n\n", sideName(a), sideName(b))
	for _, d := range configDifferences(a, b) {
		fmt.Fprintf(&out, "> warning: the sides differ in %s\n", d)
	}
	if len(a) == 1 || len(b) == 1 {
		out.WriteString("> warning: one run on a side: its intervals are sampling error only, narrower than the spread between runs; " +
			"give each side repeated runs, comma-separated (a1.json,a2.json,a3.json), to measure that\n")
	}
	var rows [][]string
	for _, k := range fa.keys {
		ea := fa.m[k]
		eb, ok := fb.m[k]
		if !ok {
			continue
		}
		change := "—"
		if ea.v != 0 {
			change = fmt.Sprintf("%+.1f%%", 100*(eb.v-ea.v)/ea.v)
		}
		rows = append(rows, []string{k.engine, k.at, k.op, k.metric, ea.String(), eb.String(), change, verdict(k.metric, ea, eb)})
	}
	if len(rows) > 0 {
		writeTable(&out, []string{"engine", "at", "op", "figure", "A [95% interval]", "B [95% interval]", "B vs A", "verdict"}, rows)
	} else {
		out.WriteString("No figure is in both sides (engines are matched by label).\n")
	}
	for _, only := range []struct {
		side       string
		this, that figures
	}{{"A", fa, fb}, {"B", fb, fa}} {
		u := unmatched(only.this, only.that)
		for _, l := range []struct{ head, list string }{
			{"Only in %s: %s", u.levels}, {"Operations only in %s: %s", u.ops}, {"Query kinds only in %s: %s", u.kinds},
		} {
			if l.list != "" {
				fmt.Fprintf(&out, "\n"+l.head+"\n", only.side, l.list)
			}
		}
	}
	out.WriteString(compareNotes(fa))
	_, err = io.WriteString(w, out.String())
	return err
}

// compareNotes is how to read the comparison: what a sweep's figure is,
// when a side has one, and the noise rule.
func compareNotes(fa figures) string {
	note := ""
	if slices.ContainsFunc(fa.keys, func(k figureKey) bool { return k.metric == "qps_at_recall" }) {
		note = "\nqps_at_recall is a knob sweep's best QPS of the kind among its points whose recall meets the target (idle, or under writes strict or lag-excused); 0: no point reached it.\n"
	}
	return note + "\n" + noiseRule + "\n"
}

// oneSided is what one side of a comparison has and the other lacks.
type oneSided struct {
	// levels: whole levels or rungs, by engine: "beta (10 users, 100 users)".
	levels string
	// ops and kinds: where both sides have the level, the operations and
	// query kinds only this side ran (their mixes differ), by engine:
	// "sku (alpha)".
	ops, kinds string
}

// unmatched names the figures of this side that the other lacks.
func unmatched(this, that figures) oneSided {
	type at struct{ engine, at string }
	there := map[at]bool{}
	for _, k := range that.keys {
		there[at{k.engine, k.at}] = true
	}
	levels, ops, kinds := &grouped{}, &grouped{}, &grouped{}
	for _, k := range this.keys {
		if _, ok := that.m[k]; ok {
			continue
		}
		switch op, kind, isKind := strings.Cut(k.op, ":"); {
		case !there[at{k.engine, k.at}]:
			levels.add(k.engine, k.at)
		case isKind:
			kinds.add(kind, k.engine)
		case op != "all":
			ops.add(op, k.engine)
		}
	}
	return oneSided{levels: levels.String(), ops: ops.String(), kinds: kinds.String()}
}

// grouped is names, each with the items met with it, in the order first
// met: "a (x, y); b (z)".
type grouped struct {
	names []string
	items map[string][]string
}

func (g *grouped) add(name, item string) {
	if g.items == nil {
		g.items = map[string][]string{}
	}
	if _, ok := g.items[name]; !ok {
		g.names = append(g.names, name)
	}
	if !slices.Contains(g.items[name], item) {
		g.items[name] = append(g.items[name], item)
	}
}

func (g *grouped) String() string {
	parts := make([]string, len(g.names))
	for i, n := range g.names {
		parts[i] = n + " (" + strings.Join(g.items[n], ", ") + ")"
	}
	return strings.Join(parts, "; ")
}

func (e estimate) String() string {
	if !e.known() {
		return fmtFigure(e.v)
	}
	return fmt.Sprintf("%s [%s–%s]", fmtFigure(e.v), fmtFigure(e.lo), fmtFigure(e.hi))
}

func fmtFigure(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	if v >= 1000 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return num(v)
}

// verdict says whether b differs from a beyond both intervals, and in which
// direction that is better.
func verdict(metric string, a, b estimate) string {
	switch {
	case !a.known() || !b.known():
		return "no spread known"
	case a.hi >= b.lo && b.hi >= a.lo:
		return "noise"
	case (b.v > a.v) == compareMetrics[metric].higherIsBetter:
		return "better"
	}
	return "worse"
}

func sideName(side []Input) string {
	names := make([]string, len(side))
	for i, in := range side {
		names[i] = in.Name
	}
	if len(side) > 1 {
		return fmt.Sprintf("%s (%d runs)", strings.Join(names, ", "), len(side))
	}
	return names[0]
}

// configDifferences names what differs between the sides' configurations
// and would make their figures incomparable.
func configDifferences(a, b []Input) []string {
	var out []string
	// of picks the results a setting applies to: all of them, or those
	// with closed-loop levels (a ladder has no measure window or settle).
	all := func(*result.Result) bool { return true }
	closed := func(r *result.Result) bool {
		return slices.ContainsFunc(r.Engines, func(e result.EngineRun) bool { return len(e.Levels) > 0 })
	}
	check := func(what string, of func(*result.Result) bool, f func(*result.Result) string) {
		// The values in the order first seen: A's before B's.
		var vals []string
		for _, in := range append(append([]Input(nil), a...), b...) {
			if !of(in.Result) {
				continue
			}
			if v := f(in.Result); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) > 1 {
			out = append(out, fmt.Sprintf("%s (%s)", what, strings.Join(vals, " / ")))
		}
	}
	check("corpus", all, func(r *result.Result) string { return shortHash(r.Corpus.Hash) })
	check("mix", all, func(r *result.Result) string { return r.Config.Mix })
	// The product corpus's kinds of query: the corpus's hash is the
	// documents', the same whatever the queries.
	check("query mix", all, func(r *result.Result) string { return cmp.Or(r.Corpus.Queries, "none (one kind)") })
	check("measure window", closed, func(r *result.Result) string { return fmt.Sprint(r.Config.Measure) })
	check("settle", closed, func(r *result.Result) string { return fmt.Sprint(r.Config.Settle) })
	check("request timeout", all, func(r *result.Result) string { return fmt.Sprint(r.Config.RequestTimeout) })
	check("load generator CPUs", all, func(r *result.Result) string { return strconv.Itoa(r.Host.CPUs) })
	return out
}

type figures struct {
	keys []figureKey // in the order first seen
	m    map[figureKey]estimate
}

// sideFigures is a side's figures: per run, then merged across runs.
func sideFigures(side []Input) (figures, error) {
	all := figures{m: map[figureKey]estimate{}}
	per := map[figureKey][]estimate{}
	for _, in := range side {
		for _, run := range in.Result.Engines {
			err := runFigures(run, func(k figureKey, e estimate) {
				if _, ok := per[k]; !ok {
					all.keys = append(all.keys, k)
				}
				per[k] = append(per[k], e)
			})
			if err != nil {
				return all, fmt.Errorf("%s: %s: %w", in.Name, run.Label, err)
			}
		}
	}
	for k, es := range per {
		all.m[k] = merge(es)
	}
	return all, nil
}

// merge combines one figure of repeated runs: the median value, and the
// widest interval.
func merge(es []estimate) estimate {
	if len(es) == 1 {
		return es[0]
	}
	vs := make([]float64, len(es))
	out := estimate{lo: math.Inf(1), hi: math.Inf(-1)}
	for i, e := range es {
		vs[i] = e.v
		lo, hi := e.lo, e.hi
		if !e.known() {
			lo, hi = e.v, e.v // repeated runs give a spread of their own
		}
		out.lo, out.hi = math.Min(out.lo, lo), math.Max(out.hi, hi)
	}
	slices.Sort(vs)
	if n := len(vs); n%2 == 1 {
		out.v = vs[n/2]
	} else {
		out.v = (vs[n/2-1] + vs[n/2]) / 2
	}
	return out
}

// runFigures emits the compared figures of one engine run with their
// intervals.
func runFigures(run result.EngineRun, emit func(figureKey, estimate)) error {
	for _, l := range sortedLevels(run) {
		if err := levelFigures(run.Label, l, emit); err != nil {
			return err
		}
	}
	ladderFigures(run.Label, run.Ladder, emit)
	if run.Sweep != nil {
		return sweepFigures(run.Label, run.Sweep, emit)
	}
	return nil
}

// ladderFigures emits a ladder's sustainable rate and its rungs' figures.
func ladderFigures(label string, l *result.Ladder, emit func(figureKey, estimate)) {
	if l == nil {
		return
	}
	if l.Sustainable > 0 {
		emit(figureKey{label, "ladder", "all", "sustainable_rate"}, estimate{v: l.Sustainable, lo: l.Sustainable, hi: l.Sustainable * l.Step})
	}
	for _, r := range l.Rungs {
		rungFigures(label, r, emit)
	}
}

// sweepFigures emits a sweep's QPS at each recall target per kind, idle
// and under writes (0 when no point reached it), then each point's
// figures as a level's or ladder's, "at" the knob's value ("ef=40, 10
// users"; "ef=40 under writes, 10 users").
func sweepFigures(label string, s *result.Sweep, emit func(figureKey, estimate)) error {
	for _, kind := range s.Kinds() {
		for c := range condNames {
			pts := sweepCurve(s, kind, sweepCond(c))
			if len(pts) == 0 {
				continue
			}
			for _, t := range sweepTargets {
				b, _ := bestAt(pts, t)
				at := fmt.Sprintf("recall ≥ %.2f, %s", t, condNames[c])
				emit(figureKey{label, at, kindOp(result.SearchOp, kind), "qps_at_recall"}, estimate{v: b.qps, lo: math.NaN(), hi: math.NaN()})
			}
		}
	}
	for i, p := range s.Points {
		prefix := pointName(s, i)
		in := func(k figureKey, e estimate) {
			k.at = prefix + ", " + k.at
			emit(k, e)
		}
		if p.Level != nil {
			if err := levelFigures(label, *p.Level, in); err != nil {
				return err
			}
		}
		ladderFigures(label, p.Ladder, in)
	}
	return nil
}

// levelFigures emits a level's figures per operation and per query kind,
// and its total rate, with their intervals.
func levelFigures(label string, l result.Level, emit func(figureKey, estimate)) error {
	at := strconv.Itoa(l.Users) + " users"
	window := l.Window.Seconds()
	var total int64
	for _, o := range l.Ops {
		total += o.Count
		if err := opFigures(label, at, o, window, emit); err != nil {
			return err
		}
	}
	if err := levelKindFigures(label, at, l.Ops, emit); err != nil {
		return err
	}
	for _, v := range levelValues(l) {
		if v.metric == "total_rps" {
			e := estimate{v: v.v, lo: math.NaN(), hi: math.NaN()}
			if w := rateWindow(total, v.v, window); w > 0 {
				e.lo, e.hi = poissonInterval(total, w)
			}
			emit(figureKey{label, at, "all", v.metric}, e)
		}
	}
	return nil
}

// opFigures emits an operation's compared figures at a level measured
// over window seconds: a latency with the order-statistic interval of its
// histogram, the rate with its Poisson interval. An operation never called
// has none.
func opFigures(label, at string, o result.OpStats, window float64, emit func(figureKey, estimate)) error {
	if o.Count == 0 {
		return nil
	}
	var h *hdrhistogram.Histogram
	if o.Histogram != "" {
		var err error
		if h, err = result.DecodeHistogram(o.Histogram); err != nil {
			return fmt.Errorf("%s, %s: %w", at, o.Op, err)
		}
	}
	for _, v := range opValues(o) {
		if _, ok := compareMetrics[v.metric]; !ok {
			continue
		}
		e := estimate{v: v.v, lo: math.NaN(), hi: math.NaN()}
		switch q, isLatency := quantiles[v.metric]; {
		case isLatency && h != nil:
			e.lo, e.hi = quantileInterval(h, q)
		case v.metric == "rps":
			if w := rateWindow(o.Count, o.RPS, window); w > 0 {
				e.lo, e.hi = poissonInterval(o.Count, w)
			}
		}
		emit(figureKey{label, at, o.Op, v.metric}, e)
	}
	return nil
}

// rungFigures emits a ladder rung's compared figures, overall and per
// query kind; with more than one rep, spread from the lowest rep's to the
// highest's.
func rungFigures(label string, r result.Rung, emit func(figureKey, estimate)) {
	at := rate(r.Offered) + "/s"
	var p50s []float64
	for _, rep := range r.Reps {
		p50s = append(p50s, rep.Latency.P50)
	}
	spread := map[string][2]float64{
		"p99_ms":        {r.P99Min, r.P99Max},
		"achieved_rate": {r.AchievedMin, r.AchievedMax},
	}
	if len(p50s) > 0 {
		spread["p50_ms"] = [2]float64{slices.Min(p50s), slices.Max(p50s)}
	}
	for _, v := range rungValues(r) {
		if _, ok := compareMetrics[v.metric]; !ok {
			continue
		}
		e := estimate{v: v.v, lo: math.NaN(), hi: math.NaN()}
		if s, ok := spread[v.metric]; ok && len(r.Reps) > 1 {
			e.lo, e.hi = math.Min(s[0], v.v), math.Max(s[1], v.v)
		}
		emit(figureKey{label, at, "all", v.metric}, e)
	}
	rungKindFigures(label, at, r, emit)
}

// kindMetrics is the figures compared per query kind.
var kindMetrics = []string{"p50_ms", "p99_ms"}

// kindOp names a kind's figures in the op column: search:knn.
func kindOp(op, kind string) string { return op + ":" + kind }

// levelKindFigures emits a level's p50 and p99 per query kind, with the
// order-statistic intervals of the kind's own histogram.
func levelKindFigures(label, at string, ops []result.OpStats, emit func(figureKey, estimate)) error {
	for _, o := range ops {
		for _, k := range o.Kinds {
			if k.Count == 0 {
				continue
			}
			var h *hdrhistogram.Histogram
			if k.Histogram != "" {
				var err error
				if h, err = result.DecodeHistogram(k.Histogram); err != nil {
					return fmt.Errorf("%s, %s: %w", at, kindOp(o.Op, k.Kind), err)
				}
			}
			for _, m := range kindMetrics {
				e := estimate{v: k.Latency.P50, lo: math.NaN(), hi: math.NaN()}
				if m == "p99_ms" {
					e.v = k.Latency.P99
				}
				if h != nil {
					e.lo, e.hi = quantileInterval(h, quantiles[m])
				}
				emit(figureKey{label, at, kindOp(o.Op, k.Kind), m}, e)
			}
		}
	}
	return nil
}

// rungKindFigures emits a rung's p50 and p99 per query kind: the median
// across its reps, spread from the lowest to the highest rep, as the
// rung's own figures (result.RungKind).
func rungKindFigures(label, at string, r result.Rung, emit func(figureKey, estimate)) {
	for _, k := range r.Kinds {
		if k.Measured == 0 {
			continue
		}
		for _, f := range []struct {
			metric      string
			v, min, max float64
		}{{"p50_ms", k.P50, k.P50Min, k.P50Max}, {"p99_ms", k.P99, k.P99Min, k.P99Max}} {
			e := estimate{v: f.v, lo: math.NaN(), hi: math.NaN()}
			if k.Measured > 1 {
				e.lo, e.hi = f.min, f.max
			}
			emit(figureKey{label, at, kindOp("search", k.Kind), f.metric}, e)
		}
	}
}

var quantiles = map[string]float64{"p50_ms": 0.50, "p95_ms": 0.95, "p99_ms": 0.99}

// quantileInterval is the distribution-free 95% confidence interval of the
// q-quantile of the histogram's n values, in ms: the order statistics at the
// ranks orderRanks gives. Where n is too small for a bound to exist (the p99
// of 8 calls has no upper bound: all 8 fall below the true p99 with
// probability 0.99⁸ = 92%), that end is 0 or +Inf, so a difference in it is
// never called beyond noise.
func quantileInterval(h *hdrhistogram.Histogram, q float64) (lo, hi float64) {
	n := h.TotalCount()
	l, u := orderRanks(n, q)
	lo, hi = 0, math.Inf(1)
	if l >= 1 {
		lo = float64(h.ValueAtQuantile(100*float64(l)/float64(n))) / 1000
	}
	if u <= n {
		hi = float64(h.ValueAtQuantile(100*float64(u)/float64(n))) / 1000
	}
	return lo, hi
}

// orderRanks returns the ranks l ≤ u (1-based) of the sorted sample whose
// values bracket the true q-quantile with probability at least 95%. The count
// B of sample values below the true quantile is Binomial(n, q); the l-th value
// lies at or below the quantile when B ≥ l, and the u-th at or above it when
// B ≤ u−1, so l is the largest rank with P(B ≤ l−1) ≤ 2.5% and u the smallest
// with P(B ≤ u−1) ≥ 97.5%. The binomial is summed exactly, not through its
// normal approximation, which is wrong exactly where it matters: tail
// quantiles of few calls. l = 0 means no lower bound, u = n+1 no upper bound.
func orderRanks(n int64, q float64) (l, u int64) {
	const tail = 0.025
	if n <= 0 {
		return 0, 1
	}
	// Mass further than 20 standard deviations (+5, for the skewed binomials
	// of few expected values) from the mean is far below 1e-20: summing only
	// the window keeps a 10-million-call histogram to ~60K terms.
	mean, sd := float64(n)*q, math.Sqrt(float64(n)*q*(1-q))
	from := int64(math.Max(0, math.Floor(mean-20*sd-5)))
	to := int64(math.Min(float64(n), math.Ceil(mean+20*sd+5)))
	lgN, _ := math.Lgamma(float64(n) + 1)
	logQ, log1Q := math.Log(q), math.Log1p(-q)
	l, u = 0, n+1
	cdf := 0.0
	for k := from; k <= to; k++ {
		lgK, _ := math.Lgamma(float64(k) + 1)
		lgNK, _ := math.Lgamma(float64(n-k) + 1)
		cdf += math.Exp(lgN - lgK - lgNK + float64(k)*logQ + float64(n-k)*log1Q)
		if cdf <= tail {
			l = k + 1 // P(B ≤ k) ≤ 2.5%: rank k+1 is still a lower bound
		}
		if cdf >= 1-tail {
			u = k + 1
			break
		}
	}
	return min(l, n), u
}

// rateWindow is the window, in seconds, over which count calls make the
// given rate: count / rate. On one machine's level that is its window. On
// a level merged from shards whose windows differ (one stopped early) the
// rate is the sum of each shard's count over its own window, and the
// level's window (the shortest) would put the interval far from it.
func rateWindow(count int64, rate, window float64) float64 {
	if count > 0 && rate > 0 {
		return float64(count) / rate
	}
	return window
}

// poissonInterval is the 95% interval of a rate measured as count calls
// in window seconds, taking the count as Poisson. A closed loop's
// completions are not a Poisson process (its users wait on each other's slow
// calls), so, like the quantile interval, this approximates sampling error
// and nothing more.
func poissonInterval(count int64, window float64) (lo, hi float64) {
	const z95 = 1.959964 // the standard normal quantile of a two-sided 95% interval
	n := float64(count)
	half := z95 * math.Sqrt(n)
	return math.Max(0, n-half) / window, (n + half) / window
}

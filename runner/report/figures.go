package report

import (
	"sort"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// value is one named figure. The lists below are the one place that says
// which figures exist: the CSV writes all of them and compare picks from
// them, so a figure added here appears in both.
type value struct {
	metric string
	v      float64
}

// latencyValues is a latency summary as figures in ms, prefixed ("" for
// intended-time latency, "service_" for service time).
func latencyValues(prefix string, l result.Latency) []value {
	return []value{
		{prefix + "min_ms", l.Min}, {prefix + "mean_ms", l.Mean},
		{prefix + "p50_ms", l.P50}, {prefix + "p90_ms", l.P90}, {prefix + "p95_ms", l.P95},
		{prefix + "p99_ms", l.P99}, {prefix + "p99_9_ms", l.P999}, {prefix + "max_ms", l.Max},
	}
}

// opValues is one operation's figures: counts, rate, errors by class and,
// when a call succeeded, its latencies.
func opValues(o result.OpStats) []value {
	out := []value{
		{"count", float64(o.Count)}, {"rps", o.RPS}, {"not_found", float64(o.NotFound)},
		{"errors", float64(o.ErrorCount())},
	}
	for _, c := range sortedKeys(o.Errors) {
		out = append(out, value{"errors." + c, float64(o.Errors[c])})
	}
	if o.Count > 0 {
		out = append(out, latencyValues("", o.Latency)...)
	}
	return append(out, kindValues(o)...)
}

// levelValues is a closed-loop level's figures across operations.
func levelValues(l result.Level) []value {
	out := []value{{"total_rps", l.TotalRPS}, {"client_cpu", l.ClientCPU}, {"window_s", l.Window.Seconds()},
		{"sched_latency_p99_ms", l.SchedLatencyP99}}
	if f := l.Freshness; f != nil {
		out = append(out, value{"freshness.probes", float64(f.Probes)}, value{"freshness.visible", float64(f.Visible)},
			value{"freshness.superseded", float64(f.Superseded)}, value{"freshness.unresolved", float64(f.Unresolved)},
			value{"freshness.searches", float64(f.Searches)})
		if f.Visible > 0 {
			out = append(out, latencyValues("freshness.lag_", f.Lag)...)
		}
	}
	if a := l.Active; a != nil {
		out = append(out, value{"active_users.mean", a.Mean}, value{"active_users.min", float64(a.Min)},
			value{"active_users.ramp_s", a.Ramp.Seconds()})
	}
	out = append(out, knownValues(l.KnownItems)...)
	return append(out, gaugeValues(l.EngineStats)...)
}

// knownValues is the known-item checks under load, beside the idle recall.
func knownValues(k *result.KnownItems) []value {
	if k == nil {
		return nil
	}
	out := []value{{"known_items.checks", float64(k.Checks)}, {"known_items.found", float64(k.Found)},
		{"known_items.recall", k.Recall}, {"known_items.idle_recall", k.IdleRecall},
		{"known_items.empty", float64(k.Empty)}, {"known_items.total_below_hits", float64(k.TotalBelowHits)},
		{"known_items.skipped", float64(k.Skipped)}, {"known_items.failed", float64(k.Failed)}}
	return append(out, exactValues(k.Exact, true)...)
}

// relevanceValues is the known-item check's recall, overall and by kind.
func relevanceValues(r *result.Relevance) []value {
	if r == nil {
		return nil
	}
	out := []value{{"k", float64(r.K)}, {"queries", float64(r.Queries)}, {"found", float64(r.Found)}, {"recall", r.Recall}}
	for _, kind := range sortedKeys(r.ByKind) {
		c := r.ByKind[kind]
		out = append(out, value{"recall." + kind, c.Recall}, value{"queries." + kind, float64(c.Queries)},
			value{"errors." + kind, float64(c.Errors)}, value{"unsupported." + kind, float64(c.Unsupported)})
	}
	return append(out, exactValues(r.Exact, false)...)
}

// rungValues is a rung's medians and spread across repetitions.
func rungValues(r result.Rung) []value {
	out := []value{
		{"achieved_rate", r.Achieved}, {"p50_ms", r.P50}, {"p99_ms", r.P99},
		{"service_p50_ms", r.ServiceP50}, {"service_p99_ms", r.ServiceP99},
		{"p99_min_ms", r.P99Min}, {"p99_max_ms", r.P99Max}, {"p99_cv", r.P99CV},
		{"achieved_min", r.AchievedMin}, {"achieved_max", r.AchievedMax},
		{"meets_rule", b2f(r.Sustainable)},
	}
	if r.QueueDepth >= 0 {
		out = append(out, value{engines.StatQueueDepth, r.QueueDepth}) // the rung's median of the stat, under its name
	}
	return append(out, knownValues(r.KnownItems)...)
}

// repValues is one repetition's figures across operations.
func repValues(r result.Rep) []value {
	out := []value{
		{"sent", float64(r.Sent)}, {"unsent", float64(r.Unsent)}, {"achieved_rate", r.Achieved},
		{"errors", float64(r.Errors)}, {"late_starts", float64(r.LateStarts)},
		{"generator_lag_p99_ms", r.GeneratorLagP99}, {"generator_lag_max_ms", r.GeneratorLagMax},
		{"client_cpu", r.ClientCPU}, {"partial", b2f(r.Partial)},
	}
	out = append(out, latencyValues("", r.Latency)...)
	out = append(out, latencyValues("service_", r.Service)...)
	out = append(out, gaugeValues(r.EngineStats)...)
	return append(out, knownValues(r.KnownItems)...)
}

func preloadValues(p result.Preload) []value {
	return []value{
		{"documents", float64(p.Documents)}, {"duration_s", p.Duration.Seconds()}, {"docs_per_s", p.DocsPerS},
		{"errors", float64(p.Errors)}, {"engine_count", float64(p.Count)}, {"count_ok", b2f(p.CountOK)},
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// gaugeValues is the engine's sampled figures: mean, max, last and rate.
func gaugeValues(stats map[string]result.Gauge) []value {
	var out []value
	for _, k := range sortedKeys(stats) {
		g := stats[k]
		out = append(out, value{"engine_stats." + k + ".mean", g.Mean}, value{"engine_stats." + k + ".max", g.Max},
			value{"engine_stats." + k + ".last", g.Last}, value{"engine_stats." + k + ".per_second", g.PerSecond})
	}
	return out
}

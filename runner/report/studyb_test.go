package report

import (
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// studyBRep is one upsert-only repetition at rate/s whose server reported
// jobs indexing jobs per write and the given writer queue.
func studyBRep(rate, jobs, queueMean, queueMax float64, extra map[string]result.Gauge) result.Rep {
	stats := map[string]result.Gauge{
		"queue_depth":             {Samples: 27, Mean: queueMean, Max: queueMax},
		"mutation_queue_size_max": {Samples: 27, Mean: queueMean / 2, Max: queueMax / 2},
		engines.StatIndexingJobs:  {Samples: 27, PerSecond: jobs * rate},
		"ingest_field_tag":        {Samples: 27, PerSecond: jobs * rate},
		"ingest_field_numeric":    {Samples: 27, PerSecond: jobs * rate},
		"ingest_field_vector":     {Samples: 27},
		"writer_threads":          {Samples: 27, Mean: 8, Max: 8, Last: 8},
	}
	for k, v := range extra {
		stats[k] = v
	}
	return result.Rep{Offered: rate, Achieved: rate, EngineStats: stats, Ops: []result.OpenOp{
		{OpStats: result.OpStats{Op: "search"}},
		{OpStats: result.OpStats{Op: "upsert", Count: int64(rate * 25), RPS: rate, Writes: true}},
		{OpStats: result.OpStats{Op: "delete", Writes: true, NotFoundDone: true}},
	}}
}

// studyBLadder is a two-rung ladder: the sustained rung, then one above it.
func studyBLadder(label string, sustained, jobs, p99, cpus float64) result.EngineRun {
	return result.EngineRun{Label: label, Name: "valkey", CPULimit: cpus, Ladder: &result.Ladder{
		Arrival: "constant", Workers: 384, Step: 1.19, Repeat: 1, Reference: 2000, Rule: "rule", Sustainable: sustained,
		Rungs: []result.Rung{
			{Offered: sustained, Achieved: sustained, P99: p99, QueueDepth: 0.4, Sustainable: true, Reps: []result.Rep{studyBRep(sustained, jobs, 0.4, 3, nil)}},
			{Offered: sustained * 1.19, Achieved: sustained, P99: 50 * p99, QueueDepth: 120, Reps: []result.Rep{studyBRep(sustained*1.19, jobs, 120, 300, nil)}},
		},
	}}
}

func render(t *testing.T, runs []result.EngineRun) string {
	t.Helper()
	var b strings.Builder
	if err := Ladders(&b, runs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Experiment 2's table from the published figures: 0, 1, 2 and 4 matching
// indexes; the jobs per write come from the ingest counter over the
// completed writes, not from the labels.
func TestStudyBIndexingJobsTable(t *testing.T) {
	t.Parallel()
	out := render(t, []result.EngineRun{
		studyBLadder("0", 80000, 0, 2, 8),
		studyBLadder("1", 33636, 1, 2.2, 8),
		studyBLadder("2", 20000, 2, 2.3, 8),
		studyBLadder("4", 16818, 4, 2.4, 8),
	})
	for _, want := range []string{
		"### Indexing jobs at the sustained rate",
		"| indexes | writes/s | indexing jobs/s | jobs per write |",
		"| 0       |    80000 |               0 |           0.00 |",
		"| 1       |    33636 |           33636 |           1.00 |",
		"| 2       |    20000 |           40000 |           2.00 |",
		"| 4       |    16818 |           67272 |           4.00 |",
		"### 4: valkey-search server metrics",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "writer threads under a CPU limit") {
		t.Errorf("8 writer threads under 8 CPUs was flagged:\n%s", out)
	}
}

// Experiment 3's cliff: offered writes/s | p99 | writer queue depth, with
// the queue maxima and the per-field ingest counters beside them.
func TestStudyBServerMetricsTable(t *testing.T) {
	t.Parallel()
	vector := result.EngineRun{Label: "TAG + NUMERIC + HNSW 1024", Name: "valkey", CPULimit: 8, Ladder: &result.Ladder{
		Arrival: "constant", Workers: 384, Step: 1.19, Repeat: 2, Reference: 2000, Rule: "rule", Sustainable: 2832,
		Rungs: []result.Rung{
			{Offered: 2832, Achieved: 2832, P99: 5.65, QueueDepth: 4, Sustainable: true, Reps: []result.Rep{
				studyBRep(2832, 1, 3.5, 9, map[string]result.Gauge{"ingest_field_vector": {PerSecond: 2832}}),
				studyBRep(2832, 1, 4.5, 11, map[string]result.Gauge{"ingest_field_vector": {PerSecond: 2832}}),
			}},
			{Offered: 4011, Achieved: 2900, P99: 2046, QueueDepth: 376, Reps: []result.Rep{
				studyBRep(2900, 1, 370, 800, map[string]result.Gauge{"ingest_field_vector": {PerSecond: 2900}}),
				studyBRep(2900, 1, 382, 812, map[string]result.Gauge{"ingest_field_vector": {PerSecond: 2900}}),
			}},
		},
	}}
	out := render(t, []result.EngineRun{vector})
	for _, want := range []string{
		"### TAG + NUMERIC + HNSW 1024: valkey-search server metrics",
		"| offered writes/s | p99 (ms) | writer queue depth | writer queue max | mutation queue max | idle indexes' queue max | indexing jobs/write | vector ingests/write | text ingests/write | tag ingests/write | numeric ingests/write |",
		"| 2832             |     5.65 |                4.0 |               11 |                5.5 |                       — |                1.00 |                 1.00 |                  — |              1.00 |                  1.00 |",
		"| 4011             |     2046 |                376 |              812 |                406 |                       — |                1.00 |                 1.00 |                  — |              1.00 |                  1.00 |",
		"| TAG + NUMERIC + HNSW 1024 |     2832 |            2832 |           1.00 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A mixed ladder's rate is not a write rate, and its jobs per write count
// only the writes; a pool sized from the host's cores is flagged; a run
// without the ingest counters says why its jobs are missing; a ladder
// without any of the figures gets no Study B table.
func TestStudyBCaveats(t *testing.T) {
	t.Parallel()
	mixed := studyBLadder("mixed", 2000, 1, 2, 4)
	for i := range mixed.Ladder.Rungs {
		for j := range mixed.Ladder.Rungs[i].Reps {
			rep := &mixed.Ladder.Rungs[i].Reps[j]
			// Four searches for every write: the writes are a fifth of the
			// achieved rate, so the counter's rate is one job per write.
			rep.Ops[0].Count = 4 * rep.Ops[1].Count
			rep.Achieved *= 5
		}
	}
	noDev := studyBLadder("no dev fields", 2000, 1, 2, 0)
	for _, r := range noDev.Ladder.Rungs {
		for _, rep := range r.Reps {
			delete(rep.EngineStats, engines.StatIndexingJobs)
		}
	}
	plain := studyBLadder("bleve", 2000, 0, 2, 0)
	for _, r := range plain.Ladder.Rungs {
		for j := range r.Reps {
			r.Reps[j].EngineStats = nil
		}
	}
	out := render(t, []result.EngineRun{mixed, noDev, plain})
	for _, want := range []string{
		"| offered calls/s |",
		"| mixed   |     2000 |            2000 |           1.00 |",
		"> warning (mixed): valkey-search ran 8 writer threads under a CPU limit of 4",
		"> warning (no dev fields): no ingest counters",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, jobs, _ := strings.Cut(out, "### Indexing jobs at the sustained rate")
	if strings.Contains(out, "bleve: valkey-search server metrics") || strings.Contains(jobs, "no dev fields") || !strings.Contains(jobs, "mixed") {
		t.Errorf("a table for a run without the figures, or none for one with them:\n%s", out)
	}
}

// A ladder of another engine that reports a queue depth (Meilisearch's
// enqueued tasks) gets a neutral queue table: no valkey-search title, no
// warning about Valkey's CONFIG SET.
func TestQueueTableOfOtherEngines(t *testing.T) {
	t.Parallel()
	run := studyBLadder("meilisearch", 2000, 1, 2, 4)
	run.Name = "meilisearch"
	for i := range run.Ladder.Rungs {
		for j := range run.Ladder.Rungs[i].Reps {
			run.Ladder.Rungs[i].Reps[j].EngineStats = map[string]result.Gauge{"queue_depth": {Samples: 27, Mean: 3, Max: 7}}
		}
	}
	out := render(t, []result.EngineRun{run})
	for _, bad := range []string{"valkey", "CONFIG SET", "ingest", "Indexing jobs"} {
		if strings.Contains(strings.ToLower(out), strings.ToLower(bad)) {
			t.Errorf("a Meilisearch ladder's report mentions %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"### meilisearch: engine queue metrics", "| offered writes/s | p99 (ms) | queue depth | queue max |", "|         0.4 |       7.0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The ladder's title gives its rung duration as a duration, not as an
// integer of nanoseconds.
func TestLadderTitleDuration(t *testing.T) {
	t.Parallel()
	run := studyBLadder("one", 2000, 1, 2, 8)
	run.Ladder.Duration = result.Duration(20 * time.Second)
	out := render(t, []result.EngineRun{run})
	if !strings.Contains(out, "×1.19 steps, 20s × 1 per rung)") || strings.Contains(out, "20000000000") {
		t.Errorf("ladder title with a 20 s rung:\n%s", out)
	}
}

// Searches whose totals stopped at valkey-search's cap during a rung or a
// level are flagged beside the figures; none, no flag.
func TestSaturatedTotalsWarning(t *testing.T) {
	t.Parallel()
	run := studyBLadder("text", 2000, 1, 2, 8)
	run.Ladder.Rungs[1].Reps[0].EngineStats["search_total_saturated"] = result.Gauge{Samples: 27, PerSecond: 12, Last: 300}
	run.Ladder.Rungs[1].Reps[0].EngineStats["max_nonvector_results"] = result.Gauge{Samples: 27, Last: 100000}
	out := render(t, []result.EngineRun{run})
	if n := strings.Count(out, "returned a total at valkey-search's cap (max-nonvector-search-results-fetched 100000)"); n != 1 {
		t.Errorf("%d saturation warnings, want 1 (the second rung's):\n%s", n, out)
	}
	lvl := result.Level{EngineStats: map[string]result.Gauge{"search_total_saturated": {PerSecond: 3, Last: 90}, "max_nonvector_results": {Last: 5}}}
	if w := levelWarnings(lvl); len(w) != 1 || !strings.Contains(w[0], "max-nonvector-search-results-fetched 5") {
		t.Errorf("level warnings %q; want the saturation warning", w)
	}
	lvl.EngineStats["search_total_saturated"] = result.Gauge{PerSecond: 0, Last: 90} // grew before the window only
	if w := levelWarnings(lvl); len(w) != 0 {
		t.Errorf("level warnings %q for a counter that did not grow", w)
	}
}

package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Study B's server-side figures (docs/study-b.md): beside each
// rung's latency, the valkey-search queues and ingest counters the driver
// sampled through the rung's measured windows; and, across setups, the
// indexing work at the sustained rate. They are read from the ladders'
// engine statistics alone, under the names the contract gives them
// (engines.Stat…, which the Valkey driver reports); a run that reports
// none of them gets no table. The writer queue is
// search_writer_queue_size under the common queue-depth name
// (engines.StatQueueDepth); the mutation queues are the fullest index's on
// the written prefix and the other prefixes' indexes' summed; the writer
// threads are search.writer-threads as the run had it.

// fieldIngestTypes are the per-field-type ingest counters
// (engines.StatIngestField + type), in table order.
var fieldIngestTypes = []string{"vector", "text", "tag", "numeric"}

// valkeyDriver is the driver whose statistics studyBSections reads by
// name: other drivers report an engines.StatQueueDepth too, of their own
// queues.
const valkeyDriver = "valkey"

// studyBSections is the server-metrics table of every Valkey ladder that
// carries valkey-search's figures, then the indexing-jobs table across
// them; another engine's ladder with queue figures gets a neutral table of
// them (queueSection), with nothing of Valkey's in it.
func studyBSections(runs []result.EngineRun) []Section {
	var out []Section
	var jobs [][]string
	for _, run := range runs {
		l := run.Ladder
		if l == nil || !hasStat(*l, engines.StatIndexingJobs, engines.StatMutationQueueMax, engines.StatQueueDepth) {
			continue
		}
		if run.Name != valkeyDriver {
			out = append(out, queueSection(run))
			continue
		}
		out = append(out, serverMetricsSection(run))
		if !hasStat(*l, engines.StatIndexingJobs) {
			continue
		}
		row := []string{run.Label, "—", "—", "—"}
		for _, r := range l.Rungs {
			if l.Sustainable == 0 || r.Offered != l.Sustainable {
				continue
			}
			row[1] = rate(l.Sustainable)
			if per, ok := perWrite(r, engines.StatIndexingJobs); ok {
				row[2], row[3] = rate(per*l.Sustainable), strconv.FormatFloat(per, 'f', 2, 64)
			}
		}
		jobs = append(jobs, row)
	}
	if len(jobs) > 0 {
		sec := Section{Title: "Indexing jobs at the sustained rate"}
		sec.table([]string{"indexes", "writes/s", "indexing jobs/s", "jobs per write"}, jobs)
		sec.text("Indexing jobs/s = search_ingest_hash_keys per completed write at the sustained rung (its repetitions together) × the sustained writes/s.")
		out = append(out, sec)
	}
	return out
}

// serverMetricsSection is one run's rungs with the server's figures beside
// the latency: Study B's "offered writes/s | p99 | writer queue depth",
// then the index queues and the ingest counters per completed write.
func serverMetricsSection(run result.EngineRun) Section {
	l := run.Ladder
	sec := Section{Title: run.Label + ": valkey-search server metrics"}
	offered := "offered writes/s"
	if reads(*l) {
		offered = "offered calls/s"
	}
	head := []string{offered, "p99 (ms)", "writer queue depth", "writer queue max", "mutation queue max", "idle indexes' queue max", "indexing jobs/write"}
	for _, t := range fieldIngestTypes {
		head = append(head, t+" ingests/write")
	}
	var rows [][]string
	for _, r := range l.Rungs {
		row := []string{rate(r.Offered), num(r.P99), "—", maxCell(r, engines.StatQueueDepth), maxCell(r, engines.StatMutationQueueMax), maxCell(r, engines.StatMutationQueueIdle)}
		if r.QueueDepth >= 0 {
			row[2] = queue(r.QueueDepth)
		}
		for _, key := range append([]string{engines.StatIndexingJobs}, fieldStats()...) {
			cell := "—"
			if per, ok := perWrite(r, key); ok {
				cell = strconv.FormatFloat(per, 'f', 2, 64)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	sec.table(head, rows)
	sec.text("Writer queue depth: search_writer_queue_size, the median over repetitions of its mean while measuring (max: the largest sample). Mutation queue: FT.INFO mutation_queue_size of the fullest index on the written prefix; idle indexes: the sum over the indexes on other prefixes. Per write: the counter's growth per completed write.")
	if !hasStat(*l, engines.StatIndexingJobs) {
		sec.warn(run.Label, "no ingest counters: the server did not accept CONFIG SET search.info-developer-visible yes, so indexing jobs cannot be counted")
	}
	if w, ok := lastGauge(*l, engines.StatWriterThreads); ok && run.CPULimit > 0 && w != math.Floor(run.CPULimit) {
		sec.warn(run.Label, fmt.Sprintf("valkey-search ran %g writer threads under a CPU limit of %g: its pools follow the host's cores unless set (options reader_threads, writer_threads)", w, run.CPULimit))
	}
	return sec
}

// queueSection is one run's rungs with the engine's own write-queue
// depth beside the latency: what any driver reports as
// engines.StatQueueDepth, under a title that names no engine's internals.
func queueSection(run result.EngineRun) Section {
	l := run.Ladder
	sec := Section{Title: run.Label + ": engine queue metrics"}
	offered := "offered writes/s"
	if reads(*l) {
		offered = "offered calls/s"
	}
	var rows [][]string
	for _, r := range l.Rungs {
		row := []string{rate(r.Offered), num(r.P99), "—", maxCell(r, engines.StatQueueDepth)}
		if r.QueueDepth >= 0 {
			row[2] = queue(r.QueueDepth)
		}
		rows = append(rows, row)
	}
	sec.table([]string{offered, "p99 (ms)", "queue depth", "queue max"}, rows)
	sec.text("Queue depth: the engine's write queue as its driver reports it (queue_depth), the median over repetitions of its mean while measuring (max: the largest sample).")
	return sec
}

func fieldStats() []string {
	out := make([]string, len(fieldIngestTypes))
	for i, t := range fieldIngestTypes {
		out[i] = engines.StatIngestField + t
	}
	return out
}

// hasStat says whether any repetition of the ladder reported one of keys.
func hasStat(l result.Ladder, keys ...string) bool {
	for _, r := range l.Rungs {
		for _, rep := range r.Reps {
			for _, k := range keys {
				if _, ok := rep.EngineStats[k]; ok {
					return true
				}
			}
		}
	}
	return false
}

// lastGauge is the last sample of key in the ladder's last repetition that
// reported it.
func lastGauge(l result.Ladder, key string) (float64, bool) {
	v, ok := 0.0, false
	for _, r := range l.Rungs {
		for _, rep := range r.Reps {
			if g, has := rep.EngineStats[key]; has {
				v, ok = g.Last, true
			}
		}
	}
	return v, ok
}

// reads says whether the ladder completed calls that do not write
// (searches, gets): its rate is then not a write rate.
func reads(l result.Ladder) bool {
	for _, r := range l.Rungs {
		for _, rep := range r.Reps {
			for _, o := range rep.Ops {
				if !o.Writes && o.Count > 0 {
					return true
				}
			}
		}
	}
	return false
}

// perWrite is a counter's growth per completed write at a rung, over its
// repetitions together: the sum of the counter's rates over the sum of the
// rates of completed writes. Each pair is taken over the same span — the
// counter's from the window's first sample to its last, the achieved rate
// from the window's start to its last completion — and the writes' share
// of the completed calls scales the achieved rate down when the mix also
// reads.
func perWrite(r result.Rung, key string) (float64, bool) {
	var grew, wrote float64
	for _, rep := range r.Reps {
		g, ok := rep.EngineStats[key]
		if !ok {
			continue
		}
		var writes, all int64
		for _, o := range rep.Ops {
			all += o.Count
			if o.Writes {
				writes += o.Count
			}
		}
		if writes == 0 || rep.Achieved <= 0 {
			continue
		}
		grew += g.PerSecond
		wrote += rep.Achieved * float64(writes) / float64(all)
	}
	if wrote == 0 {
		return 0, false
	}
	return grew / wrote, true
}

// maxCell is the largest sample of key over the rung's repetitions.
func maxCell(r result.Rung, key string) string {
	most, ok := 0.0, false
	for _, rep := range r.Reps {
		if g, has := rep.EngineStats[key]; has {
			most, ok = math.Max(most, g.Max), true
		}
	}
	if !ok {
		return "—"
	}
	return queue(most)
}

// queue formats a queue length: a decimal below 10, whole above.
func queue(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

package engines

import "context"

// StatsReporter reports engine-side gauges and counters (queue depths and
// the like), sampled by the runner during measurement.
type StatsReporter interface {
	Stats(ctx context.Context) (map[string]float64, error)
}

// The names a StatsReporter reports under. A figure that means the same on
// every engine has one name here, so that the runner and the report read it
// without knowing the driver; the rest are valkey-search's, named here so
// that the Valkey driver and the report's Study B tables share them.
const (
	// StatQueueDepth is writes the engine accepted and has not yet applied:
	// its own write or ingest queue, shown beside latency in the ladder
	// tables.
	StatQueueDepth = "queue_depth"
	// StatDocCount is the documents the engine says its index holds.
	StatDocCount = "doc_count"

	// valkey-search (engines/valkey, Stats): the indexing jobs counter
	// (search_ingest_hash_keys, one per index a written key is routed to),
	// FT.INFO mutation_queue_size summed over the indexes on the written
	// prefix, of the fullest of them and summed over the idle ones, the
	// reader and writer pools the run had, and the per-field-type ingest
	// counters (StatIngestField + "vector", "text", "tag", "numeric").
	StatIndexingJobs      = "ingest_hash_keys"
	StatMutationQueue     = "mutation_queue_size"
	StatMutationQueueMax  = "mutation_queue_size_max"
	StatMutationQueueIdle = "mutation_queue_size_idle"
	StatReaderThreads     = "reader_threads"
	StatWriterThreads     = "writer_threads"
	StatIngestField       = "ingest_field_"
)

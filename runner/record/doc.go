// Package record is the recording of a measured window's calls: per-worker
// recorders that buffer samples without a lock or an allocation, the sink
// that merges them into HDR histograms (per operation, per query kind), and
// the window's intervals on one clock (Grid) with the collector that closes
// them as they end and the timeline the result carries; and the engine's own
// figures sampled on the same clock (StatsSampler). It knows nothing of
// loops, engines' answers or the pipeline: the loops in runner drive it.
package record

// Package runner drives search engines under load and measures them.
//
// # The plan
//
// A Plan is a whole benchmark: a corpus.Source (the corpus and its
// queries: workload/corpus/text, Study A's documents and 5-word searches,
// or workload/corpus/product, Study B's product hashes with embeddings;
// corpus.New builds either by name), the Setups
// (one column of the tables each: a driver with its own configuration),
// and exactly one loop:
//
//   - Closed (a loops.Config): virtual users at each user level, each level
//     through ramp → settle → measure → stop, every user calling as soon
//     as its previous call returns (loops.ClosedLoop).
//   - Ladder (a loops.LadderConfig): an open-loop rate ladder. Each rung offers
//     a rate for a duration, several times, and the medians are kept;
//     the ladder finds the highest rate that meets its rule, the
//     sustainable rate (loops.RunLadder). Within a rung, calls are sent on a
//     workload.Schedule whatever the engine's state (loops.OpenLoop), and each is
//     timed from when it was due, so a stall is charged to every call it
//     held back (no coordinated omission).
//
// Plan.Validate checks everything that can be checked without an engine,
// and names the field at fault (a *field.Error).
//
// # The pipeline
//
// Run takes each setup in turn: it launches the engine's container (or
// attaches to a running engine, or opens an embedded one), creates the
// index, pre-populates it (Prepopulate), checks relevance idle
// (checks.CheckRelevance), drives the closed loop or the ladder, and measures
// as it goes; then it releases what it started. A failure after the plan
// is accepted — an engine that cannot start, a driver that panics
// (guard.PanicError), an interrupt — is in the result, marked partial, beside
// what was measured; the result carries its provenance (versions, host,
// images, seeds, the corpus's hash) and none of the setups' secrets.
//
// # Observing a run
//
// Everything a run does is a stream of events (runner/event's Event, the
// one type a shard streams to its coordinator and the live page's script
// reads) to an event.Observer: phases, progress, each interval's figures as it
// closes, warnings as soon as a window's figures are final, each of its
// window (a result.Window) apart from its phase. The CLI's log and the live view
// (runner/live) both draw from it; event.Observers passes one stream to
// several. The loops report through a loops.Emitter (an Observer and the
// setup's label), so a program that calls loops.ClosedLoop or loops.RunLadder itself
// gets the same stream. A loops.Barrier is the one control seam: a sharded
// run's loops wait at it before each synchronised start, and its answer
// decides whether the loop goes on and gives the instant the loop's ramp,
// schedule, window and intervals are timed from.
//
// # Recording
//
// Every call is timed around the driver and recorded on a path that
// neither locks nor allocates (runner/record's Recorder and Sink): per operation, successful
// calls go into HDR histograms (1 µs to 5 minutes, 3 significant digits)
// and failures are counted by class, with a few of their messages. Each
// measured window is also cut into intervals, each with its own
// histograms, so the result holds a timeline; the open loop records
// service times (from the actual send) beside latency. The harness checks
// itself over each window: its CPU share and its goroutines' scheduler
// latency, so a window the load generator could not keep up with is
// flagged rather than reported as the engine's. An engine that reports
// statistics (queue depth, document count) is sampled through each
// window, with the container's CPU and memory when it runs in one.
//
// # Checks beyond latency
//
// The freshness probe (checks.FreshnessConfig) marks a sample of the run's own
// upserts with a word no other document has, and measures the time from
// the write's acknowledgement until a search returns it. Known-item
// checks (checks.KnownConfig, corpus.KnownItems) make a share of the searches under
// load look for a pre-populated document no write has touched, and count
// whether it came back in the top k: a configuration that is fast
// because it returns the wrong documents shows as low recall.
//
// # Sharding
//
// A plan with a ShardPlan runs one share of a load split over several
// load generators that drive one engine (runner/shard splits users and
// arrivals exactly, so the shards together send one machine's load).
// Shard 0 alone creates, pre-populates and checks the index; the others
// attach. With a coordinator the shards register, start every level and
// rung repetition together, stream their events to the coordinator's
// live view (ShardView merges their intervals) and send it their
// results, which result.Merge turns into one.
//
// # Calibration
//
// loops.Calibrate runs both loops against engines of known service-time
// distributions (loops.Calibrations: a fixed service time, a bimodal one, and
// one that freezes periodically) and compares the measured percentiles with the truth
// (loops.Distribution.Truth): the harness's own error, and a demonstration that
// the closed loop hides stalls the open loop charges.
//
// # Subpackages
//
//   - runner/loops: the closed loop, the open loop, the ladder and the
//     calibration, and what a loop adds to a window (Calls, the
//     self-check, engine stats, live figures, the Emitter and Barrier).
//   - runner/checks: the checks beyond latency (relevance, exact answers,
//     known items under load, the freshness probe) and the write versions.
//   - runner/record: the recorder, the histograms and the interval grid.
//   - runner/event: a run's event and its Observer.
//   - runner/field, runner/guard: a plan's fault in one field's value, and
//     a driver's panic as an error; leaves every room imports.
//   - runner/result: the result as written to JSON, the contract between
//     running and reporting, and the merge of shards' results.
//   - runner/report: renders results (Markdown tables, an HTML page with
//     charts, CSV, a comparison of two runs) from the result types alone.
//   - runner/live: a page that shows a run as it goes, fed by its events.
//   - runner/shard: the exact split of the load, and the coordinator and
//     client that synchronise the shards' starts.
//   - runner/scenario: the settings of `searchbench run` and `ladder`,
//     and the scenario files that give them values, decoded into a Plan.
//   - runner/deploy: Kubernetes and Docker Swarm definitions that run a
//     sharded searchbench on an existing orchestrator.
package runner

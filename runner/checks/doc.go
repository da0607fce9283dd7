// Package checks is what a run checks beyond latency: whether the engine
// answers correctly and how soon it shows what it was given.
//
//   - CheckRelevance: known-item checks on the idle engine after
//     pre-population (corpus.KnownItems), recall@k per kind.
//   - CheckExact: the corpus's sample of exact answers (corpus.Truth) asked
//     of the idle engine, tallied by kind and by query.
//   - KnownChecks (KnownConfig): a share of the searches under load made
//     known-item or exact-answer checks, their answers counted after the
//     call's clock stops.
//   - Prober (FreshnessConfig): a sample of the run's own upserts marked
//     with a word no other document has (corpus.Marker), and the time from
//     the write's acknowledgement until a search returns it.
//   - Versions: the next version of each ID, per shard of a split run, so a
//     check knows which documents the run rewrote; and, when the exact
//     checks follow the writes (KnownConfig.Follow), the loops' write path
//     into the truth: Sending before a write is sent, Returned when it
//     comes back, Foreign for another share's write.
//
// Exact answers under writes. A run's exact checks under load score each
// answer against a truth that follows the run's acknowledged writes
// (corpus.Truth.Follow: for the product corpus a neighbours.Live seeded
// from the sample's answers, its refills reading every product at the
// version its last acknowledged write left). An upsert enters the truth
// with its new embedding when the engine acknowledges it, a delete takes
// its document out; the loops apply it on the writer's goroutine once the
// call returns (about 50 µs at 1,024 dimensions × 100 sample queries, no
// allocation: BenchmarkFollowWrite), the document being excused from
// every answer from Sending until then. Two rules, both kept
// (result.KindRecall):
//
//   - strict: a document acknowledged before the search was sent is
//     expected; one whose write overlaps the search (begun, acknowledged
//     at or after the send, failed, or overlapping another write of it)
//     is excused.
//   - lag-excused: a document acknowledged within the engine's freshness
//     lag before the send is excused too. The lag is the window's
//     freshness probe's longest measured lag (Prober.Longest), rounded up
//     to a 1-2-5 ladder (lagRungs): the lag is known only once the window
//     is over, so each answer is scored at every rung as it comes back and
//     the result keeps the rung at or above the lag measured (Lag records
//     it). Without a probe (the open loop, --freshness off) no lag is
//     excused and the two rules agree. RecentMisses are the strict misses
//     acknowledged within that lag.
//
// Without writes both rules score as the idle check does. A lookup by
// name (a SKU) keeps the old rule: any product the run wrote is excused.
//
// Sharded runs. A share knows its own writes only. The other shares'
// writes are excused for good (neighbours.Live.Foreign: neither their
// version nor their order with this share's is known), from a moment no
// later than they can be sent: the open loop's scheduler marks each other
// share's scheduled write as it passes it, at or before its due time (the
// shares start together, within the start's clock error of RTT/2); the
// closed loop draws the other shares' users' streams, which are seeded by
// their global indices, ahead of its own users — to 4 times the steps its
// fastest user has drawn, plus 64 — and marks their writes as it draws
// them, which holds unless another share's users run more than 4 times
// faster than this share's. So a share's recall under writes is scored
// over the documents no other share may have written; as a long run
// writes most of the corpus, more answers are left with too few such
// documents to say anything and are counted Skipped.
//
// The loops (runner/loops) create the checks of each window and call them;
// this package imports neither the loops nor the runner's top.
package checks

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
//     check knows which documents the run rewrote.
//
// The loops (runner/loops) create the checks of each window and call them;
// this package imports neither the loops nor the runner's top.
package checks

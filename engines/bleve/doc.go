// Package bleve is the embedded default engine: a Bleve (scorch) index on
// local disk, so searchbench runs on a machine with no server and no Docker.
//
// Text fields use Bleve's English analyzer (unicode tokenizer, possessive
// filter, lowercase, English stop words, Porter stemmer) — the nearest
// embedded match to the published study's Elasticsearch analyzer (standard
// tokenizer, lowercase, stop, English stemmer). A search is a disjunction of
// one match query per text field, which sums per-field scores like
// Elasticsearch's multi_match most_fields.
//
// Visibility: Searchable. Bleve applies a write to an in-memory segment that
// searches see before Index returns; persistence to disk is asynchronous.
//
// Get (engines.Getter) is Bleve's stored-fields lookup by ID, so the
// mapping stores every text field: on the corpus that about doubles the
// index on disk (BenchmarkLoadCorpus; see Get).
package bleve

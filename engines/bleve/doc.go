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
// # Query shapes
//
// Free text only (engines.Query.Text, with K): the schema may hold text
// fields alone (CheckSchema refuses a tag, numeric or vector field), so a
// lookup in one field, a filter, a kNN or a hybrid is engines.ErrUnsupported,
// said before anything starts by CheckQuery (engines.QueryChecker), the
// same check Search makes first (checkQuery). Bleve v2.6 does have kNN and
// hybrid search, but only through FAISS: "FAISS is a C++ library that needs
// to be compiled and its shared libraries need to be situated at an
// accessible path", and "A vectors GO TAG needs to be set for bleve to access
// all the supporting code" (docs/vectors.md in
// github.com/blevesearch/bleve/v2 v2.6.3, "Pre-requisite(s)", whose table
// pairs v2.6.0 with blevesearch/faiss@fff814d). The embedded default
// engine builds without cgo and without that tag, so that searchbench runs
// anywhere Go does: vectors stay with the server engines.
//
// Visibility: Searchable. Bleve applies a write to an in-memory segment that
// searches see before Index returns; persistence to disk is asynchronous.
//
// Get (engines.Getter) is Bleve's stored-fields lookup by ID, so the
// mapping stores every text field, which makes the index larger on disk
// (BenchmarkLoadCorpus measures it; see Get).
//
// Written against github.com/blevesearch/bleve/v2 (the version go.mod
// names; Version reports the one compiled in). Options: none (Config.Options
// must be empty). Stats: none. Errors: a missing document on Delete or Get
// is engines.ErrNotFound; everything else is class other.
//
// # Files
//
//   - driver.go: registration, Describe, CheckConfig, CheckSchema, Open.
//   - options.go: the configuration check (no URL, no options, searchable
//     writes), for CheckConfig and Open.
//   - engine.go: Engine and its contract methods on the index.
//   - wire.go: what the driver gives Bleve: the index mapping of a schema,
//     a document's body, a search request.
//   - errors.go: the not-found class and the no-index error.
//
// There is no launch.go: the engine is embedded, with no container.
package bleve

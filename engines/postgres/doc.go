// Package postgres drives PostgreSQL full-text search — a real option users
// weigh against dedicated engines, and the real server this project can run
// on a machine that cannot pull images.
//
// Each text field feeds a generated tsvector column (english configuration:
// stemming and stop words, the nearest match to the other engines' English
// analyzers) with a GIN index. A search is websearch_to_tsquery over the
// query's words joined by "or" — the OR semantics of Elasticsearch's
// multi_match, which the published study used; websearch_to_tsquery alone
// would AND the words and match almost nothing — ranked by ts_rank, top k.
//
// Visibility: Searchable. A write returns when its transaction commits, and
// a committed row is visible to every later query (a GIN index's pending
// list is searched too).
//
// Get (engines.Getter) selects the row's text fields by primary key; no row
// is engines.ErrNotFound.
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) checks with to_regclass and pg_attribute that the table is there
// with id, tsv and the schema's columns; it runs no DDL.
//
// # Options (Config.Options)
//
//   - pool: the connection pool's size, 1 to 10000 (default 200).
//
// # Errors
//
// SQLSTATE 53300 (too many connections), 53200 (out of memory), 53100
// (disk full) and 55P03 (lock not available) wrap engines.ErrOverloaded,
// 57014 (query canceled: a statement timeout) engines.ErrTimeout; a
// missing row on Delete or Get is engines.ErrNotFound.
//
// # Stats
//
// None: the driver reports no engines.StatsReporter stats.
//
// # Files
//
//   - driver.go: registration, Describe, CheckConfig, CheckSchema, Open.
//   - options.go: the pool option, the write mode and the URL, read once
//     for CheckConfig and Open.
//   - engine.go: Engine and its contract methods, through pgx's pool.
//   - wire.go: the SQL of a schema (table, generated tsvector, GIN index,
//     statements), a document's arguments and the OR query text.
//   - errors.go: SQLSTATEs onto the contract's classes.
//   - launch.go: the container the launcher starts, and the fallback image
//     built from Debian's packages.
//
// Written against PostgreSQL 15 (the image postgres:15.18-bookworm) and
// github.com/jackc/pgx/v5.
package postgres

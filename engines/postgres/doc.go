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
package postgres

// Package postgres drives PostgreSQL full-text search and, with the
// pgvector extension, vector search — real options users weigh against
// dedicated engines, and the real server this project can run on a
// machine that cannot pull images.
//
// # Schema
//
// One table per schema, a column per field, and the indexes of the field
// types the fields option names (all four by default; a column is written
// whether or not it is indexed):
//
//   - text: text NOT NULL; every text field feeds a generated tsvector
//     column, tsv (english configuration: stemming and stop words, the
//     nearest match to the other engines' English analyzers), with a GIN
//     index — the full-text index; without text in fields, neither tsv nor
//     its index is made (a stored generated column costs every write);
//   - tag: text NOT NULL, with a btree index;
//   - numeric: double precision (NULL when a document lacks it), with a
//     btree index;
//   - vector: vector(dim) (NULL when a document lacks it), with an HNSW
//     index of the metric the schema's field names (engines.Metric):
//     USING hnsw (col vector_cosine_ops) for cosine, vector_l2_ops for
//     l2, vector_ip_ops for dot (wire.go, vectorOps); the schema may have
//     one, of 1 to 2,000 dimensions (an HNSW index's limit);
//     CREATE EXTENSION IF NOT EXISTS vector runs first. The
//     table keeps its vectors in the row: CREATE TABLE … WITH
//     (toast_tuple_target = 8160) and the vector column SET STORAGE MAIN,
//     where pgvector's type would send every vector past 2 KB (a
//     1,024-dimension one is 4,104 bytes) to the TOAST table, out of the
//     planner's sight: it then priced a sequential scan of the vectors at
//     the heap's pages alone and chose it over the HNSW index at some
//     values of hnsw.ef_search (wire.go, inlineVectors).
//
// Beside these, the exact-lookup index of each text field the exact option
// names (by default every text field of a schema that has fields of other
// types — the product table's sku, title and description — and none of a
// text-only one): CREATE INDEX <table>_<field>_exact ON t USING GIN
// (to_tsvector('simple', regexp_replace(field, '[^[:alnum:]]+', ' ',
// 'g'))) — the field's words of letters and digits, lowercased, as a
// tsvector of the simple configuration, which has no stop words and no
// stemming, so SKU IT-500 keeps "it" (an English stop word). The words are
// cut before the text-search parser sees them, which would read "IT-500"
// as "it" and "-500", a signed number.
//
// A schema needs a text field. A text-only schema makes the text columns,
// tsv and its GIN index alone, and needs no extension: the text corpus's
// table is what it always was.
//
// Vectors travel in pgvector's text form, '[x,y,…]' (VectorText,
// ParseVector): a parameter cast ::vector, and a column read ::text by
// Get. github.com/pgvector/pgvector-go is not used: the module proxy here
// serves it only from an unapproved copy, and the text form needs no
// codec (shortest float32 digits, so a vector reads back bit for bit).
//
// # Search
//
// Each kind of engines.Query is one SQL statement (wire.go, searchSQL):
//
//   - Text alone (no Filters): SELECT id FROM t,
//     websearch_to_tsquery('english', $1) q WHERE tsv @@ q ORDER BY
//     ts_rank(tsv, q) DESC LIMIT $2 — the query's words joined by "or",
//     the OR semantics of Elasticsearch's multi_match, which the published
//     study used (websearch_to_tsquery alone would AND the words and match
//     almost nothing). Filters add WHERE clauses.
//   - Field (the SKU lookup, and the freshness probe's marker word in
//     the title): Valkey's semantics — a tag column's value equals the
//     text; a text column holds the text's words as a phrase, whole words
//     in order, case aside, on the field's exact-lookup index: WHERE
//     to_tsvector('simple', regexp_replace(field, '[^[:alnum:]]+', ' ',
//     'g')) @@ phraseto_tsquery('simple', $1), $1 the text's words of
//     letters and digits between spaces (the index's expression, which the
//     planner needs to use the index), so "IT-500" finds the sku IT-500 and
//     not IT-5000, and "500" finds IT-500 too, as in Valkey. ORDER BY id
//     LIMIT k. The GIN index gives the rows holding every word; the phrase
//     (<->, adjacent in order) is checked on those rows (a recheck). A text
//     field without that index is refused, not scanned.
//   - Vector: WITH nearest AS MATERIALIZED (SELECT id, v <=> $1::vector
//     AS distance FROM t WHERE filters ORDER BY distance LIMIT k) SELECT
//     id FROM nearest ORDER BY distance, id — <=> (cosine distance) for a
//     cosine field, <-> (L2 distance) for l2, <#> (the negative inner
//     product, so ascending is the largest product first) for dot: the
//     operator of the index's class, the only one its scan answers (the
//     hybrid's vector ranking too). A filter on a tag is
//     equality, on a number BETWEEN Min AND Max (inclusive, as Valkey's
//     [min max]); a Field lookup with a Vector is one more filter.
//   - Text and Vector (hybrid): reciprocal rank fusion in one statement —
//     a CTE ranks the top k full-text matches (ts_rank), another the top
//     k nearest (both under the same Filters), FULL JOIN on id, and a row
//     scores the sum of 1/(60 + rank) over the rankings it is in (k = 60,
//     Cormack, Clarke and Büttcher's constant), top k by score, ties by id.
//     Valkey instead restricts the kNN to the text's matches; RRF keeps
//     both signals, the usual hybrid on PostgreSQL.
//   - Filters alone: SELECT id FROM t WHERE filters ORDER BY id LIMIT k.
//
// A member the table cannot honour is engines.ErrUnsupported: a filter or
// lookup on a field it does not have or of the wrong type, a vector without
// a vector field, and a member whose index the options left out — free text
// (hybrid included) without text in fields, a vector without vector, a
// filter or tag lookup on a type not in fields, a lookup in a text field
// the exact option does not name. CheckQuery (engines.QueryChecker) says so
// before anything starts: it makes the table's layout from the options and
// the schema and asks searchSQL, whose first step (refuse) is this check,
// the one Search makes. A vector of the wrong dimension or an empty range
// is the query's own error.
//
// # Index parameters
//
// pgvector's defaults throughout: m = 16 and ef_construction = 64 for the
// HNSW build, hnsw.ef_search = 40 at query time — the settings a user gets
// without tuning, and k (10) is well under ef_search. HNSW filters after it
// scans, so a filter that keeps one row in ten leaves about 4 of the 40
// candidates: every connection sets hnsw.iterative_scan = relaxed_order
// (a startup parameter, so no round trip per query), which scans on until
// k rows pass or hnsw.max_scan_tuples (20,000) is reached; relaxed order
// may return rows slightly out of order, which the materialized CTE sorts
// again. On a server without pgvector the setting is an unused placeholder.
// The planner may still prefer a tag's btree index and an exact sort when a
// filter is selective; that answer is exact.
//
// Sources: PostgreSQL 15's manual, "Controlling Text Search" (12.3:
// phraseto_tsquery, <-> adjacency), "Simple Dictionary" (12.6.2: the simple
// configuration lowercases and keeps every word), "Preferred Index Types
// for Text Search" (12.9: GIN, an entry per lexeme listing the rows that
// hold it — the phrase's order is checked on those rows, EXPLAIN's Recheck
// Cond) and
// "Indexes on Expressions" (11.7: used when the query has the index's
// expression); pgvector 0.8.6's README (the release source kept in
// compose/images/postgres/pgvector): "HNSW" (index options and their
// defaults, the 2,000-dimension limit, "Query Options"), "Filtering" and
// "Iterative Index Scans" (iterative_scan, the materialized CTE).
//
// Visibility: Searchable. A write returns when its transaction commits, and
// a committed row is visible to every later query (a GIN index's pending
// list is searched too, and an HNSW index is updated in the transaction).
//
// Get (engines.Getter) selects the row's fields by primary key — text and
// tag as Text, numeric as Number, vector as Vector; no row is
// engines.ErrNotFound.
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) checks with to_regclass and pg_attribute that the table is there
// with id, the schema's columns and tsv (when text is indexed); it runs no
// DDL, so every shard must be given the same options.
//
// # Options (Config.Options)
//
//   - pool: the connection pool's size, 1 to 10000 (default 200).
//   - fields: the field types that get their index, comma-separated from
//     text, tag, numeric and vector (Valkey's option; default all four).
//     Study B's vector-cost experiment compares "tag,numeric" with
//     "tag,numeric,vector": the same writes, with and without the HNSW
//     index (scenario postgres-vector-cost).
//   - exact: the text fields that get the exact-lookup index,
//     comma-separated, or none (default: above). Study B's exact-index
//     experiment compares none with "sku,title" (scenario
//     postgres-exact-index).
//
// CheckConfig refuses a bad value with one line; CheckSchema refuses an
// exact field that is not a text field of the schema.
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
//   - driver.go: registration, Describe, CheckConfig, CheckSchema,
//     CheckQuery, Open.
//   - options.go: the options, the write mode and the URL, read once for
//     CheckConfig, CheckSchema, CheckQuery and Open.
//   - engine.go: Engine and its contract methods, through pgx's pool.
//   - wire.go: the SQL of a schema (table, generated tsvector, indexes,
//     statements), a document's arguments, the refusal and each query
//     kind's SQL, the OR query text and the vector text form.
//   - errors.go: SQLSTATEs onto the contract's classes.
//   - launch.go: the container the launcher starts, and the fallback image
//     built from Debian's packages and pgvector's release source.
//
// Written against PostgreSQL 15 with pgvector 0.8.6 (the image
// pgvector/pgvector:0.8.6-pg15-bookworm, or searchbench/pgvector:0.8.6-pg15
// built by compose/images/postgres) and github.com/jackc/pgx/v5.
package postgres

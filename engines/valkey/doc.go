// Package valkey drives Valkey with the valkey-search module (1.2, the
// first release with TEXT fields; image valkey/valkey-bundle:9.1.0) through
// the official client, github.com/valkey-io/valkey-go.
//
// # Documents and indexes
//
// A document is a hash at <prefix><ID>; the prefix is Options["prefix"],
// by default "<schema name>:". Create drops this driver's indexes (FT._LIST:
// the schema name and the names derived from it), deletes the keys under
// every prefix it uses (SCAN + UNLINK, bounded) and runs FT.CREATE … ON
// HASH PREFIX 1 <prefix> SCHEMA …: Text → TEXT, Tag → TAG SEPARATOR ,
// CASESENSITIVE, Numeric → NUMERIC, Vector → VECTOR HNSW 6 TYPE FLOAT32
// DIM <Dim> DISTANCE_METRIC <metric> (the server's HNSW defaults: M 16,
// EF_CONSTRUCTION 200, EF_RUNTIME 10). The metric follows the schema's
// field (engines.Metric): cosine → COSINE, l2 → L2, dot → IP; a KNN
// search ranks by the module's distance for it, ascending — 1 − cos for
// COSINE, 1 − a·b for IP (so the largest inner product first, the vectors
// not normalized), the squared Euclidean distance for L2 (wire.go,
// distanceMetrics, which cites the module's source). Which fields the
// indexes hold, and how many indexes there are, the options say (below).
// TEXT gets valkey-search's defaults (English stemming, the 33 Lucene stop
// words, offsets), the nearest match to the other engines' English
// analyzers.
//
// A TAG field left to valkey-search's defaults is case-insensitive and
// split at every ",": "Books" matches a filter on "books", and "a,b" is two
// tags (docs/commands/ft.create.md; src/commands/ft_create_parser.cc,
// 1.2.0). An Elasticsearch keyword and a Typesense exact filter compare the
// whole value byte for byte. The driver states its choice in FT.CREATE so
// that the setup says what it measures: CASESENSITIVE (exact bytes, as the
// others) and SEPARATOR "," (the default, written out: no tag value of the
// corpora holds a comma, so each value is one tag, and Study B's indexes
// split as the study's did). The corpora's tags are lower case, so neither
// choice changes which documents match here; a query that differs from a
// stored tag only in case finds nothing, as on the other engines.
//
// # Limits the server sets
//
// Open asks the server (CONFIG GET) for two settings and Version reports
// them beside the module's version, so the result records them:
//
//   - search.max-nonvector-search-results-fetched (default 100,000): a
//     query without KNN — every text search, a filter-only one — collects
//     every matching key before LIMIT is applied, stops at this many, and
//     returns that count as its total (src/query/search.cc
//     DoSearchNonVector, src/valkey_search_options.cc; 1.2.0). A text
//     search's cost therefore grows with the number of documents it
//     matches, not with K, and a total equal to the cap is a floor, not a
//     count. Search counts such saturated totals; Stats reports the count
//     as "search_total_saturated" and the cap as "max_nonvector_results",
//     and the report warns where the count grew during a level or rung.
//   - search.max-indexes (default 1,000): the most indexes the server holds,
//     all databases together (src/schema_manager.cc CreateIndexSchema). A
//     setup whose matching_indexes + idle_indexes (hybrid's pair + idle)
//     exceed it is bad input: CheckConfig checks the default, and, attached
//     (a URL given), the server's own value; Create refuses, before
//     creating any, when the indexes of others on the server leave too few.
//
// Upsert is one HSET of every schema field (numbers as decimal strings,
// vectors as little-endian float32 bytes, valkey.VectorString32). HSET sets
// only the fields it names, so stale fields would survive a write that
// named fewer; the driver therefore writes the schema's whole field set
// every time (a document that lacks a Numeric or Vector field is refused,
// a missing Text or Tag field is written empty; an empty TAG value is no
// tag to valkey-search, which counts it in hash_indexing_failures,
// src/indexes/tag.cc AddRecord, 1.2.1). That replaces every
// indexed field in one command, and one command is what valkey-search
// blocks the writer on until the index is updated. DEL followed by HSET in
// MULTI/EXEC (or a Lua script) would also replace the hash, but writes in a
// transaction or script do not block the client: the indexes catch up
// later, and a search right after the write may miss it (src/index_schema.cc
// ShouldBlockClient). Delete is DEL; no key removed is engines.ErrNotFound.
// Get (engines.Getter) is HGETALL of the hash, every schema field decoded
// back (vectors included); an empty reply is engines.ErrNotFound.
//
// Visibility: Searchable under one index on the written prefix (the
// default): valkey-search holds the reply to a write until the index has
// applied it, so a search sent after the reply sees the write.
// Acknowledged under several (matching_indexes above 1, hybrid=on): the
// module means to hold the reply until every matching index has the
// write, but 1.2.1 may release it when the first has (settings.writeMode
// says how; TestStudyBModule/SeveralIndexes shows it: with three indexes,
// 5 of 1,000 writes were missed by the search sent right after the reply).
// Refresh (engines.Refresher) waits until every index's
// mutation_queue_size is 0, as pre-population does before it counts.
//
// # Searches
//
// Query.Text searches every TEXT field. valkey-search's own semantics for
// several words is AND, and it does not rank non-vector results: they come
// back in no particular order. To answer the study's question — the OR
// semantics of the other engines, best matches first — the driver sends two
// searches pipelined on one connection: every word (`w1 w2 …`), then any
// word (`w1 | w2 | …`), and returns the first's hits before the second's,
// up to K: documents with all the words first, then the rest in the
// server's order. Total is the OR count. Options["text_query"]="or" sends
// the OR search alone (one search per query, unordered). Words are the
// letters-and-digits runs of the text, lowercased, stop words dropped (the
// server drops them too; an OR side of stop words alone is its "Missing OR
// term" error, and crashed valkey-search 1.2.0), so nothing needs escaping.
// Text with no word left matches nothing.
//
// Query.Field is an exact lookup: `@f:{value}` on a Tag field, the words as
// an exact phrase `@f:"w1 w2"` on a Text field (unstemmed, stop words kept,
// in order), so that SKU "IT-500" does not match every document with a 500.
// Query.Vector is `<filters or *>=>[KNN K @<vector field> $vec]` with PARAMS
// 2 vec <bytes>; Query.Filters are `@f:{tag}` and `@f:[min max]`. Every
// search is NOCONTENT LIMIT 0 K DIALECT 2. K may be at most 10000.
//
// Text and Vector together (the hybrid shape) is not a fusion of two
// rankings: valkey-search 1.2 has no score fusion (no RRF, no FT.HYBRID,
// which is Redis 8.4's), only its hybrid query, in which "a filter
// expression [indicates] which keys within the index are candidates for
// results": `<filter>=>[KNN K @field $vec]` (valkey.io/topics/search-query,
// "Hybrid Vector Queries", valkey-search 1.2). The driver sends the text's
// words OR-ed as that filter, beside any Filters: `@f:{tag} (w1 | w2 | …)
// =>[KNN K @embedding $vec]` (one string, no space before =>), the K nearest among the documents that match
// the text, ranked by vector distance alone — the text decides which
// documents may come back, never their order. It needs one index with the
// text and the vector fields (the default layout; the hybrid option's pair
// splits them, so there it is engines.ErrUnsupported).
//
// CheckQuery (engines.QueryChecker) says before anything starts which of
// these shapes the layout cannot answer: the options, the indexes they make
// of the schema and searchPlan, as Search runs them, without a server (a
// query needing a field no write-side index holds, a lookup in a numeric
// field, search with matching_indexes=0).
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) runs FT.INFO on every index the schema and options make: "not
// found" is a missing index, and each must hold the schema's fields with
// Create's types. It touches no key, so every shard must be given the same
// options (prefix, matching_indexes, idle_indexes, hybrid, fields).
//
// # Options
//
//   - prefix: key prefix of the documents (default "<schema name>:").
//   - fields: the field types every index holds, comma-separated from
//     text, tag, numeric and vector (default: all four — every field of the
//     schema). The hash always carries every field; this only says what is
//     indexed. Study B's indexes hold "tag,numeric" (experiments 1 and 2),
//     and "tag,numeric,vector" for the vector field's cost (experiment 3).
//   - matching_indexes: N identical indexes on the written prefix (default
//     1; names <name>, <name>-2 …; with idle_indexes at most
//     search.max-indexes, above). 0 creates none: writes are plain HSETs,
//     Search returns engines.ErrUnsupported and Count counts keys by SCAN.
//   - idle_indexes: K indexes with the same fields on prefixes no write
//     touches ("idle-<i>:<prefix>", names <name>-idle-<i>; default 0).
//     valkey-search routes a write only to indexes whose prefix matches the
//     key, so these should cost nothing (Study B, experiment 1).
//   - hybrid: on or off (default; true, false and the other spellings of
//     strconv.ParseBool too). On creates Study B's pair on the same
//     keys: <name>, the semantic index (the Tag, Numeric and Vector fields
//     among fields), and <name>-exact (the Text fields: sku, title and
//     description of the product corpus, with NOSTOPWORDS, so SKU "IT-500"
//     keeps "it"). Text and Field queries go to the exact index, Vector and
//     filter-only ones to the semantic one. Needs matching_indexes 1.
//   - reader_threads, writer_threads: when given, CONFIG SET
//     search.reader-threads / search.writer-threads at Open. valkey-search
//     sizes both pools from the host's physical cores, not the container's
//     CPU limit, so a fair run sets them to the limit (Study B: 8).
//   - pool: the most connections open at once (default 2048, see below).
//   - text_query: tiered (default) or or, as above.
//
// Unknown option names are refused by CheckConfig and Open.
//
// # Connections
//
// valkey-go auto-pipelines concurrent commands onto a few shared
// connections by default. With many users writing ~4.6 KB hashes that puts
// deep pipelines of indexed HSETs on one connection, and valkey-search then
// stalls: the first HSET blocks the client until it is indexed, and the
// rest of the pipeline is left in the query buffer (valkey-search issue
// #1293, #992; fixed in Valkey core after 9.1.0). So DisableAutoPipelining
// is set: every call takes its own pooled connection, as each user of the
// published studies had its own. The pool holds up to Options["pool"]
// connections (default 2048: 1,500 users plus the runner's sampler and a
// bulk load, under Valkey's maxclients of 10000); each has 64 KiB buffers
// instead of 0.5 MiB, since no request or reply here is large. Client-side
// caching is off (it would answer searches without the server) and retries
// are off (the runner times each attempt).
//
// UpsertBatch never pipelines indexed writes: it sends single HSETs from 32
// concurrent connections. Without an index (matching_indexes 0, or no
// indexes at all) no client is blocked, and it pipelines HSETs in batches
// of at most 16 KiB on each connection.
//
// Stats (engines.StatsReporter), sampled by the runner through every
// measured window: from FT.INFO of every index this driver made,
// "mutation_queue_size" (the sum over the indexes on the written prefix),
// "mutation_queue_size_max" (the largest of them) and
// "mutation_queue_size_idle" (the sum over the idle ones),
// "hash_indexing_failures" (the sum over the indexes on the written
// prefix), "backfill_in_progress" (how many indexes are still scanning the
// keys that existed when they were created) and
// "backfill_complete_percent" (the least of the indexes', a fraction from
// 0 to 1 as the module writes it; the module backfills every new index on
// its server cron, so an index Create just made reports a backfill, and
// rescans, while the first documents are loaded); from INFO search
// "queue_depth" (search_writer_queue_size, the runner's queue column),
// "query_queue_size", "used_write_cpu", "used_read_cpu", "number_of_indexes"
// and, after Open's CONFIG SET search.info-developer-visible yes (where the
// server refuses it they are absent), the counters "ingest_hash_keys" (one
// per index a written key was routed to: indexing jobs),
// "ingest_hash_blocked", "ingest_field_vector", "ingest_field_text",
// "ingest_field_tag" and "ingest_field_numeric"; from CONFIG GET
// "reader_threads" and "writer_threads", the pools the run really had.
// The names shared with the report are the contract's constants
// (engines.StatQueueDepth, StatMutationQueue, StatIndexingJobs, …).
//
// # Files
//
// driver.go registers the driver (Describe, CheckConfig, CheckSchema,
// Open); options.go reads the options, the write mode and the URL;
// layout.go plans the indexes of a schema and the options (the Study B
// presets: matching, idle and hybrid indexes) and picks the index a query
// goes to; engine.go holds the Engine and its calls; wire.go builds the
// commands' arguments (FT.CREATE, HSET, FT.SEARCH query strings) and reads
// the replies (FT.SEARCH, FT.INFO, INFO text); errors.go maps the server's
// errors onto the contract's classes; launch.go is the container spec.
package valkey

// Package meilisearch drives Meilisearch 1.37 over its REST API through the
// official client, github.com/meilisearch/meilisearch-go.
//
// # Index configuration
//
// Create deletes the index if it exists, creates it with primary key "id"
// (document IDs are sent as strings), and applies one settings update before
// any write: searchableAttributes = the schema's text fields in schema order
// (Meilisearch ranks earlier attributes higher), and typo tolerance disabled
// — the published study's configuration. The typo settings that do not
// matter while it is off are sent at their defaults (minWordSizeForTypos 5/9,
// no disabled words or attributes) so that the only change is "enabled".
// Everything else stays at Meilisearch's defaults as the study left it:
// prefix search on the last query word (prefixSearch "indexingTime"), the
// default ranking rules, no stop words, no stemming.
//
// A schema with more than text (Study B's product corpus: category Tag,
// price Numeric, sku/title/description Text, embedding Vector of Dim N)
// adds to that one settings update (layout.settings, query.go):
//
//   - filterableAttributes: the Tag and Numeric fields (as the fields
//     option allows), then the exact_fields option's text fields. A tag
//     is stored as a string, a number as a JSON number; Meilisearch builds
//     its facet databases for them (string equality, number ranges).
//   - embedders: {<vector field>: {source: "userProvided", dimensions:
//     N}}. A document carries its own embedding as _vectors.<field>
//     (https://www.meilisearch.com/docs/reference/api/settings, embedders;
//     the client's Embedder, meilisearch-go v0.37.0 models_settings.go).
//     The vector store is Meilisearch's default for a new index since
//     v1.29, hannoy, an HNSW graph on LMDB (meilisearch/meilisearch PR
//     #6004 "Make Hannoy the default vector store"), comparing embeddings
//     by cosine distance; its graph parameters are the server's (ef
//     construction 48, M 16, M0 32 when hannoy was introduced, PR #5767)
//     and no setting of 1.37 changes them. Nor does any choose the
//     distance: no embedder member names one (SubEmbeddingSettings in
//     the 1.37.0 OpenAPI document, engines/enginetest/apispec), and the
//     vector store is cosine only (hannoy's Cosine, Hamming when
//     binaryQuantized: crates/milli/src/vector/store.rs). So a vector
//     field whose Metric is L2 or Dot is refused (CheckSchema and
//     Create, a SchemaError wrapping ErrUnsupported) unless the fields
//     option leaves the vector out of the index. With the fields option
//     without vector, the embedding is a plain array field: stored, not
//     indexed, so that the documents weigh the same with and without the
//     embedder.
//
// The settings update is an asynchronous task: Create waits for it (as for
// every task of Create) before it returns, so no document reaches the
// index before its embedder and filterable attributes exist. A text-only
// schema sends the update it always sent (the new members are empty and
// omitted).
//
// # Product queries
//
// Each engines.Query shape is one POST /indexes/{uid}/search, the
// SearchRequest that layout.request builds, sent as json.Marshal of it —
// what the client's SearchRaw sends (TestProductSearchWire). Parameters:
// https://www.meilisearch.com/docs/reference/api/search (v1.37).
//
//   - kNN (Vector): q "", vector, hybrid {embedder: the vector field,
//     semanticRatio: 1.0}: a semantic search only (routes/indexes/search.rs
//     search_kind: a ratio of 1.0 is SearchKind::semantic), the K nearest
//     by the vector store.
//   - filtered kNN (Vector and Filters): the same with filter, an array of
//     conditions (ANDed): `category = "IT"` for a Tag, `price 10 TO 20`
//     for a Numeric (TO is inclusive, >= and <=:
//     https://www.meilisearch.com/docs/capabilities/filtering_sorting_faceting/advanced/filter_expression_syntax).
//     Meilisearch computes the filter's candidates first and searches the
//     vector store among them — a pre-filter: K hits whenever K documents
//     pass (milli's VectorSort hands the candidates to the vector store's
//     search, crates/milli/src/search/new/vector_sort.rs; not re-read at
//     1.37 for this driver — TestProductLive's filtered kNN, which asks
//     for more hits than pass, checks it).
//   - SKU lookup (Field and Text, Field a text field): the words of Text
//     as one phrase, q "\"IT 500\"", with attributesToSearchOn [sku]: the
//     words in a row, whole (no prefix, no typo), in that attribute only.
//     Meilisearch's tokenizer cuts "IT-500" at the hyphen into it, 500, as
//     the phrase's space does, so the phrase finds IT-500 and not
//     IT-5000 or TO-500; and Meilisearch has no stop words unless the
//     index sets some (stopWords defaults to []), so "it" is kept. The
//     same lookup in the title is the freshness probe's marker.
//     With option exact_fields=sku, sku is also filterable and the lookup
//     is q "" with the filter `sku = "IT-500"`: an equality on the whole
//     value (case-insensitive, as Meilisearch normalizes facet strings),
//     served by the facet database instead of the word index. A lookup in
//     a Tag field is that equality too.
//   - hybrid (Text and Vector): q, vector, hybrid {embedder, semanticRatio:
//     the semantic_ratio option, 0.5 by default}: Meilisearch's own
//     fusion — it runs the keyword and the semantic search and merges the
//     hits by ranking score, the semantic ones weighted by the ratio
//     (https://www.meilisearch.com/docs/capabilities/hybrid_search/overview).
//     Filters apply to both.
//   - Text with Filters: the free-text search with filter; Filters alone:
//     q "" (a placeholder search) with filter.
//
// Refused with engines.ErrUnsupported, by CheckQuery before anything
// starts and by Search (both call layout.checkShape): a vector query on a
// schema without a vector field or with fields lacking vector; a filter
// on a field that is not a filterable Tag or Numeric (Meilisearch would
// answer 400 invalid_search_filter); a lookup in a Numeric or Vector
// field, or in a Tag field that is not filterable; a lookup combined with
// a vector. A query vector of the wrong length is an error before it is
// sent (Meilisearch: 400 invalid_vector_dimensions), as is a document's.
// The answers are read by ParseSearch as before: a hybrid answer's
// semanticHitCount is skipped.
//
// Matching strategy: not sent, so the server default "last" applies. For
// Meilisearch the study names only typo tolerance off, so its Meilisearch
// ran with "last": documents with every query word first, then those
// missing words from the end of the query, down to documents with just the
// first word.
// Option matching_strategy chooses "all" or "frequency" instead.
//
// A search always sends limit = Query.K (the server default is 20, and the
// client drops a zero limit, so K < 1 is refused rather than answered with
// 20 hits), asks only for the "id" attribute, and checks that the engine
// returned no more than K hits. Hits.Total is Meilisearch's
// estimatedTotalHits: exact on small indexes, an estimate on large ones.
//
// # Write modes
//
// Every Meilisearch write is an asynchronous task: the HTTP call returns 202
// once the task is enqueued, and a later batch applies it.
//
//   - "acknowledged" (the default, as the study ran it): Upsert, UpsertBatch
//     and Delete return when the task is enqueued. A search may not see the
//     write yet, and a failed task is only reported by Refresh. Delete cannot
//     know whether the ID existed: a missing ID is not reported (the task
//     later succeeds with deletedDocuments 0).
//   - "searchable": each write also waits for its task and returns an error
//     carrying the task's error code and message unless it succeeded, so a
//     search started after the call returned sees the write. Delete of a
//     missing ID returns an error wrapping engines.ErrNotFound (the task
//     reports deletedDocuments 0).
//
// Refresh waits for the last task this Engine enqueued (Meilisearch processes
// an index's tasks in enqueue order, so every earlier one has finished too)
// and then fails if any task on the index since the previous check failed or
// was canceled.
//
// Task polling backs off from 1 ms, doubling up to task_poll_max (50 ms
// unless set): short tasks are seen finished within about their own duration,
// and 1,500 waiting users do not flood the server with GET /tasks.
//
// # HTTP client
//
// The client's retries are disabled: by default meilisearch-go retries
// 502/503/504 up to 3 times with 1 s, 2 s, 3 s pauses (options.go,
// client.go), which would hide overload and add seconds to measured calls.
// The transport keeps up to pool (default 2048) idle keep-alive connections
// to the server, enough for the 1,500 users of the largest published level
// without closing and reopening connections; it speaks HTTP/1.1 only (one
// request per connection, as the study's Locust users did) and ignores proxy
// environment variables, so nothing but the engine sits in the measured path.
// Its connection buffers are 1 KB (net/http's default is 4 KB each way).
// The calls a run repeats — Search, Upsert, Delete, Get — skip the client
// and net/http but not the client's wire format: they send, byte for byte,
// what SearchRaw, AddDocuments, DeleteDocument and GetDocument send
// (TestSearchWire and TestWritesWire compare them on a raw TCP listener; a
// bodiless DELETE carries Content-Length: 0, which net/http leaves out),
// through httpwire.FastClient — fasthttp's framing on a keep-alive pool of
// its own, configured as the transport is (pool idle connections, 90 s
// idle timeout, 10 s dial timeout, no proxy, Accept-Encoding: gzip as
// net/http sends it, the timeout option over the whole exchange, the
// context's cancellation ending a call at once; bench/README.md has what
// that saves the load generator). Batches, task polling, Create, Refresh, Count and
// Stats go through the client; its pool is beside the fast one, so a
// workload that polls tasks (searchable mode) holds up to a connection
// per user in each. Get (engines.Getter, GET
// /indexes/{uid}/documents/{id}?fields=id,…) sees a write in acknowledged
// mode once its task is processed, as a search does.
//
// Errors: HTTP 429 and 503 wrap engines.ErrOverloaded, 408 and 504 and client
// timeouts engines.ErrTimeout, 404 document_not_found engines.ErrNotFound;
// 404 index_not_found is class other: the index vanished, a broken setup.
// The API key is sent as "Authorization: Bearer", a URL's userinfo
// (http://user:pass@host, without a key) as basic authorization; neither
// appears in an error, in any encoding, should a server echo one
// (quote.Scrubber).
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) reads GET /indexes/{uid}/settings/searchable-attributes,
// filterable-attributes and, when the options index the vector field,
// embedders: index_not_found is a missing index; the searchable attributes
// must be the schema's text fields in order, the filterable ones (a flat
// list, in any order) those the options make filterable, and the vector
// field's embedder userProvided of the schema's dimension, as Create sets
// them. Failed tasks of the
// index from before the attach (shard 0's drop of an index not there) are
// not reported by this engine's Refresh.
//
// # Options (Config.Options)
//
//   - timeout: per-request timeout of the HTTP clients (the client's and the
//     searches'), a Go duration ("5s").
//     Default none: the caller's context deadline is the limit (the runner
//     sets one per call).
//   - pool: idle connections kept per host, in each of the two pools, 1 to
//     1048576 (default 2048).
//   - task_poll_max: longest pause between two polls of a task (default 50ms).
//   - matching_strategy: "last", "all" or "frequency"; default not sent
//     (the server's "last").
//   - fields: the field types the index is given, comma-separated, from
//     text, tag, numeric and vector; text must be among them (the client
//     cannot send an empty searchableAttributes). Default all four. Study
//     B's vector-cost experiment compares "text,tag,numeric" with
//     "text,tag,numeric,vector" (scenario meilisearch-vector-cost).
//   - exact_fields: text fields also made filterable, comma-separated, so
//     that a lookup in one is a filter on its value (the SKU's second,
//     exact structure: scenario meilisearch-exact-index). Each must be a
//     text field of the schema (CheckSchema). Default none.
//   - semantic_ratio: a hybrid search's semanticRatio, above 0 and at most
//     1 (the client omits a zero ratio). Default 0.5.
//
// # Files
//
//   - driver.go: registration, Describe, CheckConfig, CheckSchema,
//     CheckQuery, Open, the identifier rules.
//   - options.go: the options and the write mode, read once for
//     CheckConfig and Open.
//   - engine.go: Engine, its contract methods, task waiting, and call, the
//     one function that sends a request through the fast client.
//   - query.go: the layout a schema and the options make (settings,
//     filterable fields, the embedder), checkShape (CheckQuery's and
//     Search's refusals) and the SearchRequest of each query shape.
//   - wire.go: request bodies (settings, documents, the free-text search)
//     and the search answer's parser (ParseSearch and its scanner).
//   - errors.go: TaskError, HTTPError, and how the client's and the
//     server's errors map onto the contract's classes.
//   - launch.go: the container the launcher starts.
//
// # Stats
//
// Stats reports tasks_enqueued, tasks_processing and their sum as
// queue_depth (engines.StatQueueDepth).
package meilisearch

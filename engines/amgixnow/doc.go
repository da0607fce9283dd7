// Package amgixnow drives Amgix Now 0.1.2 (amgixio/amgix-now, one Rust
// binary with an embedded Qdrant) over its REST API with net/http and, for
// the calls a run repeats, httpwire.FastClient: no Go client exists. It registers two drivers, the same code against two server
// configurations:
//
//   - "amgix-now": the server's default, AMGIX_NOW_SYNC_DB_WRITES=false.
//     Amgix writes to Qdrant with wait=false, so a write returns before
//     Qdrant has applied it: Visibility Acknowledged (near real time). There
//     is no call that waits for indexing, so the driver has no Refresh; the
//     conformance suite and the runner poll searches instead.
//   - "amgix-now-sync": the server run with AMGIX_NOW_SYNC_DB_WRITES=true
//     (Qdrant wait=true): a write returns once searchable, Visibility
//     Searchable. The API does not expose the setting, so the driver cannot
//     check it; the launcher sets it, and an attached server (--url) must be
//     started with it.
//
// # Collection
//
// Create deletes the collection if GET /v1/collections/{name}/exists says it
// is there, then POSTs /v1/collections/{name} with "store_content": true
// and the vectors and metadata indexes the schema needs (CollectionConfig,
// VectorConfig and MetadataIndex in src/models.rs; create_collection in
// src/qdrant.rs), everything else at the server's defaults (language "en",
// top_k 128 terms kept per field and document):
//
//   - Text fields → one vector {"name": "ft", "type": "full_text",
//     "index_fields": <their document fields>}, the published study's
//     "full_text tokenizer" (UAX#29 words, English stop words and Snowball
//     stemming: tokenize_fulltext in src/amgix.rs). An Amgix document has
//     three fixed text fields, name, description and content (DocumentField
//     in src/common.rs): schema fields with those names keep them (the text
//     corpus: name and content, the request unchanged); otherwise the
//     schema's text fields take name, description and content in order —
//     the products' sku, title and description. More than three text
//     fields is ErrUnsupported.
//   - The SKU: a schema text field named "sku" also gets {"name": "kw",
//     "type": "whitespace", "index_fields": ["name"]}: lowercased, split on
//     whitespace only, whole-token stop words (tokenize_whitespace), so
//     "IT-500" is one token and the stop word "it" cannot eat its code, as
//     full_text's word split would.
//   - A Vector field → {"name": "dense", "type": "dense_custom",
//     "index_fields": ["content"], "dimensions": Dim, "dense_distance":
//     <the field's Metric: Cosine "cosine", L2 "euclid", Dot "dot">}:
//     Amgix stores the client's vector as a Qdrant named dense vector
//     ("content_dense", size Dim, Distance::Cosine, Euclid or Dot:
//     create_collection in src/qdrant.rs). Qdrant normalises vectors for
//     Cosine only; Dot scores the raw inner product, largest first, and
//     Euclid the Euclidean distance, smallest first (qdrant/qdrant:
//     lib/segment/src/spaces/simple.rs). Amgix hands a custom vector to
//     Qdrant as sent; its "normalization" flag (true by default for dense
//     types) L2-normalises only the embeddings Amgix computes itself
//     (src/vectors/dense_model.rs), so the driver leaves it unset and dot
//     and euclid rank the raw vectors. The vector gets Qdrant's
//     default HNSW parameters — create_collection sets no hnsw_config, so
//     the embedded Qdrant's (v1.17.1) defaults apply: m 16, ef_construct
//     100, full_scan_threshold_kb 10000, and segments under
//     indexing_threshold_kb 10000 searched exactly (qdrant/qdrant:
//     config/config.yaml; whether the image's Qdrant runs with that file
//     unchanged was not confirmed). Amgix names
//     every vector after a document field; "content" is only the slot's
//     name. One vector field per schema; Dim 1 to 8192
//     (MAX_VECTOR_DIMENSIONS).
//   - Tag and Numeric fields → document metadata (a string; a bare JSON
//     number) with "metadata_indexes": [{"key": <field>, "type":
//     "string"}] (Qdrant's keyword payload index) and {"type": "float"}
//     (Qdrant's float index) (create_metadata_index in src/qdrant.rs).
//     Amgix checks an indexed key's value against the index's type on
//     every write (validate_metadata_types in src/encoder.rs: "float" takes
//     any number).
//
// Collection names, document IDs and metadata keys must match
// ^[a-zA-Z0-9_-]{1,100}$, as Amgix requires.
//
// # Writes and timestamps
//
// Every Amgix write carries a timestamp, and Amgix silently keeps the stored
// document when the timestamp is not newer than the stored one: the answer
// is still 200, with {"ok": true, "skipped": [id]}. The driver stamps each
// write from one process-wide counter in microseconds (the wall clock, or
// one more than the last stamp when the clock has not moved: see clock.go),
// so stamps strictly increase across all concurrent callers and across runs
// against the same collection.
//
// A skipped write can still happen: concurrent writes of one document reach
// the server out of the order they were stamped in, and Amgix's ingest
// micro-batch keeps only the newest of several writes of one document (both
// in src/encoder.rs). The driver tells these apart from a lost write by
// remembering, for each document with a write in flight, the newest stamp it
// issued:
//
//   - superseded: a newer write of the document was issued by this process
//     while the skipped one was in flight. The document ends as the newest
//     write left it (last writer wins); the call succeeds and is counted as
//     "superseded_writes".
//   - stale: nothing newer was issued here, so the stored timestamp came from
//     elsewhere (another process writing the collection, a clock behind an
//     earlier run's). The write did not happen, so the call returns an error
//     (class Other, "write skipped: timestamp not newer than the stored
//     one") and is counted as "skipped_writes". Returning success would count
//     a write that never happened in the throughput and hide a lost update;
//     it is neither a load effect (Overloaded) nor a missing ID (NotFound).
//
// Amgix keeps no tombstone: a delete removes the document and its timestamp,
// so an older upsert that arrives after a newer delete brings the document
// back, and no answer says so. The driver cannot detect that case.
//
// Routes (option "route"):
//
//   - "sync" (default): POST /v1/collections/{name}/documents/sync and
//     DELETE /v1/collections/{name}/documents/{id}/sync. Every version of
//     Amgix Now's source read has these routes, and on every one they write
//     at once and report skipped writes.
//   - "queued": POST …/documents and DELETE …/documents/{id}. In the source
//     read at 04b08ea and 4686706 they are the same handlers as the sync
//     routes; at 38b16d6 they queue the write and answer {"ok": true} even
//     for a stale one, so skipped writes cannot be seen and Stats leaves the
//     two counters out. Only with "amgix-now".
//
// UpsertBatch POSTs …/documents/bulk, 100 documents per call (Amgix's
// maximum), and treats skipped IDs as above. At 38b16d6 the bulk route is
// queued even when single writes are not; option bulk=false makes
// UpsertBatch send single writes instead (16 at a time).
//
// Delete of a missing ID succeeds: Amgix answers 200 {"ok": true} whether or
// not the document existed (document_delete_sync, "idempotent success"), so
// Delete never returns engines.ErrNotFound; the conformance suite runs with
// SilentMissingDelete.
//
// Get (engines.Getter) is GET /v1/collections/{name}/documents/{id}, which
// reads the point from Qdrant: it sees what a search sees (with
// AMGIX_NOW_SYNC_DB_WRITES=false, a write a little later). A missing
// document is Amgix's 404 "Documents not found for document_ids: …",
// engines.ErrNotFound. The text fields come back from their document
// fields, tag and numeric fields from the metadata (bare, or {"value": v,
// "type": t} as older storage keeps it); the vector is not in the answer.
//
// # Search
//
// POST /v1/collections/{name}/search {"query": …, "limit": Query.K, …}
// (SearchQuery in src/models.rs). Amgix searches one arm per (vector,
// document field) pair, each with the same filter (Qdrant's filtered
// search: the filter applies inside each arm's HNSW search, so a filtered
// kNN is answered from the documents that pass, not filtered after), keeps
// limit×1.5 hits per arm and fuses the arms by weighted reciprocal rank
// ("fusion_mode": "rrf", the default; search in src/qdrant.rs). An arm not
// named in "vector_weights" is searched with weight 1 and one of weight 0
// is skipped, so the driver names every arm of the collection, those a
// query does not use with weight 0; a query that uses them all (the text
// corpus's) sends no weights, as before. The later source renamed the
// member "vector_options" (SearchQuerySettings in src/models.rs, same
// members; src/vectors/vectorizer.rs at 388bad3 searches only the arms it
// lists with a weight other than 0); which name the 0.1.2 image reads is
// not known, so the driver sends the same list under both names, and each
// version ignores the member it does not know (neither struct denies
// unknown fields). Amgix refuses a blank
// "query" (validate_search_query), so a kNN sends "query": "knn", which no
// searched arm reads. Each shape (layout.plan, which CheckQuery and Search
// share):
//
//   - Text: the ft arm of every text field.
//   - Text and Field (a SKU lookup, the freshness probe's marker in a
//     title): the kw arm of the sku field; for another text field its ft
//     arm. With option exact=metadata a sku lookup also sends
//     "metadata_filter": {"and": [{"key": "sku", "op": "eq", "value":
//     Text}]}, so only the exact SKU can answer.
//   - Vector (kNN): the dense arm alone, with "custom_vectors":
//     [{"vector_name": "dense", "vector": Vector}]
//     (CustomDenseVector.extract_for_query).
//   - Vector and Filters (filtered kNN): the same with "metadata_filter":
//     {"and": [{"key": category, "op": "eq", "value": Tag}]} or, for a
//     numeric field, {"op": "gte", "value": Min} and {"op": "lte",
//     "value": Max} (Min ≤ v ≤ Max inclusive; convert_metadata_node in
//     src/qdrant.rs makes a keyword match and a Qdrant range). Amgix
//     refuses a filter key without a metadata index, and a string key with
//     another op than eq or neq (validate_metadata_filter, 400).
//   - Text and Vector (hybrid): every ft arm and the dense arm, fused by
//     Amgix's own rrf.
//   - Filters on a text search or a hybrid: the same metadata_filter.
//   - Filters alone: ErrUnsupported (an Amgix search needs a query text).
//
// Refused with ErrUnsupported (CheckQuery says so before anything starts):
// K above 100 (Amgix's limit is 1 to 100); a kNN or hybrid without an
// indexed vector field; a text search, lookup or hybrid without indexed
// text fields; a lookup in a field that is not a text field; a lookup with
// a vector; a filter on a field that is not an indexed tag or numeric
// field. A query vector of another dimension than the schema's is an error
// of the call. Hits.Total is -1: Amgix does not count matches.
//
// Amgix Now also computes dense vectors itself ("dense_model": a Hugging
// Face model run by embed_anything, src/vectors/dense_model.rs); the
// driver uses only the client's vectors (dense_custom), since the study
// supplies its embeddings.
//
// # Other capabilities
//
// Count reads doc_count from GET /v1/collections/{name}/stats, Amgix's own
// statistic, which a background batcher updates up to 200 ms after a write:
// Count reads until two reads 300 ms apart agree. Version reads
// GET /v1/version ({"version": "0.1.2 (Amgix-Now)"}) and adds the write
// routes this Engine uses, so the run's provenance records them:
// "0.1.2 (Amgix-Now); writes via …/documents/sync, bulk via
// …/documents/bulk". Open calls it, so an unreachable server fails at Open.
// Stats reports "skipped_writes" and "superseded_writes" (this Engine's,
// since Create) and, when the stats call succeeds, the collection's
// "doc_count" and "queue_depth" (engines.StatDocCount and StatQueueDepth;
// queue.total, the ingest queue at 38b16d6;
// always 0 where there is no queue).
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) asks GET /v1/collections/{name}/exists, then the configuration
// (GET /v1/collections/{name}), whose vectors (the dense one's
// dense_distance included) and metadata indexes must be Create's, storing
// content (and the top_k option, when set). Nothing is
// changed on the server. Each shard stamps its writes from
// its own clock, so a write of a document another shard stamped later is
// skipped and counted as stale (see Writes and timestamps).
//
// # HTTP
//
// One keep-alive connection per concurrent user, up to option pool (default
// 2048, above the 1,500 users of the largest published level); HTTP/1.1; no
// proxy; no retries. The calls a run repeats (search, upsert, delete, get)
// go through Engine.call, which sends the requests the other calls send
// through net/http (Engine.api) on httpwire.FastClient (fasthttp's framing
// on a pool of its own, configured as net/http's transport, with the same
// timeout) instead:
// the same bytes on the wire (TestHotCallsWire; a bodiless DELETE carries
// Content-Length: 0, which net/http leaves out), at about 40% less of the
// load generator's CPU a call (BenchmarkTransports in bench/README.md). HTTP 429 and 503 wrap engines.ErrOverloaded (Amgix
// answers 429 when its ingest or search queue is full, 503 when a worker
// stopped); 408, 504 and client timeouts wrap engines.ErrTimeout, as for
// every HTTP driver (httpwire.StatusClass); a 404 is class Other (a missing
// collection, a route the server lacks) unless it is Amgix's word that a
// document is missing, which only a get receives; everything else is class
// Other too.
//
// API key: Config.APIKey is sent as "Authorization: Bearer". src/auth.rs
// (AMGIX_API_KEY and friends; GET /v1/version and the health routes are
// public) accepts it, but the main.rs versions read do not install that
// middleware, so a server may ignore the key. Open also lists the
// collections, which needs a key where keys are checked, so a missing or
// wrong key fails at Open. Username and Password are refused; a URL's
// userinfo (http://user:pass@host) goes as basic authorization, as net/http
// sends it. Neither the key nor the userinfo appears in an error, in any
// encoding, should a server echo one (quote.Scrubber).
//
// # Files
//
// driver.go registers the two drivers and opens them; options.go reads the
// options; engine.go holds the Engine and its request path (call for the
// calls a run repeats, api for the others); wire.go builds request bodies
// and parses answers; errors.go maps Amgix's errors onto the runner's
// classes; launch.go is the container the launcher starts; clock.go, the
// concern only this driver has, issues the write timestamps and tells a
// superseded write from a stale one.
//
// # Options (Config.Options)
//
//   - timeout: per-request timeout, a Go duration; default 30s.
//   - pool: idle keep-alive connections kept to the server, 1 to 1048576;
//     default 2048.
//   - route: "sync" (default) or "queued", as above.
//   - bulk: true (default) or false (on/off and the other spellings of
//     strconv.ParseBool too), as above.
//   - top_k: terms Amgix keeps per field and document (1 to 10000); default
//     not sent (the server's 128, which truncates long content).
//   - fields: the schema field types the collection indexes, from text,
//     tag, numeric and vector, comma-separated (default all; text or vector
//     among them: a collection needs a vector). A tag, numeric or vector
//     field left out is not sent; text left out is stored without its
//     vectors. Study B's vector-cost experiment compares text,tag,numeric
//     with text,tag,numeric,vector. A query the index cannot answer is
//     refused (CheckQuery).
//   - exact: "vector" (default: SKU lookups on the whitespace kw vector) or
//     "metadata": the SKU also kept as a metadata string with Qdrant's
//     keyword payload index, which lookups filter on — a second
//     exact-match structure on the same documents (the exact-index
//     experiment).
//
// # What was confirmed, and what was not
//
// Confirmed in amgix/amgix-now's source (src/main.rs at 04b08ea, 4686706 and
// 38b16d6; src/models.rs, src/validation.rs, src/common.rs, src/encoder.rs,
// src/auth.rs, build/Dockerfile.cpu, build/entrypoint.sh): the routes above
// and their JSON shapes; OkResponse with "skipped"; timestamp required, an
// RFC 3339 string in UTC (422 otherwise — a missing field is a JSON data
// error, which axum answers with 422, not 400); a stale write skipped when
// its timestamp is <= the stored one, for upserts and deletes; a missing
// document's delete answered 200; request_timestamp required on deletes (400
// when absent); limit 1..100, default 10; 100 documents per bulk call; IDs
// and collection names [a-zA-Z0-9_-], at most 100 characters; 404 for a
// missing collection, 409 for creating an existing one; 429/503 from the
// ingest and search queues; the stats and version bodies; port 8235; the
// readiness route; AMGIX_NOW_SYNC_DB_WRITES mapping to Qdrant wait=true (at
// 04b08ea and 4686706; at 38b16d6 writes always wait and the variable is not
// read).
//
// The product surface was read in the same source: dense_custom and the
// documents' and queries' custom vectors (src/vectors/dense_custom.rs,
// src/vectors/vectorizer.rs), metadata and metadata_indexes
// (src/validation.rs, src/qdrant.rs), metadata_filter and its checks
// (src/encoder.rs validate_metadata_filter; 400 for a filter error or a
// vectorization error, src/main.rs at 04b08ea), vector_weights and the
// rrf fusion (src/qdrant.rs search), the whitespace tokenizer
// (src/amgix.rs).
//
// Not confirmed: which of those source versions the v0.1.2 image was built
// from, hence the search response's shape (both are parsed) and the
// weights' member name (both are sent), whether
// …/documents and …/bulk are queued in it (the "route" and "bulk" options),
// whether it binds 0.0.0.0 without AMGIX_NOW_LISTEN_ADDR, and whether it
// checks API keys; what a delete answers for a missing collection; the
// full_text tokenizer's details (stemming, stop words).
package amgixnow

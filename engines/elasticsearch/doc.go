// Package elasticsearch drives Elasticsearch 8.19 over its REST API through
// the official client's low-level layer: the request structs of
// github.com/elastic/go-elasticsearch/v8/esapi sent through
// github.com/elastic/elastic-transport-go/v8/elastictransport (client.go).
// The client's root package is not imported, as it compiles the typed API
// too (see client.go). Responses are parsed here, so that a malformed one
// is an error and the fuzz targets can reach every parser.
//
// # Files
//
// driver.go registers the driver (Describe, CheckConfig, CheckSchema,
// Open); options.go reads the options, the write mode and the URL;
// engine.go holds Engine, its calls, and call and api, the two ways a
// request is sent; wire.go builds request bodies and parses answers (pure
// functions); errors.go maps Elasticsearch's errors onto the runner's
// classes; launch.go is the container the launcher starts. client.go is
// this driver's own concern: the official client's transport with the
// product check the root package would add.
//
// # Index configuration
//
// Create deletes an index of the same name (a missing one is fine) and
// creates it with the published study's analysis: a custom analyzer
// "searchbench_english" = standard tokenizer, lowercase, stop (the _english_
// list) and stemmer (language english, Lucene's Porter stemmer), set as the
// analyzer of every Text field. Tag fields map to keyword, Numeric fields
// to double (not scaled_float: prices keep every digit they were written
// with, and a range filter compares them as written). A Vector field maps
// to dense_vector: dims the schema's Dim (1 to 4096, the 8.19 limit),
// "index": true, similarity by the field's engines.Metric (Cosine cosine,
// L2 l2_norm, Dot max_inner_product — not dot_product, which 8.19 takes
// only for unit-length vectors while Dot ranks vectors of any length; see
// similarity in wire.go), index_options {"type": "hnsw", "m":
// 16, "ef_construction": 100} — Elasticsearch's own m and ef_construction
// defaults, sent explicitly, and the type hnsw sent explicitly too (float32
// vectors in the graph, not the quantised int8_hnsw/bbq_hnsw an 8.19 index
// gets by default), as Valkey's FLOAT32 HNSW and pgvector's are
// (dense_vector reference, https://www.elastic.co/guide/en/elasticsearch/reference/8.19/dense-vector.html).
// A schema has at most one vector field: a Query does not name one.
// The mapping is "dynamic": "strict", so a document field
// the schema does not name is an error rather than a silently added field.
//
// Options fields and exact shape the index for Study B (see Options): a
// field whose type fields leaves out is still mapped, with "index": false,
// so every document carries (and _source stores) every field either way —
// a keyword or double keeps its doc values, a dense_vector its flat doc
// values without the HNSW graph, a text field is stored only. Option exact
// adds to every text field the multi-field "exact" (text, analyzer
// "searchbench_exact" = standard tokenizer and lowercase: no stop words,
// no stemming), whether the field itself is indexed or not.
//
// Index settings: 1 shard, 0 replicas (a single node cannot place a replica;
// the index would stay yellow), and refresh_interval sent explicitly, "1s"
// unless option refresh_interval says otherwise. Sending it, even at the
// default, matters: an index without an explicit refresh_interval stops its
// periodic refreshes after 30 s without searches (search idle), which would
// change what "acknowledged" means during a write-only phase.
//
// # Search
//
// A search is multi_match, type most_fields (the scores of every text field
// are added), over the schema's Text fields, with the default OR operator,
// size = Query.K, _source false (only _id is read) and fuzziness "0": the
// study's "fuzziness 0", sent as published. Elasticsearch accepts 0, 1, 2,
// "AUTO" and "AUTO:low,high"; with "0" every query term is a fuzzy query of
// edit distance 0, which matches exactly the documents a plain term query
// matches (option fuzziness: "none" leaves the parameter out).
//
// track_total_hits is sent as 10000, Elasticsearch's own default, because
// the study did not change it, and it decides how much work a search does:
// true would count every match of a 5-word OR query (a third of the corpus),
// false would let Lucene skip non-competitive documents from the start, both
// different benchmarks. Hits.Total is the exact count when Elasticsearch
// says "eq" and -1 when it says "gte" (more than 10,000: the number is only a
// lower bound). Option track_total_hits chooses true, false or another bound.
// A search that reports shard failures or timed_out is an error: its hits
// would be a partial answer.
//
// # Product searches (Study B)
//
// Every shape of engines.Query is one POST /{index}/_search, size K,
// _source false, track_total_hits as above (query.go, buildSearch; the
// pieces in the official client's form, typedapi/types of
// go-elasticsearch v8.19.7, which TestProductSearchBodies compares):
//
//   - knn: a top-level knn section, as an array of one (the client's
//     search.Request.Knn): field the schema's vector field, query_vector,
//     k = K, num_candidates max(10 K, 100) up to 10,000 (option
//     num_candidates sets it), no query.
//   - knn-category, knn-price (Vector and Filters): the same knn section
//     with the filters in its filter: {"term": {field: {"value": tag}}} for
//     a Tag filter, {"range": {field: {"gte": Min, "lte": Max}}} for a
//     Numeric one (inclusive). A filter inside the knn section is applied
//     during the HNSW search, so k matching documents come back whenever k
//     exist — a pre-filter, not a post_filter
//     (https://www.elastic.co/guide/en/elasticsearch/reference/8.19/knn-search.html,
//     "Filtered kNN search").
//   - sku (Text and Field): Valkey's lookup semantics. On a keyword,
//     {"term": {field: {"value": text}}}; on a text field, the words as a
//     phrase, {"match_phrase": {field: {"query": text}}}, on
//     "<field>.exact" when option exact made the sub-field, else on the
//     field with its english analyser. The english analyser drops the
//     stop words among the SKU codes ("IT-500" is the phrase "500"): the
//     lookup still finds its product, because the number after the code is
//     the product's unique ID, but it would find "TO-500" too were there
//     one; the exact sub-field keeps "it" and finds IT-500 alone. The
//     freshness probe's marker word in the title is the same lookup.
//   - hybrid (Text and Vector): the text's multi_match (as a text search
//     sends it) as the query, and the knn section beside it, both under
//     the same filters. Elasticsearch runs both and a document's score is
//     the sum of its query score and its kNN score (boost 1 each; the
//     knn-search reference's "Combine approximate kNN with other
//     features"): the free form of hybrid search. The engine's own fusion,
//     reciprocal rank fusion (the rrf retriever, or rank.rrf), needs an
//     Enterprise licence in 8.19 — x-pack/plugin/rank-rrf's
//     RRFRankPlugin.RANK_RRF_FEATURE is LicensedFeature.momentary(null,
//     "rank-rrf", License.OperationMode.ENTERPRISE), since
//     elastic/elasticsearch#113100 (8.16); the linear retriever lives in
//     the same plugin under the same licence — so a basic-licence server
//     (the launcher's image, https://www.elastic.co/subscriptions) refuses
//     it, and this driver does not send it. BM25 scores are unbounded and
//     a cosine kNN score is (1 + cosine) / 2 ≤ 1 (l2_norm's, 1 / (1 +
//     l2²), is ≤ 1 too), so text matches outrank kNN-only matches; a
//     document matching both ranks above either. max_inner_product's
//     score, dot + 1 for a non-negative inner product (1 / (1 − dot)
//     below 0), is as unbounded as BM25's, so under Dot the sum weighs the
//     two by their scales (the _score formulas of the dense_vector
//     reference's similarity parameter).
//   - Filters with Text (or a Field lookup): a bool query, the text in
//     must, the filters in filter (not scored); Filters alone: a bool of
//     filters. A Field lookup beside a Vector is one more knn filter.
//
// A shape the index cannot answer is engines.ErrUnsupported, the same
// check (mapping.checkQuery) in Search and in CheckQuery
// (engines.QueryChecker), so it is refused before a run starts: a kNN
// without an indexed vector field, a filter on a field the schema lacks,
// on a text or vector field, or on one option fields leaves unindexed (a
// keyword or double with "index": false could still answer from doc
// values, by a scan — not the index under test), a lookup in a numeric or
// vector field or in a text field neither indexed nor given the exact
// sub-field, a full-text search with no indexed text field. A query's own
// errors — a vector of the wrong dimension, a zero vector under cosine
// (l2_norm and max_inner_product take one), K
// of 0 for a kNN, an empty range — are the server's (or buildSearch's).
//
// # Write modes
//
// Elasticsearch is near-real-time: a write is searchable after the next
// refresh of the shard.
//
//   - "acknowledged" (the default, as the study ran it): writes go without a
//     refresh parameter (refresh=false), returning once the primary shard
//     has the write; a search sees it after the next periodic refresh.
//     Refresh (POST /{index}/_refresh) makes every acknowledged write
//     searchable.
//   - "searchable": writes send refresh=wait_for and return after the
//     refresh that makes them visible (up to refresh_interval later). Beyond
//     index.max_refresh_listeners (1000) waiting requests per shard,
//     Elasticsearch forces a refresh instead. refresh_interval "-1" is
//     refused in this mode: no periodic refresh would ever release a write.
//
// Upsert is PUT /{index}/_doc/{id} (index or replace). UpsertBatch is one
// POST /{index}/_bulk of "index" actions: it fails if the response reports
// errors or any item's status is not 2xx, naming the first failed id; when
// every failed item was rejected for load (429), the error wraps
// engines.ErrOverloaded. Delete is DELETE /{index}/_doc/{id}; a 404 whose
// body says result "not_found" wraps engines.ErrNotFound. Delete is
// real-time in Elasticsearch (it consults the version map, not the last
// refresh), so a missing ID is reported in both modes.
//
// Count is POST /{index}/_count: documents visible to search, that is, as of
// the last refresh. Version is GET / → version.number.
//
// # Get
//
// Get is GET /{index}/_doc/{id}. It is real-time (the realtime parameter's
// default, not sent), so it sees every acknowledged write and delete in
// both write modes, refreshed or not: for a document not yet refreshed,
// the shard refreshes its internal reader, which searches do not use
// (InternalEngine.REAL_TIME_GET_REFRESH_SOURCE, "realtime_get", in
// Elasticsearch's server/…/index/engine/InternalEngine.java), so a get may
// cost a refresh that a search does not see. It returns the schema's fields
// as _source holds them; a 404 whose body says found false wraps
// engines.ErrNotFound, and a 404 index_not_found_exception does not.
//
// # HTTP client
//
// Retries are disabled (elastictransport.WithDisableRetry): by default the
// transport retries up to 3 times on 502, 503 and 504 and on every network error
// (elastic-transport-go v8.9.0 elastictransport.go: defaultMaxRetries,
// defaultRetryOnStatus, RetryOnError nil means any error), which would hide
// overload from the benchmark and multiply the load it offers. The
// http.Transport keeps up to pool (default 2048) idle keep-alive
// connections to the server, enough for the 1,500 users of the largest
// published level (httpwire.Transport, shared by every HTTP driver).
// Request bodies are not gzipped (the client's default); responses may be,
// as Elasticsearch's http.compression defaults to true and the transport
// asks for gzip as the study's Locust clients (python-requests) did;
// proxies from the environment are ignored, so nothing but the engine sits
// in the measured path.
//
// The calls a run repeats — search, upsert (index), delete, get — go
// through Engine.call: the request esapi would build for them (method,
// escaped path and query, a JSON body with Content-Type application/json),
// sent by a second elastictransport client configured the same way whose
// http.RoundTripper is httpwire.RoundTripper: httpwire.FastClient
// (fasthttp's framing on a pool of its own, configured as the
// http.Transport; gzip asked for and decompressed as net/http does) in
// place of net/http's transport. The transport adds its headers either
// way: TestHotCallsWire compares the bytes on the wire with esapi's request
// on net/http (a bodiless DELETE carries Content-Length: 0, which net/http
// leaves out). Everything else (index creation, bulk imports, refresh,
// count) goes through Engine.api, esapi's requests on net/http. The two
// pools each keep up to pool connections.
//
// The client's product check is kept (client.go does what the root
// package does): until a successful response has carried the header
// X-Elastic-Product: Elasticsearch, a successful response without it is
// refused. Open makes the first request (GET /), so a server that is not
// Elasticsearch 8 (or a proxy that drops the header) fails there with an
// error wrapping ErrNotElasticsearch.
//
// Errors: HTTP 429 (es_rejected_execution_exception, circuit_breaking_exception)
// and 503 wrap engines.ErrOverloaded, except a 429 cluster_block_exception
// (the disk flood-stage watermark made the index read-only: not load, a full
// disk). 408, 504 and client timeouts wrap engines.ErrTimeout. A 404
// index_not_found_exception is not engines.ErrNotFound: a missing index is a
// broken setup, not a missing document, and must not be ignored like one.
// Credentials: Username/Password go as HTTP basic auth, APIKey (the
// base64-encoded id:key Elasticsearch hands out) as "Authorization: APIKey";
// neither appears in an error, in any encoding (quote.Scrubber: the basic
// token too). Config.URL is the server's base URL
// (default http://127.0.0.1:9200), without credentials or a path.
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) reads GET /{index}/_mapping: index_not_found_exception is a
// missing index, and every schema field must be mapped as Create maps it
// (every key Create sends, with its value: the analyzer, the exact
// sub-field, dense_vector's dims, similarity and HNSW parameters, "index":
// false), so every shard must be given the same fields, exact, m and
// ef_construction options. Nothing is changed on the server; the refresh
// interval and write mode are the creating shard's.
//
// # Options (Config.Options)
//
//   - refresh_interval: the index's refresh_interval, an Elasticsearch time
//     value ("1s", "500ms", "30s") or "-1" (no periodic refresh); default "1s".
//   - track_total_hits: "true", "false" or a count bound; default 10000.
//   - fuzziness: the multi_match fuzziness, "0" (default), "1", "2", "AUTO",
//     "AUTO:low,high", or "none" to leave it out.
//   - pool: idle connections kept to the server (default 2048).
//   - fields: the field types indexed, comma-separated from text, tag,
//     numeric and vector (default all four); the others are mapped with
//     "index": false (see Index configuration). Study B's vector cost:
//     "tag,numeric" against "tag,numeric,vector".
//   - exact: on gives every text field the "exact" sub-field (default
//     off), Study B's second, exact index beside the semantic one.
//   - m, ef_construction: the HNSW graph's parameters (defaults 16 and
//     100, Elasticsearch's; m 1 to 512, ef_construction 1 to 3200, the
//     bounds of Lucene's HNSW format).
//   - num_candidates: every kNN's num_candidates, 1 to 10,000 (default
//     max(10 K, 100) up to 10,000); a K above it is the query's error.
package elasticsearch

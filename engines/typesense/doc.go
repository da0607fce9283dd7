// Package typesense drives Typesense 29.0 over its HTTP API through the
// official client, github.com/typesense/typesense-go/v3 (v3.2.0).
//
// # Collection
//
// Create drops a collection of the same name if there is one, then creates
// it with one field per schema field: Text → "string", Tag → "string" with
// facet true (exact filter values), Numeric → "float", Vector → "float[]"
// with num_dim the schema's Dim. A float[] field with num_dim is an HNSW
// index (vector-search.md at docs-site/content/29.0/api in
// typesense/typesense-website, "Configuring HNSW parameters": M 16,
// ef_construction 200 by default, which the driver keeps — the client's
// api.Field at v3.2.0 has no hnsw_params member) whose vec_dist follows
// the field's engines.Metric: Cosine leaves it out, for Typesense's default
// cosine (same page, "Distance Metrics"; src/field.cpp
// DEFAULT_VEC_DIST_METRIC at v29.0), Dot sends "ip" (inner product,
// vector_distance = 1 − dot, largest inner product first on vectors of any
// length: only cosine's vectors are normalised, src/index.cpp), and L2 is
// refused by CheckSchema and Create with engines.ErrUnsupported: 29.0 has
// no other distance (collections.md, vec_dist: "Default: cosine. You can
// also use ip for inner product"; vector_distance_type_t in
// include/field.h). A Typesense 29.0 that restarts reloads an ip field as
// cosine (src/collection_manager.cpp init_collection, fixed after 29.0):
// Attach, which compares vec_dist, refuses such a collection, but a
// process that created it before the restart is not told. A schema has at
// most one vector field (engines.Query's vector names none). Fields are not optional, so
// Typesense rejects a document without one; the driver sends every schema
// field ("" for a text or tag field the document lacks, and refuses a
// document without a value for a numeric or vector field). "id" is not
// declared: Typesense always keeps it as a string, and the driver always
// sends the document ID as a JSON string (a number is rejected by the
// server).
//
// Option fields (Study B's index shapes, as Valkey's) chooses which of the
// schema's field types the collection declares; a field of another type is
// not declared, and Typesense stores it with the document without indexing
// it (collections.md: only the fields listed are indexed). Option
// exact_fields declares the named text fields facet as well: Typesense
// indexes a facet field's value verbatim, without tokenizing it
// (collections.md, "Declaring a field as a facet"), a second structure
// beside the searchable tokens, and a lookup in such a field matches the
// whole value (see Search).
//
// The SKU field is a plain "string": Typesense's tokenizer lowercases and
// drops every ASCII character that is not a letter or digit and is not in
// symbols_to_index or token_separators (src/tokenizer.cpp Tokenizer::next
// at v29.0), so "IT-500" is the one token "it500", in the index and in a
// query alike; and Typesense drops no stop word unless a search names a
// stopword set (stopwords.md: sets are created and asked for; "Stopwords
// are NOT dropped during indexing"), so the "IT" of an English stop list
// is never lost.
//
// # Writes
//
// Upsert is POST /collections/{c}/documents?action=upsert (create or
// replace every field). UpsertBatch is POST …/documents/import?action=upsert
// with one JSON document a line (the client sends batch_size=40, Typesense's
// own default); the server answers 200 with one result a line, and the
// driver checks every line: a failed line is an error naming the document ID
// and Typesense's message. An import has its own timeout (import_timeout,
// default 5 minutes): Typesense's documentation asks every client to allow
// "at least 5 minutes or more for imports" (api/documents.md, "Index
// multiple documents"), and the 5 s of single calls would fail a large batch
// on a busy server. Delete is DELETE …/documents/{id}; Typesense's 404
// "Could not find a document with id: …" wraps engines.ErrNotFound. It goes
// through the client's generated API, which reads and closes the answer:
// the client's Document(id).Delete decodes a success without closing the
// body, which can keep the connection from going back to the pool. Get
// (engines.Getter) is GET …/documents/{id} the same way; a missing document
// is the same 404, engines.ErrNotFound (a missing collection's "Not Found"
// is not).
//
// Visibility: Searchable. Typesense applies a write before it answers, so a
// search that starts after the call returned sees it. That is believed, not
// documented (a maintainer says the on-disk and in-memory updates happen
// together, typesense/typesense issue #479);
// the conformance suite checks it against the live server, where one is
// available, with a single search right after each write. Write mode
// "acknowledged" is refused: Typesense offers no write that returns earlier.
//
// # Search
//
// What a query asks, and how (CheckQuery refuses, with
// engines.ErrUnsupported, the shapes the collection cannot answer — a
// vector with no vector field declared, words with no text field, a filter
// on a field not declared as tag or numeric, a field lookup with a vector
// — and Search refuses the same with the same function, layout.checkQuery):
//
//   - Text: GET …/documents/search with q = Query.Text, query_by = the
//     declared text fields in schema order (earlier fields rank higher in
//     Typesense), per_page = Query.K (at most 250, Typesense's limit),
//     num_typos=0, typo_tokens_threshold=0, prefix=false — the published
//     study's strict matching — and include_fields=id, since only IDs are
//     read (as the Meilisearch driver asks only for "id").
//     drop_tokens_threshold is not sent, as the study left it: Typesense's
//     default (1) then drops query words from the right while no document
//     matches all of them.
//   - Text and Field (the SKU lookup, the freshness probe's word in the
//     title): the same with query_by = Query.Field and
//     drop_tokens_threshold=0, so that every word must match (a lookup of
//     "IT-500" is the token it500: see the SKU field above). In a field of
//     option exact_fields it is instead q=*, filter_by = field:=`value`:
//     the whole value, verbatim and case-sensitive (search.md, filter_by,
//     "Exact vs Non-Exact Filtering").
//   - Vector (kNN): POST /multi_search with one search: q=*,
//     vector_query = embedding:([v1,…], k:K), per_page=K, include_fields=id.
//     A vector query does not fit in a GET's query string (1024 floats are
//     some 10 KB); Typesense's documentation sends vector searches through
//     multi_search for that reason (vector-search.md, "Nearest-neighbor
//     vector search": "Since vector search queries tend to be large …
//     we are using the multi_search end-point that sends the search
//     parameters as a POST request body"). The vector's components are
//     written in plain decimal, the shortest that reads back as the same
//     float32.
//   - Vector and Filters (filtered kNN): the same with filter_by. Typesense
//     filters first and searches the HNSW graph for the K nearest that pass
//     (src/index.cpp Index::search at v29.0: the filter's result becomes a
//     VectorFilterFunctor handed to hnswlib's searchKnnCloserFirst, or a
//     brute-force ranking of the filtered documents when fewer than
//     flat_search_cutoff pass, default 0): a pre-filter, not a kNN filtered
//     afterwards.
//   - Text and Vector (hybrid): the same search with q = Query.Text and the
//     text search's parameters (query_by, num_typos=0,
//     typo_tokens_threshold=0, prefix=false) and drop_tokens_threshold=0,
//     which vector-search.md's "Hybrid Search" asks for in hybrid searches.
//     Typesense runs the keyword search and the kNN and fuses them by rank
//     (same section: rank_fusion_score = 0.7 × keyword rank score + 0.3 ×
//     vector rank score, each 1/rank; alpha, the vector's weight, is left
//     at its 0.3, include/vector_query_ops.h at v29.0): Typesense's own
//     fusion.
//   - Filters on any of these become filter_by ("tag:=`value`",
//     "num:[min..max]" inclusive, joined by &&).
//
// Hits.Total is Typesense's "found". A multi_search answers 200 with one
// result a search, and a search Typesense refused is {"code": status,
// "error": message} in it (src/core_api.cpp post_multi_search at v29.0):
// the driver reads that as the status and message of a failed search (a
// wrong dimension is 400 "Query field `embedding` must have 1024
// dimensions.", a lagging server 503).
//
// # HTTP client
//
// typesense.NewClient wraps its http.Client in a circuit breaker (sony
// gobreaker: after more than 100 requests in 2 minutes of which more than
// half failed at the transport — timeouts, refused or reset connections — it
// fails every request locally for a minute) and, with several nodes, in a
// retry loop. A benchmark must see every error the server causes, so the
// driver builds the generated API client itself (api.NewClientWithResponses
// with api.WithAPIKey over its own http.Client) and hands it to NewClient
// with WithAPIClient: neither the breaker nor the retry loop is in the path,
// and every call is exactly one request. (5xx answers never tripped the
// breaker, since the client only counts transport errors; timeouts under
// overload did.)
//
// The http.Client's timeout is 5 s, the client library's own default, unless
// option "timeout" says otherwise (imports: import_timeout); the caller's
// context deadline applies as well. The transport keeps up to "pool" (default 2048) idle keep-alive
// connections to the server — enough for the 1,500 users of the largest
// published level, so no user waits on or reopens a connection — speaks
// HTTP/1.1 and ignores proxy environment variables, so nothing but the
// engine sits in the measured path.
//
// The calls a run repeats — search (GET and multi_search), upsert, delete, get — go through
// Engine.call, on httpwire.FastClient (fasthttp's framing on a pool of its
// own, configured as the transport, with the same timeout) instead of
// net/http: their paths and queries are the ones the generated API's
// request constructors build (api.NewSearchCollectionRequest and the like),
// with the key header its WithAPIKey editor adds and the body its methods
// encode — the same bytes on the wire (TestHotCallsWire, with one framing
// difference it names: a bodiless DELETE carries Content-Length: 0), at
// about 40% less of the load generator's CPU a call (BenchmarkTransports
// in bench/README.md). Everything else (collections, imports, stats)
// goes through the client. The two pools each keep up to pool connections.
//
// Errors: HTTP 429 and 503 wrap engines.ErrOverloaded (Typesense answers 503
// "Not Ready or Lagging" when its write or read lag passes
// --healthy-write-lag / --healthy-read-lag, 429 when a rate limit applies),
// 408, 504 and client timeouts engines.ErrTimeout, as for every HTTP driver
// (httpwire.StatusClass). The API key is sent as
// X-TYPESENSE-API-KEY, a URL's userinfo (http://user:pass@host) as basic
// authorization besides; neither appears in an error, in any encoding
// (quote.Scrubber scrubs every message, should a server echo one).
//
// Stats (engines.StatsReporter) reads GET /stats.json: "queue_depth"
// (engines.StatQueueDepth) is
// Typesense's pending_write_batches (writes received and not yet applied),
// and the server's own rolling figures follow under their names
// (overloaded_requests_per_second, search_latency_ms, write_latency_ms, …).
//
// # Attach
//
// Attach (engines.Attacher, for the shards of a sharded run other than
// shard 0) reads GET /collections/{name}: 404 is a missing collection, and
// every schema field must be there with Create's type and facet. Nothing is
// changed on the server.
//
// # Files
//
// driver.go registers the driver and opens it; options.go reads the
// options; layout.go maps a schema onto the collection and checks a
// query's shape against it (CheckQuery); engine.go holds the Engine and its one request path (call);
// wire.go builds request bodies and paths and parses answers; errors.go
// maps Typesense's errors onto the runner's classes; launch.go is the
// container the launcher starts.
//
// # Options (Config.Options)
//
//   - timeout: the HTTP client's per-request timeout, a Go duration
//     (default 5s).
//   - import_timeout: the same for an UpsertBatch import (default 5m).
//   - pool: idle keep-alive connections kept to the server, 1 to 1048576
//     (default 2048).
//   - fields: the schema's field types the collection declares (indexes),
//     from text, tag, numeric and vector, comma-separated (default all);
//     the rest are stored, not indexed (scenario typesense-vector-cost).
//   - exact_fields: text fields also declared facet and looked up by their
//     whole value (default none; e.g. sku, scenario
//     typesense-exact-index). It needs text in fields, and CheckSchema
//     refuses a name that is not a text field of the schema.
package typesense

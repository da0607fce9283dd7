// Package typesense drives Typesense 29.0 over its HTTP API through the
// official client, github.com/typesense/typesense-go/v3 (v3.2.0).
//
// # Collection
//
// Create drops a collection of the same name if there is one, then creates
// it with one field per schema field: Text → "string", Tag → "string" with
// facet true (exact filter values), Numeric → "float". Vector fields are
// rejected with engines.ErrUnsupported: Typesense's vector search
// (float[] with num_dim, vector_query) is not implemented here, and no
// study in this project runs it on Typesense. Fields are not optional, so
// Typesense rejects a document without one; the driver sends every schema
// field ("" for a text or tag field the document lacks, and refuses a
// document without a value for a numeric field). "id" is not declared:
// Typesense always keeps it as a string, and the driver always sends the
// document ID as a JSON string (a number is rejected by the server).
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
// GET …/documents/search with q = Query.Text, query_by = the schema's text
// fields in schema order (Query.Field instead when set; earlier fields rank
// higher in Typesense), per_page = Query.K (at most 250, Typesense's limit),
// num_typos=0, typo_tokens_threshold=0, prefix=false — the published study's
// strict matching — and include_fields=id, since only IDs are read (as the
// Meilisearch driver asks only for "id"). drop_tokens_threshold is not sent,
// as the study left it: Typesense's default (1) then drops query words from
// the right while no document matches all of them. Query.Filters become
// filter_by ("tag:=`value`", "num:[min..max]", joined by &&). Hits.Total is
// Typesense's "found".
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
// The calls a run repeats — search, upsert, delete, get — go through
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
// X-TYPESENSE-API-KEY and never appears in an error (it is scrubbed from
// every message, should a server echo it).
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
// options; engine.go holds the Engine and its one request path (call);
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
package typesense

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
// is there, then POSTs /v1/collections/{name} with one vector,
// {"name": "ft", "type": "full_text", "index_fields": <the schema's text
// fields>}, and "store_content": true — the published study's "full_text
// tokenizer", everything else at the server's defaults (language "en",
// top_k 128 terms kept per field and document). Amgix documents have three
// fixed text fields, name, description and content; a schema field with
// another name, or of another type, is refused with engines.ErrUnsupported.
// Collection names and document IDs must match ^[a-zA-Z0-9_-]{1,100}$, as
// Amgix requires.
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
// engines.ErrNotFound.
//
// # Search
//
// POST /v1/collections/{name}/search {"query": Query.Text, "limit": Query.K}
// and nothing else, so the server's defaults apply (every vector and field,
// rrf fusion of the per-field rankings). Amgix's limit is 1 to 100: a larger
// K is refused with engines.ErrUnsupported rather than answered with fewer
// hits. Only free-text queries over every text field (Query.TextOnly).
// Hits.Total is -1: Amgix does not count matches.
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
// (GET /v1/collections/{name}), which must be Create's one full_text vector
// over the schema's fields, storing content (and the top_k option, when
// set). Nothing is changed on the server. Each shard stamps its writes from
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
// wrong key fails at Open. The key never appears in an error. Username and Password are refused.
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
// Not confirmed: which of those source versions the v0.1.2 image was built
// from, hence the search response's shape (both are parsed), whether
// …/documents and …/bulk are queued in it (the "route" and "bulk" options),
// whether it binds 0.0.0.0 without AMGIX_NOW_LISTEN_ADDR, and whether it
// checks API keys; what a delete answers for a missing collection; the
// full_text tokenizer's details (stemming, stop words).
package amgixnow

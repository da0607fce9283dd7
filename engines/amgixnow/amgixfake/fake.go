// Package amgixfake is a wire-contract fake of Amgix Now's REST API for the
// amgixnow driver's tests: not a search engine. It serves the routes the
// driver uses, with the JSON shapes, validation and status codes read in
// amgix/amgix-now's source (src/main.rs, src/models.rs, src/validation.rs,
// src/encoder.rs, src/auth.rs). It finds documents by their words
// (lowercased tokens of the indexed fields; the query's words OR-ed) and
// answers them in a deterministic order, those holding more of the words
// first, ties by ID: ranking (Amgix's BM25-like sparse vectors fused by
// reciprocal rank) belongs to the live tests.
//
// What it models:
//
//   - Writes carry timestamps; a write whose timestamp is not newer than the
//     stored document's is skipped and reported as {"ok": true,
//     "skipped": [id]} (upserts and deletes), exactly the trap the driver
//     must detect. A missing document's delete answers {"ok": true}.
//
//   - Default mode: a write is acknowledged before it is searchable (Amgix
//     with AMGIX_NOW_SYNC_DB_WRITES=false, Qdrant wait=false): it reaches
//     the searchable index IndexDelay later (50 ms unless set). Sync():
//     searchable when the call returns. The stale check always sees the
//     newest stored write.
//
//   - The collection's doc_count (GET …/stats) is Amgix's own statistic,
//     updated by a background batcher that flushes up to STATS_BATCH_WAIT
//     (200 ms) after a write (StatsUpdateBatcher in src/encoder.rs: enqueue
//     "does not wait for Qdrant stats persistence"): it counts a write
//     StatsDelay after it was applied (200 ms unless set), new documents
//     up, deleted ones down.
//
//   - QueuedRoutes(): the later source's (38b16d6) queued routes — POST
//     …/documents, …/documents/bulk and DELETE …/documents/{id} answer
//     {"ok": true} at once, never report a skipped write, and apply the write
//     IndexDelay later; the /sync routes write at once. Without it both route
//     families are the same handler, as at 04b08ea and 4686706.
//
//   - GET …/documents/{id} reads a document as Qdrant holds it (after the
//     index delay, as a search does): 404 "Documents not found for
//     document_ids: <id>" when missing.
//
//   - Rejections with Amgix's codes and {"detail": ...} bodies: a malformed
//     body 400, a body of the wrong shape or a value out of range 422 (a
//     missing timestamp included: axum answers serde's "missing field" with
//     422), no JSON content type 415, a delete without request_timestamp 400
//     (plain text, axum's query rejection), an unknown collection 404,
//     creating an existing one 409, limit outside 1..100 422, more than 100
//     documents in a bulk call 422, a missing or wrong API key 401.
//
//   - The product surface: whitespace vectors (lowercased, split on
//     whitespace only) and dense_custom vectors (dimensions required, the
//     client's vector on each write and in each query of the right
//     dimension; dense_distance cosine, dot or euclid, the vector kept as
//     sent whatever "normalization" says, as Amgix keeps a custom vector),
//     metadata with metadata_indexes (an indexed key's
//     value of the index's type), and searches by arms — every (vector,
//     field) pair, weighted by vector_weights (1 when not listed, skipped
//     at 0), each ranking only the documents passing metadata_filter
//     (JSON form; eq, gt, gte, lt, lte, and, or, not; keys must be indexed,
//     string keys eq/neq only), dense arms exactly by their distance with
//     Qdrant's scores (cosine similarity and inner product largest first,
//     Euclidean distance smallest first; vector_scores carries them),
//     fused by weighted reciprocal rank (k 60). Vectorization and filter
//     errors are 400 {"detail": …}, as src/main.rs answers them.
//
// Not modelled: stemming, stop words, a vector's top_k term limit, scores
// beyond the count of words held (sparse) and Qdrant's (dense), the other
// vector types (refused with 400 by the fake, not by Amgix),
// tags, string filters, and the routes the driver does not call.
//
// Test hooks for fault tests: Inject answers requests with a status (429
// or 503, as Amgix's full queues and stopped workers do), holds them or
// drops them (Fault, from the fakes' shared kit), ClearFaults lets them go
// on; Writes lists every write applied or skipped.
// The Server is safe for concurrent use and binds 127.0.0.1.
package amgixfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Version is what GET /v1/version answers.
const Version = "0.1.2 (Amgix-Now)"

// Amgix's limits (src/common.rs).
const (
	MaxSearchLimit  = 100
	DefaultLimit    = 10
	MaxBulkUpload   = 100
	MaxNameLen      = 100 // collection names and document IDs
	MaxDocNameLen   = 1500
	MaxDescLen      = 3000
	MaxContentLen   = 1_000_000
	MaxQueryLen     = 10_000
	DefaultTopK     = 128
	MaxTopK         = 10_000
	DefaultIndexLag = 50 * time.Millisecond
	// DefaultStatsLag is Amgix's STATS_BATCH_WAIT.
	DefaultStatsLag = 200 * time.Millisecond
)

type config struct {
	sync, queued, bareArray bool
	delay, statsDelay       time.Duration
	key                     string
}

// Option configures a Server.
type Option func(*config)

// Sync makes writes searchable when the call returns
// (AMGIX_NOW_SYNC_DB_WRITES=true).
func Sync() Option { return func(c *config) { c.sync = true } }

// IndexDelay sets how long an acknowledged write takes to become searchable.
func IndexDelay(d time.Duration) Option { return func(c *config) { c.delay = d } }

// StatsDelay sets how long a write takes to show in the collection's
// doc_count.
func StatsDelay(d time.Duration) Option { return func(c *config) { c.statsDelay = d } }

// QueuedRoutes makes POST …/documents, …/documents/bulk and DELETE
// …/documents/{id} queued, as in the source at 38b16d6.
func QueuedRoutes() Option { return func(c *config) { c.queued = true } }

// BareArraySearch makes search answer a bare JSON array of results, as in
// the source at 04b08ea, instead of {"results": [...], "query_time_ms": ...}.
func BareArraySearch() Option { return func(c *config) { c.bareArray = true } }

// APIKey makes every route but the public ones (GET /v1/version and the
// health checks) need key, in the "api-key" header or as
// "Authorization: Bearer".
func APIKey(key string) Option { return func(c *config) { c.key = key } }

// Write is one write the fake applied or skipped.
type Write struct {
	Collection, ID string
	Timestamp      time.Time
	Delete         bool
	Skipped        bool // not newer than the stored document
}

// Server is the fake.
type Server struct {
	URL string
	ts  *httptest.Server
	cfg config

	faults fakekit.Faults

	mu     sync.Mutex
	colls  map[string]*collection
	writes []Write
}

// New starts a fake on 127.0.0.1.
func New(opts ...Option) *Server {
	s := &Server{colls: map[string]*collection{}, cfg: config{delay: DefaultIndexLag, statsDelay: DefaultStatsLag}}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.ts = httptest.NewServer(s.handler())
	s.URL = s.ts.URL
	return s
}

// Close lets held requests go on and stops the server.
func (s *Server) Close() {
	s.faults.Close()
	s.ts.Close()
}

// Fault is a failure the fake shows in place of its answer (fakekit.Fault):
// Status answers with an Amgix error body ({"detail": …}: Message, or
// Amgix's own words for 429 and 503), Hang holds requests until the client
// gives up or ClearFaults lets them go on, Drop closes the connection,
// Delay answers later, Times limits it to that many requests (0: until
// ClearFaults). A fault without a Path applies to every route, the health
// checks and the version included.
type Fault = fakekit.Fault

// Inject adds a fault after the ones injected before.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// ClearFaults removes every fault and lets held requests go on.
func (s *Server) ClearFaults() { s.faults.Clear() }

// Writes returns every write applied or skipped so far, in order.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// Stored returns the timestamp of the stored document, if any.
func (s *Server) Stored(collection, id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.colls[collection]
	if c == nil {
		return time.Time{}, false
	}
	d := c.stored[id]
	if d == nil {
		return time.Time{}, false
	}
	return d.ts, true
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/version", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, map[string]string{"version": Version})
	})
	mux.HandleFunc("GET /v1/health/check", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.HandleFunc("GET /v1/health/ready", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, map[string]bool{"database": true, "rabbitmq": true, "index": true, "query": true, "ready": true})
	})
	mux.HandleFunc("GET /v1/collections", s.listCollections)
	mux.HandleFunc("POST /v1/collections/{name}", s.createCollection)
	mux.HandleFunc("DELETE /v1/collections/{name}", s.deleteCollection)
	mux.HandleFunc("GET /v1/collections/{name}", s.collectionConfig)
	mux.HandleFunc("GET /v1/collections/{name}/exists", s.exists)
	mux.HandleFunc("GET /v1/collections/{name}/stats", s.stats)
	mux.HandleFunc("POST /v1/collections/{name}/documents", func(w http.ResponseWriter, r *http.Request) { s.upsert(w, r, s.cfg.queued) })
	mux.HandleFunc("POST /v1/collections/{name}/documents/sync", func(w http.ResponseWriter, r *http.Request) { s.upsert(w, r, false) })
	mux.HandleFunc("POST /v1/collections/{name}/documents/bulk", s.bulk)
	mux.HandleFunc("GET /v1/collections/{name}/documents/{id}", s.getDocument)
	mux.HandleFunc("DELETE /v1/collections/{name}/documents/{id}", func(w http.ResponseWriter, r *http.Request) { s.delete(w, r, s.cfg.queued) })
	mux.HandleFunc("DELETE /v1/collections/{name}/documents/{id}/sync", func(w http.ResponseWriter, r *http.Request) { s.delete(w, r, false) })
	mux.HandleFunc("POST /v1/collections/{name}/search", s.search)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.faults.Serve(w, r, faultBody) || !s.authorized(w, r) {
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// faultBody is Amgix's answer to an injected status: 429 when an ingress
// queue is full, 503 when its worker stopped.
func faultBody(w http.ResponseWriter, _ *http.Request, f Fault) {
	msg := "amgixfake: injected failure"
	switch {
	case f.Message != "":
		msg = f.Message
	case f.Status == http.StatusTooManyRequests:
		msg = "Single-document ingress queue full (capacity 4096); retry later."
	case f.Status == http.StatusServiceUnavailable:
		msg = "Single-document ingress worker stopped."
	}
	detail(w, f.Status, msg)
}

var publicPaths = []string{"/v1/version", "/v1/health/check", "/v1/health/ready"}

// authorized follows src/auth.rs with one admin key.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.key == "" || (r.Method == http.MethodGet && contains(publicPaths, r.URL.Path)) {
		return true
	}
	got := strings.TrimSpace(r.Header.Get("api-key"))
	if got == "" {
		got = strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}
	if got == s.cfg.key {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="amgix", charset="UTF-8`)
	detail(w, http.StatusUnauthorized, "Authentication failed. This endpoint requires at least an admin API key. Pass it via the `api-key` header or `Authorization: Bearer <key>`.")
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// --- responses -------------------------------------------------------------

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// detail is api_error: {"detail": "message"}.
func detail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"detail": msg})
}

// validation is Amgix's Pydantic-shaped error, {"detail": [{"type", "loc",
// "msg", "input"}]}. For where "body" a message "field.path: text" becomes
// loc ["body", "field", "path"] (main.rs validation_error_detail_list);
// another where ("query.request_timestamp") is the loc itself.
func validation(w http.ResponseWriter, status int, where, msg string) {
	loc := strings.Split(where, ".")
	if i := strings.Index(msg, ": "); i >= 0 && where == "body" {
		loc = append(loc, strings.Split(msg[:i], ".")...)
		msg = msg[i+2:]
	}
	reply(w, status, map[string]any{"detail": []map[string]any{{
		"type": "validation_error", "loc": loc, "msg": msg, "input": nil,
	}}})
}

type okResponse struct {
	OK      bool     `json:"ok"`
	Skipped []string `json:"skipped,omitempty"`
}

// --- request parsing -------------------------------------------------------

// rejection is main.rs json_rejection_response, the answer to a body serde
// could not deserialize: the same list shape, loc ["body", field] for a
// missing field and ["body"] otherwise.
func rejection(w http.ResponseWriter, status int, msg string) {
	loc := []string{"body"}
	const needle = "missing field `"
	if i := strings.Index(msg, needle); i >= 0 {
		if field, _, ok := strings.Cut(msg[i+len(needle):], "`"); ok {
			loc = append(loc, field)
		}
	}
	reply(w, status, map[string]any{"detail": []map[string]any{{
		"type": "validation_error", "loc": loc, "msg": msg, "input": nil,
	}}})
}

// errBodyAnswered: decodeBody already answered the request.
var errBodyAnswered = errors.New("answered")

// decodeBody is axum's Json extractor as Amgix maps its rejections: no JSON
// content type 415, a syntax error 400, a value of the wrong type 422.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); strings.TrimSpace(mt) != "application/json" && !strings.HasSuffix(strings.TrimSpace(mt), "+json") {
		rejection(w, http.StatusUnsupportedMediaType, "Expected request with `Content-Type: application/json`")
		return errBodyAnswered
	}
	var raw json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20))
	if err := dec.Decode(&raw); err != nil {
		rejection(w, http.StatusBadRequest, "Failed to parse the request body as JSON: "+err.Error())
		return errBodyAnswered
	}
	if dec.More() {
		rejection(w, http.StatusBadRequest, "Failed to parse the request body as JSON: trailing characters")
		return errBodyAnswered
	}
	if err := json.Unmarshal(raw, v); err != nil {
		rejection(w, http.StatusUnprocessableEntity, "Failed to deserialize the JSON body into the target type: "+err.Error())
		return errBodyAnswered
	}
	return nil
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkCollectionName is validate_collection_name.
func checkCollectionName(name string) string {
	switch {
	case len([]rune(name)) > MaxNameLen:
		return fmt.Sprintf("ensure this value has at most %d characters", MaxNameLen)
	case !validName.MatchString(name):
		return `string does not match regex "^[a-zA-Z0-9_-]+$"`
	}
	return ""
}

// collectionName is the path's collection name, validated: false when it
// is not valid, and answered 422 as Amgix answers it.
func collectionName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if msg := checkCollectionName(name); msg != "" {
		validation(w, http.StatusUnprocessableEntity, "body", msg)
		return "", false
	}
	return name, true
}

// collectionFor validates the path's collection name and finds the
// collection, answering 422 or 404 itself. The caller holds s.mu.
func (s *Server) collectionFor(w http.ResponseWriter, r *http.Request) (*collection, bool) {
	name, ok := collectionName(w, r)
	if !ok {
		return nil, false
	}
	c := s.colls[name]
	if c == nil {
		detail(w, http.StatusNotFound, fmt.Sprintf("Collection '%s' not found", name))
		return nil, false
	}
	return c, true
}

// parseTimestamp is parse_document_timestamp_for_api: RFC 3339 in UTC.
func parseTimestamp(s string) (time.Time, string) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if _, off := t.Zone(); off != 0 {
			return time.Time{}, "Timestamp must be in UTC timezone"
		}
		return t.UTC(), ""
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return time.Time{}, "Timestamp must include timezone information"
		}
	}
	return time.Time{}, "Timestamp must be a valid ISO 8601 datetime string"
}

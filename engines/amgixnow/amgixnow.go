// Package amgixnow drives Amgix Now 0.1.2 (amgixio/amgix-now, one Rust
// binary with an embedded Qdrant) over its REST API with net/http: no Go
// client exists. It registers two drivers, the same code against two server
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
// engines.ErrNotFound is never returned; the conformance suite runs with
// SilentMissingDelete.
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
// "doc_count" and "queue_depth" (queue.total, the ingest queue at 38b16d6;
// always 0 where there is no queue).
//
// # HTTP
//
// One keep-alive connection per concurrent user, up to option pool (default
// 2048, above the 1,500 users of the largest published level); HTTP/1.1; no
// proxy; no retries. HTTP 429 and 503 wrap engines.ErrOverloaded (Amgix
// answers 429 when its ingest or search queue is full, 503 when a worker
// stopped); 408, 504 and client timeouts wrap engines.ErrTimeout; 404
// (a missing collection) and everything else are class Other.
//
// API key: Config.APIKey is sent as "Authorization: Bearer". src/auth.rs
// (AMGIX_API_KEY and friends; GET /v1/version and the health routes are
// public) accepts it, but the main.rs versions read do not install that
// middleware, so a server may ignore the key. Open also lists the
// collections, which needs a key where keys are checked, so a missing or
// wrong key fails at Open. The key never appears in an error. Username and Password are refused.
//
// # Options (Config.Options)
//
//   - timeout: per-request timeout, a Go duration; default 30s.
//   - pool: idle keep-alive connections kept to the server; default 2048.
//   - route: "sync" (default) or "queued", as above.
//   - bulk: "true" (default) or "false", as above.
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

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
)

// Driver names.
const (
	Name     = "amgix-now"
	SyncName = "amgix-now-sync"
)

func init() {
	engines.Register(Name, driver{name: Name, vis: engines.Acknowledged})
	engines.Register(SyncName, driver{name: SyncName, vis: engines.Searchable})
}

type driver struct {
	name string
	vis  engines.Visibility
}

func (d driver) Describe() engines.Description {
	s := "Amgix Now 0.1.2 (REST): full_text vector over the text fields, limit = k; writes with strictly increasing timestamps, skipped writes detected"
	if d.vis == engines.Searchable {
		s += "; server with AMGIX_NOW_SYNC_DB_WRITES=true, a write returns once searchable"
	} else {
		s += "; a write returns before Qdrant applies it (AMGIX_NOW_SYNC_DB_WRITES=false)"
	}
	return engines.Description{Summary: s, Visibility: d.vis, Getter: true}
}

// DefaultURL is where Amgix Now listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:8235"

// Defaults and limits.
const (
	DefaultTimeout = 30 * time.Second
	DefaultPool    = 2048
	MaxLimit       = 100 // Amgix's MAX_SEARCH_LIMIT
	MaxBulk        = 100 // Amgix's MAX_BULK_UPLOAD
	maxTopK        = 10000
	singleWriters  = 16 // concurrent single writes of UpsertBatch with bulk=false
	// VectorName is the collection's one vector.
	VectorName = "ft"
)

var optionNames = []string{"bulk", "pool", "route", "timeout", "top_k"}

type options struct {
	timeout time.Duration
	pool    int
	queued  bool
	bulk    bool
	topK    int
}

func parseOptions(prefix string, raw map[string]string) (options, error) {
	o := options{timeout: DefaultTimeout, pool: DefaultPool, bulk: true}
	for k, v := range raw {
		var err error
		switch k {
		case "timeout":
			o.timeout, err = time.ParseDuration(v)
			if err == nil && o.timeout <= 0 {
				err = errors.New("must be positive")
			}
		case "pool":
			o.pool, err = atLeast(v, 1, 1<<20)
		case "top_k":
			o.topK, err = atLeast(v, 1, maxTopK)
		case "route":
			switch v {
			case "sync", "queued":
				o.queued = v == "queued"
			default:
				err = errors.New(`must be "sync" or "queued"`)
			}
		case "bulk":
			o.bulk, err = strconv.ParseBool(v)
		default:
			return o, fmt.Errorf("%s: unknown option %q (valid: %s)", prefix, k, strings.Join(optionNames, ", "))
		}
		if err != nil {
			return o, fmt.Errorf("%s: option %s=%q: %v", prefix, k, v, err)
		}
	}
	return o, nil
}

func atLeast(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && (n < lo || n > hi) {
		err = fmt.Errorf("must be %d to %d", lo, hi)
	}
	return n, err
}

// CheckConfig checks the write mode and the options before anything starts.
func (d driver) CheckConfig(cfg engines.Config) error {
	_, err := d.check(cfg)
	return err
}

func (d driver) check(cfg engines.Config) (options, error) {
	if cfg.WriteMode != "" && cfg.WriteMode != d.vis {
		other := SyncName
		if d.vis == engines.Searchable {
			other = Name
		}
		return options{}, fmt.Errorf("%s: write mode %q is not offered: writes are %s here (the server's AMGIX_NOW_SYNC_DB_WRITES decides; use %s)", d.name, cfg.WriteMode, d.vis, other)
	}
	o, err := parseOptions(d.name, cfg.Options)
	if err != nil {
		return o, err
	}
	if o.queued && d.vis == engines.Searchable {
		return o, fmt.Errorf("%s: route=queued writes may be queued, so they cannot be searchable on return; use %s", d.name, Name)
	}
	if cfg.Username != "" || cfg.Password != "" {
		return o, fmt.Errorf("%s: Amgix Now has no user or password, only an API key", d.name)
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := engines.ServerURL(d.name, cfg.URL, DefaultURL); err != nil {
			return o, err
		}
	}
	return o, nil
}

func (d driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	o, err := d.check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := engines.ServerURL(d.name, cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		name:     d.name,
		vis:      d.vis,
		opts:     o,
		http:     &http.Client{Transport: engines.HTTPTransport(o.pool), Timeout: o.timeout},
		base:     strings.TrimRight(u.String(), "/"),
		endpoint: u.Redacted(),
		key:      cfg.APIKey.Reveal(),
		clock:    &processClock,
		tracker:  processTracker,
	}
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: connect: %w", d.name, err)
	}
	// GET /v1/version is public; listing the collections is not, so a
	// missing or wrong key fails here rather than mid-run.
	if _, err := e.call(ctx, http.MethodGet, "/v1/collections", nil); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: list collections (API key check): %w", d.name, err)
	}
	return e, nil
}

// Engine is one Amgix Now collection.
type Engine struct {
	name     string // the driver's name, for messages
	vis      engines.Visibility
	opts     options
	http     *http.Client
	base     string
	endpoint string // the URL without credentials, for messages
	key      string
	clock    *clock
	tracker  *tracker

	mu         sync.RWMutex // guards the collection against Create
	collection string
	fields     []string

	skipped, superseded atomic.Int64
}

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.BulkUpserter  = (*Engine)(nil)
	_ engines.Counter       = (*Engine)(nil)
	_ engines.Versioner     = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
)

// validName is Amgix's rule for collection names and document IDs; checking
// it here gives a clear error and keeps an ID from changing the request path.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,100}$`)

func (e *Engine) checkName(what, s string) error {
	if !validName.MatchString(s) {
		return fmt.Errorf("%s: %s %q is not valid in Amgix (a-z A-Z 0-9 - _, 1 to 100 characters)", e.name, what, s)
	}
	return nil
}

// documentFields are Amgix's text fields, the only ones a vector can index.
var documentFields = []string{"name", "description", "content"}

func (e *Engine) textFields(schema engines.Schema) ([]string, error) {
	var fields []string
	for _, f := range schema.Fields {
		switch {
		case f.Type != engines.Text:
			return nil, fmt.Errorf("%s: field %s: type %s: %w (text only)", e.name, f.Name, f.Type, engines.ErrUnsupported)
		case !slices.Contains(documentFields, f.Name):
			return nil, fmt.Errorf("%s: field %q: %w (Amgix documents have the text fields %s)", e.name, f.Name, engines.ErrUnsupported, strings.Join(documentFields, ", "))
		case slices.Contains(fields, f.Name):
			return nil, fmt.Errorf("%s: field %q twice", e.name, f.Name)
		}
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s: schema has no text field", e.name)
	}
	return fields, nil
}

func collectionPath(name string) string { return "/v1/collections/" + name }

type vectorConfig struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	IndexFields []string `json:"index_fields"`
	TopK        int      `json:"top_k,omitempty"`
}

type collectionConfig struct {
	Vectors      []vectorConfig `json:"vectors"`
	StoreContent bool           `json:"store_content"`
}

// Create replaces the collection.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	fields, err := e.textFields(schema)
	if err != nil {
		return err
	}
	if err := e.checkName("collection name", schema.Name); err != nil {
		return err
	}
	path := collectionPath(schema.Name)
	data, err := e.call(ctx, http.MethodGet, path+"/exists", nil)
	if err != nil {
		return fmt.Errorf("%s: create %s: exists: %w", e.name, schema.Name, err)
	}
	exists, err := ParseExists(data)
	if err != nil {
		return fmt.Errorf("%s: create %s: %w", e.name, schema.Name, err)
	}
	if exists {
		if _, err := e.call(ctx, http.MethodDelete, path, nil); err != nil {
			return fmt.Errorf("%s: create %s: delete the old one: %w", e.name, schema.Name, err)
		}
	}
	cfg := collectionConfig{
		Vectors:      []vectorConfig{{Name: VectorName, Type: "full_text", IndexFields: fields, TopK: e.opts.topK}},
		StoreContent: true,
	}
	if _, err := e.call(ctx, http.MethodPost, path, cfg); err != nil {
		return fmt.Errorf("%s: create %s: %w", e.name, schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collection, e.fields = schema.Name, fields
	e.skipped.Store(0)
	e.superseded.Store(0)
	return nil
}

// ParseExists decodes {"exists": bool}.
func ParseExists(body []byte) (bool, error) {
	var v struct {
		Exists *bool `json:"exists"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Exists == nil {
		return false, fmt.Errorf("malformed exists response: %q", clip(string(body)))
	}
	return *v.Exists, nil
}

func (e *Engine) state() (string, []string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.collection == "" {
		return "", nil, fmt.Errorf("%s: no collection: Create was not called", e.name)
	}
	return e.collection, e.fields, nil
}

// wireDocument is the body of one document; text fields outside the schema
// are not sent.
func wireDocument(doc engines.Document, fields []string, ts int64) map[string]string {
	m := make(map[string]string, len(fields)+2)
	m["id"], m["timestamp"] = doc.ID, formatTimestamp(ts)
	for _, f := range fields {
		m[f] = doc.Text(f)
	}
	return m
}

// route returns the write route's suffix.
func (e *Engine) route() string {
	if e.opts.queued {
		return ""
	}
	return "/sync"
}

// Upsert writes one document.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	coll, fields, err := e.state()
	if err != nil {
		return err
	}
	if err := e.checkName("document ID", doc.ID); err != nil {
		return err
	}
	w := e.tracker.begin(e.clock, coll, doc.ID)
	defer w.end()
	data, err := e.call(ctx, http.MethodPost, collectionPath(coll)+"/documents"+e.route(), wireDocument(doc, fields, w.ts))
	if err != nil {
		return fmt.Errorf("%s: upsert %s: %w", e.name, doc.ID, err)
	}
	return e.settle("upsert "+doc.ID, data, []write{w})
}

// settle reads a write's answer and sorts its skipped IDs into superseded
// (fine) and stale (lost, an error).
func (e *Engine) settle(what string, data []byte, ws []write) error {
	skipped, err := ParseWrite(data)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", e.name, what, err)
	}
	var lost []string
	for _, id := range skipped {
		i := slices.IndexFunc(ws, func(w write) bool { return w.id == id })
		if i < 0 {
			return fmt.Errorf("%s: %s: the engine skipped %q, which was not written", e.name, what, id)
		}
		if ws[i].superseded() {
			e.superseded.Add(1)
			continue
		}
		e.skipped.Add(1)
		lost = append(lost, id)
	}
	if len(lost) > 0 {
		return fmt.Errorf("%s: %s: write skipped: timestamp not newer than the stored one (%s)", e.name, what, strings.Join(lost, ", "))
	}
	return nil
}

// UpsertBatch writes docs MaxBulk at a time.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if !e.opts.bulk {
		return e.upsertSingles(ctx, docs)
	}
	for start := 0; start < len(docs); start += MaxBulk {
		if err := e.bulk(ctx, docs[start:min(start+MaxBulk, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) bulk(ctx context.Context, docs []engines.Document) error {
	coll, fields, err := e.state()
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := e.checkName("document ID", d.ID); err != nil {
			return err
		}
	}
	ws := make([]write, len(docs))
	body := struct {
		Documents []map[string]string `json:"documents"`
	}{make([]map[string]string, len(docs))}
	for i, d := range docs {
		ws[i] = e.tracker.begin(e.clock, coll, d.ID)
		defer ws[i].end()
		body.Documents[i] = wireDocument(d, fields, ws[i].ts)
	}
	what := fmt.Sprintf("bulk upsert of %d from %s", len(docs), docs[0].ID)
	data, err := e.call(ctx, http.MethodPost, collectionPath(coll)+"/documents/bulk", body)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", e.name, what, err)
	}
	return e.settle(what, data, ws)
}

// upsertSingles writes docs as single writes, singleWriters at a time, and
// returns the first error.
func (e *Engine) upsertSingles(ctx context.Context, docs []engines.Document) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  atomic.Int64
	)
	for range min(singleWriters, len(docs)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(docs)); i = next.Add(1) - 1 {
				if err := e.Upsert(ctx, docs[i]); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// Delete removes a document; a missing one is not reported (see the package
// doc).
func (e *Engine) Delete(ctx context.Context, id string) error {
	coll, _, err := e.state()
	if err != nil {
		return err
	}
	if err := e.checkName("document ID", id); err != nil {
		return err
	}
	w := e.tracker.begin(e.clock, coll, id)
	defer w.end()
	path := collectionPath(coll) + "/documents/" + id + e.route() + "?request_timestamp=" + url.QueryEscape(formatTimestamp(w.ts))
	data, err := e.call(ctx, http.MethodDelete, path, nil)
	if err != nil {
		return fmt.Errorf("%s: delete %s: %w", e.name, id, err)
	}
	return e.settle("delete "+id, data, []write{w})
}

var _ engines.Getter = (*Engine)(nil)

// Get reads one document: GET /v1/collections/{name}/documents/{id}, which
// reads the point from Qdrant (src/main.rs get_document at 4686706). It
// sees what a search sees: with the server's default
// AMGIX_NOW_SYNC_DB_WRITES=false a write may not show yet. A missing
// document is 404 {"detail": "Documents not found for document_ids: <id>"}
// (src/qdrant.rs get_documents), which wraps engines.ErrNotFound (see
// documentMissing); any other 404 stays class Other. The answer is Amgix's
// Document — id, timestamp, name, description, content (stored:
// store_content is true), tags, metadata — of which the schema's text
// fields are read.
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	coll, fields, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	if err := e.checkName("document ID", id); err != nil {
		return engines.Document{}, err
	}
	data, err := e.call(ctx, http.MethodGet, collectionPath(coll)+"/documents/"+id, nil)
	if err != nil {
		return engines.Document{}, fmt.Errorf("%s: get %s: %w", e.name, id, err)
	}
	specs := make([]engines.FieldSpec, len(fields))
	for i, f := range fields {
		specs[i] = engines.FieldSpec{Name: f, Type: engines.Text}
	}
	doc, err := engines.DecodeJSONDocument(data, "id", id, specs)
	if err != nil {
		return engines.Document{}, fmt.Errorf("%s: get %s: malformed response: %w", e.name, id, err)
	}
	return doc, nil
}

type searchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// Search runs q with limit = q.K.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := q.TextOnly(); err != nil {
		return engines.Hits{}, fmt.Errorf("%s: %w", e.name, err)
	}
	switch {
	case q.K < 1:
		return engines.Hits{}, fmt.Errorf("%s: search k=%d: must be at least 1", e.name, q.K)
	case q.K > MaxLimit:
		return engines.Hits{}, fmt.Errorf("%s: search k=%d: %w (Amgix returns at most %d hits)", e.name, q.K, engines.ErrUnsupported, MaxLimit)
	}
	coll, _, err := e.state()
	if err != nil {
		return engines.Hits{}, err
	}
	data, err := e.call(ctx, http.MethodPost, collectionPath(coll)+"/search", searchRequest{Query: q.Text, Limit: q.K})
	if err != nil {
		return engines.Hits{}, fmt.Errorf("%s: search %q: %w", e.name, q.Text, err)
	}
	ids, err := ParseSearch(data, q.K)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("%s: search %q: %w", e.name, q.Text, err)
	}
	return engines.Hits{IDs: ids, Total: -1}, nil
}

// stats reads the collection's document count and queue depth.
func (e *Engine) stats(ctx context.Context) (docs, queued int64, err error) {
	coll, _, err := e.state()
	if err != nil {
		return 0, 0, err
	}
	data, err := e.call(ctx, http.MethodGet, collectionPath(coll)+"/stats", nil)
	if err == nil {
		docs, queued, err = ParseStats(data)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: stats of %s: %w", e.name, coll, err)
	}
	return docs, queued, nil
}

// statsSettle is how long the collection's doc_count may take to show a
// write: Amgix keeps it with a background batcher that flushes up to
// STATS_BATCH_WAIT (200 ms) after a write and does not make the write wait
// for it (StatsUpdateBatcher.enqueue in src/encoder.rs), plus a margin for
// the flush itself.
const statsSettle = 300 * time.Millisecond

// Count returns the collection's doc_count once it has settled: it reads
// the count, and again statsSettle later, until two reads agree. A count
// read right after writes would miss the ones the batcher has not flushed.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	last := int64(-1)
	for {
		n, _, err := e.stats(ctx)
		if err != nil || n == last {
			return n, err
		}
		last = n
		t := time.NewTimer(statsSettle)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("%s: count: doc_count still changing: %w", e.name, ctx.Err())
		case <-t.C:
		}
	}
}

// Version returns GET /v1/version's "version" and the write routes used.
func (e *Engine) Version(ctx context.Context) (string, error) {
	data, err := e.call(ctx, http.MethodGet, "/v1/version", nil)
	if err != nil {
		return "", err
	}
	v, err := ParseVersion(data)
	if err != nil {
		return "", err
	}
	bulk := "…/documents/bulk"
	if !e.opts.bulk {
		bulk = "single writes"
	}
	return fmt.Sprintf("%s; writes via …/documents%s, bulk via %s", v, e.route(), bulk), nil
}

// ParseVersion decodes {"version": "..."}.
func ParseVersion(body []byte) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &v); err != nil || strings.TrimSpace(v.Version) == "" {
		return "", fmt.Errorf("malformed version response: %q", clip(string(body)))
	}
	return strings.TrimSpace(v.Version), nil
}

// Stats reports the driver's skipped and superseded writes (not on the
// queued route, where Amgix does not report them) and, when the call
// succeeds, the collection's doc_count and queue_depth. The driver's counters
// are reported even when the engine cannot be asked.
func (e *Engine) Stats(ctx context.Context) (map[string]float64, error) {
	m := map[string]float64{}
	if !e.opts.queued {
		m["skipped_writes"] = float64(e.skipped.Load())
		m["superseded_writes"] = float64(e.superseded.Load())
	}
	if docs, queued, err := e.stats(ctx); err == nil {
		m["doc_count"], m["queue_depth"] = float64(docs), float64(queued)
	}
	return m, nil
}

// Close releases idle connections.
func (e *Engine) Close() error {
	e.http.CloseIdleConnections()
	return nil
}

package amgixnow

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/searchbench/searchbench/engines/config"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
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

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout time.Duration
	pool    int
	queued  bool
	bulk    bool
	topK    int
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(driver string, raw map[string]string) (options, error) {
	r := config.New(driver, raw)
	o := options{
		timeout: r.Duration("timeout", DefaultTimeout),
		pool:    r.Int("pool", DefaultPool, 1, maxPool),
		queued:  r.Enum("route", "sync", "sync", "queued") == "queued",
		bulk:    r.Bool("bulk", true),
		topK:    r.Int("top_k", 0, 1, maxTopK),
	}
	return o, r.Err()
}

// CheckConfig checks the write mode and the options before anything starts.
func (d driver) CheckConfig(cfg engines.Config) error {
	_, err := d.check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): the
// text fields of an Amgix document only.
func (d driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, err := checkSchema(d.name, schema)
	return err
}

func (d driver) check(cfg engines.Config) (options, error) {
	if _, err := engines.CheckWriteMode(d.name, cfg.WriteMode, d.vis); err != nil {
		other := SyncName
		if d.vis == engines.Searchable {
			other = Name
		}
		return options{}, fmt.Errorf("%w: the server's AMGIX_NOW_SYNC_DB_WRITES decides; use %s", err, other)
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
		if _, err := config.ServerURL(d.name, cfg.URL, DefaultURL); err != nil {
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
	u, err := config.ServerURL(d.name, cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		name:     d.name,
		vis:      d.vis,
		opts:     o,
		http:     &http.Client{Transport: httpwire.Transport(o.pool), Timeout: o.timeout},
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
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
	fast     *httpwire.FastClient // the calls a run repeats (hotCall)
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
	_ engines.Attacher      = (*Engine)(nil)
)

// validName is Amgix's rule for collection names and document IDs; checking
// it here gives a clear error and keeps an ID from changing the request path.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,100}$`)

func (e *Engine) checkName(what, s string) error { return checkName(e.name, what, s) }

func checkName(driver, what, s string) error {
	if !validName.MatchString(s) {
		return fmt.Errorf("%s: %s %q is not valid in Amgix (a-z A-Z 0-9 - _, 1 to 100 characters)", driver, what, s)
	}
	return nil
}

// documentFields are Amgix's text fields, the only ones a vector can index.
var documentFields = []string{"name", "description", "content"}

// checkSchema is the text fields of schema, which must all be Amgix
// document fields, and the collection's name checked.
func checkSchema(driver string, schema engines.Schema) ([]string, error) {
	var fields []string
	for _, f := range schema.Fields {
		switch {
		case f.Type != engines.Text:
			return nil, fmt.Errorf("%s: field %s: type %s: %w (text only)", driver, f.Name, f.Type, engines.ErrUnsupported)
		case !slices.Contains(documentFields, f.Name):
			return nil, fmt.Errorf("%s: field %q: %w (Amgix documents have the text fields %s)", driver, f.Name, engines.ErrUnsupported, strings.Join(documentFields, ", "))
		case slices.Contains(fields, f.Name):
			return nil, fmt.Errorf("%s: field %q twice", driver, f.Name)
		}
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s: schema has no text field", driver)
	}
	return fields, checkName(driver, "collection name", schema.Name)
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
	fields, path, exists, err := e.lookup(ctx, schema, "create")
	if err != nil {
		return err
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

// Attach uses the collection another process created. GET
// /v1/collections/{name}/exists answers {"exists": false} for one that is
// not there (collection_exists in src/main.rs); GET /v1/collections/{name}
// answers its configuration (get_collection_config), whose one vector must
// be Create's: full_text over the schema's text fields, storing content,
// and the top_k option when it is set.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	fields, path, exists, err := e.lookup(ctx, schema, "attach to")
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%s: attach: there is no collection %s (shard 0 creates it)", e.name, schema.Name)
	}
	data, err := e.call(ctx, http.MethodGet, path, nil)
	if err != nil {
		return fmt.Errorf("%s: attach to %s: %w", e.name, schema.Name, err)
	}
	if err := checkConfig(data, fields, e.opts.topK); err != nil {
		return fmt.Errorf("%s: attach to %s: %w", e.name, schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collection, e.fields = schema.Name, fields
	return nil
}

// lookup checks the schema and its collection's name, and asks whether the
// collection exists: the text fields Create indexes, the collection's path,
// and the answer. doing names the call in errors ("create").
func (e *Engine) lookup(ctx context.Context, schema engines.Schema, doing string) (fields []string, path string, exists bool, err error) {
	if fields, err = checkSchema(e.name, schema); err != nil {
		return nil, "", false, err
	}
	path = collectionPath(schema.Name)
	data, err := e.call(ctx, http.MethodGet, path+"/exists", nil)
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: %s %s: exists: %w", e.name, doing, schema.Name, err)
	}
	if exists, err = ParseExists(data); err != nil {
		return nil, "", false, fmt.Errorf("%s: %s %s: %w", e.name, doing, schema.Name, err)
	}
	return fields, path, exists, nil
}

// checkConfig reads a collection's configuration and checks that it is
// what Create makes (topK 0: the server's default, not checked).
func checkConfig(body []byte, fields []string, topK int) error {
	var c struct {
		Vectors []struct {
			Name        string   `json:"name"`
			Type        string   `json:"type"`
			IndexFields []string `json:"index_fields"`
			TopK        int      `json:"top_k"`
		} `json:"vectors"`
		StoreContent bool `json:"store_content"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return fmt.Errorf("malformed collection configuration: %q", quote.Clip(string(body)))
	}
	want := fmt.Sprintf("one vector, %s full_text over %v", VectorName, fields)
	if topK != 0 {
		want += fmt.Sprintf(" (top_k %d)", topK)
	}
	if len(c.Vectors) != 1 || !c.StoreContent {
		return fmt.Errorf("the collection has %d vectors (store_content %v); Create makes %s, storing content", len(c.Vectors), c.StoreContent, want)
	}
	v := c.Vectors[0]
	if v.Name != VectorName || v.Type != "full_text" || !slices.Equal(v.IndexFields, fields) || (topK != 0 && v.TopK != topK) {
		return fmt.Errorf("its vector is %s %s over %v (top_k %d); Create makes %s", v.Name, v.Type, v.IndexFields, v.TopK, want)
	}
	return nil
}

// ParseExists decodes {"exists": bool}.
func ParseExists(body []byte) (bool, error) {
	var v struct {
		Exists *bool `json:"exists"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Exists == nil {
		return false, fmt.Errorf("malformed exists response: %q", quote.Clip(string(body)))
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
	data, err := e.hotCall(ctx, http.MethodPost, collectionPath(coll)+"/documents"+e.route(), wireDocument(doc, fields, w.ts))
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
	data, err := e.hotCall(ctx, http.MethodDelete, path, nil)
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
	data, err := e.hotCall(ctx, http.MethodGet, collectionPath(coll)+"/documents/"+id, nil)
	if err != nil {
		return engines.Document{}, fmt.Errorf("%s: get %s: %w", e.name, id, err)
	}
	specs := make([]engines.FieldSpec, len(fields))
	for i, f := range fields {
		specs[i] = engines.FieldSpec{Name: f, Type: engines.Text}
	}
	doc, err := httpwire.DecodeDocument(data, "id", id, specs)
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
	data, err := e.hotCall(ctx, http.MethodPost, collectionPath(coll)+"/search", searchRequest{Query: q.Text, Limit: q.K})
	if err != nil {
		return engines.Hits{}, fmt.Errorf("%s: search %q: %w", e.name, q.Text, err)
	}
	ids, err := ParseSearch(data, q.K)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("%s: search %q: %w", e.name, q.Text, quote.Unreadable(data, err))
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
		return "", fmt.Errorf("malformed version response: %q", quote.Clip(string(body)))
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
	e.fast.Close()
	return nil
}

package meilisearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/engines/config"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meilisearch/meilisearch-go"
	"github.com/valyala/fasthttp"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("meilisearch", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Meilisearch 1.37 (meilisearch-go): typo tolerance off, searchable = the text fields, matching strategy last; writes are tasks (acknowledged | searchable)",
		Visibility: engines.Acknowledged,
		Getter:     true,
	}
}

// DefaultURL is where Meilisearch listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:7700"

// Defaults of the options.
const (
	DefaultPool        = 2048
	DefaultTaskPollMax = 50 * time.Millisecond
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout     time.Duration
	pool        int
	taskPollMax time.Duration
	strategy    meilisearch.MatchingStrategy
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("meilisearch", raw)
	o := options{
		timeout:     r.Duration("timeout", 0),
		pool:        r.Int("pool", DefaultPool, 1, maxPool),
		taskPollMax: r.Duration("task_poll_max", DefaultTaskPollMax),
		strategy: meilisearch.MatchingStrategy(r.Enum("matching_strategy", "",
			string(meilisearch.Last), string(meilisearch.All), string(meilisearch.Frequency))),
	}
	return o, r.Err()
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, _, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker):
// Meilisearch is given text fields only, under a valid index name.
func (driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	return checkSchema(schema)
}

// checkSchema is what Create checks of the schema before it calls the server.
func checkSchema(schema engines.Schema) error {
	if _, err := textFields(schema); err != nil {
		return err
	}
	if err := checkID(schema.Name, maxIndexUID); err != nil {
		return fmt.Errorf("meilisearch: create: index name %w", err)
	}
	return nil
}

// check returns the write mode (the default made explicit) and the options.
func check(cfg engines.Config) (engines.Visibility, options, error) {
	mode, err := engines.CheckWriteMode("meilisearch", cfg.WriteMode, engines.Acknowledged, engines.Searchable)
	if err != nil {
		return mode, options{}, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := config.ServerURL("meilisearch", cfg.URL, DefaultURL); err != nil {
			return mode, options{}, err
		}
	}
	o, err := parseOptions(cfg.Options)
	return mode, o, err
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	mode, o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := config.ServerURL("meilisearch", cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	key := cfg.APIKey.Reveal()
	hc := &http.Client{Transport: transport(o.pool), Timeout: o.timeout}
	opts := []meilisearch.Option{meilisearch.WithCustomClient(hc), meilisearch.DisableRetries()}
	if key != "" {
		opts = append(opts, meilisearch.WithAPIKey(key))
	}
	base := strings.TrimRight(u.String(), "/")
	e := &Engine{
		client:   meilisearch.New(base, opts...),
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
		prefix:   strings.TrimRight(u.EscapedPath(), "/"),
		auth:     authorization(key),
		mode:     mode,
		opts:     o,
		key:      key,
		endpoint: u.Redacted(),
	}
	// GET /version needs the key, so a wrong key fails here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("meilisearch: connect to %s: %w", e.endpoint, err)
	}
	return e, nil
}

// transport is the shared HTTP transport with connection buffers of 1 KB
// instead of net/http's 4 KB: a search, its answer, a task's answer all fit
// in less, a larger body is copied past the buffer, and each connection
// holds two of them — at 1,500 users (and the connections the ramp's dial
// races add) the 4 KB buffers were 19 MB of live heap, about twice that in
// resident memory (bench/README.md).
func transport(pool int) *http.Transport {
	t := httpwire.Transport(pool)
	t.ReadBufferSize, t.WriteBufferSize = 1<<10, 1<<10
	return t
}

// authorization is the Authorization header the client sends: "Bearer
// key", or none without a key (meilisearch-go v0.37.0 client.go,
// sendRequest).
func authorization(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// userAgent is the User-Agent the client sends.
var userAgent = meilisearch.GetQualifiedVersion()

// Engine is one Meilisearch index.
type Engine struct {
	client   meilisearch.ServiceManager
	fast     *httpwire.FastClient // for searches (see Search)
	prefix   string               // the URL's path, before the API's paths
	auth     string               // the Authorization header, "" without a key
	mode     engines.Visibility
	opts     options
	key      string // only to scrub it from messages, should a server echo it
	endpoint string // the URL without credentials, for messages

	mu     sync.RWMutex // guards the index state against Create
	index  meilisearch.IndexManager
	uid    string
	search string   // the index's search path
	fields []string // text fields, in schema order

	lastTask atomic.Int64 // highest task uid this Engine enqueued
	checked  atomic.Int64 // tasks up to this uid were checked for failures
}

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.BulkUpserter  = (*Engine)(nil)
	_ engines.Refresher     = (*Engine)(nil)
	_ engines.Counter       = (*Engine)(nil)
	_ engines.Versioner     = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
)

// PrimaryKey is the index's primary key attribute.
const PrimaryKey = "id"

// validID is Meilisearch's rule for index uids and document ids (alphanumeric,
// hyphen, underscore); checking it here gives a clear error and keeps an ID
// from changing the request path.
var validID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

const (
	maxIndexUID = 400 // bytes, Meilisearch's limit for an index uid
	maxDocID    = 511 // bytes, Meilisearch's limit for a document id
)

func checkID(id string, limit int) error {
	if len(id) > limit || !validID.MatchString(id) {
		return fmt.Errorf("%q is not a valid Meilisearch identifier (a-z A-Z 0-9 - _, 1 to %d bytes)", id, limit)
	}
	return nil
}

// Create replaces the index and applies the settings before any write.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	if err := checkSchema(schema); err != nil {
		return err
	}
	fields, _ := textFields(schema) // checked
	uid := schema.Name
	if err := e.dropIndex(ctx, uid); err != nil {
		return err
	}
	info, err := e.client.CreateIndex(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: PrimaryKey})
	if err := e.settle(ctx, "create index "+uid, info, err); err != nil {
		return err
	}
	index := e.client.Index(uid)
	info, err = index.UpdateSettings(ctx, settings(fields))
	if err := e.settle(ctx, "settings of "+uid, info, err); err != nil {
		return err
	}
	e.use(index, uid, fields)
	e.checked.Store(info.TaskUID) // earlier failures (a missing index to drop) are Create's business
	return nil
}

// Attach uses the index another process created: its searchable attributes
// (GET /indexes/{uid}/settings/searchable-attributes, 404 index_not_found
// when the index is not there) must be the schema's text fields, in order,
// as Create sets them.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	fields, err := textFields(schema)
	if err != nil {
		return err
	}
	uid := schema.Name
	if err := checkID(uid, maxIndexUID); err != nil {
		return fmt.Errorf("meilisearch: attach: index name %w", err)
	}
	index := e.client.Index(uid)
	got, err := index.GetSearchableAttributes(ctx)
	if err != nil {
		return e.fail("attach to index "+uid, err)
	}
	var have []string
	if got != nil {
		have = *got
	}
	if !slices.Equal(have, fields) {
		return fmt.Errorf("meilisearch: attach to index %s: its searchable attributes are %v, not the schema's text fields %v", uid, have, fields)
	}
	// Refresh reports the index's failed tasks since the last check: those
	// before the attach (shard 0's drop of an index not there) are not this
	// engine's.
	newest, err := e.client.GetTasks(ctx, &meilisearch.TasksQuery{IndexUIDS: []string{uid}, Limit: 1})
	if err != nil {
		return e.fail("attach to index "+uid, err)
	}
	if len(newest.Results) > 0 {
		advance(&e.checked, newest.Results[0].UID)
	}
	e.use(index, uid, fields)
	return nil
}

// use makes index the one this Engine's calls go to.
func (e *Engine) use(index meilisearch.IndexManager, uid string, fields []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.index, e.uid, e.fields = index, uid, fields
	e.search = e.prefix + "/indexes/" + uid + "/search"
}

func textFields(schema engines.Schema) ([]string, error) {
	var fields []string
	for _, f := range schema.Fields {
		switch {
		case f.Type != engines.Text:
			return nil, fmt.Errorf("meilisearch: field %s: type %s: %w (text only)", f.Name, f.Type, engines.ErrUnsupported)
		case f.Name == PrimaryKey:
			return nil, fmt.Errorf("meilisearch: field %q is the primary key's name", f.Name)
		}
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return nil, errors.New("meilisearch: schema has no text field")
	}
	return fields, nil
}

func settings(fields []string) *meilisearch.Settings {
	return &meilisearch.Settings{
		SearchableAttributes: fields,
		TypoTolerance: &meilisearch.TypoTolerance{
			Enabled: false,
			// The client always sends these; send the server's defaults.
			MinWordSizeForTypos: meilisearch.MinWordSizeForTypos{OneTypo: 5, TwoTypos: 9},
			DisableOnWords:      []string{},
			DisableOnAttributes: []string{},
		},
	}
}

// dropIndex deletes the index and waits; a missing index is fine.
func (e *Engine) dropIndex(ctx context.Context, uid string) error {
	info, err := e.client.DeleteIndex(ctx, uid)
	if err != nil {
		return e.fail("delete index "+uid, err)
	}
	e.enqueued(info.TaskUID)
	t, err := e.wait(ctx, info.TaskUID)
	if err != nil {
		return e.fail("delete index "+uid, err)
	}
	if t.Status != meilisearch.TaskStatusSucceeded && t.Error.Code != meilisearch.APIErrCodeIndexNotFound {
		return e.fail("delete index "+uid, taskError(t))
	}
	return nil
}

// settle waits for a task that must succeed, whatever the write mode.
func (e *Engine) settle(ctx context.Context, what string, info *meilisearch.TaskInfo, err error) error {
	if err != nil {
		return e.fail(what, err)
	}
	e.enqueued(info.TaskUID)
	t, err := e.wait(ctx, info.TaskUID)
	if err == nil && t.Status != meilisearch.TaskStatusSucceeded {
		err = taskError(t)
	}
	if err != nil {
		return e.fail(what, err)
	}
	return nil
}

var errNoIndex = errors.New("meilisearch: no index: Create was not called")

// state returns the index under a read lock, or an error before Create.
func (e *Engine) state() (meilisearch.IndexManager, []string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.index == nil {
		return nil, nil, errNoIndex
	}
	return e.index, e.fields, nil
}

// searchPath returns the index's search path, or an error before Create.
func (e *Engine) searchPath() (string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.index == nil {
		return "", errNoIndex
	}
	return e.search, nil
}

// body is a document as Meilisearch stores it: the id and the schema's text
// fields (a field the document lacks is written empty, so a replaced
// document never keeps an old value).
func body(doc engines.Document, fields []string) (map[string]string, error) {
	if err := checkID(doc.ID, maxDocID); err != nil {
		return nil, fmt.Errorf("document id %w", err)
	}
	m := make(map[string]string, len(fields)+1)
	m[PrimaryKey] = doc.ID
	for _, f := range fields {
		m[f] = doc.Text(f)
	}
	return m, nil
}

// Upsert adds or replaces one document (POST /indexes/{uid}/documents).
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	return e.write(ctx, "upsert "+doc.ID, []engines.Document{doc})
}

// UpsertBatch adds or replaces many documents in one task.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if len(docs) == 0 {
		return nil
	}
	return e.write(ctx, fmt.Sprintf("batch of %d", len(docs)), docs)
}

func (e *Engine) write(ctx context.Context, what string, docs []engines.Document) error {
	_, fields, err := e.state()
	if err != nil {
		return err
	}
	bodies := make([]map[string]string, len(docs))
	for i, d := range docs {
		if bodies[i], err = body(d, fields); err != nil {
			return fmt.Errorf("meilisearch: %s: %w", what, err)
		}
	}
	// What the client's AddDocuments(ctx, bodies, nil) sends: json.Marshal
	// of the slice, POST /indexes/{uid}/documents, no query (no
	// DocumentOptions: the primary key is the index's). TestWritesWire
	// compares the two.
	docsJSON, err := json.Marshal(bodies)
	if err != nil {
		return fmt.Errorf("meilisearch: %s: %w", what, err)
	}
	uid, err := e.task(ctx, http.MethodPost, "/documents", docsJSON)
	if err != nil {
		return e.fail(what, err)
	}
	_, err = e.finish(ctx, uid)
	return e.fail(what, err)
}

// task makes a write through the fast client — method on the index's path
// plus sub, the client's headers, body (nil: none) — and returns the uid of
// the task it enqueued (202 Accepted with a TaskInfo, as the client expects).
func (e *Engine) task(ctx context.Context, method, sub string, body []byte) (int64, error) {
	var uid int64
	err := e.hot(ctx, method, sub, "", body, http.StatusAccepted, func(b []byte) error {
		var info meilisearch.TaskInfo
		if err := json.Unmarshal(b, &info); err != nil {
			return err
		}
		uid = info.TaskUID
		return nil
	})
	return uid, err
}

// hot makes one of the calls a run repeats (Upsert, Delete, Get) through
// httpwire.FastClient instead of the client: the request the client would
// send — method, the index's path plus sub, the query (encoded, "" for
// none), the client's Content-Type (with a body), Authorization and
// User-Agent — and on the status the client would accept, read of the
// answer. Another status is classified as the client's errors are
// (httpError); an answer read cannot read is "malformed response", as the
// client reports it. The wire tests compare the bytes with the client's.
func (e *Engine) hot(ctx context.Context, method, sub, query string, body []byte, want int, read func([]byte) error) error {
	e.mu.RLock()
	path := e.prefix + "/indexes/" + e.uid + sub
	e.mu.RUnlock()
	if query != "" {
		path += "?" + query
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	e.fast.Prepare(req, method, path)
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBodyRaw(body)
	}
	if e.auth != "" {
		req.Header.Set("Authorization", e.auth)
	}
	req.Header.SetUserAgent(userAgent)
	if err := e.fast.Do(ctx, req, resp); err != nil {
		return transportError(err)
	}
	if status := resp.StatusCode(); status != want {
		var a struct{ Code, Message string }
		_ = json.Unmarshal(resp.Body(), &a) // no code: a plain HTTP error
		return httpError(status, meilisearch.APIErrCode(a.Code), a.Message)
	}
	if err := read(resp.Body()); err != nil {
		return fmt.Errorf("malformed response (HTTP %d): %v", resp.StatusCode(), err)
	}
	return nil
}

// finish records an enqueued task and, in searchable mode, waits for it and
// returns it (nil in acknowledged mode) or the task's failure.
func (e *Engine) finish(ctx context.Context, uid int64) (*meilisearch.Task, error) {
	e.enqueued(uid)
	if e.mode != engines.Searchable {
		return nil, nil
	}
	t, err := e.wait(ctx, uid)
	if err != nil {
		return nil, err
	}
	if t.Status != meilisearch.TaskStatusSucceeded {
		return nil, taskError(t)
	}
	return t, nil
}

// Delete removes a document. In searchable mode a missing ID is
// engines.ErrNotFound; acknowledged mode cannot know (see the package doc).
func (e *Engine) Delete(ctx context.Context, id string) error {
	if _, _, err := e.state(); err != nil {
		return err
	}
	what := "delete " + id
	if err := checkID(id, maxDocID); err != nil {
		return fmt.Errorf("meilisearch: %s: document id %w", what, err)
	}
	// The client's DeleteDocument(ctx, id, nil): DELETE
	// /indexes/{uid}/documents/{id}, no body.
	uid, err := e.task(ctx, http.MethodDelete, "/documents/"+id, nil)
	if err != nil {
		return e.fail(what, err)
	}
	t, err := e.finish(ctx, uid)
	if err != nil {
		return e.fail(what, err)
	}
	if t != nil && t.Details.DeletedDocuments == 0 {
		return fmt.Errorf("meilisearch: %s: task %d deleted no document: %w", what, t.UID, engines.ErrNotFound)
	}
	return nil
}

var _ engines.Getter = (*Engine)(nil)

// Get reads one document: GET /indexes/{uid}/documents/{id}?fields=id,<the
// schema's text fields>, the request meilisearch-go's GetDocument sends,
// through the fast client as the other calls a run repeats (see hot). A write
// shows once its task has been processed, so in acknowledged mode a Get right
// after an Upsert may miss it, as a search may. Meilisearch answers a
// missing document with 404 and code document_not_found, which wraps
// engines.ErrNotFound (routes/indexes/documents.rs, get_document and
// retrieve_document, in meilisearch/meilisearch).
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	_, fields, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	what := "get " + id
	// The ID goes into the path: one Meilisearch would not accept never
	// reaches the server.
	if err := checkID(id, maxDocID); err != nil {
		return engines.Document{}, fmt.Errorf("meilisearch: %s: document id %w", what, err)
	}
	// The client's GetDocument with DocumentQuery{Fields: id and the text
	// fields}: the query as url.Values.Encode writes it (the commas
	// escaped).
	query := url.Values{"fields": {strings.Join(append([]string{PrimaryKey}, fields...), ",")}}.Encode()
	var body []byte
	err = e.hot(ctx, http.MethodGet, "/documents/"+id, query, nil, http.StatusOK, func(b []byte) error {
		if !json.Valid(b) {
			return errors.New("invalid JSON")
		}
		body = bytes.Clone(b)
		return nil
	})
	if err != nil {
		return engines.Document{}, e.fail(what, err)
	}
	specs := make([]engines.FieldSpec, len(fields))
	for i, f := range fields {
		specs[i] = engines.FieldSpec{Name: f, Type: engines.Text}
	}
	doc, err := httpwire.DecodeDocument(body, PrimaryKey, id, specs)
	if err != nil {
		return engines.Document{}, fmt.Errorf("meilisearch: %s: malformed response: %w", what, err)
	}
	return doc, nil
}

// searchBody is the body the client sends for a search: json.Marshal of
// the SearchRequest{Query: text, Limit: k, AttributesToRetrieve: [id],
// MatchingStrategy: strategy} it would build, written out with only the
// query string left to encoding/json — the struct's reflection over its
// thirty-odd fields cost each search a microsecond, a few percent of what a
// search costs the load generator. FuzzSearchBody checks it against
// json.Marshal of the struct. k is at least 1 (a zero limit is omitted).
func searchBody(text string, k int, strategy meilisearch.MatchingStrategy) ([]byte, error) {
	q, err := json.Marshal(text)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(q)+96)
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `,"attributesToRetrieve":["`+PrimaryKey+`"]`...)
	if strategy != "" { // one of the option's three names: nothing to escape
		b = append(b, `,"matchingStrategy":"`...)
		b = append(b, strategy...)
		b = append(b, '"')
	}
	b = append(b, `,"q":`...)
	b = append(b, q...)
	return append(b, `,"hybrid":null}`...), nil
}

// Search runs a free-text query over the schema's text fields.
//
// It sends the request the client's SearchRaw would send — the same
// SearchRequest encoded by the same encoder, with the same headers — but
// through httpwire.FastClient (fasthttp) instead of the client and net/http:
// the client's own work around each call (parsing the URL, building an
// error value for every call, two copies of every answer) was a fifth of
// what a search cost the load generator, and net/http itself most of the
// rest (bench/README.md). TestSearchWire compares the bytes on the wire
// with SearchRaw's. Searches are the measured call that runs most;
// everything else goes through the client.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := q.TextOnly(); err != nil {
		return engines.Hits{}, fmt.Errorf("meilisearch: %w", err)
	}
	if q.K < 1 {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: k=%d: at least 1 (a limit of 0 is dropped by the client and the server answers 20)", q.K)
	}
	path, err := e.searchPath()
	if err != nil {
		return engines.Hits{}, err
	}
	body, err := searchBody(q.Text, q.K, e.opts.strategy)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: %w", err)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	e.fast.Prepare(req, http.MethodPost, path)
	req.Header.SetContentType("application/json")
	req.Header.SetUserAgent(userAgent)
	if e.auth != "" {
		req.Header.Set("Authorization", e.auth)
	}
	req.SetBodyRaw(body)
	if err := e.fast.Do(ctx, req, resp); err != nil {
		return engines.Hits{}, e.fail("search", transportError(err))
	}
	if status := resp.StatusCode(); status != http.StatusOK {
		var a struct{ Code, Message string }
		_ = json.Unmarshal(resp.Body(), &a) // no code: a plain HTTP error
		return engines.Hits{}, e.fail("search", httpError(status, meilisearch.APIErrCode(a.Code), a.Message))
	}
	h, err := ParseSearch(resp.Body(), q.K) // copies what it keeps
	if err != nil {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: %w", quote.Unreadable(resp.Body(), err))
	}
	return h, nil
}

// ParseSearch reads a search response body: the hits' ids, best first, and
// the total (estimatedTotalHits, else totalHits, else -1). A body that is not
// JSON, more than k hits, a missing "hits" array, a hit without a string or
// integer "id", or a total that is not an integer is an error. Keys match
// exactly; when one repeats, the last counts.
//
// It reads the body itself instead of decoding it with encoding/json, which
// took 10 µs and 105 allocations for 10 hits, more than the rest of a
// search's handling in the load generator (bench/README.md has the
// profiles). One pass validates the whole body and keeps the values
// of the keys it reads; a second reads the hits. FuzzParseSearch checks it
// against encoding/json.
func ParseSearch(body []byte, k int) (engines.Hits, error) {
	hits, estimated, exact, err := readTop(body)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("malformed response: %w", err)
	}
	if hits == nil || string(hits) == "null" {
		return engines.Hits{}, errors.New("malformed response: no hits array")
	}
	raw, err := hitRaws(hits)
	if err != nil {
		return engines.Hits{}, err
	}
	if len(raw) > k {
		return engines.Hits{}, fmt.Errorf("the engine returned %d hits for limit %d", len(raw), k)
	}
	ids, err := hitIDs(raw)
	if err != nil {
		return engines.Hits{}, err
	}
	est, hasEst, err1 := totalHits("estimatedTotalHits", estimated)
	tot, hasTot, err2 := totalHits("totalHits", exact)
	if err := cmp.Or(err1, err2); err != nil {
		return engines.Hits{}, err
	}
	total := int64(-1)
	switch {
	case hasEst:
		total = est
	case hasTot:
		total = tot
	}
	return engines.Hits{IDs: ids, Total: total}, nil
}

// totalHits reads a count: absent or null (false), or an integer.
func totalHits(name string, raw []byte) (int64, bool, error) {
	if raw == nil || string(raw) == "null" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("malformed response: %s %.40s is not an integer", name, raw)
	}
	return n, true, nil
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// readTop validates body — a JSON object, accepted as encoding/json's
// scanner accepts it — and returns the last value of each key ParseSearch
// reads (nil when absent).
func readTop(b []byte) (hits, estimated, exact []byte, err error) {
	i := skipSpace(b, 0)
	end, err := scanValue(b, i, 0, func(key, v []byte) error {
		switch string(keyValue(key)) { // compared without a copy
		case "hits":
			hits = v
		case "estimatedTotalHits":
			estimated = v
		case "totalHits":
			exact = v
		}
		return nil
	}, nil)
	switch {
	case err != nil:
	case skipSpace(b, end) != len(b):
		err = syntaxError(b, skipSpace(b, end), "the end")
	case b[i] != '{':
		err = errors.New("not an object")
	}
	return hits, estimated, exact, err
}

// hitRaws reads a hits array that readTop validated: each hit's raw id,
// nil for a hit without one (or null).
func hitRaws(hits []byte) ([][]byte, error) {
	if hits[0] != '[' {
		return nil, errors.New("malformed response: hits is not an array")
	}
	ids := make([][]byte, 0, 16)
	_, err := scanValue(hits, 0, 0, nil, func(hit []byte) error {
		var id []byte
		switch hit[0] {
		case '{':
			_, _ = scanValue(hit, 0, 0, func(key, v []byte) error {
				if string(keyValue(key)) == PrimaryKey {
					id = v
				}
				return nil
			}, nil)
		case 'n': // null: no id
		default:
			return fmt.Errorf("malformed response: hit %d is not an object", len(ids))
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// keyValue is a validated key's value: its bytes when plain, else decoded.
func keyValue(quoted []byte) []byte {
	if isPlain(quoted) {
		return quoted[1 : len(quoted)-1]
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid by construction
	return []byte(s)
}

// isPlain says whether a quoted string's bytes are its value: ASCII
// without escapes (encoding/json replaces invalid UTF-8, so anything else
// goes through it).
func isPlain(quoted []byte) bool {
	for _, c := range quoted[1 : len(quoted)-1] {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func syntaxError(b []byte, i int, want string) error {
	if i >= len(b) {
		return fmt.Errorf("invalid JSON: the body ends where %s should be", want)
	}
	return fmt.Errorf("invalid JSON: %q at byte %d where %s should be", b[i], i, want)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue validates the value at b[i:], inside depth containers, and
// returns where it ends. When the value is an object, member (if not nil)
// is called with each key (quoted) and value; when an array, element with
// each element; the first error either returns stops the scan.
func scanValue(b []byte, i, depth int, member func(key, value []byte) error, element func(value []byte) error) (int, error) {
	if i >= len(b) {
		return i, syntaxError(b, i, "a value")
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{' || c == '[':
		if depth++; depth > maxDepth {
			return i, errors.New("invalid JSON: nested too deep")
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		for {
			var key []byte
			if c == '{' {
				if i == len(b) || b[i] != '"' {
					return i, syntaxError(b, i, "a key")
				}
				end, err := scanString(b, i)
				if err != nil {
					return end, err
				}
				key = b[i:end]
				if i = skipSpace(b, end); i == len(b) || b[i] != ':' {
					return i, syntaxError(b, i, "':'")
				}
				i = skipSpace(b, i+1)
			}
			end, err := scanValue(b, i, depth, nil, nil)
			if err != nil {
				return end, err
			}
			switch {
			case c == '{' && member != nil:
				err = member(key, b[i:end])
			case c == '[' && element != nil:
				err = element(b[i:end])
			}
			if err != nil {
				return end, err
			}
			if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == closer {
				return i + 1, nil
			}
			return i, syntaxError(b, i, "',' or '"+string(closer)+"'")
		}
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	}
	return i, syntaxError(b, i, "a value")
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return i, syntaxError(b, i, lit)
	}
	return i + len(lit), nil
}

// scanNumber: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func scanNumber(b []byte, i int) (int, error) {
	digits := func(i int) (int, bool) {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j, j > i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i, _ = digits(i)
	default:
		return i, syntaxError(b, i, "a digit")
	}
	ok := true
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, syntaxError(b, i, "a digit")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, syntaxError(b, i, "a digit")
		}
	}
	return i, nil
}

// scanString validates the string at b[i] (a quote) and returns where it
// ends. Bytes that are not UTF-8 are accepted, as encoding/json does.
func scanString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return i, syntaxError(b, i, "a character of a string")
		case c == '\\':
			if i++; i == len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if i++; i == len(b) || !isHex(b[i]) {
						return i, syntaxError(b, i, "a hexadecimal digit")
					}
				}
			default:
				return i, syntaxError(b, i, "an escape")
			}
		}
	}
	return i, syntaxError(b, i, "'\"'")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hitIDs reads the hits' ids. The ids whose bytes are their value (plain
// strings and integers: nearly all) share one allocation.
func hitIDs(raw [][]byte) ([]string, error) {
	ids := make([]string, len(raw))
	var ends [64]int // of the first 64 ids: where each ends in buf, -1 when decoded apart
	size := 0
	for _, r := range raw {
		size += len(r)
	}
	buf := make([]byte, 0, size)
	for i, r := range raw {
		b, s, err := hitID(r)
		if err != nil {
			return nil, fmt.Errorf("malformed response: hit %d: %v", i, err)
		}
		switch {
		case b == nil:
			ids[i] = s
			if i < len(ends) {
				ends[i] = -1
			}
		case i < len(ends):
			buf = append(buf, b...)
			ends[i] = len(buf)
		default:
			ids[i] = string(b)
		}
	}
	all, from := string(buf), 0
	for i := range min(len(raw), len(ends)) {
		if ends[i] >= 0 {
			ids[i], from = all[from:ends[i]], ends[i]
		}
	}
	return ids, nil
}

// hitID reads a document id: a JSON string, or an integer (Meilisearch's
// other id type). When the id's bytes are its value, it returns them (a
// part of raw); otherwise the decoded string.
func hitID(raw []byte) ([]byte, string, error) {
	switch {
	case len(raw) == 0:
		return nil, "", errors.New("no id")
	case raw[0] == '"':
		if isPlain(raw) {
			return raw[1 : len(raw)-1], "", nil
		}
		var s string
		_ = json.Unmarshal(raw, &s) // valid by construction
		return nil, s, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return raw, "", nil
		}
	}
	return nil, "", fmt.Errorf("id %.40s is neither a string nor an integer", raw)
}

// Refresh waits until every task this Engine enqueued has finished and
// reports a failed or canceled one.
func (e *Engine) Refresh(ctx context.Context) error {
	uid := e.uidOrEmpty()
	last := e.lastTask.Load()
	checked := e.checked.Load()
	if uid == "" || last <= checked {
		return nil
	}
	if _, err := e.wait(ctx, last); err != nil {
		return e.fail("refresh", err)
	}
	// Tasks of one index run in enqueue order: when the last has finished,
	// so has every earlier one. The newest failure among them is reported.
	res, err := e.client.GetTasks(ctx, &meilisearch.TasksQuery{
		IndexUIDS: []string{uid},
		Statuses:  []meilisearch.TaskStatus{meilisearch.TaskStatusFailed, meilisearch.TaskStatusCanceled},
		From:      last,
		Limit:     1,
	})
	if err != nil {
		return e.fail("refresh", err)
	}
	advance(&e.checked, last)
	if len(res.Results) > 0 && res.Results[0].UID > checked {
		t := res.Results[0]
		return e.fail("refresh", fmt.Errorf("a task ended badly since the last check; the newest: %w", taskError(&t)))
	}
	return nil
}

func (e *Engine) uidOrEmpty() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.uid
}

// Count returns numberOfDocuments from the index stats: documents of
// finished tasks only.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	index, _, err := e.state()
	if err != nil {
		return 0, err
	}
	st, err := index.GetStats(ctx, nil)
	if err != nil {
		return 0, e.fail("count", err)
	}
	return st.NumberOfDocuments, nil
}

// Stats reports the index's task queue: tasks enqueued and processing, and
// their sum as queue_depth (the key the ladder table reads): writes
// received and not yet applied.
func (e *Engine) Stats(ctx context.Context) (map[string]float64, error) {
	uid := e.uidOrEmpty()
	if uid == "" {
		return nil, errNoIndex
	}
	out := map[string]float64{}
	for _, s := range []meilisearch.TaskStatus{meilisearch.TaskStatusEnqueued, meilisearch.TaskStatusProcessing} {
		res, err := e.client.GetTasks(ctx, &meilisearch.TasksQuery{
			IndexUIDS: []string{uid}, Statuses: []meilisearch.TaskStatus{s}, Limit: 1,
		})
		if err != nil {
			return nil, e.fail("stats", err)
		}
		out["tasks_"+string(s)] = float64(res.Total)
		out["queue_depth"] += float64(res.Total)
	}
	return out, nil
}

// Version returns the server's pkgVersion.
func (e *Engine) Version(ctx context.Context) (string, error) {
	v, err := e.client.Version(ctx)
	if err != nil {
		return "", e.fail("version", err)
	}
	if v.PkgVersion == "" {
		return "", errors.New("meilisearch: version: the response has no pkgVersion")
	}
	return "Meilisearch " + v.PkgVersion, nil
}

// Close closes idle connections, the client's and the searches'; the
// index stays.
func (e *Engine) Close() error {
	e.client.Close()
	e.fast.Close()
	return nil
}

// enqueued records a task uid as this Engine's latest.
func (e *Engine) enqueued(uid int64) { advance(&e.lastTask, uid) }

// advance raises v to n unless it is already higher.
func advance(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// wait polls a task until it is no longer enqueued or processing, backing
// off from 1 ms to task_poll_max.
func (e *Engine) wait(ctx context.Context, uid int64) (*meilisearch.Task, error) {
	pause := time.Millisecond
	for {
		t, err := e.client.GetTask(ctx, uid)
		if err != nil {
			return nil, err
		}
		if t.Status != meilisearch.TaskStatusEnqueued && t.Status != meilisearch.TaskStatusProcessing {
			return t, nil
		}
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("waiting for task %d (%s): %w", uid, t.Status, httpwire.TransportError(ctx.Err()))
		case <-timer.C:
		}
		pause = min(2*pause, e.opts.taskPollMax)
	}
}

// TaskError is a task that did not succeed.
type TaskError struct {
	UID     int64
	Status  string
	Code    string // Meilisearch's error code, e.g. "missing_document_id"
	Message string
}

func (t *TaskError) Error() string {
	if t.Code == "" {
		return fmt.Sprintf("task %d %s", t.UID, t.Status)
	}
	return fmt.Sprintf("task %d %s: %s: %s", t.UID, t.Status, t.Code, t.Message)
}

func taskError(t *meilisearch.Task) error {
	uid := t.UID
	if uid == 0 {
		uid = t.TaskUID
	}
	status := string(t.Status)
	if status == "" {
		status = "without a status"
	}
	return &TaskError{UID: uid, Status: status, Code: string(t.Error.Code), Message: quote.Clip(t.Error.Message)}
}

// fail wraps err with the operation's context and the runner's error class;
// nil stays nil.
func (e *Engine) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	err = classify(err)
	return fmt.Errorf("meilisearch: %s: %w", what, quote.Redact(err, e.key))
}

// classify turns a client error into a short message wrapping the runner's
// class. It never uses the client's own message, which can quote whole
// request and response bodies.
func classify(err error) error {
	var me *meilisearch.Error
	if !errors.As(err, &me) {
		return err
	}
	switch me.ErrCode {
	case meilisearch.APIError, meilisearch.APIErrorWithoutMessage:
		return apiError(me)
	case meilisearch.TimeoutError, meilisearch.CommunicationError:
		return transportError(me.OriginError)
	case meilisearch.ErrCodeResponseUnmarshalBody:
		return fmt.Errorf("malformed response (HTTP %d): %v", me.StatusCode, me.OriginError)
	}
	if me.OriginError != nil {
		return fmt.Errorf("%s %s: %w", me.Method, me.Endpoint, me.OriginError)
	}
	return fmt.Errorf("%s %s: client error %d", me.Method, me.Endpoint, me.ErrCode)
}

// HTTPError is a response with a status the call did not expect.
type HTTPError struct {
	Status  int
	Code    string // Meilisearch's error code, if the body had one
	Message string
}

func (h *HTTPError) Error() string {
	if h.Code == "" {
		return fmt.Sprintf("HTTP %d", h.Status)
	}
	return fmt.Sprintf("HTTP %d %s: %s", h.Status, h.Code, h.Message)
}

func apiError(me *meilisearch.Error) error {
	return httpError(me.StatusCode, me.APIError.Code, me.APIError.Message)
}

// httpError classifies an answer with an unexpected status by its status
// (httpwire.StatusError) and Meilisearch's error code: a 404 is a missing
// document only with one of notFoundCodes.
func httpError(status int, code meilisearch.APIErrCode, message string) error {
	h := &HTTPError{Status: status, Code: string(code), Message: quote.Clip(message)}
	if h.Code == "" {
		h.Message = ""
	}
	return httpwire.StatusError(status, slices.Contains(notFoundCodes, code), h)
}

// notFoundCodes are the 404 codes that mean a document is missing. A
// missing index is not among them: it is a broken setup (httpwire.StatusError),
// and as a not-found a delete or a get of a vanished index would count as
// done. Meilisearch's error codes:
// https://www.meilisearch.com/docs/reference/errors/error_codes
// (meilisearch-go v0.37.0 error.go names it APIErrCodeDocumentNotFound).
var notFoundCodes = []meilisearch.APIErrCode{meilisearch.APIErrCodeDocumentNotFound}

// transportError keeps the cause's class (httpwire.TransportError): the
// client reports a canceled context as a timeout, and a client timeout as a
// communication error, so the class is read from the cause it carries.
func transportError(origin error) error {
	if origin == nil {
		return errors.New("no response")
	}
	return httpwire.TransportError(origin)
}

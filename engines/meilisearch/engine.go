package meilisearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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

// Engine is one Meilisearch index.
type Engine struct {
	client   meilisearch.ServiceManager
	fast     *httpwire.FastClient // for searches (see Search)
	prefix   string               // the URL's path, before the API's paths
	auth     string               // the Authorization header, "" without a key
	mode     engines.Visibility
	opts     options
	secrets  *quote.Scrubber // the credentials (the key, the URL's userinfo), to scrub from messages should a server echo one
	endpoint string          // the URL without credentials, for messages

	mu     sync.RWMutex // guards the index state against Create
	index  meilisearch.IndexManager
	uid    string
	search string // the index's search path
	lay    layout // what the index holds

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

// Create replaces the index and applies the settings before any write.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	lay, err := checkSchema(schema, e.opts)
	if err != nil {
		return err
	}
	uid := schema.Name
	if err := e.dropIndex(ctx, uid); err != nil {
		return err
	}
	info, err := e.client.CreateIndex(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: PrimaryKey})
	if err := e.settle(ctx, "create index "+uid, info, err); err != nil {
		return err
	}
	index := e.client.Index(uid)
	// The settings — the embedder included — are applied, and waited
	// for, before any write: a document's _vectors need its embedder.
	info, err = index.UpdateSettings(ctx, lay.settings())
	if err := e.settle(ctx, "settings of "+uid, info, err); err != nil {
		return err
	}
	e.use(index, uid, lay)
	e.checked.Store(info.TaskUID) // earlier failures (a missing index to drop) are Create's business
	return nil
}

// Attach uses the index another process created, which must hold what
// Create makes of schema: the schema's text fields as its searchable
// attributes, in order; the filterable attributes the options ask for; and,
// when they index the vector field, its userProvided embedder of the
// schema's dimension. An index made otherwise would answer some query kinds
// differently, or refuse them at the first call. (GET /indexes/{uid}/settings/…,
// 404 index_not_found when the index is not there.)
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	lay, err := layoutOf(schema, e.opts)
	if err != nil {
		return err
	}
	uid := schema.Name
	if err := checkID(uid, maxIndexUID); err != nil {
		return fmt.Errorf("meilisearch: attach: index name %w", err)
	}
	index := e.client.Index(uid)
	differs, err := differences(ctx, index, lay)
	if err != nil {
		return e.fail("attach to index "+uid, err)
	}
	if differs != "" {
		return fmt.Errorf("meilisearch: attach to index %s: %s", uid, differs)
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
	e.use(index, uid, lay)
	return nil
}

// differences says how the index's settings differ from those Create
// applies for lay ("" when they do not).
func differences(ctx context.Context, index meilisearch.IndexManager, lay layout) (string, error) {
	searchable, err := index.GetSearchableAttributes(ctx)
	if err != nil {
		return "", err
	}
	var have []string
	if searchable != nil {
		have = *searchable
	}
	if !slices.Equal(have, lay.text) {
		return fmt.Sprintf("its searchable attributes are %v, not the schema's text fields %v", have, lay.text), nil
	}
	filterable, err := index.GetFilterableAttributes(ctx)
	if err != nil {
		return "", err
	}
	// Create sets a flat list; an entry of the granular form (an object of
	// attributePatterns and features) is not one Create makes.
	var filters []string
	if filterable != nil {
		for _, f := range *filterable {
			name, ok := f.(string)
			if !ok {
				return "its filterable attributes are not a flat list of names, as searchbench sets them", nil
			}
			filters = append(filters, name)
		}
	}
	if !sameSet(filters, lay.filterable) {
		return fmt.Sprintf("its filterable attributes are %v, not %v (option fields and exact_fields)", filters, lay.filterable), nil
	}
	if !lay.embed {
		return "", nil
	}
	embedders, err := index.GetEmbedders(ctx)
	if err != nil {
		return "", err
	}
	switch em, ok := embedders[lay.vector]; {
	case !ok:
		return fmt.Sprintf("it has no embedder %q for the vector field", lay.vector), nil
	case em.Source != meilisearch.UserProvidedEmbedderSource || em.Dimensions != lay.dim:
		return fmt.Sprintf("its embedder %q is %s of %d dimensions, not userProvided of %d", lay.vector, em.Source, em.Dimensions, lay.dim), nil
	}
	return "", nil
}

// sameSet says whether a and b hold the same names, in any order.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// use makes index the one this Engine's calls go to.
func (e *Engine) use(index meilisearch.IndexManager, uid string, lay layout) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.index, e.uid, e.lay = index, uid, lay
	e.search = e.prefix + "/indexes/" + uid + "/search"
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
func (e *Engine) state() (meilisearch.IndexManager, layout, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.index == nil {
		return nil, layout{}, errNoIndex
	}
	return e.index, e.lay, nil
}

// searchPath returns the index's search path and layout, or an error
// before Create.
func (e *Engine) searchPath() (string, layout, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.index == nil {
		return "", layout{}, errNoIndex
	}
	return e.search, e.lay, nil
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
	_, lay, err := e.state()
	if err != nil {
		return err
	}
	bodies := make([]map[string]any, len(docs))
	for i, d := range docs {
		if bodies[i], err = lay.body(d); err != nil {
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

// hot makes one of the calls a run repeats (Upsert, Delete, Get) on the
// index's path plus sub, with query (encoded, "" for none): on the status
// the client would accept, read reads the answer. Another status is
// classified as the client's errors are (answerError); an answer read
// cannot read is "malformed response", as the client reports it.
func (e *Engine) hot(ctx context.Context, method, sub, query string, body []byte, want int, read func([]byte) error) error {
	e.mu.RLock()
	path := e.prefix + "/indexes/" + e.uid + sub
	e.mu.RUnlock()
	if query != "" {
		path += "?" + query
	}
	return e.call(ctx, method, path, body, func(status int, answer []byte) error {
		if status != want {
			return answerError(status, answer)
		}
		if err := read(answer); err != nil {
			return fmt.Errorf("malformed response (HTTP %d): %v", status, err)
		}
		return nil
	})
}

// call sends one request through httpwire.FastClient instead of the
// client: the request the client would send — method, path (with its
// query), the client's Content-Type (with a body; nil is none),
// Authorization and User-Agent — and hands the status and the answer to
// read while the answer's buffer is valid. A transport failure is returned
// classified (transportError). The wire tests (TestSearchWire,
// TestWritesWire) compare the bytes with the client's.
func (e *Engine) call(ctx context.Context, method, path string, body []byte, read func(status int, answer []byte) error) error {
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
	return read(resp.StatusCode(), resp.Body())
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
	_, lay, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	what := "get " + id
	// The ID goes into the path: one Meilisearch would not accept never
	// reaches the server.
	if err := checkID(id, maxDocID); err != nil {
		return engines.Document{}, fmt.Errorf("meilisearch: %s: document id %w", what, err)
	}
	// The client's GetDocument with DocumentQuery{Fields: id and the
	// text, tag and numeric fields}: the query as url.Values.Encode writes
	// it (the commas escaped).
	names := []string{PrimaryKey}
	for _, f := range lay.stored {
		names = append(names, f.Name)
	}
	query := url.Values{"fields": {strings.Join(names, ",")}}.Encode()
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
	doc, err := httpwire.DecodeDocument(body, PrimaryKey, id, lay.stored)
	if err != nil {
		return engines.Document{}, fmt.Errorf("meilisearch: %s: malformed response: %w", what, err)
	}
	return doc, nil
}

// Search runs a query of any shape the index can answer (layout.request
// says how each is sent; checkShape refuses the others with
// engines.ErrUnsupported). The free-text search over every text field,
// the mixed workload's, is written by searchBody.
//
// It sends the request the client's SearchRaw would send — the same
// SearchRequest encoded by the same encoder, with the same headers — but
// through call (httpwire.FastClient, fasthttp) instead of the client and
// net/http: the client's own work around each call (parsing the URL,
// building an error value for every call, two copies of every answer) and
// net/http were most of what a search cost the load generator
// (bench/README.md). TestSearchWire compares the bytes on the wire
// with SearchRaw's. Searches are the measured call that runs most;
// everything else goes through the client.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if q.K < 1 {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: k=%d: at least 1 (a limit of 0 is dropped by the client and the server answers 20)", q.K)
	}
	path, lay, err := e.searchPath()
	if err != nil {
		return engines.Hits{}, err
	}
	var body []byte
	if plainText(q) {
		body, err = searchBody(q.Text, q.K, e.opts.strategy)
	} else {
		// What SearchRaw sends: json.Marshal of the request (the client's
		// default marshaller). TestProductSearchWire compares the two.
		var req *meilisearch.SearchRequest
		if req, err = lay.request(q, e.opts); err == nil {
			body, err = json.Marshal(req)
		}
	}
	if err != nil {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: %w", err)
	}
	var h engines.Hits
	var malformed error
	err = e.call(ctx, http.MethodPost, path, body, func(status int, answer []byte) error {
		if status != http.StatusOK {
			return answerError(status, answer)
		}
		var err error
		if h, err = ParseSearch(answer, q.K); err != nil { // copies what it keeps
			malformed = quote.Unreadable(answer, err)
		}
		return nil
	})
	if err != nil {
		return engines.Hits{}, e.fail("search", err)
	}
	if malformed != nil {
		return engines.Hits{}, fmt.Errorf("meilisearch: search: %w", malformed)
	}
	return h, nil
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
		out[engines.StatQueueDepth] += float64(res.Total)
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

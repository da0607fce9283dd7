package amgixnow

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/valyala/fasthttp"
)

// Engine is one Amgix Now collection.
type Engine struct {
	name     string // the driver's name, for messages
	vis      engines.Visibility
	opts     options
	http     *http.Client
	fast     *httpwire.FastClient // the calls a run repeats (call)
	base     string
	endpoint string          // the URL without credentials, for messages
	key      string          // sent as "Authorization: Bearer"
	secrets  *quote.Scrubber // the credentials (the key, the URL's userinfo), to scrub from messages
	clock    *clock
	tracker  *tracker

	mu         sync.RWMutex // guards the collection against Create
	collection string
	layout     *layout

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

func (e *Engine) checkName(what, s string) error { return checkName(e.name, what, s) }

// Create replaces the collection.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	l, path, exists, err := e.lookup(ctx, schema, "create")
	if err != nil {
		return err
	}
	if exists {
		if err := e.api(ctx, http.MethodDelete, path, nil, e.answer(nil)); err != nil {
			return fmt.Errorf("%s: create %s: delete the old one: %w", e.name, schema.Name, err)
		}
	}
	body, err := encode(collectionConfig{
		Vectors:         l.vectors(e.opts.topK),
		StoreContent:    true,
		MetadataIndexes: l.metadataIndexes(),
	})
	if err == nil {
		err = e.api(ctx, http.MethodPost, path, body, e.answer(nil))
	}
	if err != nil {
		return fmt.Errorf("%s: create %s: %w", e.name, schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collection, e.layout = schema.Name, l
	e.skipped.Store(0)
	e.superseded.Store(0)
	return nil
}

// Attach uses the collection another process created. GET
// /v1/collections/{name}/exists answers {"exists": false} for one that is
// not there (collection_exists in src/main.rs); GET /v1/collections/{name}
// answers its configuration (get_collection_config), whose vectors and
// metadata indexes must be Create's, storing content, with the top_k
// option when it is set.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	l, path, exists, err := e.lookup(ctx, schema, "attach to")
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%s: attach: there is no collection %s (shard 0 creates it)", e.name, schema.Name)
	}
	var data []byte
	if err := e.api(ctx, http.MethodGet, path, nil, e.keep(&data)); err != nil {
		return fmt.Errorf("%s: attach to %s: %w", e.name, schema.Name, err)
	}
	if err := l.checkConfig(data, e.opts.topK); err != nil {
		return fmt.Errorf("%s: attach to %s: %w", e.name, schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collection, e.layout = schema.Name, l
	return nil
}

// lookup checks the schema and its collection's name, and asks whether the
// collection exists: the schema's layout, the collection's path, and the
// answer. doing names the call in errors ("create").
func (e *Engine) lookup(ctx context.Context, schema engines.Schema, doing string) (l *layout, path string, exists bool, err error) {
	if l, err = newLayout(e.name, schema, e.opts); err != nil {
		return nil, "", false, err
	}
	path = collectionPath(schema.Name)
	var data []byte
	if err := e.api(ctx, http.MethodGet, path+"/exists", nil, e.keep(&data)); err != nil {
		return nil, "", false, fmt.Errorf("%s: %s %s: exists: %w", e.name, doing, schema.Name, err)
	}
	if exists, err = ParseExists(data); err != nil {
		return nil, "", false, fmt.Errorf("%s: %s %s: %w", e.name, doing, schema.Name, err)
	}
	return l, path, exists, nil
}

func (e *Engine) state() (string, *layout, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.collection == "" {
		return "", nil, fmt.Errorf("%s: no collection: Create was not called", e.name)
	}
	return e.collection, e.layout, nil
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
	coll, l, err := e.state()
	if err != nil {
		return err
	}
	if err := e.checkName("document ID", doc.ID); err != nil {
		return err
	}
	w := e.tracker.begin(e.clock, coll, doc.ID)
	defer w.end()
	var skipped []string
	wd, err := l.wireDocument(doc, w.ts)
	var body []byte
	if err == nil {
		body, err = encode(wd)
	}
	if err == nil {
		err = e.call(ctx, http.MethodPost, collectionPath(coll)+"/documents"+e.route(), body, e.written(&skipped))
	}
	if err != nil {
		return fmt.Errorf("%s: upsert %s: %w", e.name, doc.ID, err)
	}
	return e.settle("upsert "+doc.ID, skipped, []write{w})
}

// written is a call's read for a write: the IDs a 2xx answer says Amgix
// skipped (ParseWrite) go to *skipped.
func (e *Engine) written(skipped *[]string) func(status int, answer []byte) error {
	return e.answer(func(answer []byte) (err error) {
		*skipped, err = ParseWrite(answer)
		return err
	})
}

// settle sorts the IDs a write's answer says Amgix skipped into superseded
// (fine) and stale (lost, an error).
func (e *Engine) settle(what string, skipped []string, ws []write) error {
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
	coll, l, err := e.state()
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := e.checkName("document ID", d.ID); err != nil {
			return err
		}
	}
	what := fmt.Sprintf("bulk upsert of %d from %s", len(docs), docs[0].ID)
	ws := make([]write, len(docs))
	batch := bulkRequest{make([]map[string]any, len(docs))}
	for i, d := range docs {
		ws[i] = e.tracker.begin(e.clock, coll, d.ID)
		defer ws[i].end()
		if batch.Documents[i], err = l.wireDocument(d, ws[i].ts); err != nil {
			return fmt.Errorf("%s: %s: %s: %w", e.name, what, d.ID, err)
		}
	}
	var skipped []string
	body, err := encode(batch)
	if err == nil {
		err = e.api(ctx, http.MethodPost, collectionPath(coll)+"/documents/bulk", body, e.written(&skipped))
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", e.name, what, err)
	}
	return e.settle(what, skipped, ws)
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
	var skipped []string
	if err := e.call(ctx, http.MethodDelete, path, nil, e.written(&skipped)); err != nil {
		return fmt.Errorf("%s: delete %s: %w", e.name, id, err)
	}
	return e.settle("delete "+id, skipped, []write{w})
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
	coll, l, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	if err := e.checkName("document ID", id); err != nil {
		return engines.Document{}, err
	}
	var doc engines.Document
	err = e.call(ctx, http.MethodGet, collectionPath(coll)+"/documents/"+id, nil, e.answer(func(answer []byte) (err error) {
		if doc, err = l.parseDocument(answer, id); err != nil {
			return fmt.Errorf("malformed response: %w", err)
		}
		return nil
	}))
	if err != nil {
		return engines.Document{}, fmt.Errorf("%s: get %s: %w", e.name, id, err)
	}
	return doc, nil
}

// Search runs q with limit = q.K, as plan lays it out (the package doc
// says how each shape is asked).
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	coll, l, err := e.state()
	if err != nil {
		return engines.Hits{}, err
	}
	req, err := l.plan(q)
	switch {
	case err != nil:
		return engines.Hits{}, fmt.Errorf("%s: %w", e.name, err)
	case q.K < 1:
		return engines.Hits{}, fmt.Errorf("%s: search k=%d: must be at least 1", e.name, q.K)
	case q.Vector != nil && len(q.Vector) != l.dim:
		return engines.Hits{}, fmt.Errorf("%s: search: the query vector has %d dimensions; the collection's have %d", e.name, len(q.Vector), l.dim)
	}
	var ids []string
	body, err := encode(req)
	if err == nil {
		err = e.call(ctx, http.MethodPost, collectionPath(coll)+"/search", body, e.answer(func(answer []byte) (err error) {
			if ids, err = ParseSearch(answer, q.K); err != nil {
				return quote.Unreadable(answer, err)
			}
			return nil
		}))
	}
	if err != nil {
		return engines.Hits{}, fmt.Errorf("%s: %s search %q: %w", e.name, q.Shape(), q.Text, err)
	}
	return engines.Hits{IDs: ids, Total: -1}, nil
}

// stats reads the collection's document count and queue depth.
func (e *Engine) stats(ctx context.Context) (docs, queued int64, err error) {
	coll, _, err := e.state()
	if err != nil {
		return 0, 0, err
	}
	err = e.api(ctx, http.MethodGet, collectionPath(coll)+"/stats", nil, e.answer(func(answer []byte) (err error) {
		docs, queued, err = ParseStats(answer)
		return err
	}))
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
	var v string
	err := e.api(ctx, http.MethodGet, "/v1/version", nil, e.answer(func(answer []byte) (err error) {
		v, err = ParseVersion(answer)
		return err
	}))
	if err != nil {
		return "", err
	}
	bulk := "…/documents/bulk"
	if !e.opts.bulk {
		bulk = "single writes"
	}
	return fmt.Sprintf("%s; writes via …/documents%s, bulk via %s", v, e.route(), bulk), nil
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
		m[engines.StatDocCount], m[engines.StatQueueDepth] = float64(docs), float64(queued)
	}
	return m, nil
}

// Close releases idle connections.
func (e *Engine) Close() error {
	e.http.CloseIdleConnections()
	e.fast.Close()
	return nil
}

// maxBody bounds a response read: a search answer carries every hit's stored
// fields (up to 100 hits of up to 1,000,000 characters of content each in
// the worst case; the corpus's documents are a few kilobytes).
const maxBody = 128 << 20

// call sends one of the requests a run repeats (search, upsert, delete,
// get) through httpwire.FastClient: what api sends through net/http
// (TestHotCallsWire compares the bytes), at about 40% less of the load
// generator's CPU a call (BenchmarkTransports in bench/README.md). path is
// the route and query under the server's URL; body, when not nil, is JSON.
// read sees the status and the answer, valid only during the call (answer
// is the usual read); a transport failure is returned classified
// (transportError). It never retries: a retry would hide overload and add
// to the measured time.
func (e *Engine) call(ctx context.Context, method, path string, body []byte, read func(status int, answer []byte) error) error {
	// The request-URI net/http would send for the same URL.
	u, err := url.Parse(e.base + path)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	e.fast.Prepare(req, method, u.RequestURI())
	header(req.Header.Set, body != nil, e.key)
	if body != nil {
		req.SetBodyRaw(body)
	}
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := e.fast.Do(ctx, req, resp); err != nil {
		return e.transportError(err)
	}
	if len(resp.Body()) > maxBody {
		return fmt.Errorf("response larger than %d bytes", maxBody)
	}
	return read(resp.StatusCode(), resp.Body())
}

// api is call through net/http, for the calls a run does not repeat
// (collections, bulk writes, stats, version), on a pool of its own.
func (e *Engine) api(ctx context.Context, method, path string, body []byte, read func(status int, answer []byte) error) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	header(req.Header.Set, body != nil, e.key)
	resp, err := e.http.Do(req)
	if err != nil {
		return e.transportError(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return e.transportError(err)
	}
	if len(answer) > maxBody {
		return fmt.Errorf("response larger than %d bytes", maxBody)
	}
	return read(resp.StatusCode, answer)
}

// header sets what every request carries: Content-Type when it has a
// body, Accept, and the API key, if any, as src/auth.rs accepts it ("api-key"
// or "Authorization: Bearer").
func header(set func(key, value string), hasBody bool, key string) {
	if hasBody {
		set("Content-Type", "application/json")
	}
	set("Accept", "application/json")
	if key != "" {
		set("Authorization", "Bearer "+key)
	}
}

// answer is a call's read: a 2xx answer goes to parse (nil: not read), any
// other status is an error of its class (statusError).
func (e *Engine) answer(parse func(answer []byte) error) func(status int, answer []byte) error {
	return func(status int, answer []byte) error {
		if status < 200 || status > 299 {
			return statusError(status, documentMissing(answer), e.scrub(errorDetail(answer)))
		}
		if parse == nil {
			return nil
		}
		return parse(answer)
	}
}

// keep is answer for a caller that parses the answer after the call: a
// copy of it goes to *data.
func (e *Engine) keep(data *[]byte) func(status int, answer []byte) error {
	return e.answer(func(answer []byte) error {
		*data = bytes.Clone(answer)
		return nil
	})
}

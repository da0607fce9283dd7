package typesense

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/typesense/typesense-go/v3/typesense"
	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"
	"github.com/valyala/fasthttp"
)

// Engine is one Typesense collection.
type Engine struct {
	client   *typesense.Client // single calls
	importer *typesense.Client // imports, with their own timeout
	api      *api.ClientWithResponses
	tr       *http.Transport
	fast     *httpwire.FastClient // the calls a run repeats (see call)
	server   string               // the URL the generated API builds requests on
	key      string               // sent as X-TYPESENSE-API-KEY
	secrets  *quote.Scrubber      // the credentials (the key, the URL's userinfo), to scrub from messages
	endpoint string               // the URL without credentials, for messages

	opts options

	mu     sync.RWMutex // guards the collection state against Create
	coll   string
	fields []engines.FieldSpec
	lay    layout
}

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.BulkUpserter  = (*Engine)(nil)
	_ engines.Counter       = (*Engine)(nil)
	_ engines.Versioner     = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
	_ engines.Attacher      = (*Engine)(nil)
)

// Create replaces the collection.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	lay, err := checkSchema(e.opts, schema)
	if err != nil {
		return err
	}
	if _, err := e.client.Collection(schema.Name).Delete(ctx); err != nil && statusOf(err) != http.StatusNotFound {
		return e.fail("drop "+schema.Name, err)
	}
	if _, err := e.client.Collections().Create(ctx, &api.CollectionSchema{Name: schema.Name, Fields: lay.fields}); err != nil {
		return e.fail("create "+schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.coll, e.fields, e.lay = schema.Name, slices.Clone(schema.Fields), lay
	return nil
}

// Attach uses the collection another process created. GET
// /collections/{name} answers 404 for a collection that is not there
// (get_collection_summary in Typesense's src/core_api.cpp); one that is must
// have every schema field with the type and facet Create gives it, and a
// vector field its num_dim and vec_dist. Typesense echoes a vector field's
// vec_dist ("ip" or "cosine", field::field_to_json_field in src/field.cpp at
// v29.0), so this also catches 29.0's restart: it reloads every vector
// field as cosine (CollectionManager::init_collection in
// src/collection_manager.cpp casts the key's name, "vec_dist", not its
// value; fixed after 29.0 by typesense/typesense commit 0b091b44).
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	if schema.Name == "" {
		return errors.New("typesense: schema has no name")
	}
	lay, err := newLayout(e.opts, schema)
	if err != nil {
		return err
	}
	c, err := e.client.Collection(schema.Name).Retrieve(ctx)
	if statusOf(err) == http.StatusNotFound {
		return fmt.Errorf("typesense: attach: there is no collection %s (shard 0 creates it)", schema.Name)
	}
	if err != nil {
		return e.fail("attach to "+schema.Name, err)
	}
	for _, w := range lay.fields {
		i := slices.IndexFunc(c.Fields, func(f api.Field) bool { return f.Name == w.Name })
		if i < 0 || c.Fields[i].Type != w.Type || isTrue(c.Fields[i].Facet) != isTrue(w.Facet) || dim(c.Fields[i]) != dim(w) ||
			(dim(w) > 0 && distName(c.Fields[i]) != distName(w)) {
			return fmt.Errorf("typesense: attach: collection %s has no field %s of type %s (facet %v, num_dim %d, vec_dist %s)", schema.Name, w.Name, w.Type, isTrue(w.Facet), dim(w), distName(w))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.coll, e.fields, e.lay = schema.Name, slices.Clone(schema.Fields), lay
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func dim(f api.Field) int {
	if f.NumDim == nil {
		return 0
	}
	return *f.NumDim
}

// state is the collection Create made.
type state struct {
	coll   string
	fields []engines.FieldSpec // the schema's: what a document sends
	lay    layout
}

func (e *Engine) state() (state, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.coll == "" {
		return state{}, errNoCollection
	}
	return state{e.coll, e.fields, e.lay}, nil
}

// Upsert creates or replaces a document.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	st, err := e.state()
	if err != nil {
		return err
	}
	body, err := st.documentJSON(doc)
	if err != nil {
		return err
	}
	// What Documents().Upsert(ctx, body, &api.DocumentIndexParameters{})
	// sends; it expects 201 with the stored document.
	path, err := upsertURI(e.server, st.coll)
	if err == nil {
		err = e.call(ctx, http.MethodPost, path, body, expect(http.StatusCreated, validJSON))
	}
	if err != nil {
		return e.fail("upsert "+doc.ID, err)
	}
	return nil
}

// UpsertBatch writes docs through the import endpoint with action=upsert
// and checks the result line of every document.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if len(docs) == 0 {
		return nil
	}
	st, err := e.state()
	if err != nil {
		return err
	}
	buf, ids, err := st.importBody(docs)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("upsert batch of %d", len(docs))
	rc, err := e.importer.Collection(st.coll).Documents().ImportJsonl(ctx, buf, &api.ImportDocumentsParams{Action: pointer.Any(api.Upsert)})
	if err != nil {
		return e.fail(what, err)
	}
	defer rc.Close()
	body, err := readBody(rc)
	if err != nil {
		return e.fail(what, err)
	}
	if err := ParseImport(body, ids); err != nil {
		return e.fail(what, err)
	}
	return nil
}

// Delete removes a document; a missing one is engines.ErrNotFound.
func (e *Engine) Delete(ctx context.Context, id string) error {
	st, err := e.state()
	if err != nil {
		return err
	}
	// What DeleteDocumentWithResponse sends.
	path, err := requestURI(api.NewDeleteDocumentRequest(e.server, st.coll, id))
	if err == nil {
		err = e.call(ctx, http.MethodDelete, path, nil, expect(http.StatusOK, validJSON))
	}
	if err != nil {
		return e.fail("delete "+id, err)
	}
	return nil
}

var _ engines.Getter = (*Engine)(nil)

// Get reads one document: GET /collections/{c}/documents/{id}, through the
// generated API as Delete is (one request, the answer read and closed).
// Typesense answers the stored document, every schema field with its
// type's JSON value (core_api.cpp get_fetch_document, Collection::get); a
// missing one is 404 "Could not find a document with id: …", which wraps
// engines.ErrNotFound (a missing collection's "Not Found" does not).
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	st, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	var doc engines.Document
	path, err := requestURI(api.NewGetDocumentRequest(e.server, st.coll, id))
	if err == nil {
		err = e.call(ctx, http.MethodGet, path, nil, expect(http.StatusOK, func(answer []byte) (err error) {
			doc, err = httpwire.DecodeDocument(answer, "id", id, st.fields)
			return err
		}))
	}
	if err != nil {
		return engines.Document{}, e.fail("get "+id, err)
	}
	return doc, nil
}

// Search returns the IDs of the top q.K documents: a GET
// …/documents/search, or POST /multi_search for a query with a vector.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	st, err := e.state()
	if err != nil {
		return engines.Hits{}, err
	}
	r, err := st.search(q)
	if err != nil {
		return engines.Hits{}, err
	}
	var h engines.Hits
	parse := func(answer []byte) (err error) {
		if h, err = ParseSearch(answer, q.K); err != nil {
			return quote.Unreadable(answer, err)
		}
		return nil
	}
	if r.multi != nil {
		err = e.multiSearch(ctx, *r.multi, q.K, &h)
	} else {
		var path string
		path, err = requestURI(api.NewSearchCollectionRequest(e.server, st.coll, r.get))
		if err == nil {
			err = e.call(ctx, http.MethodGet, path, nil, expect(http.StatusOK, parse))
		}
	}
	if err != nil {
		return engines.Hits{}, e.fail("search", err)
	}
	return h, nil
}

// multiSearch sends what MultiSearch.Perform(ctx, &api.MultiSearchParams{},
// searches) sends — the path and query NewMultiSearchRequest builds, the
// body it encodes — and reads the one result into h.
func (e *Engine) multiSearch(ctx context.Context, searches api.MultiSearchSearchesParameter, k int, h *engines.Hits) error {
	body, err := json.Marshal(searches)
	if err != nil {
		return err
	}
	path, err := requestURI(api.NewMultiSearchRequestWithBody(e.server, &api.MultiSearchParams{}, "application/json", nil))
	if err != nil {
		return err
	}
	return e.call(ctx, http.MethodPost, path, body, expect(http.StatusOK, func(answer []byte) (err error) {
		*h, err = ParseMultiSearch(answer, k)
		var se *StatusError
		if err != nil && !errors.As(err, &se) {
			return quote.Unreadable(answer, err)
		}
		return err
	}))
}

// Count returns num_documents of the collection.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	st, err := e.state()
	if err != nil {
		return 0, err
	}
	c, err := e.client.Collection(st.coll).Retrieve(ctx)
	if err != nil {
		return 0, e.fail("count", err)
	}
	if c.NumDocuments == nil {
		return 0, e.fail("count", errors.New("the collection has no num_documents"))
	}
	return *c.NumDocuments, nil
}

// Version asks GET /debug.
func (e *Engine) Version(ctx context.Context) (string, error) {
	r, err := e.api.DebugWithResponse(ctx)
	if err != nil {
		return "", e.fail("version", err)
	}
	if r.StatusCode() != http.StatusOK {
		return "", e.fail("version", statusError(r.StatusCode(), r.Body))
	}
	if r.JSON200 == nil || r.JSON200.Version == nil || *r.JSON200.Version == "" {
		return "", e.fail("version", errors.New("GET /debug has no version"))
	}
	return "Typesense " + *r.JSON200.Version, nil
}

// Stats reports GET /stats.json: queue_depth (pending_write_batches) and
// the server's other figures that are present.
func (e *Engine) Stats(ctx context.Context) (map[string]float64, error) {
	s, err := e.client.Stats().Retrieve(ctx)
	if err != nil {
		return nil, e.fail("stats", err)
	}
	out := map[string]float64{}
	for name, v := range map[string]*float64{
		engines.StatQueueDepth:           s.PendingWriteBatches,
		"overloaded_requests_per_second": s.OverloadedRequestsPerSecond,
		"search_requests_per_second":     s.SearchRequestsPerSecond,
		"write_requests_per_second":      s.WriteRequestsPerSecond,
		"search_latency_ms":              s.SearchLatencyMs,
		"write_latency_ms":               s.WriteLatencyMs,
		"import_latency_ms":              s.ImportLatencyMs,
		"delete_latency_ms":              s.DeleteLatencyMs,
	} {
		if v != nil {
			out[name] = *v
		}
	}
	if _, ok := out[engines.StatQueueDepth]; !ok {
		return nil, e.fail("stats", errors.New("GET /stats.json has no pending_write_batches"))
	}
	return out, nil
}

// Close releases idle connections; the collection stays.
func (e *Engine) Close() error {
	e.tr.CloseIdleConnections()
	e.fast.Close()
	return nil
}

// maxBody bounds what the driver reads of one answer: a search with
// include_fields=id or an import result is far smaller.
const maxBody = 64 << 20

func readBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("answer larger than %d bytes", maxBody)
	}
	return body, nil
}

// call sends one of the requests a run repeats (search, upsert, delete,
// get) through httpwire.FastClient instead of net/http: method and path
// (with its query) as the generated API's request constructor makes them
// (upsertURI, requestURI), the X-TYPESENSE-API-KEY header its WithAPIKey
// editor adds, and body, a JSON document, with the Content-Type the
// constructor sets (TestHotCallsWire compares the bytes with the client's).
// read sees the status and the answer, valid only during the call; a
// transport failure is returned classified (httpwire.TransportError).
func (e *Engine) call(ctx context.Context, method, path string, body []byte, read func(status int, answer []byte) error) error {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	e.fast.Prepare(req, method, path)
	req.Header.Set(api.APIKeyHeader, e.key)
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBodyRaw(body)
	}
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := e.fast.Do(ctx, req, resp); err != nil {
		return httpwire.TransportError(err)
	}
	answer := resp.Body()
	if len(answer) > maxBody {
		return fmt.Errorf("answer larger than %d bytes", maxBody)
	}
	return read(resp.StatusCode(), answer)
}

package elasticsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

// Engine is one Elasticsearch index.
type Engine struct {
	client    *client
	transport *http.Transport
	hot       *client              // the hot calls' (call), over fast
	fast      *httpwire.FastClient // hot's connections
	refresh   string               // the refresh parameter of every write: "" or "wait_for"
	writeArgs string               // the hot writes' query: "" or "?refresh=wait_for"
	opts      options
	secrets   *quote.Scrubber // the credentials, to scrub from messages should a server echo one
	endpoint  string          // the URL (it has no credentials), for messages

	mu    sync.RWMutex // guards the index state against Create
	index string
	m     *mapping
}

var (
	_ engines.Engine       = (*Engine)(nil)
	_ engines.BulkUpserter = (*Engine)(nil)
	_ engines.Refresher    = (*Engine)(nil)
	_ engines.Counter      = (*Engine)(nil)
	_ engines.Versioner    = (*Engine)(nil)
	_ engines.Getter       = (*Engine)(nil)
	_ engines.Attacher     = (*Engine)(nil)
)

// maxResponse bounds how much of a response is read: far above any answer
// of this driver's requests (a bulk response of 10,000 items is ~2 MB), so
// only a broken server reaches it.
const maxResponse = 64 << 20

// call sends one request of the calls a run repeats (search, upsert,
// delete, get) and hands its status and answer to read. It goes through
// hot, an elastictransport client whose http.RoundTripper is
// httpwire.FastClient, so it carries what the official client sends (its
// User-Agent, credentials and product check; TestHotCallsWire compares it
// with esapi's request on net/http's transport). path is the escaped path
// and query; a body goes as application/json. A transport failure comes
// back classified; every status goes to read.
func (e *Engine) call(ctx context.Context, method, path string, body []byte, read func(status int, answer []byte) error) error {
	var r io.Reader // nil, not a nil *bytes.Reader: a request without a body
	if body != nil {
		r = bytes.NewReader(body)
	}
	// The URL has no host, as esapi's requests have none: the transport
	// sets the server's.
	req, err := http.NewRequestWithContext(ctx, method, "http://"+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header["Content-Type"] = jsonContentType
	}
	res, err := e.hot.Perform(req)
	if err != nil {
		return httpwire.TransportError(err)
	}
	status, answer, err := readAnswer(res.StatusCode, res.Body)
	if err != nil {
		return err
	}
	return read(status, answer)
}

// jsonContentType is the Content-Type esapi gives a request with a body.
var jsonContentType = []string{"application/json"}

// api performs one request through the official client on net/http's
// transport (index management, bulk imports, refresh, count, version) and
// returns the status and the whole answer; a transport failure is a
// classified error. 2xx and the statuses in also return without error; any
// other status is the server's error. Every error is wrapped with what.
func (e *Engine) api(ctx context.Context, what string, req esapi.Request, also ...int) (int, []byte, error) {
	res, err := req.Do(ctx, e.client)
	if err != nil {
		return 0, nil, e.fail(what, httpwire.TransportError(err))
	}
	status, body, err := readAnswer(res.StatusCode, res.Body)
	if err != nil {
		return status, nil, e.fail(what, err)
	}
	if status/100 == 2 || slices.Contains(also, status) {
		return status, body, nil
	}
	return status, body, e.fail(what, responseError(status, body))
}

// readAnswer reads and closes an answer's body, up to maxResponse.
func readAnswer(status int, r io.ReadCloser) (int, []byte, error) {
	defer r.Close()
	body, err := io.ReadAll(io.LimitReader(r, maxResponse+1))
	if err != nil {
		return status, nil, httpwire.TransportError(err)
	}
	if len(body) > maxResponse {
		return status, nil, fmt.Errorf("response larger than %d bytes", maxResponse)
	}
	return status, body, nil
}

// only2xx reads an answer whose only good status is 2xx with parse; any
// other status is the server's error.
func only2xx(parse func(answer []byte) error) func(int, []byte) error {
	return func(status int, answer []byte) error {
		if status/100 != 2 {
			return responseError(status, answer)
		}
		return parse(answer)
	}
}

// Create replaces the index (see the package doc for its settings).
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	m, err := checkSchema(schema, e.opts)
	if err != nil {
		return err
	}
	body, err := m.createBody(e.opts.refreshInterval)
	if err != nil {
		return fmt.Errorf("elasticsearch: create %s: %w", schema.Name, err)
	}
	if err := e.dropIndex(ctx, schema.Name); err != nil {
		return err
	}
	what := "create index " + schema.Name
	_, res, err := e.api(ctx, what, esapi.IndicesCreateRequest{Index: schema.Name, Body: bytes.NewReader(body)})
	if err != nil {
		return err
	}
	if err := parseCreated(res); err != nil {
		return e.fail(what, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.index, e.m = schema.Name, m
	return nil
}

// Attach uses the index another process created: GET /{index}/_mapping
// (Elasticsearch's get mapping API) answers 404 index_not_found_exception for
// an index that is not there, and otherwise the mapping, which must map every
// schema field as Create does.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	if err := checkIndexName(schema.Name); err != nil {
		return fmt.Errorf("elasticsearch: attach: %w", err)
	}
	m, err := newMapping(schema, e.opts)
	if err != nil {
		return fmt.Errorf("elasticsearch: attach to %s: %w", schema.Name, err)
	}
	what := "attach to index " + schema.Name
	status, body, err := e.api(ctx, what, esapi.IndicesGetMappingRequest{Index: []string{schema.Name}}, http.StatusNotFound)
	if err != nil {
		return err
	}
	if status == http.StatusNotFound {
		var he *HTTPError
		if errors.As(responseError(status, body), &he) && he.Type == "index_not_found_exception" {
			return fmt.Errorf("elasticsearch: attach: there is no index %s (shard 0 creates it)", schema.Name)
		}
		return e.fail(what, responseError(status, body))
	}
	if err := m.checkMapping(schema.Name, body); err != nil {
		return e.fail(what, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.index, e.m = schema.Name, m
	return nil
}

// dropIndex deletes the index; a missing one is fine.
func (e *Engine) dropIndex(ctx context.Context, name string) error {
	what := "delete index " + name
	status, body, err := e.api(ctx, what, esapi.IndicesDeleteRequest{Index: []string{name}}, http.StatusNotFound)
	if err != nil {
		return err
	}
	if status == http.StatusNotFound {
		var he *HTTPError
		if errors.As(responseError(status, body), &he) && he.Type == "index_not_found_exception" {
			return nil
		}
		return e.fail(what, responseError(status, body))
	}
	return nil
}

// state returns the index under a read lock, or an error before Create.
func (e *Engine) state() (string, *mapping, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.m == nil {
		return "", nil, errors.New("elasticsearch: no index: Create was not called")
	}
	return e.index, e.m, nil
}

// Upsert indexes or replaces one document: PUT /{index}/_doc/{id}.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	index, m, err := e.state()
	if err != nil {
		return err
	}
	what := "upsert " + doc.ID
	id, err := docID(doc.ID)
	if err != nil {
		return fmt.Errorf("elasticsearch: %s: %w", what, err)
	}
	src, err := m.source(doc)
	if err != nil {
		return fmt.Errorf("elasticsearch: %s: %w", what, err)
	}
	err = e.call(ctx, http.MethodPut, "/"+index+"/_doc/"+id+e.writeArgs, src, only2xx(func(answer []byte) error {
		return parseWrite(answer, "created", "updated")
	}))
	return e.fail(what, err)
}

// UpsertBatch indexes or replaces many documents with one _bulk request.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if len(docs) == 0 {
		return nil
	}
	index, m, err := e.state()
	if err != nil {
		return err
	}
	what := fmt.Sprintf("bulk of %d", len(docs))
	body, ids, err := m.bulkBody(docs)
	if err != nil {
		return fmt.Errorf("elasticsearch: %s: %w", what, err)
	}
	// A header of its own per request: esapi hands it to the transport,
	// which adds to it, so a shared one would be written concurrently.
	h := http.Header{"Content-Type": {"application/x-ndjson"}}
	_, res, err := e.api(ctx, what, esapi.BulkRequest{Index: index, Body: bytes.NewReader(body), Refresh: e.refresh, Header: h})
	if err != nil {
		return err
	}
	return e.fail(what, parseBulk(res, ids))
}

// Delete removes a document; a missing one wraps engines.ErrNotFound.
func (e *Engine) Delete(ctx context.Context, id string) error {
	index, _, err := e.state()
	if err != nil {
		return err
	}
	what := "delete " + id
	pid, err := docID(id)
	if err != nil {
		return fmt.Errorf("elasticsearch: %s: %w", what, err)
	}
	err = e.call(ctx, http.MethodDelete, "/"+index+"/_doc/"+pid+e.writeArgs, nil, readDelete)
	return e.fail(what, err)
}

// readDelete reads a delete's answer. A missing document answers 404 with
// a write result; a missing index answers 404 with an error body.
func readDelete(status int, answer []byte) error {
	switch {
	case status == http.StatusNotFound && parseWrite(answer, "not_found") == nil:
		return httpwire.StatusError(status, true, errors.New("result not_found"))
	case status/100 != 2:
		return responseError(status, answer)
	}
	return parseWrite(answer, "deleted")
}

// Get fetches one document by ID: GET /{index}/_doc/{id}, real-time (see
// the package doc). A missing ID wraps engines.ErrNotFound.
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	index, m, err := e.state()
	if err != nil {
		return engines.Document{}, err
	}
	what := "get " + id
	pid, err := docID(id)
	if err != nil {
		return engines.Document{}, fmt.Errorf("elasticsearch: %s: %w", what, err)
	}
	var d engines.Document
	err = e.call(ctx, http.MethodGet, "/"+index+"/_doc/"+pid, nil, func(status int, answer []byte) error {
		if status/100 != 2 && status != http.StatusNotFound {
			return responseError(status, answer)
		}
		var perr error
		d, perr = m.parseGet(status, answer, id)
		return perr
	})
	if err != nil {
		return engines.Document{}, e.fail(what, err)
	}
	return d, nil
}

// Search runs one search (buildSearch says which request each shape is).
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if q.K < 0 {
		return engines.Hits{}, fmt.Errorf("elasticsearch: search: k=%d is negative", q.K)
	}
	index, m, err := e.state()
	if err != nil {
		return engines.Hits{}, err
	}
	if err := m.checkQuery(q); err != nil {
		return engines.Hits{}, fmt.Errorf("elasticsearch: %w", err)
	}
	body, err := m.buildSearch(q, e.opts)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("elasticsearch: search: %w", err)
	}
	var h engines.Hits
	err = e.call(ctx, http.MethodPost, "/"+index+"/_search", body, only2xx(func(answer []byte) error {
		var perr error
		if h, perr = parseSearch(answer, q.K); perr != nil {
			return quote.Unreadable(answer, perr)
		}
		return nil
	}))
	if err != nil {
		return engines.Hits{}, e.fail("search", err)
	}
	return h, nil
}

// Refresh makes every acknowledged write searchable: POST /{index}/_refresh.
func (e *Engine) Refresh(ctx context.Context) error {
	index, _, err := e.state()
	if err != nil {
		return err
	}
	_, res, err := e.api(ctx, "refresh", esapi.IndicesRefreshRequest{Index: []string{index}})
	if err != nil {
		return err
	}
	return e.fail("refresh", parseShardsOnly(res))
}

// Count returns how many documents search sees: POST /{index}/_count.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	index, _, err := e.state()
	if err != nil {
		return 0, err
	}
	_, res, err := e.api(ctx, "count", esapi.CountRequest{Index: []string{index}})
	if err != nil {
		return 0, err
	}
	n, err := parseCount(res)
	if err != nil {
		return 0, e.fail("count", err)
	}
	return n, nil
}

// Version returns "Elasticsearch " + version.number from GET /.
func (e *Engine) Version(ctx context.Context) (string, error) {
	_, res, err := e.api(ctx, "version", esapi.InfoRequest{})
	if err != nil {
		return "", err
	}
	v, err := parseInfo(res)
	if err != nil {
		return "", e.fail("version", err)
	}
	return "Elasticsearch " + v, nil
}

// Close closes the client and its idle connections; the index stays.
func (e *Engine) Close() error {
	err := e.client.Close()
	e.transport.CloseIdleConnections()
	if err2 := e.hot.Close(); err == nil {
		err = err2
	}
	e.fast.Close()
	return err
}

// fail wraps err with the operation's context; nil stays nil. A secret a
// server echoed is cut out of the message, keeping the error's class.
func (e *Engine) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("elasticsearch: %s: %w", what, e.secrets.Error(err))
}

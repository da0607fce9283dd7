package typesense

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/engines/config"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/typesense/typesense-go/v3/typesense"
	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"
	"github.com/valyala/fasthttp"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("typesense", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Typesense 29.0 (typesense-go v3): num_typos 0, typo_tokens_threshold 0, prefix false, drop_tokens_threshold default; writes searchable on return",
		Visibility: engines.Searchable,
		Getter:     true,
	}
}

// DefaultURL is where Typesense listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:8108"

// Defaults of the options.
const (
	DefaultTimeout       = 5 * time.Second
	DefaultImportTimeout = 5 * time.Minute
	DefaultPool          = 2048
)

// MaxK is the most hits Typesense returns for one search (per_page's limit).
const MaxK = 250

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout, importTimeout time.Duration
	pool                   int
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("typesense", raw)
	o := options{
		timeout:       r.Duration("timeout", DefaultTimeout),
		importTimeout: r.Duration("import_timeout", DefaultImportTimeout),
		pool:          r.Int("pool", DefaultPool, 1, maxPool),
	}
	return o, r.Err()
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker):
// Typesense is given text, tag and numeric fields, not vectors.
func (driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, _, err := checkSchema(schema)
	return err
}

// checkSchema is the collection's fields, and the text ones searched.
func checkSchema(schema engines.Schema) ([]api.Field, []string, error) {
	if schema.Name == "" {
		return nil, nil, errors.New("typesense: schema has no name")
	}
	return collectionFields(schema)
}

func check(cfg engines.Config) (options, error) {
	// A write returns once it is searchable (see the package doc).
	if _, err := engines.CheckWriteMode("typesense", cfg.WriteMode, engines.Searchable); err != nil {
		return options{}, err
	}
	// An attached server's address and key are the user's: checked before
	// anything starts. A launched container gets both from the launcher.
	if cfg.URL != "" {
		if _, err := config.ServerURL("typesense", cfg.URL, DefaultURL); err != nil {
			return options{}, err
		}
		if cfg.APIKey == "" {
			return options{}, errNoKey
		}
	}
	return parseOptions(cfg.Options)
}

var errNoKey = errors.New("typesense: an API key is needed (Typesense requires one on every call)")

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := config.ServerURL("typesense", cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	key := cfg.APIKey.Reveal()
	if key == "" {
		return nil, errNoKey
	}
	// One transport, two timeouts: single calls and imports.
	tr := httpwire.Transport(o.pool)
	server := strings.TrimRight(u.String(), "/")
	lowLevel, err := api.NewClientWithResponses(server, api.WithAPIKey(key), api.WithHTTPClient(&http.Client{Transport: tr, Timeout: o.timeout}))
	if err != nil {
		return nil, errors.New("typesense: the URL is not usable as a server address")
	}
	bulk, err := api.NewClientWithResponses(server, api.WithAPIKey(key), api.WithHTTPClient(&http.Client{Transport: tr, Timeout: o.importTimeout}))
	if err != nil {
		return nil, errors.New("typesense: the URL is not usable as a server address")
	}
	e := &Engine{
		client:   typesense.NewClient(typesense.WithAPIClient(lowLevel)),
		importer: typesense.NewClient(typesense.WithAPIClient(bulk)),
		api:      lowLevel,
		tr:       tr,
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
		server:   server,
		key:      key,
		endpoint: u.Redacted(),
	}
	// GET /debug needs the key, so a wrong key fails here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("typesense: connect to %s: %w", e.endpoint, err)
	}
	return e, nil
}

// Engine is one Typesense collection.
type Engine struct {
	client   *typesense.Client // single calls
	importer *typesense.Client // imports, with their own timeout
	api      *api.ClientWithResponses
	tr       *http.Transport
	fast     *httpwire.FastClient // the calls a run repeats (see hot)
	server   string               // the URL the generated API builds requests on
	key      string               // sent as X-TYPESENSE-API-KEY; scrubbed from messages
	endpoint string               // the URL without credentials, for messages

	mu     sync.RWMutex // guards the collection state against Create
	coll   string
	fields []engines.FieldSpec
	text   []string // text fields, in schema order: query_by
}

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.BulkUpserter  = (*Engine)(nil)
	_ engines.Counter       = (*Engine)(nil)
	_ engines.Versioner     = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
	_ engines.Attacher      = (*Engine)(nil)
)

// collectionFields maps the schema onto Typesense fields.
func collectionFields(schema engines.Schema) ([]api.Field, []string, error) {
	var fields []api.Field
	var text []string
	for _, f := range schema.Fields {
		tf := api.Field{Name: f.Name}
		switch {
		case f.Name == "id":
			return nil, nil, errors.New(`typesense: field "id" is the document ID, not a schema field`)
		case f.Type == engines.Text:
			tf.Type = "string"
			text = append(text, f.Name)
		case f.Type == engines.Tag:
			tf.Type, tf.Facet = "string", pointer.True()
		case f.Type == engines.Numeric:
			tf.Type = "float"
		default:
			return nil, nil, fmt.Errorf("typesense: field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
		fields = append(fields, tf)
	}
	if len(text) == 0 {
		return nil, nil, errors.New("typesense: schema has no text field to search")
	}
	return fields, text, nil
}

// Create replaces the collection.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	fields, text, err := checkSchema(schema)
	if err != nil {
		return err
	}
	if _, err := e.client.Collection(schema.Name).Delete(ctx); err != nil && statusOf(err) != http.StatusNotFound {
		return e.fail("drop "+schema.Name, err)
	}
	if _, err := e.client.Collections().Create(ctx, &api.CollectionSchema{Name: schema.Name, Fields: fields}); err != nil {
		return e.fail("create "+schema.Name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.coll, e.fields, e.text = schema.Name, slices.Clone(schema.Fields), text
	return nil
}

// Attach uses the collection another process created. GET
// /collections/{name} answers 404 for a collection that is not there
// (get_collection_summary in Typesense's src/core_api.cpp); one that is must
// have every schema field with the type and facet Create gives it.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	if schema.Name == "" {
		return errors.New("typesense: schema has no name")
	}
	want, text, err := collectionFields(schema)
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
	for _, w := range want {
		i := slices.IndexFunc(c.Fields, func(f api.Field) bool { return f.Name == w.Name })
		if i < 0 || c.Fields[i].Type != w.Type || isTrue(c.Fields[i].Facet) != isTrue(w.Facet) {
			return fmt.Errorf("typesense: attach: collection %s has no field %s of type %s (facet %v)", schema.Name, w.Name, w.Type, isTrue(w.Facet))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.coll, e.fields, e.text = schema.Name, slices.Clone(schema.Fields), text
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// state is the collection Create made.
type state struct {
	coll   string
	fields []engines.FieldSpec
	text   []string
}

func (e *Engine) state() (state, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.coll == "" {
		return state{}, errors.New("typesense: no collection: Create was not called")
	}
	return state{e.coll, e.fields, e.text}, nil
}

// document is the JSON object Typesense stores: the ID as a string and
// every schema field.
func (st state) document(doc engines.Document) (map[string]any, error) {
	m := make(map[string]any, len(st.fields)+1)
	m["id"] = doc.ID
	for _, f := range st.fields {
		i := slices.IndexFunc(doc.Fields, func(df engines.Field) bool { return df.Name == f.Name })
		switch {
		case f.Type == engines.Numeric && i < 0:
			return nil, fmt.Errorf("typesense: document %s has no value for numeric field %s", doc.ID, f.Name)
		case f.Type == engines.Numeric:
			m[f.Name] = doc.Fields[i].Number
		default:
			m[f.Name] = doc.Text(f.Name)
		}
	}
	return m, nil
}

// Upsert creates or replaces a document.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	st, err := e.state()
	if err != nil {
		return err
	}
	body, err := st.document(doc)
	if err != nil {
		return err
	}
	// What Documents().Upsert(ctx, body, &api.DocumentIndexParameters{})
	// sends; it expects 201 with the stored document.
	r, err := api.NewIndexDocumentRequest(e.server, st.coll, &api.IndexDocumentParams{Action: pointer.Any(api.Upsert)}, body)
	if err := e.hot(ctx, r, err, http.StatusCreated, validJSON); err != nil {
		return e.fail("upsert "+doc.ID, err)
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
	r, err := api.NewDeleteDocumentRequest(e.server, st.coll, id)
	if err := e.hot(ctx, r, err, http.StatusOK, validJSON); err != nil {
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
	r, err := api.NewGetDocumentRequest(e.server, st.coll, id)
	err = e.hot(ctx, r, err, http.StatusOK, func(body []byte) (err error) {
		doc, err = httpwire.DecodeDocument(body, "id", id, st.fields)
		return err
	})
	if err != nil {
		return engines.Document{}, e.fail("get "+id, err)
	}
	return doc, nil
}

// searchParams builds the published configuration's search for q.
func (st state) searchParams(q engines.Query) (*api.SearchCollectionParams, error) {
	switch {
	case q.Vector != nil:
		return nil, fmt.Errorf("typesense: vector search: %w", engines.ErrUnsupported)
	case q.K < 0 || q.K > MaxK:
		return nil, fmt.Errorf("typesense: k=%d: Typesense returns 0 to %d hits a search", q.K, MaxK)
	}
	queryBy := strings.Join(st.text, ",")
	if q.Field != "" {
		if !slices.Contains(st.text, q.Field) {
			return nil, fmt.Errorf("typesense: search restricted to %q, which is not a text field of the schema", q.Field)
		}
		queryBy = q.Field
	}
	p := &api.SearchCollectionParams{
		Q:                   pointer.String(q.Text),
		QueryBy:             pointer.String(queryBy),
		PerPage:             pointer.Int(q.K),
		NumTypos:            pointer.String("0"),
		TypoTokensThreshold: pointer.Int(0),
		Prefix:              pointer.String("false"),
		IncludeFields:       pointer.String("id"),
	}
	if len(q.Filters) > 0 {
		f, err := st.filterBy(q.Filters)
		if err != nil {
			return nil, err
		}
		p.FilterBy = pointer.String(f)
	}
	return p, nil
}

// filterBy renders filters in Typesense's filter_by syntax.
func (st state) filterBy(filters []engines.Filter) (string, error) {
	var clauses []string
	for _, f := range filters {
		i := slices.IndexFunc(st.fields, func(s engines.FieldSpec) bool { return s.Name == f.Field })
		if i < 0 {
			return "", fmt.Errorf("typesense: filter on %q, which is not in the schema", f.Field)
		}
		switch st.fields[i].Type {
		case engines.Tag:
			if strings.Contains(f.Tag, "`") {
				return "", fmt.Errorf("typesense: tag %q: a backtick cannot be quoted in filter_by", f.Tag)
			}
			clauses = append(clauses, fmt.Sprintf("%s:=`%s`", f.Field, f.Tag))
		case engines.Numeric:
			c, err := rangeClause(f)
			if err != nil {
				return "", err
			}
			if c != "" {
				clauses = append(clauses, c)
			}
		default:
			return "", fmt.Errorf("typesense: filter on %s field %s: %w", st.fields[i].Type, f.Field, engines.ErrUnsupported)
		}
	}
	return strings.Join(clauses, " && "), nil
}

// rangeClause is Min <= field <= Max; an infinite bound is left open, and
// two infinite bounds filter nothing ("").
func rangeClause(f engines.Filter) (string, error) {
	lo, hi := math.IsInf(f.Min, -1), math.IsInf(f.Max, 1)
	switch {
	case math.IsNaN(f.Min) || math.IsNaN(f.Max) || math.IsInf(f.Min, 1) || math.IsInf(f.Max, -1):
		return "", fmt.Errorf("typesense: filter on %s: range [%v, %v] is not a range", f.Field, f.Min, f.Max)
	case lo && hi:
		return "", nil
	case lo:
		return f.Field + ":<=" + num(f.Max), nil
	case hi:
		return f.Field + ":>=" + num(f.Min), nil
	}
	return fmt.Sprintf("%s:[%s..%s]", f.Field, num(f.Min), num(f.Max)), nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Search returns the IDs of the top q.K documents.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	st, err := e.state()
	if err != nil {
		return engines.Hits{}, err
	}
	params, err := st.searchParams(q)
	if err != nil {
		return engines.Hits{}, err
	}
	var h engines.Hits
	r, err := api.NewSearchCollectionRequest(e.server, st.coll, params)
	err = e.hot(ctx, r, err, http.StatusOK, func(body []byte) (err error) {
		if h, err = ParseSearch(body, q.K); err != nil {
			return quote.Unreadable(body, err)
		}
		return nil
	})
	if err != nil {
		return engines.Hits{}, e.fail("search", err)
	}
	return h, nil
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
		"queue_depth":                    s.PendingWriteBatches,
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
	if _, ok := out["queue_depth"]; !ok {
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

// hot makes one of the calls a run repeats (search, upsert, delete, get):
// r is the request the generated API's method builds (its New…Request
// function), with the X-TYPESENSE-API-KEY header its WithAPIKey editor
// adds, sent through httpwire.FastClient instead of net/http (the wire
// tests compare the bytes with the client's). read gets the body of an
// answer with status want, valid only during the call; another status is a
// StatusError, as call makes it.
func (e *Engine) hot(ctx context.Context, r *http.Request, err error, want int, read func(body []byte) error) error {
	if err != nil {
		return err
	}
	r.Header.Add(api.APIKeyHeader, e.key)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := e.fast.Send(ctx, r, resp); err != nil {
		return err
	}
	body := resp.Body()
	if len(body) > maxBody {
		return fmt.Errorf("answer larger than %d bytes", maxBody)
	}
	if resp.StatusCode() != want {
		return statusError(resp.StatusCode(), body)
	}
	return read(body)
}

// validJSON is what the generated API's …WithResponse methods check of a
// success they decode: that it is JSON.
func validJSON(body []byte) error {
	if !json.Valid(body) {
		return quote.Unreadable(body, errors.New("invalid JSON"))
	}
	return nil
}

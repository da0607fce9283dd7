// Package apispec checks the traffic between a driver and its wire fake
// against the engine's own published OpenAPI document, kept beside this
// file with its licence and origin (README.md): a truth nobody here wrote,
// where the fakes were written here from reading each engine's source.
//
// A Spec names one document; Load reads, checks (sha256) and parses it
// once. CheckRequest finds the operation a request is for and validates
// its path and query parameters and its body; CheckResponse validates an
// answer against that operation's response for the status. Both return
// errors that name the operation, the path and the field.
//
// Validation is github.com/getkin/kin-openapi's openapi3filter (OpenAPI 3.0
// and, with JSON Schema 2020-12, 3.1), plus two rules of our own that make a
// misnamed name fail where the documents leave it open (strict.go): a query
// parameter the operation does not declare, and a request body property an
// object schema does not declare.
package apispec

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"go.yaml.in/yaml/v3"
)

//go:embed elasticsearch/*.gz typesense/*.yml meilisearch/*.gz
var files embed.FS

// Spec is one engine's published document, as kept here (README.md says
// where each came from).
type Spec struct {
	// Engine names the engine, as the report does.
	Engine string
	// File is the document's path under this folder; ".gz" is gunzipped.
	File string
	// SHA256 is the hex sha256 of the document as published (before gzip):
	// Load refuses a copy that differs.
	SHA256 string
	// correct mends known errors of the published document before it is
	// parsed (corrections.go); nil for none.
	correct func(doc map[string]any)

	once sync.Once
	doc  *Doc
	err  error
}

// The documents kept here. Amgix Now publishes none (README.md).
var (
	// Elasticsearch is elastic/elasticsearch-specification's branch 8.19,
	// output/openapi/elasticsearch-serverless-openapi.json: the stack
	// variant of that branch is not in the stored snapshot (README.md).
	Elasticsearch = &Spec{Engine: "Elasticsearch 8.19 (serverless variant)",
		File:    "elasticsearch/elasticsearch-serverless-openapi.json.gz",
		SHA256:  "958460ae41fce0f633a8c30a73af10fb4cc59b452b7af3b7811dca6c18c6d0c5",
		correct: correctElasticsearch}
	// Typesense is typesense/typesense-api-spec's openapi.yml at the last
	// commit before it moved to v30.
	Typesense = &Spec{Engine: "Typesense 29",
		File:    "typesense/openapi.yml",
		SHA256:  "264870036d66700e95571b76cae045394e0598a1bcedca2f7ab8187b5279744d",
		correct: correctTypesense}
	// Meilisearch is meilisearch/documentation's
	// assets/open-api/meilisearch-openapi.json for Meilisearch 1.37.0.
	Meilisearch = &Spec{Engine: "Meilisearch 1.37.0",
		File:    "meilisearch/meilisearch-openapi.json.gz",
		SHA256:  "298bc0ba34376cea2687f4cfa39ab394f236a6cd30b7baddfb26d6b7367f3a11",
		correct: correctMeilisearch}
)

// Doc is a loaded document, safe for concurrent use.
type Doc struct {
	Spec   *Spec
	T      *openapi3.T
	router routers.Router
	// schemaOpts are the options a schema is visited with: JSON Schema
	// 2020-12 for an OpenAPI 3.1 document, as openapi3filter does.
	schemaOpts []openapi3.SchemaValidationOption
}

// Load reads, checks and parses the document once; later calls return the
// same Doc.
func (s *Spec) Load() (*Doc, error) {
	s.once.Do(func() { s.doc, s.err = s.load() })
	return s.doc, s.err
}

func (s *Spec) load() (*Doc, error) {
	data, err := files.ReadFile(s.File)
	if err != nil {
		return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
	}
	if strings.HasSuffix(s.File, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
		}
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != s.SHA256 {
		return nil, fmt.Errorf("apispec: %s: sha256 %x, not the published document's %s", s.File, sum, s.SHA256)
	}
	if s.correct != nil {
		var raw map[string]any
		unmarshal := json.Unmarshal
		if strings.HasSuffix(s.File, ".yml") {
			unmarshal = yaml.Unmarshal
		}
		if err := unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
		}
		s.correct(raw)
		if data, err = json.Marshal(raw); err != nil {
			return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
		}
	}
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("apispec: %s: %w", s.File, err)
	}
	// The documents' servers are the engines' example hosts
	// ({protocol}://{hostname}:{port}, https://{kibana_url}); a fake
	// listens on 127.0.0.1 on a port of its own. Routing by path alone
	// ("/" as the only server) is what a request to any host of the engine
	// would match.
	t.Servers = openapi3.Servers{{URL: "/"}}
	for _, item := range t.Paths.Map() {
		item.Servers = nil
		for _, op := range item.Operations() {
			op.Servers = nil
		}
	}
	router, err := gorillamux.NewRouter(t)
	if err != nil {
		return nil, fmt.Errorf("apispec: %s: route: %w", s.File, err)
	}
	d := &Doc{Spec: s, T: t, router: router}
	if t.IsOpenAPI31OrLater() {
		d.schemaOpts = []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()}
	}
	return d, nil
}

// Request is a request found in the document: what CheckResponse needs.
type Request struct {
	// Operation is the operation's operationId, or "METHOD /path" when it
	// has none.
	Operation string
	input     *openapi3filter.RequestValidationInput
}

func (d *Doc) options() *openapi3filter.Options {
	return &openapi3filter.Options{
		MultiError: true,
		// The fakes check credentials themselves (and the drivers' tests
		// check them against the fakes); the documents' security schemes
		// are not what is checked here.
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: d.schemaOpts,
		// A body the operation does not take is a request the engine does
		// not read: refuse it.
		RejectWhenRequestBodyNotSpecified: true,
		// Checking, not serving: the body is as sent, without the
		// document's defaults filled in.
		SkipSettingDefaults: true,
	}
}

// CheckRequest finds the operation for method and rawURL (a path with its
// query, or an absolute URL) and validates the request's parameters and
// body against it, with the strict rules of strict.go.
func (d *Doc) CheckRequest(method, rawURL string, header http.Header, body []byte) (Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Request{}, fmt.Errorf("%s %s: %w", method, rawURL, err)
	}
	r, err := http.NewRequest(method, u.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return Request{}, fmt.Errorf("%s %s: %w", method, rawURL, err)
	}
	r.Header = header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if len(body) == 0 {
		r.Body = http.NoBody
	}
	route, params, err := d.router.FindRoute(r)
	if err != nil {
		return Request{}, fmt.Errorf("%s %s: no operation in %s: %w", method, u.Path, d.Spec.Engine, err)
	}
	op := route.Operation.OperationID
	if op == "" {
		op = method + " " + route.Path
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: d.options()}
	req := Request{Operation: op, input: in}
	var errs []error
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		errs = append(errs, flatten(err)...)
	}
	errs = append(errs, d.undeclaredQuery(route, u.Query())...)
	if rb := route.Operation.RequestBody; rb != nil && rb.Value != nil && len(body) > 0 {
		errs = append(errs, d.strictBody(rb.Value, header, body)...)
	}
	if len(errs) > 0 {
		return req, &Error{Operation: op, What: fmt.Sprintf("%s %s", method, route.Path), Fields: errs}
	}
	return req, nil
}

// Error is a disagreement with the document: one error per field.
type Error struct {
	// Operation is the operation's ID; What is its method and path, or
	// "answer N" for an answer with status N.
	Operation, What string
	Fields          []error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%s): %v", e.Operation, e.What, errors.Join(e.Fields...))
}

func (e *Error) Unwrap() []error { return e.Fields }

// CheckResponse validates an answer to req against the response the
// operation describes for status. Documented reports whether the document
// describes the status (or a default) at all: an answer it does not
// describe has nothing to be checked against.
func (d *Doc) CheckResponse(req Request, status int, header http.Header, body []byte) (documented bool, err error) {
	responses := req.input.Route.Operation.Responses
	if responses.Status(status) == nil && responses.Default() == nil {
		return false, nil
	}
	h := header.Clone()
	if h.Get("Content-Type") == "" && len(body) > 0 {
		// net/http sniffs a type for an answer written without one; the
		// fakes write JSON, as the engines do.
		h.Set("Content-Type", "application/json")
	}
	in := &openapi3filter.ResponseValidationInput{RequestValidationInput: req.input, Status: status, Header: h, Options: d.options()}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return true, &Error{Operation: req.Operation, What: fmt.Sprintf("answer %d", status), Fields: flatten(err)}
	}
	return true, nil
}

// flatten splits openapi3filter's errors into one error per field, each
// naming where in the body (a JSON pointer) or which parameter.
func flatten(err error) []error {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		var out []error
		for _, e := range me {
			out = append(out, flatten(e)...)
		}
		return out
	}
	var re *openapi3filter.RequestError
	if errors.As(err, &re) {
		where := "body"
		if re.Parameter != nil {
			where = re.Parameter.In + " parameter " + re.Parameter.Name
		}
		if re.Err == nil {
			return []error{fmt.Errorf("%s: %s", where, re.Reason)}
		}
		var out []error
		for _, e := range flatten(re.Err) {
			out = append(out, fmt.Errorf("%s: %w", where, e))
		}
		return out
	}
	var rse *openapi3filter.ResponseError
	if errors.As(err, &rse) && rse.Err != nil {
		return flatten(rse.Err)
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return []error{fmt.Errorf("at /%s: %s", strings.Join(se.JSONPointer(), "/"), se.Reason)}
	}
	return []error{err}
}

// Package esfake is a wire-contract fake, not a search engine: an
// httptest server that answers the Elasticsearch 8.19 REST endpoints the
// elasticsearch driver uses, with Elasticsearch's status codes and error
// bodies, so the driver's wire contract can be tested where no
// Elasticsearch runs. It is written from Elasticsearch's documented
// behaviour; it is safe for concurrent use and importable from any
// package's tests (cmd tests attach to it with --url), and it listens on
// 127.0.0.1 only.
//
// What it answers: GET|HEAD / (version.number 8.19.6), GET
// /_cluster/health (green, yellow while a replica cannot be placed;
// wait_for_status and timeout, 408 when not reached), PUT, DELETE and HEAD
// /{index}, PUT|POST /{index}/_doc/{id} (op_type index or create), GET|HEAD
// and DELETE /{index}/_doc/{id}, POST|PUT [/{index}]/_bulk (index, create, delete),
// POST|GET /{index}/_refresh, GET|POST /{index}/_count and GET|POST
// /{index}/_search. Every response carries X-Elastic-Product:
// Elasticsearch unless Options.NoProductHeader: without it the official Go
// client refuses the server.
//
// It finds documents by their words, not by Lucene's ranking: text is
// split into words (runs of letters and digits) and passed through the
// token filters the index's analyzer names, of those the driver's analyzer
// uses (lowercase; stop with the _english_ list or a given one; the
// english stemmer, Lucene's Porter stemmer, from
// github.com/blevesearch/go-porterstemmer). match and multi_match
// (best_fields, most_fields) combine terms with OR (or AND with operator
// "and"); a document's score is how often the query's terms occur in a
// field, most_fields summing the fields, ties in index order. That is an
// order a test can predict, not BM25: ranking belongs to the live tests.
// size defaults to 10, track_total_hits to 10,000 ("gte" beyond).
//
// The product workload's mappings and queries (query.go): keyword, numeric
// and text fields with "index": false (a keyword or number still answers
// from its doc values, a text field is refused: "Cannot search on field
// … since it is not indexed"), multi-fields ("fields", queried as
// "parent.sub"), dense_vector (dims 1 to 4096, index, similarity cosine,
// index_options of type hnsw with m and ef_construction; documents of the
// wrong dimension or, for cosine, of zero magnitude are refused); bool
// (must, filter), term, range (gte, gt, lte, lt on numbers) and
// match_phrase (the analysed terms one after the other; stop words' gaps
// are not modelled) queries; the search body's knn (one, as an object or
// an array of one: field, query_vector, k, num_candidates, filter). The
// kNN is exact — the k documents of highest cosine similarity among those
// that pass every filter, scored (1 + cosine) / 2 — which is the answer
// HNSW approximates, filtered before the k are chosen as Elasticsearch's
// filtered kNN is. With a query beside it, the hits are the union of the
// query's matches and the k nearest, a document's two scores added.
//
// It is near-real-time as Elasticsearch is: a write without refresh is
// invisible to search and _count until the next refresh (POST _refresh, or
// the index's refresh_interval, default 1s; "-1" disables it);
// refresh=wait_for answers after the next refresh (or forces one beyond
// index.max_refresh_listeners, default 1000, waiting writes, answering
// forced_refresh true); refresh=true refreshes at once. An index created
// without an explicit refresh_interval stops its periodic refreshes once
// it has not been searched for index.search.idle.after (30s), and its next
// search waits for a refresh, as Elasticsearch's search-idle shards do.
// Deletes, gets and the "document exists" check of a write are real-time.
//
// It rejects what Elasticsearch rejects, with its error JSON
// ({"error":{"root_cause":[…],"type":…,"reason":…},"status":N}): malformed
// JSON and duplicate keys (x_content_parse_exception), a body on an
// endpoint that reads none, unknown keys in a search body or query
// (parsing_exception), unknown URL parameters, unknown index settings,
// invalid index names (capitals, leading _ - +, forbidden characters),
// an analyzer a field refers to that is not defined, strict mappings given a new field (strict_dynamic_mapping_exception),
// values a field cannot take (document_parsing_exception), a _bulk body
// without its final newline, a Content-Type it does not take (406), size
// beyond index.max_result_window, a missing index (404
// index_not_found_exception), missing or wrong credentials when Options
// has some (401 security_exception). Reasons follow Elasticsearch's text
// without its "[line:col]" positions.
//
// Where Elasticsearch would do something this fake does not implement
// (other analyzers, tokenizers, filters and their settings, other queries
// and field types, other vector similarities and quantised index_options,
// retrievers and rank (RRF), source filtering, dynamic mapping of new fields,
// fuzziness above 0, more than one shard, index auto-creation on a write,
// other APIs), it answers 400 with a reason that starts "esfake:", rather
// than a wrong answer.
//
// Hooks for tests (hooks.go): Inject faults (fakekit.Fault: 429
// es_rejected_execution_exception, 503 unavailable_shards_exception, any
// status with Code as the error's type and Message as its reason; Hang,
// Drop, Delay, Raw), RejectBulkItems (per-item 429s inside a 200 _bulk
// answer), Requests and LastRequest to see what a client sent (kept by
// fakekit.Requests), Waiting, Visible and Settings to see an index's state.
package esfake

import (
	"cmp"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Version is the Elasticsearch version the fake answers as.
const Version = "8.19.6"

// Options configure a Server.
type Options struct {
	// Username and Password, when set, are the only basic-auth credentials
	// accepted; APIKey, when set, is accepted as "Authorization: ApiKey
	// <APIKey>" (the scheme in any case, as Elasticsearch reads it). With
	// none set, no authentication is asked for (xpack.security.enabled
	// false).
	Username, Password, APIKey string
	// NoProductHeader leaves out X-Elastic-Product: Elasticsearch, as a
	// server that is not Elasticsearch (or a proxy dropping headers) would.
	NoProductHeader bool
	// SearchIdleAfter is index.search.idle.after for indices that do not
	// set it; 0 means Elasticsearch's 30s. Tests shorten it to see an
	// index without an explicit refresh_interval stop refreshing.
	SearchIdleAfter time.Duration
}

// Server is a running fake.
type Server struct {
	opts Options
	http *httptest.Server

	faults fakekit.Faults
	reqs   fakekit.Requests // under "METHOD /path"

	mu      sync.Mutex
	indices map[string]*index
	bulkRej int // bulk items still to reject with 429
	closed  bool
}

// New starts a Server on 127.0.0.1.
func New(opts Options) *Server {
	s := &Server{opts: opts, indices: map[string]*index{}}
	s.http = httptest.NewServer(fakekit.Observe("esfake", s))
	return s
}

// URL is the server's base URL, http://127.0.0.1:port.
func (s *Server) URL() string { return s.http.URL }

// Close frees held requests, stops the indices' refresh timers and shuts the
// server down.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.faults.Close()
	for _, ix := range s.indices {
		ix.close()
	}
	s.mu.Unlock()
	s.http.Close()
}

// maxContentLength is http.max_content_length's default, 100mb.
const maxContentLength = 100 << 20

// request is one parsed request.
type request struct {
	*http.Request
	segs  []string // path segments, unescaped
	body  []byte
	start time.Time
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := s.serve(w, r); e != nil {
		e.write(w)
	}
}

// serve answers r, or returns the error to answer with.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) *esError {
	if !s.opts.NoProductHeader {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxContentLength+1))
	if err != nil {
		return nil // the client went away
	}
	s.reqs.Add(r.Method+" "+r.URL.Path, r, body)
	if len(body) > maxContentLength {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		return nil
	}
	if err := s.authenticate(r); err != nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="security", charset="UTF-8"`)
		w.Header().Add("WWW-Authenticate", "ApiKey")
		return err
	}
	if s.faults.Serve(w, r, faultError) {
		return nil
	}
	req := &request{Request: r, body: body, start: time.Now()}
	for _, seg := range strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/") {
		if seg == "" {
			continue
		}
		u, err := url.PathUnescape(seg)
		if err != nil {
			return badRequest("illegal_argument_exception", "unable to decode path segment [%s]", seg)
		}
		req.segs = append(req.segs, u)
	}
	if len(body) > 0 {
		if e := checkContentType(r.Header.Get("Content-Type")); e != nil {
			return e
		}
	}
	return s.route(w, req)
}

// contentTypes are the media types Elasticsearch reads as JSON (the
// vnd.elasticsearch forms are what the client's compatibility mode sends).
var contentTypes = []string{
	"application/json", "application/x-ndjson",
	"application/vnd.elasticsearch+json", "application/vnd.elasticsearch+x-ndjson",
}

func checkContentType(ct string) *esError {
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || !slices.Contains(contentTypes, mt) {
		return &esError{status: http.StatusNotAcceptable, plain: fmt.Sprintf("Content-Type header [%s] is not supported", ct)}
	}
	return nil
}

// authenticate checks the request's credentials when Options has some.
func (s *Server) authenticate(r *http.Request) *esError {
	o := s.opts
	if o.Username == "" && o.Password == "" && o.APIKey == "" {
		return nil
	}
	h := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(h, " ")
	switch {
	case h == "":
		return unauthorized("missing authentication credentials for REST request [%s]", r.URL.RequestURI())
	case strings.EqualFold(scheme, "basic") && (o.Username != "" || o.Password != ""):
		raw, err := base64.StdEncoding.DecodeString(cred)
		user, pass, _ := strings.Cut(string(raw), ":")
		if err == nil && equal(user, o.Username) && equal(pass, o.Password) {
			return nil
		}
		return unauthorized("unable to authenticate user [%s] for REST request [%s]", user, r.URL.RequestURI())
	case strings.EqualFold(scheme, "apikey") && o.APIKey != "":
		if equal(cred, o.APIKey) {
			return nil
		}
	}
	return unauthorized("unable to authenticate with provided credentials and anonymous access is not allowed for this request")
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// route dispatches by path shape and method. Another Elasticsearch API
// (a path segment starting with _) is refused as not implemented; an
// unknown path is Elasticsearch's 400 "no handler found"; a known path
// with another method is its 405.
func (s *Server) route(w http.ResponseWriter, r *request) *esError {
	segs, m := r.segs, r.Method
	var h handler
	var allowed []string
	switch {
	case len(segs) == 0:
		h, allowed = pick(m, map[string]handler{get: s.info, head: s.info})
	case len(segs) == 1 && segs[0] == "_bulk":
		h, allowed = pick(m, map[string]handler{post: s.bulk, put: s.bulk})
	case len(segs) == 2 && segs[0] == "_cluster" && segs[1] == "health":
		h, allowed = pick(m, map[string]handler{get: s.health})
	case strings.HasPrefix(segs[0], "_"):
		h = refuse("API [%s]", r.URL.Path)
	default:
		h, allowed = s.routeIndex(r)
	}
	switch {
	case h != nil:
		return h(w, r)
	case allowed != nil:
		return &esError{status: http.StatusMethodNotAllowed, plain: fmt.Sprintf(
			"Incorrect HTTP method for uri [%s] and method [%s], allowed: [%s]", r.URL.RequestURI(), m, strings.Join(allowed, ", "))}
	}
	return badRequest("", "no handler found for uri [%s] and method [%s]", r.URL.RequestURI(), m)
}

// handler answers one route, or returns the error to answer with.
type handler func(http.ResponseWriter, *request) *esError

const get, put, post, del, head = "GET", "PUT", "POST", "DELETE", "HEAD"

// pick is the handler of method among a route's, or else the methods the
// route takes (Elasticsearch lists them in a HashSet's order; this fake's
// is fixed).
func pick(method string, hs map[string]handler) (handler, []string) {
	if h := hs[method]; h != nil {
		return h, nil
	}
	var allowed []string
	for _, m := range []string{get, put, post, del, head} {
		if hs[m] != nil {
			allowed = append(allowed, m)
		}
	}
	return nil, allowed
}

// refuse is a route this fake does not implement.
func refuse(format string, args ...any) handler {
	return func(http.ResponseWriter, *request) *esError { return notImplemented(format, args...) }
}

// routeIndex dispatches the paths under /{index}.
func (s *Server) routeIndex(r *request) (handler, []string) {
	segs, m := r.segs, r.Method
	switch {
	case len(segs) == 1:
		return pick(m, map[string]handler{put: s.createIndex, del: s.deleteIndex, head: s.indexExists, get: refuse("GET index")})
	case len(segs) == 2 && segs[1] == "_bulk":
		return pick(m, map[string]handler{post: s.bulk, put: s.bulk})
	case len(segs) == 2 && segs[1] == "_refresh":
		return pick(m, map[string]handler{post: s.refresh, get: s.refresh})
	case len(segs) == 2 && segs[1] == "_count":
		return pick(m, map[string]handler{get: s.countDocs, post: s.countDocs})
	case len(segs) == 2 && segs[1] == "_search":
		return pick(m, map[string]handler{get: s.search, post: s.search})
	case len(segs) == 2 && segs[1] == "_doc" && m == post:
		return refuse("auto-generated document ids"), nil
	case len(segs) == 3 && segs[1] == "_doc":
		return pick(m, map[string]handler{put: s.indexDoc, post: s.indexDoc, del: s.deleteDoc, get: s.getDoc, head: s.getDoc})
	case len(segs) == 2 && segs[1] == "_mapping" && m == get:
		return s.getMapping, nil
	case strings.HasPrefix(segs[1], "_"):
		return refuse("API [%s]", r.URL.Path), nil
	}
	return nil, nil
}

// info is GET /.
func (s *Server) info(w http.ResponseWriter, r *request) *esError {
	if e := cmp.Or(r.params(), r.noBody()); e != nil {
		return e
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return ok(w, http.StatusOK, map[string]any{
		"name":         "esfake",
		"cluster_name": "esfake",
		"cluster_uuid": "esfake-cluster-uuid",
		"version": map[string]any{
			"number":       Version,
			"build_flavor": "default",
			// Elasticsearch always sends these (the info answer's
			// required fields in the published OpenAPI document); the
			// fake is no build, so its hash and date say so.
			// lucene_version 9.12.2 is the Lucene of the 8.19 line as
			// known here, not checked against 8.19.6's
			// build-tools-internal/version.properties (the stored
			// snapshot of elastic/elasticsearch has only main's); no
			// driver reads it.
			"build_hash":                          "esfake",
			"build_date":                          "1970-01-01T00:00:00Z",
			"lucene_version":                      "9.12.2",
			"build_type":                          "docker",
			"build_snapshot":                      false,
			"minimum_wire_compatibility_version":  "7.17.0",
			"minimum_index_compatibility_version": "7.0.0",
		},
		"tagline": "You Know, for Search",
	})
}

// lookup returns the named index, or 404 index_not_found_exception.
func (s *Server) lookup(name string) (*index, *esError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix := s.indices[name]; ix != nil {
		return ix, nil
	}
	return nil, indexNotFound(name)
}

// ok writes a handler's answer.
func ok(w http.ResponseWriter, status int, v any) *esError {
	writeJSON(w, status, v)
	return nil
}

// commonParams are accepted by every endpoint (they change only formatting).
var commonParams = []string{"pretty", "human", "error_trace"}

// unmodelledParams are URL parameters Elasticsearch's endpoints take that
// this fake does not model.
var unmodelledURLParams = []string{"routing", "preference", "pipeline", "version", "version_type", "if_seq_no",
	"if_primary_term", "require_alias", "require_data_stream", "_source", "_source_includes", "_source_excludes",
	"stored_fields", "q", "df", "analyzer", "default_operator", "lenient", "sort", "search_type", "scroll",
	"request_cache", "allow_no_indices", "ignore_unavailable", "expand_wildcards", "ignore_throttled",
	"typed_keys", "rest_total_hits_as_int", "filter_path", "batched_reduce_size", "max_concurrent_shard_requests",
	"pre_filter_shard_size", "ccs_minimize_roundtrips", "allow_partial_search_results", "terminate_after",
	"explain", "seq_no_primary_term", "track_scores", "stats", "suggest_field", "docvalue_fields", "min_score",
	"analyze_wildcard", "include_source_on_error", "list_executed_pipelines", "flat_settings", "include_defaults"}

// params checks the URL parameters against what the endpoint takes, as
// Elasticsearch does ("contains unrecognized parameter").
func (r *request) params(names ...string) *esError {
	for _, k := range sortedKeys(r.URL.Query()) {
		switch {
		case slices.Contains(commonParams, k), slices.Contains(names, k):
		case slices.Contains(unmodelledURLParams, k):
			return notImplemented("URL parameter [%s]", k)
		default:
			return badRequest("illegal_argument_exception", "request [%s] contains unrecognized parameter: [%s]", r.URL.Path, k)
		}
	}
	return nil
}

// jsonBody decodes the request's JSON object; no body is an empty one.
func (r *request) jsonBody() (map[string]any, *esError) {
	if len(r.body) == 0 {
		return map[string]any{}, nil
	}
	m, err := decodeObject(r.body)
	if err != nil {
		return nil, malformed(err)
	}
	return m, nil
}

// noBody refuses a body on an endpoint that reads none, as
// Elasticsearch's RestController does.
func (r *request) noBody() *esError {
	if len(r.body) > 0 {
		return badRequest("illegal_argument_exception", "request [%s %s] does not support having a body", r.Method, r.URL.Path)
	}
	return nil
}

// took is the request's elapsed milliseconds, as responses report it.
func (r *request) took() int64 { return time.Since(r.start).Milliseconds() }

func writeJSON(w http.ResponseWriter, status int, v any) { fakekit.WriteJSON(w, status, v) }

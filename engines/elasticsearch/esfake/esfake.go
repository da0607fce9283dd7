// Package esfake is a wire-contract fake, not a search engine: an
// httptest server that answers the Elasticsearch 8.19 REST requests the
// elasticsearch driver sends, with Elasticsearch's status codes and error
// bodies, so the driver's wire contract can be tested where no
// Elasticsearch runs. It is safe for concurrent use, importable from any
// package's tests (cmd tests attach to it with --url), and listens on
// 127.0.0.1 only.
//
// What it answers: GET / (version.number 8.19.6), PUT and DELETE /{index},
// GET /{index}/_mapping, PUT /{index}/_doc/{id}, GET and DELETE
// /{index}/_doc/{id}, POST /{index}/_bulk (index actions), POST
// /{index}/_refresh, GET|POST /{index}/_count and POST /{index}/_search.
// Every response carries X-Elastic-Product: Elasticsearch unless
// Options.NoProductHeader: without it the official Go client refuses the
// server.
//
// It models the driver's index (settings, analysis and mappings as
// elasticsearch.createBody writes them, under every option) and finds
// documents by their words, not by Lucene's ranking: text is split into
// runs of letters and digits and passed through the analyzer's filters
// (lowercase, the _english_ stop list, the english stemmer: Lucene's Porter
// stemmer, from github.com/blevesearch/go-porterstemmer). multi_match
// most_fields scores a document by how often the query's terms occur in
// its fields, ties in index order: an order a test can predict, not BM25.
// bool (must, filter), term, range (gte, lte) and match_phrase match as
// Elasticsearch documents them; the search body's knn is exact — the k
// documents of highest score by the field's similarity among those that
// pass every filter, scored as Elasticsearch scores cosine ((1 + cosine) /
// 2), dot_product, l2_norm (1 / (1 + l2²)) and max_inner_product (dot + 1,
// or 1 / (1 − dot) below 0) (similarity.go) — which is the answer HNSW
// approximates; beside a query, a document's two scores are added.
//
// It is near-real-time as Elasticsearch is: a write without refresh is
// invisible to search and _count until the next refresh (POST _refresh, or
// the index's refresh_interval; "-1" disables it); refresh=wait_for answers
// after the next refresh (or forces one beyond 1000 waiting writes,
// index.max_refresh_listeners' default, answering forced_refresh true);
// refresh=true refreshes at once. An index created without an explicit
// refresh_interval stops its periodic refreshes once it has not been
// searched for index.search.idle.after (30s), as Elasticsearch's
// search-idle shards do. Deletes and gets are real-time.
//
// It rejects what Elasticsearch rejects of what the driver can send, with
// its error JSON ({"error":{"root_cause":[…],"type":…,"reason":…},"status":N}):
// a body that is not JSON, a field the strict mapping lacks, an unknown
// similarity, a document's vector of the wrong dimension or of a magnitude
// its similarity refuses (zero under cosine, not unit under dot_product),
// an analyzer a field names that the settings do not define, size beyond
// index.max_result_window, a query vector of the wrong dimension or of
// such a magnitude, a
// missing index (404), a Content-Type it does not take (406), missing or
// wrong credentials when Options has some (401). Anything else — other
// APIs, parameters, settings, field types, queries, fuzziness above 0 — is
// refused with 400 and a reason that starts "esfake:", rather than
// answered wrongly.
//
// Hooks for tests (hooks.go): Inject faults (fakekit.Fault: 429
// es_rejected_execution_exception, 503 unavailable_shards_exception, any
// status with Code as the error's type and Message as its reason; Hang,
// Drop, Delay, Raw), RejectBulkItems (per-item 429s inside a 200 _bulk
// answer), Requests and LastRequest to see what a client sent, Waiting,
// Visible and Settings to see an index's state.
package esfake

import (
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
	// SearchIdleAfter is index.search.idle.after; 0 means Elasticsearch's
	// 30s. Tests shorten it to see an index without an explicit
	// refresh_interval stop refreshing.
	SearchIdleAfter time.Duration
}

// Server is a running fake.
type Server struct {
	opts Options
	http *httptest.Server

	faults fakekit.Faults
	reqs   fakekit.Requests // under "METHOD /path"
	knob   fakekit.Knob     // the last knn num_candidates

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
		if u, err := url.PathUnescape(seg); err == nil && u != "" {
			req.segs = append(req.segs, u)
		}
	}
	if ct := r.Header.Get("Content-Type"); len(body) > 0 {
		// The vnd.elasticsearch forms are what the client's compatibility
		// mode sends.
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !slices.Contains([]string{"application/json", "application/x-ndjson",
			"application/vnd.elasticsearch+json", "application/vnd.elasticsearch+x-ndjson"}, mt) {
			return &esError{status: http.StatusNotAcceptable, plain: fmt.Sprintf("Content-Type header [%s] is not supported", ct)}
		}
	}
	h, params := s.route(req)
	if h == nil {
		return notImplemented("%s %s", r.Method, r.URL.Path)
	}
	for k, v := range r.URL.Query() {
		if !slices.Contains(params, k) || (k == "refresh" && !slices.Contains([]string{"", "true", "false", "wait_for"}, v[0])) {
			return notImplemented("URL parameter [%s=%s]", k, v[0])
		}
	}
	return h(w, req)
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

// handler answers one route, or returns the error to answer with.
type handler func(http.ResponseWriter, *request) *esError

// route is the request's handler and the URL parameters it takes (besides
// pretty, human and error_trace, which change only formatting); nil for a
// request the driver does not send.
func (s *Server) route(r *request) (handler, []string) {
	common := []string{"pretty", "human", "error_trace"}
	writes := append(common, "refresh")
	var key string
	switch n := len(r.segs); {
	case n == 0:
		key = "/"
	case n == 1:
		key = "/{index}"
	case (n == 2 && r.segs[1] != "_doc") || (n == 3 && r.segs[1] == "_doc"):
		key = "/{index}/" + r.segs[1]
	}
	switch r.Method + " " + key {
	case "GET /":
		return s.info, common
	case "PUT /{index}":
		return s.createIndex, common
	case "DELETE /{index}":
		return s.deleteIndex, common
	case "GET /{index}/_mapping":
		return s.getMapping, common
	case "PUT /{index}/_doc", "POST /{index}/_doc":
		return s.indexDoc, writes
	case "DELETE /{index}/_doc":
		return s.deleteDoc, writes
	case "GET /{index}/_doc":
		return s.getDoc, common
	case "POST /{index}/_bulk", "PUT /{index}/_bulk":
		return s.bulk, writes
	case "POST /{index}/_refresh", "GET /{index}/_refresh":
		return s.refresh, common
	case "POST /{index}/_count", "GET /{index}/_count":
		return s.countDocs, common
	case "POST /{index}/_search", "GET /{index}/_search":
		return s.search, common
	}
	return nil, nil
}

// info is GET /.
func (s *Server) info(w http.ResponseWriter, r *request) *esError {
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
			// build-tools-internal/version.properties; no driver reads it.
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
	fakekit.WriteJSON(w, status, v)
	return nil
}

// jsonBody decodes the request's JSON object; no body is an empty one.
func (r *request) jsonBody() (map[string]any, *esError) {
	if len(r.body) == 0 {
		return map[string]any{}, nil
	}
	return decodeObject(r.body, malformed)
}

// took is the request's elapsed milliseconds, as responses report it.
func (r *request) took() int64 { return time.Since(r.start).Milliseconds() }

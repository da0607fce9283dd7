// Package typesensefake is a wire-contract fake of Typesense 29.0's HTTP API,
// not a search engine. It speaks the routes the searchbench driver uses, with
// Typesense's status codes and its error body ({"message": "..."}), so the
// driver's requests and its handling of answers can be tested without a
// server. It is written from Typesense's documentation and server source
// (core_api.cpp, collection_manager.cpp, collection.cpp, http_data.h).
//
// Routes: GET /health (no key needed), GET /debug, GET /stats.json,
// POST /collections,
// GET and DELETE /collections/{c}, POST /collections/{c}/documents
// (action create or upsert), POST /collections/{c}/documents/import (JSONL
// in, one JSON result a line out), GET and DELETE
// /collections/{c}/documents/{id}, GET /collections/{c}/documents/search,
// POST /multi_search (each search in the body's "searches", over the
// query string's parameters; 200 with one result a search, a failed one
// {"code": status, "error": message}, as core_api.cpp post_multi_search).
// Any other route, and any known Typesense parameter that would change the
// answer but is not modelled (sort_by, facet_by, infix, ...),
// is answered 501 {"message": "typesensefake: ... not modelled"}, never
// silently ignored. Parameters Typesense does not know are ignored, as
// Typesense ignores them.
//
// It rejects what Typesense rejects, as Typesense answers:
//   - a missing or wrong X-TYPESENSE-API-KEY header (or x-typesense-api-key
//     query parameter) on every route but /health: 401 "Forbidden - a valid
//     `x-typesense-api-key` header must be sent.";
//   - an unknown collection: 404 "Not Found" (search: "Not found.");
//   - a collection that exists already: 409;
//   - a document whose "id" is not a string: 400 "Document's `id` field
//     should be a string.";
//   - a document missing a declared non-optional field: 400 "Field `f` has
//     been declared in the schema, but is not found in the document.";
//   - a value that cannot be coerced to its field's type (Typesense's
//     default dirty_values=coerce_or_reject: numbers become strings for a
//     string field, numeric strings become numbers for a numeric one);
//   - a search without q (400), without query_by (400 "No search fields
//     specified for the query."), with a query_by field not in the schema
//     (404 "Could not find a field named `f` in the schema."), or with
//     per_page over 250 (422 "Only upto 250 hits can be fetched per page.");
//   - a missing document on delete: 404 "Could not find a document with id: X";
//   - a float[] value that is not an array of numbers of the field's
//     num_dim: 400 "Field `f` must have N dimensions." (validator.cpp);
//   - a vector_query on a field that is not a vector: 400 "Field `f` does
//     not have a vector query index.", a vector of another dimension: 400
//     "Query field `f` must have N dimensions." (collection.cpp), one that
//     does not parse: 400 "Malformed vector query string…".
//
// Vectors: a float[] field needs num_dim here; its vec_dist is cosine (the
// default) or ip, anything else 400 "Property `vec_dist` is invalid."
// (src/field.cpp); hnsw_params is answered 501. vector_query
// "f:([v…], k:N, alpha:A)" ranks the documents that pass filter_by (a
// pre-filter, as Typesense hands the filter to its HNSW search) by the
// field's distance — cosine |1 − cos|, ip 1 − dot, as hnswlib's inner
// product space gives them — exactly, k of them (without k, a page's
// worth); with q "*" that
// is the answer, with words it is fused with the keyword ranking by rank:
// (1-alpha)/(keyword rank) + alpha/(vector rank), ranks from 1, alpha 0.3
// by default (Index::search, vector_query_ops.h). Not modelled: the
// approximation of HNSW, ef, flat_search_cutoff, distance_threshold, the
// keyword ranks Typesense shares between equal text scores.
//
// Matching: text is split on whitespace; other characters that are not
// letters or digits are removed (Typesense's default tokenizer without
// token_separators or symbols_to_index), and tokens are lowercased. Every
// query token must be a token of some query_by field (tokens may be spread
// across fields, as since Typesense 0.24), exactly: typo tolerance and
// prefix matching are not modelled, so num_typos and prefix are checked as
// Typesense checks them (one value, or one per query_by field) but words
// match as with num_typos=0 and prefix=false, which the driver sends. When
// fewer than drop_tokens_threshold (default 1) documents match every token,
// tokens are dropped from the right (drop_tokens_mode right_to_left, the
// default) one at a time, down to one, and the extra matches are ranked
// after the earlier ones — the driver leaves that default on. Within a
// round: documents whose earliest query_by field holds every token first,
// then the newest document first. Not modelled: Typesense's text_match
// score, split_join_tokens, dropping from the left once the right is
// exhausted, stemming, stop words, synonyms.
// Filters (filter_by) are modelled for "f:=value", "f:=`value`",
// "f:[a..b]", "f:>=a", "f:<=b" joined by "&&".
//
// Writes are applied before the response, so a search after a write
// returned sees it (what the driver claims for Typesense; see its package doc).
//
// Test hooks (Inject/ClearFaults, Calls, LastQuery, Document) let fault
// tests drive overload, hangs and dropped connections and check what
// reached the server. A Server is safe for concurrent use and listens on
// 127.0.0.1 only.
package typesensefake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Version is what GET /debug reports.
const Version = "29.0"

// APIKeyHeader is the header Typesense reads the key from.
const APIKeyHeader = "X-TYPESENSE-API-KEY"

// Server is the fake. Its URL is the base URL to give the driver.
type Server struct {
	URL string

	hs  *httptest.Server
	key string

	faults   fakekit.Faults
	requests fakekit.Requests // by route pattern
	knob     fakekit.Knob     // the last vector_query ef

	mu          sync.RWMutex
	collections map[string]*collection
}

// New starts a fake that requires apiKey on every route but /health.
func New(apiKey string) *Server {
	s := &Server{key: apiKey, collections: map[string]*collection{}}
	// A fault without a path spares /health, which a client polls before
	// it starts.
	s.faults.Spare = []string{"/health"}
	s.hs = httptest.NewServer(fakekit.Observe("typesensefake", s.routes()))
	s.URL = s.hs.URL
	return s
}

// Close lets hung requests go on and stops the server.
func (s *Server) Close() {
	s.faults.Close()
	s.hs.Close()
}

// handler answers one modelled endpoint, given the request's body.
type handler func(r *http.Request, body []byte) reply

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for pattern, h := range map[string]handler{
		"GET /health":                            answer(map[string]bool{"ok": true}),
		"GET /debug":                             answer(map[string]any{"state": 1, "version": Version}),
		"GET /stats.json":                        s.stats,
		"POST /collections":                      s.createCollection,
		"GET /collections/{c}":                   s.getCollection,
		"DELETE /collections/{c}":                s.dropCollection,
		"POST /collections/{c}/documents":        s.addDocument,
		"POST /collections/{c}/documents/import": s.importDocuments,
		"GET /collections/{c}/documents/search":  s.search,
		"POST /multi_search":                     s.multiSearch,
		"GET /collections/{c}/documents/{id}":    s.getDocument,
		"DELETE /collections/{c}/documents/{id}": s.deleteDocument,
		"/":                                      notModelled,
	} {
		mux.HandleFunc(pattern, s.serve(pattern, h))
	}
	return mux
}

// serve records the request, applies faults and the key check (every
// route but /health needs the key), then the handler.
func (s *Server) serve(pattern string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the client went away
		}
		s.requests.Add(pattern, r, body)
		if s.faults.Serve(w, r, faultBody) {
			return
		}
		if pattern != "GET /health" && !s.authorized(r) {
			writeReply(w, errorf(http.StatusUnauthorized, "Forbidden - a valid `x-typesense-api-key` header must be sent."))
			return
		}
		writeReply(w, h(r, body))
	}
}

func (s *Server) authorized(r *http.Request) bool {
	got := cmp.Or(r.Header.Get(APIKeyHeader), r.URL.Query().Get("x-typesense-api-key"))
	return got != "" && got == s.key
}

// reply is a handler's answer: a status and a body that is JSON (or, for
// import, JSON lines).
type reply struct {
	status  int
	body    []byte
	ctype   string // "" for JSON; import's results are text/plain, as Typesense labels them
	message string // an error's, which multi_search answers in its own shape
}

func jsonReply(status int, v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		return errorf(http.StatusInternalServerError, "typesensefake: encode: %v", err)
	}
	return reply{status: status, body: b}
}

// errorf is Typesense's error body: {"message": "..."}.
func errorf(status int, format string, args ...any) reply {
	msg := fmt.Sprintf(format, args...)
	rep := jsonReply(status, map[string]string{"message": msg})
	rep.message = msg
	return rep
}

func writeReply(w http.ResponseWriter, rep reply) {
	w.Header().Set("Content-Type", cmp.Or(rep.ctype, "application/json; charset=utf-8"))
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
}

func notModelled(r *http.Request, _ []byte) reply {
	return errorf(http.StatusNotImplemented, "typesensefake: %s %s is not modelled", r.Method, r.URL.Path)
}

// answer is a route that always gives the same answer.
func answer(v any) handler {
	return func(*http.Request, []byte) reply { return jsonReply(http.StatusOK, v) }
}

// stats is GET /stats.json in Typesense's shape (core_api.cpp
// get_stats_json: AppMetrics' rates and latencies plus
// pending_write_batches). The fake applies every write before it answers,
// so no write batch is ever pending, and it keeps no rolling rates.
func (s *Server) stats(*http.Request, []byte) reply {
	return jsonReply(http.StatusOK, map[string]any{
		"delete_latency_ms": 0, "delete_requests_per_second": 0, "import_latency_ms": 0,
		"import_requests_per_second": 0, "latency_ms": map[string]float64{}, "overloaded_requests_per_second": 0,
		"pending_write_batches": 0, "requests_per_second": map[string]float64{}, "search_latency_ms": 0,
		"search_requests_per_second": 0, "total_requests_per_second": 0, "write_latency_ms": 0,
		"write_requests_per_second": 0,
	})
}

// Package meilifake is a wire-contract fake of Meilisearch 1.37's REST API,
// not a search engine: it exists to test the searchbench driver, and speaks
// the routes that driver uses with Meilisearch's status codes and error
// bodies ({message, code, type, link}). It is written from Meilisearch's
// source (meilisearch/meilisearch v1.37: meilisearch-types error.rs for the
// codes, routes/ for the routes and their parameters) and rejects what
// Meilisearch rejects of those requests: a missing or wrong API key (401
// missing_authorization_header, 403 invalid_api_key), unknown fields (400
// bad_request, or the field's invalid_search_* / invalid_settings_* code),
// values of the wrong type, a missing Content-Type (415), malformed JSON
// (400 malformed_payload), and, as a failed task, a document without the
// primary key or with an invalid id. A known route, parameter or setting it
// does not model is answered 501 "meilifake_not_modelled", never ignored.
//
// Writes are tasks: a write answers 202 with an enqueued task, and one
// scheduler goroutine takes every enqueued task as a batch, marks it
// processing, waits Options.TaskDelay, and applies the tasks in uid order.
// A search right after an acknowledged write does not see it; Pause holds
// the queue so tests can rely on that without timing.
//
// Search finds documents by their words; ranking belongs to the live tests.
// The first 10 query words, lowercased, split on anything that is not a
// letter or digit, match whole words of the searchable attributes; the last
// also matches as a prefix unless the query ends with a separator. Typos are
// not modelled (the driver disables typo tolerance). The matching strategies
// keep Meilisearch's rules for which documents match: "last" keeps the
// longest run of query words from the start and drops documents that miss
// the first, "all" keeps documents with every word, "frequency" drops the
// most frequent words first; more words kept rank first, then insertion
// order. A quoted phrase matches its words in a row within one attribute.
// vector.go models the product workload's filters, userProvided embedders
// and vector and hybrid searches.
//
// Test hooks (Pause/Resume, FailTasks, Inject/ClearFaults, Calls, Settings)
// drive overload, hangs and failed tasks; faults and the request record are
// the shared kit's (engines/enginetest/fakekit). A Server is safe for
// concurrent use and listens on 127.0.0.1 only.
package meilifake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Version is the pkgVersion the fake reports.
const Version = "1.37.0"

// Options configure a Server.
type Options struct {
	// MasterKey, when set, is required as "Authorization: Bearer <key>" on
	// every route but /health (MEILI_MASTER_KEY).
	MasterKey string
	// TaskDelay is how long a batch of tasks stays "processing"; 0 means 5 ms.
	TaskDelay time.Duration
}

// Server is the fake. Its URL is the base URL to give the driver.
type Server struct {
	URL string

	hs   *httptest.Server
	mux  *http.ServeMux
	opts Options

	mu        sync.Mutex
	wake      *sync.Cond // signals the scheduler: a task, Resume or Close
	indexes   map[string]*index
	tasks     []*task // tasks[i].UID == i
	batches   int64
	paused    bool
	closed    bool
	failNext  []*apiError // FailTasks's
	scheduler sync.WaitGroup

	faults   fakekit.Faults
	requests fakekit.Requests
}

// New starts a fake on 127.0.0.1. Close it when done.
func New(o Options) *Server {
	if o.TaskDelay == 0 {
		o.TaskDelay = 5 * time.Millisecond
	}
	s := &Server{
		opts:    o,
		indexes: map[string]*index{},
		mux:     http.NewServeMux(),
		faults:  fakekit.Faults{Spare: []string{"/health"}},
	}
	s.wake = sync.NewCond(&s.mu)
	s.routes()
	s.hs = httptest.NewServer(fakekit.Observe("meilifake", http.HandlerFunc(s.serve)))
	s.URL = s.hs.URL
	s.scheduler.Add(1)
	go s.schedule()
	return s
}

// Close stops the scheduler, frees hung requests and shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.wake.Broadcast()
	s.mu.Unlock()
	s.faults.Close()
	s.scheduler.Wait()
	s.hs.Close()
}

func (s *Server) routes() {
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /health":                   s.health,
		"GET /version":                  s.version,
		"POST /indexes":                 s.createIndex,
		"DELETE /indexes/{uid}":         s.deleteIndex,
		"PATCH /indexes/{uid}/settings": s.updateSettings,
		"GET /indexes/{uid}/settings/searchable-attributes": s.setting(searchableAttributes),
		"GET /indexes/{uid}/settings/filterable-attributes": s.setting(filterableAttributes),
		"GET /indexes/{uid}/settings/embedders":             s.setting(embedders),
		"POST /indexes/{uid}/documents":                     s.addDocuments,
		"GET /indexes/{uid}/documents/{id}":                 s.getDocument,
		"DELETE /indexes/{uid}/documents/{id}":              s.deleteDocument,
		"POST /indexes/{uid}/search":                        s.search,
		"GET /indexes/{uid}/stats":                          s.stats,
		"GET /tasks":                                        s.listTasks,
		"GET /tasks/{uid}":                                  s.getTask,
		"/":                                                 s.notModelled,
	} {
		s.mux.HandleFunc(pattern, h)
	}
}

// serve records the request under its route's pattern, applies injected
// faults, checks the key, routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	_, pattern := s.mux.Handler(r)
	s.requests.Add(pattern, r, nil)
	if s.faults.Serve(w, r, errorBody) {
		return
	}
	if r.URL.Path != "/health" {
		if e := s.authenticate(r); failed(w, e) {
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// authenticate follows Meilisearch's extractor: no header → 401; a scheme
// other than Bearer → 401; Bearer without a token or with the wrong one →
// 403. Without a master key every route is open.
func (s *Server) authenticate(r *http.Request) *apiError {
	if s.opts.MasterKey == "" {
		return nil
	}
	h, ok := r.Header["Authorization"]
	scheme, token := "", ""
	if ok {
		scheme, token, _ = strings.Cut(h[0], " ")
	}
	if scheme != "Bearer" {
		return newError("missing_authorization_header", "The Authorization header is missing. It must use the bearer authorization method.")
	}
	if token != s.opts.MasterKey {
		return newError("invalid_api_key", "The provided API key is invalid.")
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	fakekit.WriteJSON(w, http.StatusOK, map[string]string{"status": "available"})
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	fakekit.WriteJSON(w, http.StatusOK, map[string]string{
		"commitSha": "meilifake", "commitDate": "2026-01-01T00:00:00Z", "pkgVersion": Version,
	})
}

func (s *Server) notModelled(w http.ResponseWriter, r *http.Request) {
	writeError(w, notModelled(fmt.Sprintf("the route %s %s", r.Method, r.URL.Path)))
}

// ---- errors -------------------------------------------------------------

// apiError is Meilisearch's error body plus its HTTP status.
type apiError struct {
	status  int
	Message string `json:"message"`
	Code    string `json:"code"`
	Type    string `json:"type"`
	Link    string `json:"link"`
}

// codeStatus is the HTTP status and type of each code the fake answers
// (from meilisearch-types error.rs); codes not listed are 400
// invalid_request.
var codeStatus = map[string]struct {
	status int
	typ    string
}{
	"missing_authorization_header": {http.StatusUnauthorized, "auth"},
	"invalid_api_key":              {http.StatusForbidden, "auth"},
	"missing_content_type":         {http.StatusUnsupportedMediaType, "invalid_request"},
	"invalid_content_type":         {http.StatusUnsupportedMediaType, "invalid_request"},
	"index_not_found":              {http.StatusNotFound, "invalid_request"},
	"document_not_found":           {http.StatusNotFound, "invalid_request"},
	"task_not_found":               {http.StatusNotFound, "invalid_request"},
	"index_already_exists":         {http.StatusConflict, "invalid_request"},
	"too_many_search_requests":     {http.StatusServiceUnavailable, "system"},
	"internal":                     {http.StatusInternalServerError, "internal"},
	"meilifake_not_modelled":       {http.StatusNotImplemented, "invalid_request"},
}

func newError(code, message string) *apiError {
	st, ok := codeStatus[code]
	if !ok {
		st.status, st.typ = http.StatusBadRequest, "invalid_request"
	}
	return &apiError{status: st.status, Message: message, Code: code, Type: st.typ, Link: "https://docs.meilisearch.com/errors#" + code}
}

func notModelled(what string) *apiError {
	return newError("meilifake_not_modelled", "meilifake: "+what+" is not modelled by this wire-contract fake")
}

// failed writes e, if any, and says whether it did.
func failed(w http.ResponseWriter, e *apiError) bool {
	if e != nil {
		writeError(w, e)
	}
	return e != nil
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "10") // as Meilisearch sets on every 503
	}
	fakekit.WriteJSON(w, e.status, e)
}

// ---- request bodies -----------------------------------------------------

// jsonBody checks the Content-Type and reads a JSON body, as Meilisearch's
// JSON extractor does.
func jsonBody(r *http.Request, v any) *apiError {
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	switch strings.TrimSpace(mt) {
	case "application/json":
	case "":
		return newError("missing_content_type", "A Content-Type header is missing. Accepted values for the Content-Type header are: `application/json`")
	default:
		return newError("invalid_content_type", fmt.Sprintf("The Content-Type `%s` is invalid. Accepted values for the Content-Type header are: `application/json`", ct))
	}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 100<<20)) // Meilisearch's default payload limit
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return newError("malformed_payload", fmt.Sprintf("The json payload provided is malformed. `%v`.", err))
	}
	if dec.More() {
		return newError("malformed_payload", "The json payload provided is malformed. `trailing characters`.")
	}
	return nil
}

// object reads a JSON object body and rejects fields outside known, as
// deserr's deny_unknown_fields does (400 with code).
func object(r *http.Request, code string, known []string) (map[string]json.RawMessage, *apiError) {
	var raw json.RawMessage
	if e := jsonBody(r, &raw); e != nil {
		return nil, e
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, newError(code, fmt.Sprintf("Invalid value type: expected an object, but found: `%.60s`", raw))
	}
	for k := range m {
		if !slices.Contains(known, k) {
			return nil, newError("bad_request", fmt.Sprintf("Unknown field `%s`: expected one of %s", k, quoteList(known)))
		}
	}
	return m, nil
}

// fields reads a nested JSON object, at path (".typoTolerance"), whose
// keys are among known (nil: any), as deserr does: a value of another type
// or an unknown key is refused with code.
func fields(raw json.RawMessage, path, code string, known []string) (map[string]json.RawMessage, *apiError) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, newError(code, fmt.Sprintf("Invalid value type at `%s`: expected an object, but found `%.60s`", path, raw))
	}
	for k := range m {
		if known != nil && !slices.Contains(known, k) {
			return nil, newError(code, fmt.Sprintf("Unknown field `%s` inside `%s`: expected one of %s", k, path, quoteList(known)))
		}
	}
	return m, nil
}

// checkParams refuses a query parameter outside known (400 bad_request,
// as deserr does) and one known but not modelled (501); what names the
// route's parameters ("tasks").
func checkParams(q url.Values, what string, known, modelled []string) *apiError {
	for k := range q {
		switch {
		case !slices.Contains(known, k):
			return newError("bad_request", fmt.Sprintf("Unknown parameter `%s`: expected one of %s", k, quoteList(known)))
		case !slices.Contains(modelled, k):
			return notModelled("the " + what + " parameter `" + k + "`")
		}
	}
	return nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

func isNull(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// decodeField decodes one field's value into v, or answers Meilisearch's
// "Invalid value type at `.field`" error with the field's code.
func decodeField(raw json.RawMessage, field, code, want string, v any) *apiError {
	if err := json.Unmarshal(raw, v); err != nil {
		return newError(code, fmt.Sprintf("Invalid value type at `.%s`: expected %s, but found `%.60s`", field, want, raw))
	}
	return nil
}

// uintField reads a non-negative integer (Rust usize/u8 fields) no larger
// than max. A quoted number is a string to Meilisearch, not a number.
func uintField(raw json.RawMessage, field, code string, max uint64) (uint64, *apiError) {
	v, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil || v > max {
		return 0, newError(code, fmt.Sprintf("Invalid value type at `.%s`: expected a positive integer, but found `%.60s`", field, raw))
	}
	return v, nil
}

// validUID is Meilisearch's rule for index uids and document ids.
var validUID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

func checkIndexUID(uid string) *apiError {
	if len(uid) > 400 || !validUID.MatchString(uid) {
		return newError("invalid_index_uid", fmt.Sprintf("`%s` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 400 bytes.", uid))
	}
	return nil
}

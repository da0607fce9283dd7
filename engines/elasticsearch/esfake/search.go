package esfake

import (
	"cmp"
	"encoding/json"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// matchQuery is a parsed match_all, match or multi_match query.
type matchQuery struct {
	all        bool // match_all
	text       string
	fields     []string
	and        bool    // operator and: a field matches only with every term
	best       bool    // best_fields: the best field's score, plus tie_breaker × the others'
	tieBreaker float64 // best_fields only
}

// Query types this fake knows Elasticsearch has but does not model.
var unmodelledQueries = []string{"terms", "exists", "prefix", "wildcard", "regexp",
	"fuzzy", "ids", "match_phrase_prefix", "match_bool_prefix", "query_string",
	"simple_query_string", "combined_fields", "dis_max", "constant_score", "function_score", "boosting",
	"nested", "has_child", "has_parent", "knn", "script_score", "more_like_this", "match_none", "geo_distance",
	"intervals", "span_term", "script", "sparse_vector", "semantic", "pinned", "rule", "terms_set", "distance_feature"}

// tokenName is the XContent token a JSON value starts with, for
// Elasticsearch's parse error messages.
func tokenName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "START_OBJECT"
	case []any:
		return "START_ARRAY"
	case string:
		return "VALUE_STRING"
	case json.Number:
		return "VALUE_NUMBER"
	case bool:
		return "VALUE_BOOLEAN"
	}
	return "VALUE_NULL"
}

// parseQuery reads the "query" object of a search or count.
func parseQuery(raw any) (query, *esError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, parsing("[_na] query malformed, must start with start_object")
	}
	if len(obj) != 1 {
		keys := sortedKeys(obj)
		if len(keys) == 0 {
			return &matchQuery{all: true}, nil // {} is match_all
		}
		return nil, parsing("[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", keys[0])
	}
	name := firstKey(obj)
	body, ok := obj[name].(map[string]any)
	if !ok && (name == "match_all" || name == "multi_match" || name == "match") {
		return nil, parsing("[%s] query malformed, no start_object after query name", name)
	}
	switch {
	case name == "match_all":
		if e := queryKeys("match_all", body, nil, "boost", "_name"); e != nil {
			return nil, e
		}
		return &matchQuery{all: true}, nil
	case name == "multi_match":
		return parseMultiMatch(body)
	case name == "match":
		return parseMatch(body)
	case name == "bool":
		return parseBool(obj[name])
	case name == "term":
		return parseTerm(obj[name])
	case name == "range":
		return parseRange(obj[name])
	case name == "match_phrase":
		return parsePhrase(obj[name])
	case slices.Contains(unmodelledQueries, name):
		return nil, notImplemented("query [%s]", name)
	}
	return nil, parsing("unknown query [%s]", name)
}

// parseOperator reads a match operator: and is true for "and".
func parseOperator(v any) (and bool, e *esError) {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "or":
		return false, nil
	case "and":
		return true, nil
	}
	return false, badRequest("illegal_argument_exception", "operator needs to be either [and] or [or], but not [%v]", v)
}

// Parameters of match and multi_match that this fake does not model.
var unmodelledMatchParams = []string{"analyzer", "minimum_should_match", "lenient", "prefix_length", "max_expansions",
	"zero_terms_query", "auto_generate_synonyms_phrase_query", "fuzzy_transpositions", "slop", "fuzzy_rewrite", "boost", "_name"}

func parseMultiMatch(body map[string]any) (*matchQuery, *esError) {
	known := []string{"query", "operator", "fuzziness", "fields", "type", "tie_breaker"}
	if e := queryKeys("multi_match", body, known, unmodelledMatchParams...); e != nil {
		return nil, e
	}
	q := &matchQuery{}
	if e := q.readText("multi_match", "multi_match", body); e != nil {
		return nil, e
	}
	fields, hasFields := body["fields"]
	var err error
	if q.fields, err = stringList(fields); err != nil {
		return nil, parsing("[multi_match] query does not support [fields] of type %s", tokenName(fields))
	}
	if v, has := body["tie_breaker"]; has {
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			return nil, parsing("[multi_match] unknown token [%s] after [tie_breaker]", tokenName(v))
		}
		q.tieBreaker = f
	}
	typ := "best_fields"
	if v, has := body["type"]; has {
		s, _ := v.(string)
		typ = strings.ToLower(s)
	}
	switch typ {
	case "best_fields":
		q.best = true
	case "most_fields":
	case "cross_fields", "phrase", "phrase_prefix", "bool_prefix":
		if body["fuzziness"] != nil && typ != "bool_prefix" {
			return nil, parsing("Fuzziness not allowed for type [%s]", typ)
		}
		return nil, notImplemented("multi_match type [%s]", typ)
	default:
		return nil, newError(http.StatusBadRequest, "parse_exception", "failed to parse [multi_match] query type [%s]. unknown type.", typ)
	}
	if e := checkFuzziness(body["fuzziness"]); e != nil {
		return nil, e
	}
	if !hasFields {
		return nil, notImplemented("multi_match without fields (index.query.default_field)")
	}
	for _, f := range q.fields {
		if strings.ContainsAny(f, "*^") {
			return nil, notImplemented("field pattern or boost [%s]", f)
		}
	}
	return q, nil
}

func parseMatch(body map[string]any) (*matchQuery, *esError) {
	if len(body) != 1 {
		keys := sortedKeys(body)
		if len(keys) == 0 {
			return nil, parsing("No text specified for text query")
		}
		return nil, parsing("[match] query doesn't support multiple fields, found [%s] and [%s]", keys[0], keys[1])
	}
	name := firstKey(body)
	q := &matchQuery{fields: []string{name}}
	if text, ok := scalar(body[name]); ok {
		q.text = text
		return q, nil
	}
	opts, ok := body[name].(map[string]any)
	if !ok {
		return nil, parsing("[match] unknown token [%s] after [%s]", tokenName(body[name]), name)
	}
	e := cmp.Or(queryKeys("match", opts, []string{"query", "operator", "fuzziness"}, unmodelledMatchParams...),
		q.readText("match", "text", opts), checkFuzziness(opts["fuzziness"]))
	if e != nil {
		return nil, e
	}
	return q, nil
}

// readText reads what match and multi_match (kind) share, once their keys
// are checked: the query text (noun names the query in the error for none)
// and the operator.
func (q *matchQuery) readText(kind, noun string, opts map[string]any) *esError {
	v, has := opts["query"]
	if !has {
		return parsing("No text specified for %s query", noun)
	}
	var ok bool
	if q.text, ok = scalar(v); !ok {
		return parsing("[%s] unknown token [%s] after [query]", kind, tokenName(v))
	}
	var e *esError
	if op, has := opts["operator"]; has {
		q.and, e = parseOperator(op)
	}
	return e
}

var regexpAuto = regexp.MustCompile(`^AUTO:[0-9]+,[0-9]+$`)

// checkFuzziness accepts what Elasticsearch's Fuzziness parser accepts
// and refuses, as not implemented, every fuzziness but 0 (edit distance 0
// matches exactly what no fuzziness matches).
func checkFuzziness(v any) *esError {
	if v == nil {
		return nil
	}
	s, ok := scalar(v) // a query's text may be a string, a number or a boolean
	if _, isBool := v.(bool); !ok || isBool {
		return parsing("[fuzziness] unknown token [%s]", tokenName(v))
	}
	upper := strings.ToUpper(s)
	switch {
	case s == "0" || s == "0.0":
		return nil
	case s == "1" || s == "2" || upper == "AUTO" || regexpAuto.MatchString(upper):
		return notImplemented("fuzziness [%s]", s)
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n == math.Trunc(n) {
		return badRequest("illegal_argument_exception", "Valid edit distances are [0, 1, 2] but was [%s]", s)
	}
	return badRequest("illegal_argument_exception", "Invalid fuzziness value: [%s]", s)
}

// searchParams are the URL parameters a search takes.
var searchParams = []string{"size", "from", "track_total_hits"}

// searchRequest is a parsed search body (with its URL parameters).
type searchRequest struct {
	q          query
	hasQuery   bool       // the body has a query (with knn alone, no match_all)
	knn        *knnSearch // the top-level knn section
	size, from int
	trackTotal int // -1: not tracked
	source     bool
}

// search is GET|POST /{index}/_search.
func (s *Server) search(w http.ResponseWriter, r *request) *esError {
	req, e := parseSearch(r)
	if e != nil {
		return e
	}
	ix, e := s.searchTarget(r)
	if ix == nil {
		return e // nil when the client went away
	}
	if req.from+req.size > ix.maxResultWindow {
		return phaseFailure(ix, badRequest("illegal_argument_exception",
			"Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. "+
				"See the scroll api for a more efficient way to request large data sets. This limit can be set by changing "+
				"the [index.max_result_window] index level setting.", ix.maxResultWindow, req.from+req.size))
	}
	hits, e := ix.searchHits(req)
	if e != nil {
		return phaseFailure(ix, e)
	}
	page := []map[string]any{}
	var maxScore any
	for i := req.from; i < len(hits) && i < req.from+req.size; i++ {
		h := map[string]any{"_index": ix.name, "_id": hits[i].doc.id, "_score": hits[i].score}
		if req.source {
			h["_source"] = hits[i].doc.source
		}
		page = append(page, h)
	}
	if len(page) > 0 {
		maxScore = hits[0].score
	}
	out := map[string]any{"max_score": maxScore, "hits": page}
	switch t := req.trackTotal; {
	case t < 0:
	case len(hits) > t:
		out["total"] = map[string]any{"value": t, "relation": "gte"}
	default:
		out["total"] = map[string]any{"value": len(hits), "relation": "eq"}
	}
	return ok(w, http.StatusOK, map[string]any{
		"took": r.took(), "timed_out": false,
		"_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0},
		"hits":    out,
	})
}

// parseSearch reads a search's URL parameters and body; a URL parameter
// wins over the body's key.
func parseSearch(r *request) (*searchRequest, *esError) {
	if e := r.params(searchParams...); e != nil {
		return nil, e
	}
	req := &searchRequest{q: &matchQuery{all: true}, size: 10, trackTotal: defaultMaxResultWindow, source: true}
	body, e := r.jsonBody()
	if e != nil {
		return nil, e
	}
	params := r.URL.Query()
	for _, k := range searchParams {
		if params.Has(k) {
			body[k] = params.Get(k)
		}
	}
	for _, k := range sortedKeys(body) {
		if e := req.set(k, body[k]); e != nil {
			return nil, e
		}
	}
	return req, nil
}

// set reads one key of a search body.
func (req *searchRequest) set(k string, v any) *esError {
	var e *esError
	switch k {
	case "query":
		req.q, e = parseQuery(v)
		req.hasQuery = true
	case "knn":
		req.knn, e = parseKnn(v)
	case "size", "from":
		n, ok := intValue(v)
		switch {
		case !ok:
			e = badRequest("x_content_parse_exception", "[%s] failed to parse field [%s]: expected a number, found [%s]", k, k, tokenName(v))
		case n < 0:
			e = badRequest("illegal_argument_exception", "[%s] parameter cannot be negative, found [%d]", k, n)
		case k == "size":
			req.size = n
		default:
			req.from = n
		}
	case "track_total_hits":
		req.trackTotal, e = trackTotalHits(v)
	case "_source":
		var ok bool
		if req.source, ok = boolValue(v); !ok {
			e = notImplemented("source filtering")
		}
	case "sort", "aggs", "aggregations", "post_filter", "highlight", "min_score", "explain", "timeout",
		"terminate_after", "stored_fields", "docvalue_fields", "fields", "script_fields", "search_after", "pit",
		"rescore", "suggest", "collapse", "profile", "version", "seq_no_primary_term", "indices_boost",
		"runtime_mappings", "track_scores", "stats", "slice", "retriever", "rank", "ext":
		e = notImplemented("search body key [%s]", k)
	default:
		e = parsing("Unknown key for a %s in [%s].", tokenName(v), k)
	}
	return e
}

// trackTotalHits reads track_total_hits: true (exact), false (-1) or a
// bound ≥ -1.
func trackTotalHits(v any) (int, *esError) {
	if b, ok := boolValue(v); ok {
		if b {
			return math.MaxInt, nil
		}
		return -1, nil
	}
	n, ok := intValue(v)
	switch {
	case !ok:
		return 0, badRequest("illegal_argument_exception", "[track_total_hits] must be a boolean or a number, found [%v]", v)
	case n < -1:
		return 0, badRequest("illegal_argument_exception", "[track_total_hits] parameter must be positive or equals to -1, got %d", n)
	}
	return n, nil
}

// intValue reads an integer from a JSON number or a numeric string, as
// Elasticsearch's parser coerces it.
func intValue(v any) (int, bool) {
	s, ok := scalar(v) // a boolean's "true" is no integer
	n, err := strconv.Atoi(s)
	return n, ok && err == nil
}

// searchTarget resolves a search's or count's index (nil and no error when
// the client went away while it waited) and marks the shard
// as searched. A search on a search-idle shard with unrefreshed writes
// waits for the next scheduled refresh (IndexShard.awaitShardSearchActive).
func (s *Server) searchTarget(r *request) (*index, *esError) {
	if e := r.oneIndex("searching"); e != nil {
		return nil, e
	}
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return nil, e
	}
	now := time.Now()
	idle := !ix.explicitRefresh && ix.searchIdle(now)
	ix.lastSearch.Store(now.UnixNano())
	if !idle {
		return ix, nil
	}
	// The search waits as a refresh listener would, so the scheduled
	// refresh takes place even if the shard looks idle again by then.
	ix.mu.Lock()
	dirty, ch := ix.dirty, ix.released
	if dirty {
		ix.waiting++
	}
	ix.mu.Unlock()
	if dirty {
		select {
		case <-ch:
		case <-ix.stop:
		case <-r.Context().Done():
			return nil, nil
		}
	}
	return ix, nil
}

// phaseFailure is how a shard's failure reaches a search's client: 400
// search_phase_execution_exception "all shards failed", the shard's own
// error as root cause.
func phaseFailure(ix *index, cause *esError) *esError {
	c := map[string]any{"type": cause.typ, "reason": cause.reason}
	e := newError(cause.status, "search_phase_execution_exception", "all shards failed")
	e.root = c
	e.extra = map[string]any{
		"phase": "query", "grouped": true, "caused_by": c,
		"failed_shards": []any{map[string]any{"shard": 0, "index": ix.name, "node": "esfake", "reason": c}},
	}
	return e
}

// countDocs is GET|POST /{index}/_count: how many visible documents match
// the body's query (all without one).
func (s *Server) countDocs(w http.ResponseWriter, r *request) *esError {
	if e := r.params(); e != nil {
		return e
	}
	body, e := r.jsonBody()
	if e != nil {
		return e
	}
	var q query = &matchQuery{all: true}
	for _, k := range sortedKeys(body) {
		if k != "query" {
			return parsing("request does not support [%s]", k)
		}
		if q, e = parseQuery(body[k]); e != nil {
			return e
		}
	}
	ix, e := s.searchTarget(r)
	if ix == nil {
		return e // nil when the client went away
	}
	hits, e := ix.run(q)
	if e != nil {
		return phaseFailure(ix, e)
	}
	return ok(w, http.StatusOK, map[string]any{
		"count":   len(hits),
		"_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0},
	})
}

// refresh is POST|GET /{index}/_refresh.
func (s *Server) refresh(w http.ResponseWriter, r *request) *esError {
	if e := cmp.Or(r.params(), r.noBody(), r.oneIndex("refreshing")); e != nil {
		return e
	}
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	ix.refresh()
	// A refresh reaches the primary; an unplaced replica counts in total.
	return ok(w, http.StatusOK, map[string]any{"_shards": ix.shardsHeader()})
}

type hit struct {
	doc   *doc
	score float64
}

// run matches the visible documents against q, best first; equal scores
// keep index order (Lucene's tie-break by doc id). The score is not BM25
// (see matchQuery.prepare): enough for an order a test can predict;
// ranking belongs to the live tests.
func (ix *index) run(q query) ([]hit, *esError) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.runLocked(q)
}

func (ix *index) runLocked(q query) ([]hit, *esError) {
	score, e := q.prepare(ix)
	if e != nil {
		return nil, e
	}
	var hits []hit
	for _, d := range ix.visible {
		if sc, ok := score(d); ok {
			hits = append(hits, hit{d, sc})
		}
	}
	sortHits(hits)
	return hits, nil
}

func sortHits(hits []hit) {
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.doc.ord, b.doc.ord))
	})
}

// prepare is a match, multi_match or match_all query's scorer: how many
// times the query's terms occur in a field, summed over the fields
// (most_fields) or the best field's (best_fields, plus tie_breaker times
// the others').
func (q *matchQuery) prepare(ix *index) (scorer, *esError) {
	if q.all {
		return func(*doc) (float64, bool) { return 1, true }, nil
	}
	terms := map[string][]string{}
	for _, name := range q.fields {
		t, e := ix.queryTerms(q, name)
		if e != nil {
			return nil, e
		}
		terms[name] = t
	}
	return func(d *doc) (float64, bool) {
		sum, best := 0.0, 0.0
		for _, name := range q.fields {
			sc := fieldScore(d.terms[name], terms[name], q.and)
			sum, best = sum+sc, max(best, sc)
		}
		switch {
		case sum == 0:
			return 0, false
		case q.best:
			return best + q.tieBreaker*(sum-best), true
		}
		return sum, true
	}, nil
}

// queryTerms is q's text as a match on the field sees it: a text field's
// search analyzer's terms, a keyword's whole value; nil for a field the
// mapping lacks, which matches nothing, as in Elasticsearch.
func (ix *index) queryTerms(q *matchQuery, name string) ([]string, *esError) {
	f := ix.fields[name]
	switch {
	case f == nil:
		return nil, nil
	case f.typ == "text" && !f.indexed:
		return nil, notIndexed(name)
	case f.typ == "text":
		return f.searchAnalyzer.analyze(q.text), nil
	case f.typ == "keyword":
		return []string{q.text}, nil
	}
	return nil, notImplemented("match on the %s field [%s]", f.typ, name)
}

// fieldScore is how many of a field's terms are query terms; 0 when, with
// operator and, a query term is missing.
func fieldScore(field, query []string, and bool) float64 {
	n := 0
	for _, t := range field {
		if slices.Contains(query, t) {
			n++
		}
	}
	if and {
		for _, t := range query {
			if !slices.Contains(field, t) {
				return 0
			}
		}
	}
	return float64(n)
}

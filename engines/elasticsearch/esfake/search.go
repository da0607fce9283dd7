package esfake

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"
)

// The driver's searches (its query.go and searchBody): multi_match
// most_fields, bool (must, filter), term, range (gte, lte) and
// match_phrase, and the search body's top-level knn, with the semantics
// Elasticsearch 8.19 documents for them.

// scorer says whether a document matches, and its score.
type scorer func(d *doc) (score float64, ok bool)

type hit struct {
	doc   *doc
	score float64
}

// search is POST /{index}/_search.
func (s *Server) search(w http.ResponseWriter, r *request) *esError {
	body, e := r.jsonBody()
	if e != nil {
		return e
	}
	size, trackTotal := 10, maxResultWindow
	for k, v := range body {
		n, isInt := intValue(v)
		switch {
		case k == "size" && isInt && n >= 0:
			size = n
		case k == "track_total_hits" && v == true:
			trackTotal = math.MaxInt
		case k == "track_total_hits" && v == false:
			trackTotal = -1
		case k == "track_total_hits" && isInt && n >= 0:
			trackTotal = n
		case k != "query" && k != "knn" && !(k == "_source" && v == false):
			return notImplemented("search body key [%s] %v", k, v)
		}
	}
	if body["_source"] != false {
		return notImplemented("hits with their _source")
	}
	ix, e := s.searchTarget(r)
	if ix == nil {
		return e // nil when the client went away
	}
	if size > maxResultWindow {
		return ix.shardFailure(badRequest("illegal_argument_exception",
			"Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. "+
				"See the scroll api for a more efficient way to request large data sets. This limit can be set by changing "+
				"the [index.max_result_window] index level setting.", maxResultWindow, size))
	}
	hits, candidates, e := ix.searchHits(body)
	if e != nil {
		return e
	}
	if candidates > 0 {
		s.knob.Saw(candidates)
	}
	return ok(w, http.StatusOK, map[string]any{
		"took": r.took(), "timed_out": false,
		"_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0},
		"hits":    hitsReply(ix, hits, size, trackTotal),
	})
}

// hitsReply is a search answer's "hits": the first size hits, their best
// score, and the total as track_total_hits asks (none below 0; "gte" once
// past it).
func hitsReply(ix *index, hits []hit, size, trackTotal int) map[string]any {
	page := []map[string]any{}
	var maxScore any
	for _, h := range hits[:min(len(hits), size)] {
		page = append(page, map[string]any{"_index": ix.name, "_id": h.doc.id, "_score": h.score})
	}
	if len(page) > 0 {
		maxScore = hits[0].score
	}
	out := map[string]any{"max_score": maxScore, "hits": page}
	switch {
	case trackTotal < 0:
	case len(hits) > trackTotal:
		out["total"] = map[string]any{"value": trackTotal, "relation": "gte"}
	default:
		out["total"] = map[string]any{"value": len(hits), "relation": "eq"}
	}
	return out
}

// intValue reads an integer from a JSON number.
func intValue(v any) (int, bool) {
	f, ok := number(v)
	return int(f), ok && f == math.Trunc(f)
}

// searchTarget resolves a search's or count's index (nil and no error when
// the client went away while it waited) and marks the shard as searched. A
// search on a search-idle shard with unrefreshed writes waits for the next
// scheduled refresh (IndexShard.awaitShardSearchActive).
func (s *Server) searchTarget(r *request) (*index, *esError) {
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

// shardFailure is how a shard's failure reaches a search's client: 400
// search_phase_execution_exception "all shards failed", the shard's own
// error as root cause.
func (ix *index) shardFailure(cause *esError) *esError {
	c := map[string]any{"type": cause.typ, "reason": cause.reason}
	e := newError(cause.status, "search_phase_execution_exception", "all shards failed")
	e.root = c
	e.extra = map[string]any{
		"phase": "query", "grouped": true, "caused_by": c,
		"failed_shards": []any{map[string]any{"shard": 0, "index": ix.name, "node": "esfake", "reason": c}},
	}
	return e
}

// countDocs is GET|POST /{index}/_count without a body: how many documents
// are visible.
func (s *Server) countDocs(w http.ResponseWriter, r *request) *esError {
	if len(r.body) > 0 {
		return notImplemented("a _count body")
	}
	ix, e := s.searchTarget(r)
	if ix == nil {
		return e // nil when the client went away
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ok(w, http.StatusOK, map[string]any{
		"count":   len(ix.visible),
		"_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0},
	})
}

// refresh is POST|GET /{index}/_refresh.
func (s *Server) refresh(w http.ResponseWriter, r *request) *esError {
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	ix.refresh()
	return ok(w, http.StatusOK, map[string]any{"_shards": shards})
}

// searchHits is a search's matches, best first (equal scores in index
// order, Lucene's tie-break by doc id): the query's (all documents without
// one); with a knn section, its k nearest, and with a query too, the union
// of both, a document's score the sum of its query and knn scores
// (Elasticsearch's hybrid of query and knn in one request); and the knn
// section's num_candidates, 0 without one.
func (ix *index) searchHits(body map[string]any) ([]hit, int, *esError) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var q, knn scorer
	var k, candidates int
	var e *esError
	if raw, has := body["query"]; has {
		if q, e = ix.parseQuery(raw); e != nil {
			return nil, 0, e
		}
	}
	if raw, has := body["knn"]; has {
		if knn, k, candidates, e = ix.parseKnn(raw); e != nil {
			return nil, 0, e
		}
	}
	if q == nil && knn == nil {
		q = func(*doc) (float64, bool) { return 1, true }
	}
	scores := map[*doc]float64{}
	if knn != nil {
		nearest := ix.match(knn)
		for _, h := range nearest[:min(len(nearest), k)] {
			scores[h.doc] += h.score
		}
	}
	if q != nil {
		for _, h := range ix.match(q) {
			scores[h.doc] += h.score
		}
	}
	return ix.match(func(d *doc) (float64, bool) { sc, ok := scores[d]; return sc, ok }), candidates, nil
}

// match is the visible documents s matches, best first.
func (ix *index) match(s scorer) []hit {
	var hits []hit
	for _, d := range ix.visible {
		if sc, ok := s(d); ok {
			hits = append(hits, hit{d, sc})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.doc.ord, b.doc.ord))
	})
	return hits
}

// clause reads a query clause {"name": {…}}: its name and body, or the
// refusal of a clause the fake does not model (known lists the body keys
// it reads).
func clause(raw any) (string, map[string]any, *esError) {
	obj, _ := raw.(map[string]any)
	for name, v := range obj {
		body, ok := v.(map[string]any)
		if len(obj) == 1 && ok {
			return name, body, nil
		}
	}
	return "", nil, notImplemented("query %v", raw)
}

// fieldClause reads the {"field": {key: value}} body of term, range and
// match_phrase, the value's keys among known.
func fieldClause(kind string, body map[string]any, known ...string) (string, map[string]any, *esError) {
	for name, v := range body {
		opts, _ := v.(map[string]any)
		for k := range opts {
			if !slices.Contains(known, k) {
				opts = nil
			}
		}
		if len(body) == 1 && len(opts) > 0 {
			return name, opts, nil
		}
	}
	return "", nil, notImplemented("%s query %v", kind, body)
}

// parseQuery reads a query clause into its scorer on this index. The
// caller holds ix.mu.
func (ix *index) parseQuery(raw any) (scorer, *esError) {
	name, body, e := clause(raw)
	if e != nil {
		return nil, e
	}
	switch name {
	case "multi_match":
		return ix.parseMultiMatch(body)
	case "bool":
		return ix.parseBool(body)
	case "term":
		field, opts, e := fieldClause("term", body, "value")
		value, isString := opts["value"].(string)
		if e == nil && !isString {
			e = notImplemented("term value %v", opts["value"])
		}
		return func(d *doc) (float64, bool) { return 1, slices.Contains(d.terms[field], value) }, e
	case "range":
		field, opts, e := fieldClause("range", body, "gte", "lte")
		return func(d *doc) (float64, bool) {
			n, has := d.numbers[field]
			lo, hasLo := number(opts["gte"])
			hi, hasHi := number(opts["lte"])
			return 1, has && (!hasLo || n >= lo) && (!hasHi || n <= hi)
		}, e
	case "match_phrase":
		field, opts, e := fieldClause("match_phrase", body, "query")
		if e != nil {
			return nil, e
		}
		return ix.phrase(field, fmt.Sprint(opts["query"]))
	}
	return nil, notImplemented("query [%s]", name)
}

// parseMultiMatch reads the driver's multi_match (query, fields, type
// most_fields, fuzziness 0 or none): a document's score is how many times
// the query's terms occur in its fields, summed over the fields.
func (ix *index) parseMultiMatch(body map[string]any) (scorer, *esError) {
	text, _ := body["query"].(string)
	fields, _ := body["fields"].([]any)
	for k, v := range body {
		if !slices.Contains([]string{"query", "fields", "type", "fuzziness"}, k) ||
			(k == "type" && v != "most_fields") || (k == "fuzziness" && v != "0") {
			return nil, notImplemented("multi_match parameter [%s] %v", k, v)
		}
	}
	terms := map[string][]string{}
	for _, name := range fields {
		f := ix.fields[fmt.Sprint(name)]
		switch {
		case f == nil: // an unmapped field matches nothing, as in Elasticsearch
		case f.typ != "text" || !f.indexed:
			return nil, notImplemented("multi_match on the field [%v]", name)
		default:
			terms[fmt.Sprint(name)] = f.analyzer.analyze(text)
		}
	}
	return func(d *doc) (float64, bool) {
		n := 0
		for name, query := range terms {
			for _, t := range d.terms[name] {
				if slices.Contains(query, t) {
					n++
				}
			}
		}
		return float64(n), n > 0
	}, nil
}

// parseBool reads a bool query's must (scored, summed) and filter (not
// scored) clause arrays; a document matches every clause.
func (ix *index) parseBool(body map[string]any) (scorer, *esError) {
	var must, filter []scorer
	for k, v := range body {
		list := map[string]*[]scorer{"must": &must, "filter": &filter}[k]
		arr, isArray := v.([]any)
		if list == nil || !isArray {
			return nil, notImplemented("bool parameter [%s] %v", k, v)
		}
		for _, c := range arr {
			s, e := ix.parseQuery(c)
			if e != nil {
				return nil, e
			}
			*list = append(*list, s)
		}
	}
	return func(d *doc) (float64, bool) {
		sum := 0.0
		for _, s := range must {
			sc, ok := s(d)
			if !ok {
				return 0, false
			}
			sum += sc
		}
		return sum, passes(filter, d)
	}, nil
}

// passes says whether d matches every filter.
func passes(filters []scorer, d *doc) bool {
	for _, f := range filters {
		if _, ok := f(d); !ok {
			return false
		}
	}
	return true
}

// phrase matches a text field whose terms hold the query's analysed terms
// one after the other, scored by how often. The position gaps a stop
// filter leaves are not modelled: "quick the fox" is the phrase "quick
// fox" here, where Lucene would match any word between.
func (ix *index) phrase(field, text string) (scorer, *esError) {
	f := ix.fields[field]
	if f == nil || f.typ != "text" || !f.indexed {
		return nil, notImplemented("match_phrase on the field [%s]", field)
	}
	want := f.analyzer.analyze(text)
	return func(d *doc) (float64, bool) {
		terms, n := d.terms[field], 0
		for i := 0; i+len(want) <= len(terms) && len(want) > 0; i++ {
			if slices.Equal(terms[i:i+len(want)], want) {
				n++
			}
		}
		return float64(n), n > 0
	}, nil
}

// maxCandidates is num_candidates' bound (KnnSearchBuilder.NUM_CANDS_LIMIT).
const maxCandidates = 10_000

// parseKnn reads the knn section as the driver sends it (an array of one:
// field, query_vector, k, num_candidates, filter) into its scorer of the
// documents that pass every filter, by the field's similarity, exactly,
// scored as Elasticsearch scores it (similarityScore): the answer an HNSW
// search approximates, filtered before the k are chosen (a pre-filter);
// with its k and num_candidates.
func (ix *index) parseKnn(raw any) (score scorer, k, candidates int, e *esError) {
	arr, _ := raw.([]any)
	obj, _ := append(arr, nil)[0].(map[string]any)
	k, _ = intValue(obj["k"])
	candidates, hasCandidates := intValue(obj["num_candidates"])
	vec, isVector := floatArray(obj["query_vector"])
	name := fmt.Sprint(obj["field"])
	f := ix.fields[name]
	var filters []scorer
	for key, v := range obj {
		list, isList := v.([]any)
		switch {
		case key == "filter" && isList:
			for _, c := range list {
				s, e := ix.parseQuery(c)
				if e != nil {
					return nil, 0, 0, e
				}
				filters = append(filters, s)
			}
		case !slices.Contains([]string{"field", "query_vector", "k", "num_candidates"}, key):
			return nil, 0, 0, notImplemented("knn parameter [%s]", key)
		}
	}
	switch {
	case len(arr) != 1 || k < 1 || !hasCandidates || !isVector || f == nil || f.typ != "dense_vector" || !f.indexed:
		return nil, 0, 0, notImplemented("knn %v", raw)
	// The driver's knob (engines.Query.Knob) sends num_candidates as given:
	// Elasticsearch's bounds (KnnSearchBuilder: NUM_CANDS_LIMIT).
	case candidates > maxCandidates:
		return nil, 0, 0, badRequest("illegal_argument_exception", "[num_candidates] cannot exceed [%d]", maxCandidates)
	case candidates < k:
		return nil, 0, 0, badRequest("illegal_argument_exception", "[num_candidates] cannot be less than [k]")
	case len(vec) != f.dims:
		return nil, 0, 0, ix.shardFailure(badRequest("query_shard_exception",
			"failed to create query: The query vector has a different number of dimensions [%d] than the document vectors [%d].", len(vec), f.dims))
	}
	if msg := magnitudeError(f.sim, vec); msg != "" {
		return nil, 0, 0, ix.shardFailure(badRequest("query_shard_exception", "failed to create query: %s", msg))
	}
	return func(d *doc) (float64, bool) {
		v := d.vectors[name]
		if v == nil || !passes(filters, d) {
			return 0, false
		}
		return similarityScore(f.sim, vec, v), true
	}, k, candidates, nil
}

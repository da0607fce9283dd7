package esfake

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// The product workload's queries: bool (must and filter), term, range,
// match_phrase and the search body's top-level knn, with the semantics
// Elasticsearch 8.19 documents for them.

// query is a parsed query clause.
type query interface {
	// prepare resolves the clause against the index's mapping: the
	// scorer of a document, or the error Elasticsearch gives for the
	// clause on this mapping.
	prepare(ix *index) (scorer, *esError)
}

// scorer says whether a document matches, and its score.
type scorer func(d *doc) (score float64, ok bool)

// notIndexed is Elasticsearch's refusal of a query on a field whose index
// parameter is false and that has no doc values to answer from.
func notIndexed(name string) *esError {
	return badRequest("query_shard_exception", "failed to create query: Cannot search on field [%s] since it is not indexed.", name)
}

// unsupportedOn is Elasticsearch's refusal of a query type a field type does
// not support (MappedFieldType's "does not support" messages).
func unsupportedOn(kind, name string, f *field) *esError {
	return badRequest("query_shard_exception", "failed to create query: Field [%s] of type [%s] does not support %s queries", name, f.typ, kind)
}

// singleField reads the {"field": value} object of term, range and
// match_phrase.
func singleField(kind string, raw any) (string, any, *esError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return "", nil, parsing("[%s] query malformed, no start_object after query name", kind)
	}
	switch keys := sortedKeys(obj); len(keys) {
	case 0:
		return "", nil, parsing("[%s] query doesn't support empty field", kind)
	case 1:
		return keys[0], obj[keys[0]], nil
	default:
		return "", nil, parsing("[%s] query doesn't support multiple fields, found [%s] and [%s]", kind, keys[0], keys[1])
	}
}

// queryKeys checks a query's keys as Elasticsearch's parser does: the ones
// the fake reads (known) pass, the ones Elasticsearch has and the fake does
// not model (unmodelled) are refused as not implemented, any other as
// Elasticsearch refuses an unknown key.
func queryKeys(kind string, obj map[string]any, known []string, unmodelled ...string) *esError {
	return bodyKeys(kind, obj, known, unmodelled, "[%s] query does not support [%s]")
}

// bodyKeys is queryKeys with the parser's own error for an unknown key,
// unknown, formatted with kind and the key.
func bodyKeys(kind string, obj map[string]any, known, unmodelled []string, unknown string) *esError {
	for _, k := range sortedKeys(obj) {
		switch {
		case slices.Contains(known, k):
		case slices.Contains(unmodelled, k):
			return notImplemented("%s parameter [%s]", kind, k)
		default:
			return parsing(unknown, kind, k)
		}
	}
	return nil
}

// boolQuery is a bool query's must (scored, summed) and filter (not
// scored) clauses; a document matches every clause. Without a must clause
// it scores 0, as a bool of filters alone does.
type boolQuery struct{ must, filter []query }

func parseBool(raw any) (query, *esError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, parsing("[bool] query malformed, no start_object after query name")
	}
	e := queryKeys("bool", obj, []string{"must", "filter"}, "should", "must_not", "minimum_should_match", "boost", "_name", "adjust_pure_negative")
	if e != nil {
		return nil, e
	}
	q := &boolQuery{}
	for _, c := range []struct {
		key  string
		list *[]query
	}{{"filter", &q.filter}, {"must", &q.must}} {
		if raw, has := obj[c.key]; has {
			if *c.list, e = clauseList(raw); e != nil {
				return nil, e
			}
		}
	}
	return q, nil
}

// clauseList reads one clause or an array of them (bool's must and filter,
// knn's filter).
func clauseList(raw any) ([]query, *esError) {
	arr, ok := raw.([]any)
	if !ok {
		arr = []any{raw}
	}
	out := make([]query, 0, len(arr))
	for _, c := range arr {
		q, e := parseQuery(c)
		if e != nil {
			return nil, e
		}
		out = append(out, q)
	}
	return out, nil
}

func (q *boolQuery) prepare(ix *index) (scorer, *esError) {
	must, e := prepareAll(ix, q.must)
	if e != nil {
		return nil, e
	}
	filter, e := prepareAll(ix, q.filter)
	if e != nil {
		return nil, e
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

func prepareAll(ix *index, qs []query) ([]scorer, *esError) {
	out := make([]scorer, len(qs))
	for i, q := range qs {
		s, e := q.prepare(ix)
		if e != nil {
			return nil, e
		}
		out[i] = s
	}
	return out, nil
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

// termQuery matches a keyword whose value is exactly value, or a text
// field holding value as one of its terms (not analysed).
type termQuery struct{ field, value string }

func parseTerm(raw any) (query, *esError) {
	name, v, e := singleField("term", raw)
	if e != nil {
		return nil, e
	}
	if opts, ok := v.(map[string]any); ok {
		if e := queryKeys("term", opts, []string{"value"}, "boost", "case_insensitive", "_name"); e != nil {
			return nil, e
		}
		v = opts["value"]
	}
	value, ok := scalar(v)
	if !ok {
		return nil, parsing("[term] query does not support [value] of type %s", tokenName(v))
	}
	return &termQuery{field: name, value: value}, nil
}

func (q *termQuery) prepare(ix *index) (scorer, *esError) {
	f := ix.fields[q.field]
	switch {
	case f == nil: // an unmapped field matches nothing
		return func(*doc) (float64, bool) { return 0, false }, nil
	case f.typ == "text" && !f.indexed:
		return nil, notIndexed(q.field)
	case f.typ == "dense_vector":
		return nil, unsupportedOn("term", q.field, f)
	case f.typ != "text" && f.typ != "keyword":
		return nil, notImplemented("term on the %s field [%s]", f.typ, q.field)
	}
	return func(d *doc) (float64, bool) { return 1, slices.Contains(d.terms[q.field], q.value) }, nil
}

// rangeQuery matches a number within its bounds: gte, gt, lte and lt.
type rangeQuery struct {
	field  string
	bounds map[string]float64
}

func parseRange(raw any) (query, *esError) {
	name, v, e := singleField("range", raw)
	if e != nil {
		return nil, e
	}
	opts, ok := v.(map[string]any)
	if !ok {
		return nil, parsing("[range] query malformed, after field missing start object")
	}
	e = queryKeys("range", opts, []string{"gte", "gt", "lte", "lt"},
		"from", "to", "include_lower", "include_upper", "format", "relation", "time_zone", "boost", "_name")
	if e != nil {
		return nil, e
	}
	q := &rangeQuery{field: name, bounds: map[string]float64{}}
	for _, k := range sortedKeys(opts) {
		n, ok := opts[k].(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			return nil, notImplemented("range bound [%s] that is not a number", k)
		}
		q.bounds[k] = f
	}
	return q, nil
}

func (q *rangeQuery) prepare(ix *index) (scorer, *esError) {
	f := ix.fields[q.field]
	switch {
	case f == nil:
		return func(*doc) (float64, bool) { return 0, false }, nil
	case f.typ == "dense_vector":
		return nil, unsupportedOn("range", q.field, f)
	case !slices.Contains(numericTypes, f.typ):
		return nil, notImplemented("range on the %s field [%s]", f.typ, q.field)
	}
	within := func(n float64) bool {
		for op, b := range q.bounds {
			if !map[string]bool{"gte": n >= b, "gt": n > b, "lte": n <= b, "lt": n < b}[op] {
				return false
			}
		}
		return true
	}
	return func(d *doc) (float64, bool) {
		return 1, slices.ContainsFunc(d.numbers[q.field], within)
	}, nil
}

// phraseQuery matches a text field whose terms hold the query's analysed
// terms one after the other (a keyword: its whole value). The position
// gaps a stop filter leaves are not modelled: "quick the fox" is the
// phrase "quick fox" here, where Lucene would match any word between.
type phraseQuery struct{ field, text string }

func parsePhrase(raw any) (query, *esError) {
	name, v, e := singleField("match_phrase", raw)
	if e != nil {
		return nil, e
	}
	if opts, ok := v.(map[string]any); ok {
		if e := queryKeys("match_phrase", opts, []string{"query"}, "slop", "analyzer", "zero_terms_query", "boost", "_name"); e != nil {
			return nil, e
		}
		v = opts["query"]
	}
	text, ok := scalar(v)
	if !ok {
		return nil, parsing("[match_phrase] unknown token [%s] after [query]", tokenName(v))
	}
	return &phraseQuery{field: name, text: text}, nil
}

func (q *phraseQuery) prepare(ix *index) (scorer, *esError) {
	f := ix.fields[q.field]
	var want []string
	switch {
	case f == nil:
		return func(*doc) (float64, bool) { return 0, false }, nil
	case f.typ == "keyword":
		want = []string{q.text}
	case f.typ == "text" && !f.indexed:
		return nil, notIndexed(q.field)
	case f.typ == "text":
		want = f.searchAnalyzer.analyze(q.text)
	default:
		return nil, notImplemented("match_phrase on the %s field [%s]", f.typ, q.field)
	}
	if len(want) == 0 { // zero_terms_query none
		return func(*doc) (float64, bool) { return 0, false }, nil
	}
	return func(d *doc) (float64, bool) {
		terms, n := d.terms[q.field], 0
		for i := 0; i+len(want) <= len(terms); i++ {
			if slices.Equal(terms[i:i+len(want)], want) {
				n++
			}
		}
		return float64(n), n > 0
	}, nil
}

// knnSearch is a search body's top-level knn section.
type knnSearch struct {
	field         string
	vector        []float32
	k, candidates int
	filters       []query
}

// floatArray reads a JSON array of numbers as float32s, the precision
// Elasticsearch keeps vectors in; false when v is not one.
func floatArray(v any) ([]float32, bool) {
	arr, ok := v.([]any)
	out := make([]float32, len(arr))
	for i, x := range arr {
		n, isNum := x.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil {
			return nil, false
		}
		out[i] = float32(f)
	}
	return out, ok
}

// maxCandidates is num_candidates' limit (KnnSearchBuilder.NUM_CANDS_LIMIT).
const maxCandidates = 10000

// parseKnn reads the knn section: field and query_vector required; k
// (default: the search's size is not modelled, so required here),
// num_candidates (default min(1.5 k, 10000)), filter (a query or an array).
func parseKnn(raw any) (*knnSearch, *esError) {
	if arr, isArray := raw.([]any); isArray {
		// An array of knn searches, as the official Go client sends one.
		if len(arr) != 1 {
			return nil, notImplemented("%d knn searches in one request (one is modelled)", len(arr))
		}
		raw = arr[0]
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, parsing("[knn] failed to parse field [knn]")
	}
	e := bodyKeys("knn", obj, []string{"field", "query_vector", "k", "num_candidates", "filter"},
		[]string{"similarity", "boost", "_name", "inner_hits", "rescore_vector", "query_vector_builder"}, "[%s] unknown field [%s]")
	if e != nil {
		return nil, e
	}
	s := &knnSearch{}
	s.field, _ = obj["field"].(string)
	if v, has := obj["query_vector"]; has {
		if s.vector, ok = floatArray(v); !ok {
			return nil, parsing("[knn] failed to parse field [query_vector]")
		}
	}
	for _, p := range []struct {
		key string
		dst *int
	}{{"k", &s.k}, {"num_candidates", &s.candidates}} {
		if v, has := obj[p.key]; has {
			if *p.dst, ok = intValue(v); !ok {
				return nil, parsing("[knn] failed to parse field [%s]", p.key)
			}
		}
	}
	if v, has := obj["filter"]; has {
		if s.filters, e = clauseList(v); e != nil {
			return nil, e
		}
	}
	switch {
	case s.field == "":
		return nil, badRequest("illegal_argument_exception", "[knn] requires field [field] to be configured")
	case len(s.vector) == 0:
		return nil, badRequest("illegal_argument_exception", "either [query_vector] or [query_vector_builder] must be provided")
	case obj["k"] == nil:
		return nil, notImplemented("knn without k (it defaults to the search's size)")
	case s.k < 1:
		return nil, badRequest("illegal_argument_exception", "[k] must be greater than 0")
	}
	if obj["num_candidates"] == nil {
		s.candidates = min(int(math.Ceil(1.5*float64(s.k))), maxCandidates)
	}
	switch {
	case s.candidates > maxCandidates:
		return nil, badRequest("illegal_argument_exception", "[num_candidates] cannot exceed [%d]", maxCandidates)
	case s.candidates < s.k:
		return nil, badRequest("illegal_argument_exception", "[num_candidates] cannot be less than [k]")
	}
	return s, nil
}

// run is the k nearest documents that pass every filter, by exact cosine
// similarity, scored (1 + cosine) / 2 as Elasticsearch scores cosine: the
// answer an HNSW search approximates, filtered before the k are chosen (a
// pre-filter). The caller holds ix.mu.
func (s *knnSearch) run(ix *index) ([]hit, *esError) {
	f := ix.fields[s.field]
	switch {
	case f == nil:
		return nil, badRequest("query_shard_exception", "failed to create query: field [%s] does not exist in the mapping", s.field)
	case f.typ != "dense_vector":
		return nil, badRequest("query_shard_exception", "failed to create query: [knn] queries are only supported on [dense_vector] fields")
	case !f.indexed:
		return nil, badRequest("query_shard_exception",
			"failed to create query: to perform knn search on field [%s], its mapping must have [index] set to [true]", s.field)
	case len(s.vector) != f.dims:
		return nil, badRequest("query_shard_exception",
			"failed to create query: The query vector has a different number of dimensions [%d] than the document vectors [%d].", len(s.vector), f.dims)
	}
	if fakekit.Dot(s.vector, s.vector) == 0 {
		return nil, badRequest("query_shard_exception", "failed to create query: The [cosine] similarity does not support vectors with zero magnitude.")
	}
	filters, e := prepareAll(ix, s.filters)
	if e != nil {
		return nil, e
	}
	var hits []hit
	for _, d := range ix.visible {
		v := d.vectors[s.field]
		if v == nil || !passes(filters, d) {
			continue
		}
		hits = append(hits, hit{d, (1 + fakekit.Cosine(s.vector, v)) / 2})
	}
	sortHits(hits)
	return hits[:min(len(hits), s.k)], nil
}

// searchHits is a search's matches, best first: the query's; with a knn
// section, the knn's k nearest, and with a query too, the union of both,
// a document's score the sum of its query and knn scores (Elasticsearch's
// hybrid of query and knn in one request).
func (ix *index) searchHits(req *searchRequest) ([]hit, *esError) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if req.knn == nil {
		return ix.runLocked(req.q)
	}
	nearest, e := req.knn.run(ix)
	if e != nil {
		return nil, e
	}
	if !req.hasQuery {
		return nearest, nil
	}
	matched, e := ix.runLocked(req.q)
	if e != nil {
		return nil, e
	}
	byID := map[string]int{}
	for i, h := range matched {
		byID[h.doc.id] = i
	}
	for _, h := range nearest {
		if i, ok := byID[h.doc.id]; ok {
			matched[i].score += h.score
		} else {
			matched = append(matched, h)
		}
	}
	sortHits(matched)
	return matched, nil
}

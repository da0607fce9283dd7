package typesensefake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// vectorQuery is a parsed vector_query: field:([v1, v2, …], k:N, alpha:A).
type vectorQuery struct {
	field fieldDef
	vec   []float64
	k     int     // 0: the pages' worth
	ef    int     // 0: not given; the fake's exact answer does not use it
	alpha float64 // the vector ranking's weight in a hybrid search
}

// defaultAlpha is the weight of the vector ranking in Typesense's rank
// fusion (vector-search.md, "Hybrid Search": 0.7 keyword, 0.3 semantic).
const defaultAlpha = 0.3

// vectorQueryRE is what follows the field's name in a vector_query:
// ([values], params), the values and the params captured, trimmed.
var vectorQueryRE = regexp.MustCompile(`^\s*\(\s*\[([^\]]*)\]\s*(.*?)\s*\)\s*$`)

// parseVectorQuery reads vector_query as Typesense 29.0 does
// (VectorQueryOps::parse_vector_query_str in src/vector_query_ops.cpp, the
// checks of Collection::search in src/collection.cpp): a vector field of the
// schema, a vector of its num_dim, and parameters of which the fake models
// k and alpha (the others — ef, flat_search_cutoff, distance_threshold,
// id, queries — are answered 501).
func parseVectorQuery(c *collection, s string) (*vectorQuery, reply, bool) {
	malformed := errorf(http.StatusBadRequest, "Malformed vector query string.")
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		return nil, malformed, false
	}
	name = strings.TrimSpace(name)
	f, ok := c.field(name)
	if !ok || f.Type != "float[]" || f.NumDim == 0 {
		return nil, errorf(http.StatusBadRequest, "Field `%s` does not have a vector query index.", name), false
	}
	m := vectorQueryRE.FindStringSubmatch(rest)
	switch {
	case m == nil:
		return nil, malformed, false
	case strings.TrimSpace(m[1]) == "":
		return nil, errorf(http.StatusNotImplemented, "typesensefake: a vector query without a vector (the embedding of q or of a document) is not modelled"), false
	}
	vq := &vectorQuery{field: f, alpha: defaultAlpha}
	for _, v := range strings.Split(m[1], ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "Malformed vector query string: one of the vector values is not a float."), false
		}
		vq.vec = append(vq.vec, x)
	}
	if len(vq.vec) != f.NumDim {
		return nil, errorf(http.StatusBadRequest, "Query field `%s` must have %d dimensions.", name, f.NumDim), false
	}
	if params := m[2]; params != "" {
		params, ok := strings.CutPrefix(params, ",")
		if !ok {
			return nil, malformed, false
		}
		if rep, ok := vq.parseParams(params); !ok {
			return nil, rep, false
		}
	}
	return vq, reply{}, true
}

// parseParams reads the parameters after the vector, "k:N, alpha:A, ef:E",
// of which the fake models k and alpha, and reads ef as Typesense 29.0's
// parser does (src/vector_query_ops.cpp: a positive 32-bit integer) for the
// driver's knob, to record it: its answer is exact whatever ef says.
func (vq *vectorQuery) parseParams(params string) (reply, bool) {
	malformed := errorf(http.StatusBadRequest, "Malformed vector query string.")
	for _, kv := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return malformed, false
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "k":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return malformed, false
			}
			vq.k = int(n)
		case "ef":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil || n == 0 {
				return errorf(http.StatusBadRequest, "Malformed vector query string: `ef` parameter must be a positive integer."), false
			}
			vq.ef = int(n)
		case "alpha":
			a, err := strconv.ParseFloat(v, 64)
			if err != nil || a < 0 || a > 1 {
				return malformed, false
			}
			vq.alpha = a
		default:
			return errorf(http.StatusNotImplemented, "typesensefake: vector_query parameter %s is not modelled", k), false
		}
	}
	return reply{}, true
}

// nearest is the kNN: the documents that pass the filters (a pre-filter:
// Typesense hands the filter's result to the HNSW search), ranked by
// the field's vector distance (vectorDistance), exactly (where Typesense's
// HNSW is approximate), at most k of them, or, without k, as many as the
// pages up to this one hold (Index::search in src/index.cpp at v29.0).
func (c *collection) nearest(p *searchParams) []candidate {
	var out []candidate
	for _, d := range c.docs {
		v, ok := d.vectors[p.vq.field.Name]
		if !ok || !passes(d, p.filters) {
			continue
		}
		dist := vectorDistance(p.vq.field.VecDist, p.vq.vec, v)
		out = append(out, candidate{d: d, dist: &dist, inField: len(p.queryBy)})
	}
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Or(cmp.Compare(*a.dist, *b.dist), newestFirst(a, b)) })
	k := p.vq.k
	if k == 0 {
		k = p.page * p.perPage
	}
	return out[:min(len(out), k)]
}

// vectorDistance is a hit's vector_distance as Typesense 29.0 computes it
// (Index::search, process_results_hnsw_index and
// process_results_bruteforce in src/index.cpp): every vector index is an
// hnswlib InnerProductSpace, whose distance is 1 − dot (hnswlib's
// space_ip.h, InnerProductDistance). Under cosine both vectors are
// normalised first (hnsw_index_t::normalize_vector, a zero vector staying
// zero) and the distance is its absolute value, |1 − cos|, in [0, 2];
// under ip they are taken as they are, so the distance is 1 − dot,
// negative for an inner product above 1, and the largest inner product is
// the nearest.
func vectorDistance(vecDist string, q, v []float64) float64 {
	if vecDist == "ip" {
		return 1 - fakekit.Dot(q, v)
	}
	return math.Abs(1 - fakekit.Cosine(q, v))
}

// fuse is Typesense's hybrid ranking: each document's score is
// (1-alpha)/(its keyword rank+1) + alpha/(its vector rank+1), ranks from
// 0, a document missing from one ranking scoring 0 there
// (vector-search.md "Hybrid Search"; Index::search in src/index.cpp).
func fuse(text, vec []candidate, alpha float64) []candidate {
	score := map[*document]float64{}
	byDoc := map[*document]candidate{}
	for i, cd := range text {
		score[cd.d] += (1 - alpha) / float64(i+1)
		byDoc[cd.d] = cd
	}
	for i, cd := range vec {
		score[cd.d] += alpha / float64(i+1)
		if t, ok := byDoc[cd.d]; ok {
			t.dist = cd.dist
			cd = t
		}
		byDoc[cd.d] = cd
	}
	out := slices.Collect(maps.Values(byDoc))
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Or(cmp.Compare(score[b.d], score[a.d]), newestFirst(a, b)) })
	return out
}

// newestFirst puts the newest document first, as the text ranking breaks
// ties.
func newestFirst(a, b candidate) int { return cmp.Compare(b.d.seq, a.d.seq) }

// coerceVector checks a float[] value with num_dim as Typesense's
// validator does: an array of numbers of exactly num_dim, which the
// document keeps as numbers.
func coerceVector(f fieldDef, v any) ([]float64, int, string) {
	arr, ok := v.([]any)
	if !ok {
		return nil, http.StatusBadRequest, "Field `" + f.Name + "` must be an array of float."
	}
	if len(arr) != f.NumDim {
		return nil, http.StatusBadRequest, "Field `" + f.Name + "` must have " + strconv.Itoa(f.NumDim) + " dimensions."
	}
	vec := make([]float64, len(arr))
	for i, e := range arr {
		n, ok := e.(json.Number)
		x, err := n.Float64()
		if !ok || err != nil {
			return nil, http.StatusBadRequest, "Field `" + f.Name + "` must be an array of float."
		}
		vec[i] = x
	}
	return vec, 0, ""
}

// multiSearch is POST /multi_search (core_api.cpp post_multi_search): each
// search in the body's "searches" is its parameters (over the query
// string's, which every search shares) and a "collection"; the answer is
// 200 with one result a search, the search's answer or, for a search that
// failed, {"code": status, "error": message}.
func (s *Server) multiSearch(r *http.Request, body []byte) reply {
	var req struct {
		Searches *[]map[string]any `json:"searches"`
		Union    bool              `json:"union"`
	}
	if err := fakekit.DecodeJSON(body, &req); err != nil {
		return errorf(http.StatusBadRequest, "Bad JSON.")
	}
	switch {
	case req.Searches == nil:
		return errorf(http.StatusBadRequest, "Missing `searches` array.")
	case req.Union:
		return errorf(http.StatusNotImplemented, "typesensefake: union multi_search is not modelled")
	}
	common := r.URL.Query()
	s.mu.RLock()
	defer s.mu.RUnlock()
	results := make([]json.RawMessage, 0, len(*req.Searches))
	for _, search := range *req.Searches {
		results = append(results, s.oneSearch(common, search))
	}
	return jsonReply(http.StatusOK, map[string]any{"results": results})
}

// oneSearch is one search of a multi_search, as its result; callers hold
// s.mu for reading.
func (s *Server) oneSearch(common url.Values, search map[string]any) json.RawMessage {
	params := maps.Clone(common) // Set and Del below replace values, never change them
	for k, v := range search {
		x, ok := fakekit.Scalar(v)
		if !ok {
			return failed(errorf(http.StatusBadRequest, "Parameter `%s` must be a string, number or boolean.", k))
		}
		params.Set(k, x)
	}
	name := params.Get("collection")
	params.Del("collection")
	rep := s.searchIn(name, params)
	if rep.status != http.StatusOK {
		return failed(rep)
	}
	return json.RawMessage(bytes.Clone(rep.body))
}

// failed turns an error reply into a multi_search result.
func failed(rep reply) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"code": rep.status, "error": rep.message})
	return b
}

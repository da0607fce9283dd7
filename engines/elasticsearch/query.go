package elasticsearch

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/engines"
)

// The product workload's searches (Study B): the shapes of engines.Query
// beyond the text corpus's free text, as one search body each. The pieces
// are written in the official client's form (typedapi/types of
// go-elasticsearch v8.19: a TermQuery's value object, a MatchPhraseQuery's
// query object, a NumberRangeQuery's gte and lte, a KnnSearch), which
// TestProductBodies compares with the client's own types.

// checkQuery is the check CheckQuery and Search share: nil, or an error
// wrapping engines.ErrUnsupported that says why the index, as the schema
// and the options make it, cannot answer q's shape. The values (the
// vector's length, a range's bounds) are the query's own business: the
// server (or buildSearch) refuses those.
func (m *mapping) checkQuery(q engines.Query) error {
	for _, f := range q.Filters {
		if _, err := m.filterClause(f); err != nil && errors.Is(err, engines.ErrUnsupported) {
			return err
		}
	}
	if q.Field != "" {
		if _, err := m.lookupClause(q.Field, q.Text); err != nil {
			return err
		}
	}
	if q.Vector != nil {
		switch {
		case m.vector == "":
			return fmt.Errorf("kNN: %w: the schema has no vector field", engines.ErrUnsupported)
		case !m.indexed[m.vector]:
			return fmt.Errorf("kNN: %w: the vector field %s is not indexed (option fields)", engines.ErrUnsupported, m.vector)
		}
	}
	// Text without a Field is a full-text search (alone or in a hybrid), as
	// is a query with nothing else: the text corpus's empty search.
	fullText := q.Field == "" && (q.Text != "" || (q.Vector == nil && len(q.Filters) == 0))
	if fullText && len(m.text) == 0 {
		return fmt.Errorf("full-text search: %w: no text field is indexed (option fields)", engines.ErrUnsupported)
	}
	return nil
}

// filterClause is one filter as a query clause: a term on a keyword field
// (equality), a range on a double (Min ≤ value ≤ Max, both inclusive).
func (m *mapping) filterClause(f engines.Filter) (map[string]any, error) {
	t, ok := m.types[f.Field]
	switch {
	case !ok:
		return nil, fmt.Errorf("filter on %s: %w: the schema has no such field", f.Field, engines.ErrUnsupported)
	case t != engines.Tag && t != engines.Numeric:
		return nil, fmt.Errorf("filter on %s: %w: a %s field is not filterable (tag and numeric only)", f.Field, engines.ErrUnsupported, t)
	case !m.indexed[f.Field]:
		// A keyword or double with "index": false still answers from doc
		// values, by a scan: not the index the run measures.
		return nil, fmt.Errorf("filter on %s: %w: the field is not indexed (option fields)", f.Field, engines.ErrUnsupported)
	case t == engines.Tag:
		return map[string]any{"term": map[string]any{f.Field: map[string]any{"value": f.Tag}}}, nil
	case f.Min > f.Max:
		return nil, fmt.Errorf("filter on %s: the range [%g, %g] is empty", f.Field, f.Min, f.Max)
	}
	return map[string]any{"range": map[string]any{f.Field: map[string]any{"gte": f.Min, "lte": f.Max}}}, nil
}

// lookupClause is the exact lookup of text in one field (Query.Field):
// Valkey's semantics, as the package doc says — a keyword's value equals
// text (term); a text field holds text's words as a phrase (match_phrase),
// on the exact sub-field where option exact made one (stop words kept, no
// stemming), else on the field itself.
func (m *mapping) lookupClause(field, text string) (map[string]any, error) {
	t, ok := m.types[field]
	switch {
	case !ok:
		return nil, fmt.Errorf("lookup in %s: %w: the schema has no such field", field, engines.ErrUnsupported)
	case t == engines.Tag && m.indexed[field]:
		return map[string]any{"term": map[string]any{field: map[string]any{"value": text}}}, nil
	case t == engines.Text && m.exact:
		return matchPhrase(field+"."+ExactSubField, text), nil
	case t == engines.Text && m.indexed[field]:
		return matchPhrase(field, text), nil
	case t == engines.Tag || t == engines.Text:
		return nil, fmt.Errorf("lookup in %s: %w: the field is not indexed (options fields and exact)", field, engines.ErrUnsupported)
	}
	return nil, fmt.Errorf("lookup in %s: %w: a %s field has no words to look up", field, engines.ErrUnsupported, t)
}

func matchPhrase(field, text string) map[string]any {
	return map[string]any{"match_phrase": map[string]any{field: map[string]any{"query": text}}}
}

// knnSection is the search body's top-level knn (types.KnnSearch): the k
// nearest among the documents that pass every filter, which Elasticsearch
// applies during the HNSW search (a pre-filter), not after it.
type knnSection struct {
	Field         string           `json:"field"`
	QueryVector   []float32        `json:"query_vector"`
	K             int              `json:"k"`
	NumCandidates int              `json:"num_candidates"`
	Filter        []map[string]any `json:"filter,omitempty"`
}

// numCandidates is a kNN's num_candidates: the query's knob, else the
// option's, else max(10×k, 100) up to MaxNumCandidates.
func numCandidates(q engines.Query, o options) int {
	switch {
	case q.Knob > 0:
		return q.Knob
	case o.numCandidates > 0:
		return o.numCandidates
	}
	return min(max(10*q.K, 100), MaxNumCandidates)
}

// Knob is num_candidates: how many candidates each shard's HNSW search
// gathers before the top k are kept (KnnSearchBuilder.java in
// Elasticsearch 8.19: at least k, NUM_CANDS_LIMIT 10,000). The driver's
// default is not Elasticsearch's 1.5 × k but max(10 × k, 100), the
// driver's documented choice (package doc, option num_candidates).
var Knob = engines.Knob{
	Name: "num_candidates", Min: 1, Max: MaxNumCandidates, AtLeastK: true,
	Default: "max(10 × k, 100), at most 10,000 (the driver's; Elasticsearch's own is 1.5 × k)",
	Trades:  "more candidates per shard find more of the true nearest neighbours and visit more of each segment's graph",
	Source:  "Elasticsearch 8.19 server/src/main/java/org/elasticsearch/search/vectors/KnnSearchBuilder.java (NUM_CANDS_LIMIT, NUM_CANDS_MULTIPLICATIVE_FACTOR)",
}

// buildSearch is a search's body (after checkQuery):
//   - Text alone: searchBody's multi_match, the text corpus's request.
//   - Filters: a bool query, the text (or lookup) in must, the filters in
//     filter (not scored).
//   - Field: the lookup clause (lookupClause) as the query.
//   - Vector: a top-level knn section with the filters (and a Field lookup)
//     in its filter; with Text, a hybrid: the text's query beside the knn
//     section, with the same filters, and Elasticsearch adds the two
//     scores of a document (its free form of hybrid search: RRF needs an
//     Enterprise licence in 8.19, see the package doc).
func (m *mapping) buildSearch(q engines.Query, o options) ([]byte, error) {
	if q.Vector == nil && q.Field == "" && len(q.Filters) == 0 {
		return searchBody(q, m.text, o)
	}
	var filters []map[string]any
	for _, f := range q.Filters {
		c, err := m.filterClause(f)
		if err != nil {
			return nil, err
		}
		filters = append(filters, c)
	}
	var must map[string]any
	switch {
	case q.Field != "":
		c, err := m.lookupClause(q.Field, q.Text)
		if err != nil {
			return nil, err
		}
		if q.Vector != nil {
			// A lookup beside a vector narrows the kNN: one more filter.
			filters = append(filters, c)
		} else {
			must = c
		}
	case q.Text != "":
		must = map[string]any{"multi_match": multiMatch{Query: q.Text, Fields: m.text, Type: "most_fields", Fuzziness: o.fuzziness}}
	}
	body := map[string]any{"size": q.K, "track_total_hits": o.trackTotalHits, "_source": false}
	if q.Vector != nil {
		nc := numCandidates(q, o)
		switch {
		case q.K < 1:
			return nil, fmt.Errorf("k=%d: a kNN search needs k ≥ 1", q.K)
		case q.K > nc:
			return nil, fmt.Errorf("k=%d is more than num_candidates %d", q.K, nc)
		}
		// An array of one, as the official client's search.Request
		// sends its Knn ([]types.KnnSearch).
		body["knn"] = []knnSection{{Field: m.vector, QueryVector: q.Vector, K: q.K, NumCandidates: nc, Filter: filters}}
		if must == nil {
			return json.Marshal(body)
		}
	}
	switch {
	case len(filters) == 0:
		body["query"] = must
	case must == nil:
		body["query"] = map[string]any{"bool": map[string]any{"filter": filters}}
	default:
		body["query"] = map[string]any{"bool": map[string]any{"must": []any{must}, "filter": filters}}
	}
	return json.Marshal(body)
}

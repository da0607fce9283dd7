package esfake_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
)

// productIndex is a product index as the driver makes it: keyword, double,
// text with a multi-field, and a 2-dimensional HNSW vector; unindexed
// is a second vector with index false.
func productIndex() map[string]any {
	return map[string]any{
		"settings": map[string]any{"index": map[string]any{"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1"},
			"analysis": map[string]any{
				"filter":   map[string]any{"en_stop": map[string]any{"type": "stop", "stopwords": "_english_"}},
				"analyzer": map[string]any{"en": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase", "en_stop"}}, "exact": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase"}}},
			}},
		"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
			"category": map[string]any{"type": "keyword"},
			"price":    map[string]any{"type": "double"},
			"sku": map[string]any{"type": "text", "analyzer": "en",
				"fields": map[string]any{"exact": map[string]any{"type": "text", "analyzer": "exact"}}},
			"hidden": map[string]any{"type": "text", "index": false},
			"v": map[string]any{"type": "dense_vector", "dims": 2, "index": true, "similarity": "cosine",
				"index_options": map[string]any{"type": "hnsw", "m": 16, "ef_construction": 100}},
			"unindexed": map[string]any{"type": "dense_vector", "dims": 2, "index": false},
		}},
	}
}

func product(category string, price float64, sku string, v []float64) map[string]any {
	return map[string]any{"category": category, "price": price, "sku": sku, "hidden": sku, "v": v, "unindexed": v}
}

func knnBody(k, candidates int, filter any) map[string]any {
	knn := map[string]any{"field": "v", "query_vector": []float64{1, 0}, "k": k, "num_candidates": candidates}
	if filter != nil {
		knn["filter"] = filter
	}
	return map[string]any{"size": 10, "_source": false, "knn": []any{knn}}
}

func TestVectorMapping(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/p", productIndex())
	m := c.ok("GET", "/p/_mapping", nil).body["p"].(map[string]any)["mappings"].(map[string]any)["properties"].(map[string]any)
	if _, ok := m["sku.exact"]; ok || len(m) != 6 {
		t.Fatalf("mapping echoes %v: a multi-field belongs in its parent", m)
	}
	for what, field := range map[string]map[string]any{
		"similarity without index": {"type": "dense_vector", "dims": 2, "index": false, "similarity": "cosine"},
		"index_options without index": {"type": "dense_vector", "dims": 2, "index": false,
			"index_options": map[string]any{"type": "hnsw"}},
	} {
		r := c.do("PUT", "/bad", map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": field}}})
		wantError(t, what, r, 400, "mapper_parsing_exception")
	}
	// What the driver never maps is the fake's refusal, not Elasticsearch's.
	for what, field := range map[string]map[string]any{
		"unknown option": {"type": "dense_vector", "dims": 2, "index_options": map[string]any{"type": "hnsw", "x": 1}},
		"no dims":        {"type": "dense_vector"},
		"float field":    {"type": "float"},
	} {
		r := c.do("PUT", "/bad", map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": field}}})
		if wantError(t, what, r, 400, "illegal_argument_exception"); !strings.HasPrefix(reason(r), "esfake:") {
			t.Errorf("%s: %s; want the fake's refusal", what, reason(r))
		}
	}
}

func TestVectorDocuments(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/p", productIndex())
	for what, v := range map[string]any{
		"3 dimensions of 2": []float64{1, 2, 3},
		"zero for cosine":   []float64{0, 0},
		"not an array":      "1,2",
	} {
		d := product("a", 1, "x", nil)
		d["v"] = v
		wantError(t, what, c.do("PUT", "/p/_doc/1", d), 400, "document_parsing_exception")
	}
	// index false: no similarity, so a zero vector is stored.
	d := product("a", 1, "x", []float64{1, 0})
	d["unindexed"] = []float64{0, 0}
	c.ok("PUT", "/p/_doc/1", d)
}

// The kNN is a pre-filter: with the nearest documents all in category a,
// a filter on b still returns k documents of b, nearest first; a range is
// inclusive; a query beside the knn adds its matches and its score.
func TestKnn(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/p", productIndex())
	for id, p := range map[string]map[string]any{
		"a1": product("a", 10, "IT-500", []float64{1, 0.01}),
		"a2": product("a", 20, "TO-500", []float64{1, 0.02}),
		"a3": product("a", 30, "IT-5000", []float64{1, 0.03}),
		"b1": product("b", 40, "BE-1", []float64{0.5, 1}),
		"b2": product("b", 50, "BE-2", []float64{0.1, 1}),
		"b3": product("b", 60, "BE-3", []float64{-1, 0.1}),
	} {
		c.ok("PUT", "/p/_doc/"+id, p)
	}
	c.ok("POST", "/p/_refresh", nil)
	ids := func(body map[string]any) []string {
		t.Helper()
		return hitIDs(t, c.ok("POST", "/p/_search", body))
	}
	if got := ids(knnBody(2, 10, nil)); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("knn k=2: %v", got)
	}
	// num_candidates, the driver's knob, within Elasticsearch's bounds.
	for _, bad := range []struct {
		k, candidates int
		reason        string
	}{{2, 10001, "[num_candidates] cannot exceed [10000]"}, {3, 2, "[num_candidates] cannot be less than [k]"}} {
		r := c.do("POST", "/p/_search", knnBody(bad.k, bad.candidates, nil))
		if wantError(t, bad.reason, r, 400, "illegal_argument_exception"); reason(r) != bad.reason {
			t.Errorf("k=%d num_candidates=%d: %q, want %q", bad.k, bad.candidates, reason(r), bad.reason)
		}
	}
	term := map[string]any{"term": map[string]any{"category": map[string]any{"value": "b"}}}
	if got := ids(knnBody(2, 10, []any{term})); !slices.Equal(got, []string{"b1", "b2"}) {
		t.Fatalf("knn filtered on b: %v; want the 2 nearest of b", got)
	}
	rng := map[string]any{"range": map[string]any{"price": map[string]any{"gte": 20, "lte": 40}}}
	if got := ids(knnBody(5, 10, []any{rng})); !slices.Equal(got, []string{"a2", "a3", "b1"}) {
		t.Fatalf("knn with price in [20, 40]: %v", got)
	}
	// Hybrid: the union of the query's matches and the knn's k nearest,
	// a document's two scores added up.
	hybrid := knnBody(1, 10, nil)
	hybrid["query"] = map[string]any{"match_phrase": map[string]any{"sku": map[string]any{"query": "BE-1"}}}
	if got := ids(hybrid); !slices.Equal(got, []string{"b1", "a1"}) {
		t.Fatalf("hybrid, k=1: %v; want the query's b1 (score 1) and the knn's a1 (score < 1)", got)
	}
	hybrid = knnBody(6, 10, nil)
	hybrid["query"] = map[string]any{"match_phrase": map[string]any{"sku": map[string]any{"query": "BE-3"}}}
	if got := ids(hybrid); !slices.Equal(got, []string{"b3", "a1", "a2", "a3", "b1", "b2"}) {
		t.Fatalf("hybrid, k=6: %v; want b3 (both scores) first, then by cosine", got)
	}
	// The exact sub-field keeps the stop word "it"; the english field
	// loses it, so IT-500 also finds TO-500 there.
	phrase := func(field, text string) []string {
		return ids(map[string]any{"_source": false, "query": map[string]any{"match_phrase": map[string]any{field: map[string]any{"query": text}}}})
	}
	if got := phrase("sku.exact", "IT-500"); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("sku.exact IT-500: %v", got)
	}
	if got := phrase("sku", "IT-500"); len(got) != 2 || !slices.Contains(got, "a1") || !slices.Contains(got, "a2") {
		t.Fatalf("sku IT-500 (stop word dropped): %v; want a1 and a2", got)
	}
	boolQ := map[string]any{"_source": false, "query": map[string]any{"bool": map[string]any{"filter": []any{term, rng}}}}
	if got := ids(boolQ); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("bool of filters: %v", got)
	}

	knn := func(field string, v []float64) map[string]any {
		return map[string]any{"_source": false, "knn": []any{map[string]any{"field": field, "query_vector": v, "k": 1, "num_candidates": 10}}}
	}
	for what, body := range map[string]map[string]any{
		"knn wrong dimension": knn("v", []float64{1, 0, 0}),
		"knn zero vector":     knn("v", []float64{0, 0}),
	} {
		wantError(t, what, c.do("POST", "/p/_search", body), 400, "search_phase_execution_exception")
	}
	for what, body := range map[string]map[string]any{
		"knn on index false":    knn("unindexed", []float64{1, 0}),
		"knn on a keyword":      knn("category", []float64{1, 0}),
		"phrase on index false": {"_source": false, "query": map[string]any{"match_phrase": map[string]any{"hidden": map[string]any{"query": "x"}}}},
		"knn without k":         {"_source": false, "knn": []any{map[string]any{"field": "v", "query_vector": []float64{1, 0}, "num_candidates": 10}}},
	} {
		r := c.do("POST", "/p/_search", body)
		if wantError(t, what, r, 400, "illegal_argument_exception"); !strings.HasPrefix(reason(r), "esfake:") {
			t.Errorf("%s: %s; want the fake's refusal", what, reason(r))
		}
	}
}

// similarityIndex is an index of one 2-dimensional HNSW vector v of the
// given similarity.
func similarityIndex(sim string) map[string]any {
	return map[string]any{"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
		"v": map[string]any{"type": "dense_vector", "dims": 2, "index": true, "similarity": sim,
			"index_options": map[string]any{"type": "hnsw", "m": 16, "ef_construction": 100}},
	}}}
}

// A mapping takes the four similarities Elasticsearch 8.19 has and refuses
// any other as its mapper does (FieldMapper.Parameter.restrictedEnumParam's
// message, the values in VectorSimilarity's order).
func TestVectorSimilarityMapping(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	for _, sim := range []string{"l2_norm", "cosine", "dot_product", "max_inner_product"} {
		c.ok("PUT", "/"+sim, similarityIndex(sim))
		got := c.ok("GET", "/"+sim+"/_mapping", nil).body[sim].(map[string]any)["mappings"].(map[string]any)["properties"].(map[string]any)["v"].(map[string]any)["similarity"]
		if got != sim {
			t.Errorf("%s: the mapping echoes similarity %v", sim, got)
		}
	}
	for _, bad := range []any{"hamming", "L2_NORM", "dot", 1} {
		r := c.do("PUT", "/bad", similarityIndex(fmt.Sprint(bad)))
		wantError(t, fmt.Sprint(bad), r, 400, "mapper_parsing_exception")
		want := fmt.Sprintf("Failed to parse mapping: Unknown value [%v] for field [similarity] - accepted values are [l2_norm, cosine, dot_product, max_inner_product]", bad)
		if reason(r) != want {
			t.Errorf("similarity %v: %q, want %q", bad, reason(r), want)
		}
	}
}

// Each similarity ranks and scores as Elasticsearch documents it, and
// refuses the vectors Elasticsearch refuses: cosine a zero vector,
// dot_product one not of unit length; l2_norm and max_inner_product take
// both.
func TestVectorSimilarityScores(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	docs := map[string][]float64{"near": {0.9, 0.1}, "long": {5, 0}, "wide": {8, 6}, "back": {-3, 0}}
	query := func(v []float64) map[string]any {
		return map[string]any{"size": 10, "_source": false, "knn": []any{map[string]any{"field": "v", "query_vector": v, "k": 4, "num_candidates": 10}}}
	}
	type hit struct {
		id    string
		score float64
	}
	for _, c2 := range []struct {
		sim  string
		want []hit
	}{
		// l2_norm: 1 / (1 + l2²).
		{"l2_norm", []hit{{"near", 1 / (1 + 0.02)}, {"long", 1.0 / 17}, {"back", 1.0 / 17}, {"wide", 1.0 / 86}}},
		// max_inner_product: dot + 1, or 1 / (1 + −dot) when dot < 0.
		{"max_inner_product", []hit{{"wide", 9}, {"long", 6}, {"near", 1.9}, {"back", 0.25}}},
		// cosine: (1 + cos) / 2.
		{"cosine", []hit{{"long", 1}, {"near", (1 + 0.9/math.Sqrt(0.82)) / 2}, {"wide", 0.9}, {"back", 0}}},
	} {
		sim := c2.sim
		c.ok("PUT", "/"+strings.ReplaceAll(sim, "_", "-"), similarityIndex(sim))
		for id, v := range docs {
			c.ok("PUT", "/"+strings.ReplaceAll(sim, "_", "-")+"/_doc/"+id, map[string]any{"v": v})
		}
		c.ok("POST", "/"+strings.ReplaceAll(sim, "_", "-")+"/_refresh", nil)
		r := c.ok("POST", "/"+strings.ReplaceAll(sim, "_", "-")+"/_search", query([]float64{1, 0}))
		hits := r.body["hits"].(map[string]any)["hits"].([]any)
		if len(hits) != len(c2.want) {
			t.Fatalf("%s: %d hits (%s), want %d", sim, len(hits), r.raw, len(c2.want))
		}
		for i, w := range c2.want {
			h := hits[i].(map[string]any)
			score := h["_score"].(float64)
			// Ties (long and back under l2_norm) come in either order.
			if (h["_id"] != w.id && score != w.score) || math.Abs(score-w.score) > 1e-6 {
				t.Errorf("%s: hit %d is %v scored %v, want %s scored %v", sim, i, h["_id"], score, w.id, w.score)
			}
		}
	}
	// Zero vectors: refused by cosine only, in a document and in a query.
	zero := []float64{0, 0}
	wantError(t, "zero document under cosine", c.do("PUT", "/cosine/_doc/z", map[string]any{"v": zero}), 400, "document_parsing_exception")
	wantError(t, "zero query under cosine", c.do("POST", "/cosine/_search", query(zero)), 400, "search_phase_execution_exception")
	for _, index := range []string{"l2-norm", "max-inner-product"} {
		c.ok("PUT", "/"+index+"/_doc/z", map[string]any{"v": zero})
		c.ok("POST", "/"+index+"/_search", query(zero))
	}
	// dot_product: unit-length vectors only, scored (1 + dot) / 2.
	c.ok("PUT", "/dot", similarityIndex("dot_product"))
	c.ok("PUT", "/dot/_doc/unit", map[string]any{"v": []float64{0.6, 0.8}})
	for what, r := range map[string]response{
		"document": c.do("PUT", "/dot/_doc/long", map[string]any{"v": []float64{5, 0}}),
		"query":    c.do("POST", "/dot/_search", query([]float64{2, 0})),
	} {
		if r.status != 400 || !strings.Contains(string(r.raw), "The [dot_product] similarity can only be used with unit-length vectors.") {
			t.Errorf("dot_product, a %s vector of length 2 or 5: %d %s; want the unit-length refusal", what, r.status, r.raw)
		}
	}
	c.ok("POST", "/dot/_refresh", nil)
	r := c.ok("POST", "/dot/_search", query([]float64{1, 0}))
	if got := r.body["hits"].(map[string]any)["hits"].([]any)[0].(map[string]any)["_score"].(float64); math.Abs(got-0.8) > 1e-6 {
		t.Errorf("dot_product: _score %v, want (1 + 0.6) / 2", got)
	}
}

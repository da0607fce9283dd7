package elasticsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	essearch "github.com/elastic/go-elasticsearch/v8/typedapi/core/search"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/densevectorindexoptionstype"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/densevectorsimilarity"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/textquerytype"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

func ptr[T any](v T) *T { return &v }

// products is a small product corpus: every ID pre-populated.
func products(t *testing.T, ids, dim int) product.Products {
	t.Helper()
	p, err := dataset.NewProducts(dataset.Config{Seed: 7, IDs: ids, Prepopulate: 1}, dim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	return product.Products{Products: p}
}

// loadProducts creates the product index on e and writes every product.
func loadProducts(t *testing.T, e engines.Engine, src product.Products) {
	t.Helper()
	ctx := context.Background()
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	docs := make([]engines.Document, 0, src.IDs())
	for id := uint32(1); id <= uint32(src.IDs()); id++ {
		docs = append(docs, src.Document(id, 0))
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := e.(engines.Refresher).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

// decoded is v as JSON decodes it: what two requests are compared as.
func decoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if g, w := decoded(t, got), decoded(t, want); !reflect.DeepEqual(g, w) {
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// The product index's mapping is what the official client's typed
// properties say, under each option that shapes it.
func TestProductMapping(t *testing.T) {
	const dim = 8
	text := types.TextProperty{Analyzer: ptr(elasticsearch.AnalyzerName)}
	hnsw := func(m, efc int) types.DenseVectorProperty {
		return types.DenseVectorProperty{Dims: ptr(dim), Index: ptr(true), Similarity: &densevectorsimilarity.Cosine,
			IndexOptions: &types.DenseVectorIndexOptions{Type: densevectorindexoptionstype.Hnsw, M: ptr(m), EfConstruction: ptr(efc)}}
	}
	exactText := func(indexed bool) types.TextProperty {
		p := types.TextProperty{Fields: map[string]types.Property{
			elasticsearch.ExactSubField: types.TextProperty{Analyzer: ptr(elasticsearch.ExactAnalyzerName)},
		}}
		if indexed {
			p.Analyzer = ptr(elasticsearch.AnalyzerName)
		} else {
			p.Index = ptr(false)
		}
		return p
	}
	for _, c := range []struct {
		options map[string]string
		want    map[string]any
	}{
		{nil, map[string]any{
			"category": types.KeywordProperty{}, "price": types.DoubleNumberProperty{},
			"sku": text, "title": text, "description": text, "embedding": hnsw(16, 100),
		}},
		{map[string]string{"m": "32", "ef_construction": "200", "exact": "on"}, map[string]any{
			"category": types.KeywordProperty{}, "price": types.DoubleNumberProperty{},
			"sku": exactText(true), "title": exactText(true), "description": exactText(true), "embedding": hnsw(32, 200),
		}},
		{map[string]string{"fields": "tag,numeric", "exact": "on"}, map[string]any{
			"category": types.KeywordProperty{}, "price": types.DoubleNumberProperty{},
			"sku": exactText(false), "title": exactText(false), "description": exactText(false),
			"embedding": types.DenseVectorProperty{Dims: ptr(dim), Index: ptr(false)},
		}},
		{map[string]string{"fields": "text,vector"}, map[string]any{
			"category": types.KeywordProperty{Index: ptr(false)}, "price": types.DoubleNumberProperty{Index: ptr(false)},
			"sku": text, "title": text, "description": text, "embedding": hnsw(16, 100),
		}},
	} {
		f := fake(t, esfake.Options{})
		e := open(t, engines.Config{URL: f.URL(), Options: c.options})
		src := products(t, 20, dim)
		loadProducts(t, e, src)
		_, b := body(t, f, "PUT", "/product")
		sameJSON(t, fmt.Sprint(c.options), at(b, "mappings", "properties"), c.want)
		exact := at(b, "settings", "analysis", "analyzer", elasticsearch.ExactAnalyzerName)
		if want := c.options["exact"] == "on"; want != (exact != nil) {
			t.Errorf("%v: the exact analyzer is %v", c.options, exact)
		} else if want {
			sameJSON(t, "exact analyzer", exact, map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase"}})
		}
		// The index holds the documents as written: Get returns the
		// embedding float for float.
		d, err := e.Get(context.Background(), dataset.DocID(3))
		if err != nil {
			t.Fatal(err)
		}
		if want := src.Document(3, 0); !reflect.DeepEqual(d, want) {
			t.Errorf("%v: Get = %+v\nwant %+v", c.options, d, want)
		}
		// Attach accepts the index its own options make, and no other.
		if err := open(t, engines.Config{URL: f.URL(), Options: c.options}).Attach(context.Background(), src.Schema()); err != nil {
			t.Errorf("%v: attach: %v", c.options, err)
		}
		other := map[string]string{"m": "17"}
		if err := open(t, engines.Config{URL: f.URL(), Options: other}).Attach(context.Background(), src.Schema()); err == nil {
			t.Errorf("%v: attach with %v accepted", c.options, other)
		}
	}
}

// Every product search's body is the official client's essearch.Request for
// the same search (typedapi types), as the fake received it.
func TestProductSearchBodies(t *testing.T) {
	const dim = 4
	vec := []float32{0.5, -0.25, 0.125, 1}
	mm := func(text string) types.Query {
		return types.Query{MultiMatch: &types.MultiMatchQuery{Query: text, Fields: []string{"sku", "title", "description"},
			Type: &textquerytype.Mostfields, Fuzziness: "0"}}
	}
	term := func(f, v string) types.Query { return types.Query{Term: map[string]types.TermQuery{f: {Value: v}}} }
	rng := func(f string, lo, hi float64) types.Query {
		return types.Query{Range: map[string]types.RangeQuery{f: types.NumberRangeQuery{Gte: ptr(types.Float64(lo)), Lte: ptr(types.Float64(hi))}}}
	}
	phrase := func(f, v string) types.Query {
		return types.Query{MatchPhrase: map[string]types.MatchPhraseQuery{f: {Query: v}}}
	}
	knn := func(k, candidates int, filter ...types.Query) []types.KnnSearch {
		return []types.KnnSearch{{Field: "embedding", QueryVector: vec, K: ptr(k), NumCandidates: ptr(candidates), Filter: filter}}
	}
	req := func(k int, q *types.Query, kn []types.KnnSearch) essearch.Request {
		return essearch.Request{Size: ptr(k), TrackTotalHits: 10000, Source_: false, Query: q, Knn: kn}
	}
	toys := engines.Filter{Field: "category", Tag: "toys"}
	cheap := engines.Filter{Field: "price", Min: 1.5, Max: 99.99}
	for _, c := range []struct {
		what    string
		options map[string]string
		q       engines.Query
		want    essearch.Request
	}{
		{"knn", nil, engines.Query{Vector: vec, K: 10}, req(10, nil, knn(10, 100))},
		{"knn k=20", nil, engines.Query{Vector: vec, K: 20}, req(20, nil, knn(20, 200))},
		{"knn num_candidates=50", map[string]string{"num_candidates": "50"}, engines.Query{Vector: vec, K: 10}, req(10, nil, knn(10, 50))},
		// The knob (a sweep's value) is num_candidates, over the option.
		{"knn knob=40", nil, engines.Query{Vector: vec, K: 10, Knob: 40}, req(10, nil, knn(10, 40))},
		{"knn knob=300 over num_candidates=50", map[string]string{"num_candidates": "50"}, engines.Query{Vector: vec, K: 10, Knob: 300}, req(10, nil, knn(10, 300))},
		{"hybrid knob=20", nil, engines.Query{Text: "red chair", Vector: vec, K: 10, Knob: 20}, req(10, ptr(mm("red chair")), knn(10, 20))},
		{"knn-category", nil, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{toys}},
			req(10, nil, knn(10, 100, term("category", "toys")))},
		{"knn-price", nil, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{cheap}},
			req(10, nil, knn(10, 100, rng("price", 1.5, 99.99)))},
		{"sku", nil, engines.Query{Text: "IT-500", Field: "sku", K: 10}, req(10, ptr(phrase("sku", "IT-500")), nil)},
		{"sku exact", map[string]string{"exact": "on"}, engines.Query{Text: "IT-500", Field: "sku", K: 10},
			req(10, ptr(phrase("sku.exact", "IT-500")), nil)},
		{"tag lookup", nil, engines.Query{Text: "toys", Field: "category", K: 10}, req(10, ptr(term("category", "toys")), nil)},
		{"hybrid", nil, engines.Query{Text: "red chair", Vector: vec, K: 10}, req(10, ptr(mm("red chair")), knn(10, 100))},
		{"hybrid+filter", nil, engines.Query{Text: "red chair", Vector: vec, K: 10, Filters: []engines.Filter{toys, cheap}},
			req(10, &types.Query{Bool: &types.BoolQuery{Must: []types.Query{mm("red chair")},
				Filter: []types.Query{term("category", "toys"), rng("price", 1.5, 99.99)}}},
				knn(10, 100, term("category", "toys"), rng("price", 1.5, 99.99)))},
		{"text+filter", nil, engines.Query{Text: "red chair", K: 10, Filters: []engines.Filter{cheap}},
			req(10, &types.Query{Bool: &types.BoolQuery{Must: []types.Query{mm("red chair")}, Filter: []types.Query{rng("price", 1.5, 99.99)}}}, nil)},
		{"sku+filter", nil, engines.Query{Text: "IT-500", Field: "sku", K: 10, Filters: []engines.Filter{toys}},
			req(10, &types.Query{Bool: &types.BoolQuery{Must: []types.Query{phrase("sku", "IT-500")}, Filter: []types.Query{term("category", "toys")}}}, nil)},
		{"filter", nil, engines.Query{K: 10, Filters: []engines.Filter{toys}},
			req(10, &types.Query{Bool: &types.BoolQuery{Filter: []types.Query{term("category", "toys")}}}, nil)},
		{"lookup beside a vector", nil, engines.Query{Text: "IT-500", Field: "sku", Vector: vec, K: 10},
			req(10, nil, knn(10, 100, phrase("sku", "IT-500")))},
	} {
		f := fake(t, esfake.Options{})
		e := open(t, engines.Config{URL: f.URL(), Options: c.options})
		loadProducts(t, e, products(t, 10, dim))
		if _, err := e.Search(context.Background(), c.q); err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		_, b := body(t, f, "POST", "/product/_search")
		sameJSON(t, c.what, b, c.want)
	}
}

// pointDoc is a hand-made product with a 2-dimensional embedding.
func pointDoc(id, category string, price float64, sku, title string, v ...float32) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{
		{Name: "category", Text: category}, {Name: "price", Number: price}, {Name: "sku", Text: sku},
		{Name: "title", Text: title}, {Name: "description", Text: ""}, {Name: "embedding", Vector: v},
	}}
}

var pointSchema = engines.Schema{Name: "points", Fields: []engines.FieldSpec{
	{Name: "category", Type: engines.Tag}, {Name: "price", Type: engines.Numeric}, {Name: "sku", Type: engines.Text},
	{Name: "title", Type: engines.Text}, {Name: "description", Type: engines.Text}, {Name: "embedding", Type: engines.Vector, Dim: 2},
}}

func ids(t *testing.T, e engines.Engine, q engines.Query) []string {
	t.Helper()
	h, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%s %+v: %v", q.Shape(), q, err)
	}
	return h.IDs
}

// The semantics of each query kind, on hand-made products: a filtered kNN
// is a pre-filter (K results of the filter's category although every
// nearer product is in another), ranges are inclusive, a SKU with a stop
// word is found, a hybrid holds the text's and the vector's matches.
// The knob is the knn section's num_candidates, k to 10,000; the fake
// reads each value as sent.
func TestKnob(t *testing.T) {
	f := fake(t, esfake.Options{})
	e := open(t, engines.Config{URL: f.URL()})
	src := products(t, 20, 4)
	loadProducts(t, e, src)
	enginetest.Knob(t, "elasticsearch", e, engines.Query{Vector: src.Product(1, 0).Embedding, K: 5}, f.LastNumCandidates)
}

func TestProductSemantics(t *testing.T) {
	f := fake(t, esfake.Options{})
	points := []engines.Document{
		pointDoc("a1", "toys", 10, "IT-500", "red wooden train", 1, 0.01),
		pointDoc("a2", "toys", 20, "TO-500", "blue wooden boat", 1, 0.02),
		pointDoc("a3", "toys", 30, "IT-5000", "green kite", 1, 0.03),
		pointDoc("b1", "books", 40, "BO-1", "a red novel", 0.5, 1),
		pointDoc("b2", "books", 50, "BO-2", "poems", 0.1, 1),
		pointDoc("b3", "books", 60, "BO-3", "atlas", -1, 0.1),
	}
	load := func(options map[string]string) engines.Engine {
		e := open(t, engines.Config{URL: f.URL(), Options: options})
		if err := e.Create(context.Background(), pointSchema); err != nil {
			t.Fatal(err)
		}
		if err := e.UpsertBatch(context.Background(), points); err != nil {
			t.Fatal(err)
		}
		if err := e.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := load(nil)
	near := []float32{1, 0}
	for _, c := range []struct {
		what string
		q    engines.Query
		want []string
	}{
		{"knn", engines.Query{Vector: near, K: 2}, []string{"a1", "a2"}},
		{"knn in books", engines.Query{Vector: near, K: 2, Filters: []engines.Filter{{Field: "category", Tag: "books"}}}, []string{"b1", "b2"}},
		{"knn, price 20 to 40", engines.Query{Vector: near, K: 5, Filters: []engines.Filter{{Field: "price", Min: 20, Max: 40}}}, []string{"a2", "a3", "b1"}},
		{"knn, both filters", engines.Query{Vector: near, K: 5, Filters: []engines.Filter{{Field: "category", Tag: "books"}, {Field: "price", Min: 20, Max: 40}}}, []string{"b1"}},
		{"sku IT-5000", engines.Query{Text: "IT-5000", Field: "sku", K: 10}, []string{"a3"}},
		{"title marker", engines.Query{Text: "kite", Field: "title", K: 10}, []string{"a3"}},
		{"tag lookup", engines.Query{Text: "books", Field: "category", K: 2}, []string{"b1", "b2"}},
		{"lookup beside a vector", engines.Query{Text: "wooden", Field: "title", Vector: []float32{0, 1}, K: 5}, []string{"a2", "a1"}},
	} {
		if got := ids(t, e, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v; want %v", c.what, got, c.want)
		}
	}
	// The english analyser drops "it" (and "to"): IT-500 is the phrase
	// "500", which TO-500 also holds; the exact sub-field keeps them.
	if got := ids(t, e, engines.Query{Text: "IT-500", Field: "sku", K: 10}); !slices.Contains(got, "a1") || slices.Contains(got, "a3") {
		t.Errorf("sku IT-500 on the english field: %v; want a1 (and TO-500's a2), not IT-5000", got)
	}
	exact := load(map[string]string{"exact": "on"})
	if got := ids(t, exact, engines.Query{Text: "IT-500", Field: "sku", K: 10}); !slices.Equal(got, []string{"a1"}) {
		t.Errorf("sku IT-500 on the exact sub-field: %v; want a1 alone", got)
	}
	// Hybrid: "red" matches a1 and b1; the vector [-1, 0] is nearest to
	// b3, which has no red. a1 and b1 come first (text scores), b3 (the
	// kNN's) after them, each fused answer holding both kinds of match.
	h := ids(t, e, engines.Query{Text: "red", Vector: []float32{-1, 0}, K: 3})
	if len(h) != 3 || !slices.Contains(h[:2], "a1") || !slices.Contains(h[:2], "b1") || h[2] != "b3" {
		t.Errorf("hybrid: %v; want a1 and b1 (text), then b3 (kNN)", h)
	}
	// With a filter, both halves are filtered.
	h = ids(t, e, engines.Query{Text: "red", Vector: []float32{-1, 0}, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}})
	if slices.ContainsFunc(h, func(id string) bool { return id[0] != 'a' }) || !slices.Contains(h, "a1") {
		t.Errorf("hybrid in toys: %v", h)
	}
	// The query's own errors are the server's, not ErrUnsupported.
	for what, q := range map[string]engines.Query{
		"wrong dimension": {Vector: []float32{1, 0, 0}, K: 1},
		"zero vector":     {Vector: []float32{0, 0}, K: 1},
		"k 0":             {Vector: near},
		"empty range":     {Vector: near, K: 1, Filters: []engines.Filter{{Field: "price", Min: 5, Max: 1}}},
	} {
		if _, err := e.Search(context.Background(), q); err == nil || errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%s: %v; want the query's error", what, err)
		}
	}
}

// shapes are a sample of every query shape on the product schema.
func shapes(vec []float32) map[string]engines.Query {
	toys := engines.Filter{Field: "category", Tag: "toys"}
	return map[string]engines.Query{
		"text":                  {Text: "red", K: 5},
		"text+filter":           {Text: "red", K: 5, Filters: []engines.Filter{toys}},
		"sku":                   {Text: "IT-1", Field: "sku", K: 5},
		"tag lookup":            {Text: "toys", Field: "category", K: 5},
		"numeric lookup":        {Text: "1", Field: "price", K: 5},
		"vector lookup":         {Text: "1", Field: "embedding", K: 5},
		"unknown lookup":        {Text: "1", Field: "colour", K: 5},
		"knn":                   {Vector: vec, K: 5},
		"knn-category":          {Vector: vec, K: 5, Filters: []engines.Filter{toys}},
		"knn-price":             {Vector: vec, K: 5, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 500}}},
		"hybrid":                {Text: "red", Vector: vec, K: 5},
		"hybrid+filter":         {Text: "red", Vector: vec, K: 5, Filters: []engines.Filter{toys}},
		"filter":                {K: 5, Filters: []engines.Filter{toys}},
		"filter on text":        {K: 5, Filters: []engines.Filter{{Field: "title", Tag: "x"}}},
		"filter on a vector":    {K: 5, Filters: []engines.Filter{{Field: "embedding", Tag: "x"}}},
		"filter, unknown field": {K: 5, Filters: []engines.Filter{{Field: "colour", Tag: "x"}}},
		"lookup beside knn":     {Text: "IT-1", Field: "sku", Vector: vec, K: 5},
	}
}

// CheckQuery and Search agree on every shape under every index shape the
// options make; the refusals the options must cause are checked by name.
func TestCheckQueryAgreesWithSearch(t *testing.T) {
	const dim = 4
	f := fake(t, esfake.Options{})
	src := products(t, 30, dim)
	vec := src.Document(1, 0).Fields[5].Vector
	refused := map[string][]string{ // beyond the shapes every index refuses
		"":                                   nil,
		"fields=tag,numeric":                 {"text", "text+filter", "sku", "knn", "knn-category", "knn-price", "hybrid", "hybrid+filter", "lookup beside knn"},
		"fields=tag,numeric,vector":          {"text", "text+filter", "sku", "hybrid", "hybrid+filter", "lookup beside knn"},
		"fields=tag,numeric,vector exact=on": {"text", "text+filter", "hybrid", "hybrid+filter"},
		"fields=text,vector":                 {"text+filter", "tag lookup", "knn-category", "knn-price", "hybrid+filter", "filter"},
	}
	always := []string{"numeric lookup", "vector lookup", "unknown lookup", "filter on text", "filter on a vector", "filter, unknown field"}
	for spec, want := range refused {
		options := map[string]string{}
		for _, kv := range strings.Fields(spec) {
			k, v, _ := strings.Cut(kv, "=")
			options[k] = v
		}
		cfg := engines.Config{URL: f.URL(), Options: options}
		e := open(t, cfg)
		loadProducts(t, e, src)
		for name, q := range shapes(vec) {
			cerr := engines.CheckQuery("elasticsearch", cfg, src.Schema(), q)
			_, serr := e.Search(context.Background(), q)
			wantRefused := slices.Contains(want, name) || slices.Contains(always, name)
			switch {
			case errors.Is(cerr, engines.ErrUnsupported) != wantRefused:
				t.Errorf("%s: %s: CheckQuery = %v; refused %v expected", spec, name, cerr, wantRefused)
			case cerr != nil && !errors.Is(serr, engines.ErrUnsupported):
				t.Errorf("%s: %s: CheckQuery refuses (%v), Search says %v", spec, name, cerr, serr)
			case cerr == nil && serr != nil:
				t.Errorf("%s: %s: CheckQuery accepts, Search fails: %v", spec, name, serr)
			case cerr != nil && strings.Contains(cerr.Error(), "elasticsearch"):
				t.Errorf("%s: %s: CheckQuery's message names the driver: %v", spec, name, cerr)
			}
		}
	}
}

// checkProductQueries runs Study B's query kinds on the loaded corpus src
// and checks their answers against the products themselves: filtered kNN
// answers pass the filter and hold K products (or all that pass), a kNN
// finds the exact nearest (at least minRecall of them: HNSW is
// approximate), a SKU lookup finds its product, a hybrid holds both kinds
// of match. A kind the index as cfg shapes it cannot answer (CheckQuery)
// is skipped; the kNN kinds must be answered.
func checkProductQueries(t *testing.T, e engines.Engine, cfg engines.Config, src product.Products, minRecall float64) {
	t.Helper()
	const k = 10
	n := uint32(src.IDs())
	all := make([]dataset.Product, n+1)
	for id := uint32(1); id <= n; id++ {
		all[id] = src.Product(id, 0)
	}
	nearest := func(v []float32, pass func(dataset.Product) bool) []neighbours.Neighbour {
		var cands []neighbours.Neighbour
		for _, p := range all[1:] {
			if pass(p) {
				cands = append(cands, neighbours.Neighbour{ID: p.ID, Distance: neighbours.Distance(v, p.Embedding)})
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Distance < cands[j].Distance })
		return cands[:min(k, len(cands))]
	}
	product := func(id string) dataset.Product {
		i, err := strconv.Atoi(id)
		if err != nil || i < 1 || i > int(n) {
			t.Fatalf("hit %q is no product", id)
		}
		return all[i]
	}
	var found, wanted int
	for kind := range dataset.NumProductQueryKinds {
		for i := range uint64(20) {
			pq := src.ProductQueryOfKind(i, kind)
			q := pq.Query() // the kind's own query and filters, as a run sends them
			q.K = k
			pass := func(p dataset.Product) bool { return dataset.Matches(q.Filters, p) }
			if err := engines.CheckQuery("elasticsearch", cfg, src.Schema(), q); err != nil {
				if !errors.Is(err, engines.ErrUnsupported) || kind.IsKNN() {
					t.Fatalf("%s: %v", kind, err)
				}
				continue
			}
			got := ids(t, e, q)
			switch {
			case kind == dataset.SKULookup:
				_, num, _ := strings.Cut(pq.SKU, "-")
				if !slices.Equal(got, []string{dataset.DocID(uint32(must(strconv.Atoi(num))))}) {
					t.Errorf("sku %s: %v", pq.SKU, got)
				}
			case kind == dataset.Hybrid:
				words := strings.Fields(pq.Text)
				text := slices.ContainsFunc(got, func(id string) bool {
					title := strings.ToLower(product(id).Title)
					return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(title, w) })
				})
				if len(got) != k || !text {
					t.Errorf("hybrid %q: %v; want %d hits with the text's matches", pq.Text, got, k)
				}
			default:
				want := nearest(pq.Vector, pass)
				if len(got) != len(want) {
					t.Errorf("%s %d: %d hits; %d products pass the filter, want min(K, that)", kind, i, len(got), len(want))
				}
				var gotIDs []uint32
				for _, id := range got {
					if !pass(product(id)) {
						t.Errorf("%s %d: hit %s does not pass the filter", kind, i, id)
					}
					gotIDs = append(gotIDs, product(id).ID)
				}
				// The harness's one recall@k (ties with the k-th count).
				found += neighbours.Hits(gotIDs, want, func(id uint32) (float64, bool) {
					return neighbours.Distance(pq.Vector, all[id].Embedding), pass(all[id])
				})
				wanted += len(want)
			}
		}
	}
	if recall := float64(found) / float64(wanted); recall < minRecall {
		t.Errorf("kNN recall@%d = %.3f; want at least %.2f", k, recall, minRecall)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Study B's corpus and query kinds on the fake, whose kNN is exact.
func TestProductCorpusFake(t *testing.T) {
	for _, options := range []map[string]string{nil, {"exact": "on"}, {"fields": "tag,numeric,vector", "exact": "on"}} {
		f := fake(t, esfake.Options{})
		cfg := engines.Config{URL: f.URL(), Options: options}
		e := open(t, cfg)
		src := products(t, 300, 16)
		loadProducts(t, e, src)
		checkProductQueries(t, e, cfg, src, 1)
	}
}

package amgixnow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow"
	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

// products is Study B's corpus of ids products with dim-dimensional
// embeddings, as the runner sends it.
func products(t *testing.T, ids, dim int) product.Products {
	t.Helper()
	p, err := dataset.NewProducts(dataset.Config{Seed: 7, IDs: ids, Prepopulate: 1}, dim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	return product.Products{Products: p}
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the test's JSON: %v", what, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// The product requests on the wire, against the JSON shapes of Amgix's
// src/models.rs (CollectionConfig with metadata_indexes, Document with
// metadata and custom_vectors, SearchQuery with vector_weights,
// custom_vectors and metadata_filter): no Go client exists to compare with,
// so the shapes are written out here from the source.
func TestProductWire(t *testing.T) {
	for _, tc := range []struct {
		opts                 map[string]string
		create, doc          string
		sku, knn, cat, price string
		hybrid               string
	}{
		{
			opts: nil,
			create: `{"vectors":[
				{"name":"ft","type":"full_text","index_fields":["name","description","content"]},
				{"name":"kw","type":"whitespace","index_fields":["name"]},
				{"name":"dense","type":"dense_custom","index_fields":["content"],"dimensions":2,"dense_distance":"cosine"}],
				"store_content":true,
				"metadata_indexes":[{"key":"category","type":"string"},{"key":"price","type":"float"}]}`,
			doc: `{"id":"1","timestamp":"TS","name":"IT-1","description":"a title","content":"a description",
				"metadata":{"category":"electronics","price":12.5},
				"custom_vectors":[{"vector_name":"dense","field":"content","vector":[0.6,0.8]}]}`,
			sku: `{"query":"IT-1","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":1},
				{"vector_name":"dense","field":"content","weight":0}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":1},
				{"vector_name":"dense","field":"content","weight":0}]}`,
			knn: `{"query":"knn","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"custom_vectors":[{"vector_name":"dense","vector":[1,0]}]}`,
			cat: `{"query":"knn","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"custom_vectors":[{"vector_name":"dense","vector":[1,0]}],
				"metadata_filter":{"and":[{"key":"category","op":"eq","value":"toys"}]}}`,
			price: `{"query":"knn","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"custom_vectors":[{"vector_name":"dense","vector":[1,0]}],
				"metadata_filter":{"and":[{"key":"price","op":"gte","value":10},{"key":"price","op":"lte","value":20.5}]}}`,
			hybrid: `{"query":"red fox","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":1},{"vector_name":"ft","field":"description","weight":1},
				{"vector_name":"ft","field":"content","weight":1},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":1},{"vector_name":"ft","field":"description","weight":1},
				{"vector_name":"ft","field":"content","weight":1},{"vector_name":"kw","field":"name","weight":0},
				{"vector_name":"dense","field":"content","weight":1}],
				"custom_vectors":[{"vector_name":"dense","vector":[1,0]}]}`,
		},
		{
			// The exact-match index of Study B's experiment: the SKU also
			// as a keyword-indexed metadata string, which the lookup
			// filters on; no vector field.
			opts: map[string]string{"fields": "text,tag,numeric", "exact": "metadata"},
			create: `{"vectors":[
				{"name":"ft","type":"full_text","index_fields":["name","description","content"]},
				{"name":"kw","type":"whitespace","index_fields":["name"]}],
				"store_content":true,
				"metadata_indexes":[{"key":"category","type":"string"},{"key":"price","type":"float"},{"key":"sku","type":"string"}]}`,
			doc: `{"id":"1","timestamp":"TS","name":"IT-1","description":"a title","content":"a description",
				"metadata":{"category":"electronics","price":12.5,"sku":"IT-1"}}`,
			sku: `{"query":"IT-1","limit":10,"vector_weights":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":1}],
				"vector_options":[
				{"vector_name":"ft","field":"name","weight":0},{"vector_name":"ft","field":"description","weight":0},
				{"vector_name":"ft","field":"content","weight":0},{"vector_name":"kw","field":"name","weight":1}],
				"metadata_filter":{"and":[{"key":"sku","op":"eq","value":"IT-1"}]}}`,
		},
	} {
		t.Run(fmt.Sprint(tc.opts), func(t *testing.T) {
			w := newWire(t)
			e := open(t, amgixnow.SyncName, engines.Config{URL: w.URL, Options: tc.opts})
			ctx := context.Background()
			schema := products(t, 10, 2).Schema()
			if err := e.Create(ctx, schema); err != nil {
				t.Fatal(err)
			}
			w.Take()
			if err := e.Create(ctx, schema); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "create", w.TakeOne(t, "POST", "/v1/collections/product").Body, tc.create)
			doc := engines.Document{ID: "1", Fields: []engines.Field{
				{Name: "category", Text: "electronics"}, {Name: "price", Number: 12.5}, {Name: "sku", Text: "IT-1"},
				{Name: "title", Text: "a title"}, {Name: "description", Text: "a description"},
				{Name: "embedding", Vector: []float32{0.6, 0.8}},
			}}
			if err := e.Upsert(ctx, doc); err != nil {
				t.Fatal(err)
			}
			got := w.TakeOne(t, "POST", "/v1/collections/product/documents/sync")
			var sent map[string]any
			if err := json.Unmarshal(got.Body, &sent); err != nil {
				t.Fatal(err)
			}
			ts, _ := sent["timestamp"].(string)
			sameJSON(t, "document", got.Body, strings.Replace(tc.doc, "TS", ts, 1))
			vec := []float32{1, 0}
			for _, q := range []struct {
				want string
				q    engines.Query
			}{
				{tc.sku, engines.Query{Text: "IT-1", Field: "sku", K: 10}},
				{tc.knn, engines.Query{Vector: vec, K: 10}},
				{tc.cat, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}}},
				{tc.price, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "price", Min: 10, Max: 20.5}}}},
				{tc.hybrid, engines.Query{Text: "red fox", Vector: vec, K: 10}},
			} {
				_, err := e.Search(ctx, q.q)
				if q.want == "" {
					if !errors.Is(err, engines.ErrUnsupported) {
						t.Errorf("%s: %v; want ErrUnsupported", q.q.Shape(), err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, q.q.Shape(), w.TakeOne(t, "POST", "/v1/collections/product/search").Body, q.want)
			}
		})
	}
}

// loaded is a product collection on a fake, holding ids products.
func loaded(t *testing.T, opts map[string]string, ids, dim int) (engines.Engine, product.Products) {
	t.Helper()
	f := amgixfake.New(amgixfake.Sync())
	t.Cleanup(f.Close)
	return loadedAt(t, f.URL, opts, ids, dim)
}

// loadedAt is loaded on the server at url (started with
// AMGIX_NOW_SYNC_DB_WRITES=true).
func loadedAt(t *testing.T, url string, opts map[string]string, ids, dim int) (engines.Engine, product.Products) {
	t.Helper()
	e := open(t, amgixnow.SyncName, engines.Config{URL: url, Options: opts})
	src := products(t, ids, dim)
	ctx := context.Background()
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	docs := make([]engines.Document, 0, ids)
	for id := uint32(1); id <= uint32(ids); id++ {
		docs = append(docs, src.Document(id, 0))
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	return e, src
}

// Each product query kind against the fake, which answers as the engine
// documents: a filtered kNN holds only matching products and fills K when
// enough match; a SKU lookup finds the one product, stop-word code and all;
// a hybrid holds both text and vector matches; Get reads the tag and the
// price back.
func TestProductQueries(t *testing.T) {
	const ids, dim = 300, 8
	e, src := loaded(t, nil, ids, dim)
	productQueries(t, e, src)
}

// productQueries checks each query kind on e, which holds src's products.
func productQueries(t *testing.T, e engines.Engine, src product.Products) {
	ids := src.IDs()
	p, ctx := src.Products, context.Background()
	byID := map[string]dataset.Product{}
	for id := uint32(1); id <= uint32(ids); id++ {
		byID[dataset.DocID(id)] = p.Product(id, 0)
	}
	search := func(q engines.Query) []string {
		t.Helper()
		h, err := e.Search(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q.Shape(), err)
		}
		return h.IDs
	}
	for i := range uint64(20) {
		pq := p.ProductQueryOfKind(i, dataset.KNNCategory)
		want := 0
		for _, pr := range byID {
			if pr.Category == pq.Category {
				want++
			}
		}
		got := search(engines.Query{Vector: pq.Vector, K: 10, Filters: []engines.Filter{{Field: "category", Tag: pq.Category}}})
		if len(got) != min(10, want) {
			t.Fatalf("knn-category %s: %d hits of %d matching; want %d", pq.Category, len(got), want, min(10, want))
		}
		for _, id := range got {
			if byID[id].Category != pq.Category {
				t.Fatalf("knn-category %s: hit %s is in %s", pq.Category, id, byID[id].Category)
			}
		}
		pq = p.ProductQueryOfKind(i, dataset.KNNPrice)
		for _, id := range search(engines.Query{Vector: pq.Vector, K: 10, Filters: []engines.Filter{{Field: "price", Min: pq.MinPrice, Max: pq.MaxPrice}}}) {
			if pr := byID[id].Price; pr < pq.MinPrice || pr > pq.MaxPrice {
				t.Fatalf("knn-price [%v, %v]: hit %s costs %v", pq.MinPrice, pq.MaxPrice, id, pr)
			}
		}
	}
	// The nearest product to a product's own embedding is itself.
	pr := byID["17"]
	if got := search(engines.Query{Vector: pr.Embedding, K: 5}); len(got) != 5 || got[0] != "17" {
		t.Fatalf("knn of product 17's embedding: %v; want 5 hits, 17 first", got)
	}
	for _, id := range []string{"5", "42", "300"} {
		sku := byID[id].SKU
		if got := search(engines.Query{Text: sku, Field: "sku", K: 10}); !slices.Equal(got, []string{id}) {
			t.Fatalf("lookup of SKU %s: %v; want [%s]", sku, got, id)
		}
	}
	// A hybrid query: a product's title words and a vector near another
	// product: both reach the answer.
	text := strings.Join(strings.Fields(byID["9"].Title)[:3], " ")
	got := search(engines.Query{Text: text, Vector: byID["200"].Embedding, K: 10})
	if !slices.Contains(got, "9") || !slices.Contains(got, "200") {
		t.Fatalf("hybrid %q + product 200's vector: %v; want 9 and 200 in it", text, got)
	}
	d, err := e.(engines.Getter).Get(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	want := byID["42"]
	for f, v := range map[string]string{"category": want.Category, "sku": want.SKU, "title": want.Title, "description": want.Description} {
		if d.Text(f) != v {
			t.Errorf("Get(42).%s = %.30q; want %.30q", f, d.Text(f), v)
		}
	}
	if i := slices.IndexFunc(d.Fields, func(f engines.Field) bool { return f.Name == "price" }); i < 0 || d.Fields[i].Number != want.Price {
		t.Errorf("Get(42) has no price %v: %+v", want.Price, d.Fields)
	}
}

// Option exact=metadata: the lookup is the whitespace arm filtered on the
// keyword-indexed SKU, so only the exact SKU can answer.
func TestExactMetadata(t *testing.T) {
	e, src := loaded(t, map[string]string{"exact": "metadata"}, 120, 4)
	sku := src.Product(77, 0).SKU
	h, err := e.Search(context.Background(), engines.Query{Text: sku, Field: "sku", K: 10})
	if err != nil || !slices.Equal(h.IDs, []string{"77"}) {
		t.Fatalf("lookup of %s: %v, %v; want [77]", sku, h.IDs, err)
	}
	h, err = e.Search(context.Background(), engines.Query{Text: strings.ToLower(sku), Field: "sku", K: 10})
	if err != nil || len(h.IDs) != 0 {
		t.Fatalf("lookup of %s lowercased: %v, %v; the keyword filter is exact", sku, h.IDs, err)
	}
}

// CheckQuery and Search agree, shape by shape, under each index shape:
// what CheckQuery refuses Search refuses with ErrUnsupported before any
// request, and what it accepts the fake answers.
func TestCheckQueryAgrees(t *testing.T) {
	const dim = 4
	vec := []float32{1, 0, 0, 0}
	shapes := []engines.Query{
		{Text: "red", K: 10},
		{Text: "IT-1", Field: "sku", K: 10},
		{Text: "red", Field: "title", K: 10},
		{Text: "red", Field: "category", K: 10},
		{Vector: vec, K: 10},
		{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 9}}},
		{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "title", Tag: "x"}}},
		{Text: "red", Vector: vec, K: 10},
		{Text: "red", Vector: vec, Field: "sku", K: 10},
		{Text: "red", K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		{Text: "red", K: amgixnow.MaxLimit + 1},
	}
	for _, opts := range []map[string]string{
		nil,
		{"fields": "text,tag,numeric"},
		{"fields": "vector,tag"},
		{"fields": "text"},
		{"exact": "metadata"},
	} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			e, src := loaded(t, opts, 30, dim)
			cfg := engines.Config{Options: opts}
			refused := 0
			for _, q := range shapes {
				checked := engines.CheckQuery(amgixnow.SyncName, cfg, src.Schema(), q)
				if checked != nil && !errors.Is(checked, engines.ErrUnsupported) {
					t.Fatalf("CheckQuery(%s): %v; want nil or ErrUnsupported", q.Shape(), checked)
				}
				_, err := e.Search(context.Background(), q)
				switch {
				case checked != nil && !errors.Is(err, engines.ErrUnsupported):
					t.Errorf("%s: CheckQuery refused (%v), Search answered %v", q.Shape(), checked, err)
				case checked == nil && err != nil:
					t.Errorf("%s: CheckQuery accepted, Search: %v", q.Shape(), err)
				case checked != nil:
					refused++
				}
			}
			if refused == len(shapes) {
				t.Error("every shape refused")
			}
		})
	}
}

// What each index shape refuses, and why, in one line.
func TestCheckQueryRefusals(t *testing.T) {
	schema := products(t, 10, 4).Schema()
	knn := engines.Query{Vector: []float32{1, 0, 0, 0}, K: 10}
	for _, tc := range []struct {
		opts map[string]string
		q    engines.Query
		want string
	}{
		{map[string]string{"fields": "text,tag,numeric"}, knn, "vector fields are not indexed"},
		{map[string]string{"fields": "text,numeric,vector"}, engines.Query{Vector: knn.Vector, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}}, "tag fields are not indexed"},
		{map[string]string{"fields": "vector"}, engines.Query{Text: "IT-1", Field: "sku", K: 10}, "text fields are not indexed"},
		{nil, engines.Query{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}}, "needs a query text or vector"},
		{nil, engines.Query{Text: "x", Field: "price", K: 10}, "not a text field"},
	} {
		err := engines.CheckQuery(amgixnow.Name, engines.Config{Options: tc.opts}, schema, tc.q)
		if !errors.Is(err, engines.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %s: %v; want one line with %q", tc.opts, tc.q.Shape(), err, tc.want)
		}
	}
}

// The index-shape options are checked before anything starts.
func TestProductOptions(t *testing.T) {
	for opts, want := range map[string]map[string]string{
		"option fields":             {"fields": "text,colour"},
		"needs at least one vector": {"fields": "tag,numeric"},
		"each once":                 {"fields": "text,text"},
		"option exact":              {"exact": "keyword"},
	} {
		err := engines.CheckConfig(amgixnow.Name, engines.Config{Options: want})
		if err == nil || !strings.Contains(err.Error(), opts) {
			t.Errorf("%v: %v; want an error containing %q", want, err, opts)
		}
	}
	if err := engines.CheckConfig(amgixnow.Name, engines.Config{Options: map[string]string{"fields": "text, tag,numeric", "exact": "metadata"}}); err != nil {
		t.Error(err)
	}
	// A schema whose only indexed field the options leave out.
	schema := engines.Schema{Name: "v", Fields: []engines.FieldSpec{{Name: "embedding", Type: engines.Vector, Dim: 4}}}
	if err := engines.CheckSchema(amgixnow.Name, engines.Config{Options: map[string]string{"fields": "text"}}, schema); !errors.Is(err, engines.ErrUnsupported) {
		t.Errorf("vector-only schema without the vector indexed: %v; want ErrUnsupported", err)
	}
}

// A document without the collection's vector, or with one of another
// dimension, is refused before it is sent.
func TestProductVectorChecks(t *testing.T) {
	e, src := loaded(t, nil, 3, 4)
	ctx := context.Background()
	d := src.Document(1, 1)
	d.Fields = slices.DeleteFunc(d.Fields, func(f engines.Field) bool { return f.Name == "embedding" })
	if err := e.Upsert(ctx, d); err == nil || !strings.Contains(err.Error(), "no vector") {
		t.Errorf("Upsert without the embedding: %v", err)
	}
	d = src.Document(1, 1)
	for i := range d.Fields {
		if d.Fields[i].Name == "embedding" {
			d.Fields[i].Vector = d.Fields[i].Vector[:3]
		}
	}
	if err := e.Upsert(ctx, d); err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("Upsert with a short embedding: %v", err)
	}
	if _, err := e.Search(ctx, engines.Query{Vector: []float32{1, 2}, K: 3}); err == nil || errors.Is(err, engines.ErrUnsupported) {
		t.Errorf("Search with a short vector: %v; want an error of the call", err)
	}
}

// The text corpus's requests are what they were before the product
// surface: one full_text vector, no metadata indexes, a bare search.
func TestTextWireUnchanged(t *testing.T) {
	w := newWire(t)
	e := open(t, amgixnow.SyncName, engines.Config{URL: w.URL})
	ctx := context.Background()
	if err := e.Create(ctx, enginetest.Schema("text")); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "create", w.TakeOne(t, "POST", "/v1/collections/text").Body,
		`{"vectors":[{"name":"ft","type":"full_text","index_fields":["name","content"]}],"store_content":true}`)
	if _, err := e.Search(ctx, engines.Query{Text: "red fox", K: 10}); err != nil {
		t.Fatal(err)
	}
	if got := w.TakeOne(t, "POST", "/v1/collections/text/search").Body; string(got) != `{"query":"red fox","limit":10}` {
		t.Errorf("search body %s", got)
	}
}

// newWire is a wire server that answers what Open, Create and a search
// send to Amgix Now 0.1.2 as a server with no collection would, and
// records the requests.
func newWire(t *testing.T) *enginetest.Wire {
	return enginetest.NewWire(t, func(r *enginetest.Captured) (int, string) {
		switch {
		case r.URI == "/v1/version":
			return 200, `{"version":"0.1.2 (Amgix-Now)"}`
		case r.URI == "/v1/collections":
			return 200, `[]`
		case strings.HasSuffix(r.URI, "/exists"):
			return 200, `{"exists":false}`
		case strings.HasSuffix(r.URI, "/search"):
			return 200, `{"results":[],"query_time_ms":1}`
		}
		return 200, `{"ok":true}`
	})
}

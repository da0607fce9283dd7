package meilisearch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/meilisearch"
)

// productSchema is the product corpus's schema (product.Products) with
// 4-dimensional embeddings.
func productSchema(name string) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "category", Type: engines.Tag},
		{Name: "price", Type: engines.Numeric},
		{Name: "sku", Type: engines.Text},
		{Name: "title", Type: engines.Text},
		{Name: "description", Type: engines.Text},
		{Name: "embedding", Type: engines.Vector, Dim: 4},
	}}
}

func product(id, category string, price float64, sku, title string, v ...float32) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{
		{Name: "category", Text: category},
		{Name: "price", Number: price},
		{Name: "sku", Text: sku},
		{Name: "title", Text: title},
		{Name: "description", Text: "a product"},
		{Name: "embedding", Vector: v},
	}}
}

// products are six products whose nearest to (1, 0, 0, 0) by cosine are,
// in order, p1 p4 p2 p5 p3 p6.
var products = []engines.Document{
	product("p1", "IT", 10, "IT-500", "red lamp", 1, 0, 0, 0),
	product("p2", "IT", 25, "IT-5000", "blue lamp", 0.8, 0.6, 0, 0),
	product("p3", "TO", 12, "TO-7", "green chair", 0, 1, 0, 0),
	product("p4", "TO", 30, "TO-500", "red chair", 0.95, 0.05, 0, 0),
	product("p5", "BE", 19.99, "BE-1", "yellow desk", 0.5, 0.5, 0.5, 0.5),
	product("p6", "BE", 20, "BE-2", "green desk", 0, 0, 0, 1),
}

var near = []float32{1, 0, 0, 0}

// productEngine opens a searchable-mode engine with options, creates the
// product index and loads the products.
func productEngine(t *testing.T, options map[string]string) *meilisearch.Engine {
	t.Helper()
	f := fake(t)
	return loadProducts(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable, Options: options})
}

func loadProducts(t *testing.T, cfg engines.Config) *meilisearch.Engine {
	t.Helper()
	e := open(t, cfg)
	ctx := context.Background()
	if err := e.Create(ctx, productSchema("product")); err != nil {
		t.Fatal(err)
	}
	if err := e.UpsertBatch(ctx, products); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func search(t *testing.T, e engines.Engine, q engines.Query) []string {
	t.Helper()
	h, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Shape(), err)
	}
	return h.IDs
}

func TestCreateProductSettings(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	if err := e.Create(context.Background(), productSchema("product")); err != nil {
		t.Fatal(err)
	}
	s, _ := f.Settings("product")
	if !slices.Equal(s.SearchableAttributes, []string{"sku", "title", "description"}) ||
		!slices.Equal(s.FilterableAttributes, []string{"category", "price"}) ||
		len(s.Embedders) != 1 || s.Embedders["embedding"] != 4 {
		t.Errorf("settings %+v; want the text fields searchable, category and price filterable, a userProvided embedder of 4 dimensions", s)
	}
	e2 := open(t, engines.Config{URL: f.URL, APIKey: masterKey, Options: map[string]string{"fields": "text,tag", "exact_fields": "sku"}})
	if err := e2.Create(context.Background(), productSchema("product2")); err != nil {
		t.Fatal(err)
	}
	s, _ = f.Settings("product2")
	if !slices.Equal(s.FilterableAttributes, []string{"category", "sku"}) || len(s.Embedders) != 0 {
		t.Errorf("fields=text,tag exact_fields=sku: settings %+v; want category and sku filterable, no embedder", s)
	}
}

// Each product query kind answers what it means, on the fake: the kNN in
// cosine order, filtered kNN only among the documents that pass (every
// one of them up to K, not fewer), the SKU lookup only the exact SKU, the
// hybrid both kinds of match.
func TestProductQueries(t *testing.T) {
	for _, opts := range []map[string]string{nil, {"exact_fields": "sku"}} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			checkProductQueries(t, productEngine(t, opts))
		})
	}
}

// checkProductQueries checks each query kind on an engine loaded with
// products (loadProducts). The hybrid search asks for 3 hits, among which
// the nearest product and a product with the word: true of the fake at
// the default ratio and of Meilisearch at a ratio that lets the words
// count (the live test's 0.2).
func checkProductQueries(t *testing.T, e engines.Engine) {
	t.Helper()
	if got := search(t, e, engines.Query{Vector: near, K: 3}); !slices.Equal(got, []string{"p1", "p4", "p2"}) {
		t.Errorf("kNN: %v; want p1 p4 p2", got)
	}
	cat := []engines.Filter{{Field: "category", Tag: "TO"}}
	if got := search(t, e, engines.Query{Vector: near, K: 3, Filters: cat}); !slices.Equal(got, []string{"p4", "p3"}) {
		t.Errorf("kNN in category TO: %v; want p4 p3", got)
	}
	price := []engines.Filter{{Field: "price", Min: 12, Max: 20}}
	// p3 and p6 are equally far: either order.
	if got := search(t, e, engines.Query{Vector: near, K: 5, Filters: price}); len(got) != 3 || got[0] != "p5" || !slices.Equal(slices.Sorted(slices.Values(got[1:])), []string{"p3", "p6"}) {
		t.Errorf("kNN with price in [12, 20] (both ends in): %v; want p5, then p3 and p6", got)
	}
	for sku, want := range map[string]string{"IT-500": "p1", "TO-500": "p4", "IT-5000": "p2"} {
		if got := search(t, e, engines.Query{Text: sku, Field: "sku", K: 10}); !slices.Equal(got, []string{want}) {
			t.Errorf("lookup of %s: %v; want %s alone", sku, got, want)
		}
	}
	got := search(t, e, engines.Query{Text: "green", Vector: near, K: 3})
	if !slices.Contains(got, "p1") || !slices.ContainsFunc(got, func(id string) bool { return id == "p3" || id == "p6" }) {
		t.Errorf("hybrid green near (1,0,0,0): %v; want the nearest p1 and a green product", got)
	}
	got = search(t, e, engines.Query{Text: "green", Vector: near, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "BE"}}})
	if len(got) == 0 || slices.ContainsFunc(got, func(id string) bool { return id != "p5" && id != "p6" }) {
		t.Errorf("hybrid in category BE: %v; want only p5 and p6", got)
	}
	if got := search(t, e, engines.Query{Text: "lamp", K: 10, Filters: []engines.Filter{{Field: "price", Min: 20, Max: 100}}}); !slices.Equal(got, []string{"p2"}) {
		t.Errorf("text with a price filter: %v; want p2", got)
	}
}

// The freshness probe's lookup — a marker word in the title — finds the
// document as a phrase in that field, and a lookup without a word is an
// error, not a search that matches everything.
func TestTitleLookup(t *testing.T) {
	e := productEngine(t, nil)
	ctx := context.Background()
	d := product("p9", "IT", 1, "IT-9", "lamp zqxabcdefghi", 1, 1, 0, 0)
	if err := e.Upsert(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got := search(t, e, engines.Query{Text: "zqxabcdefghi", Field: "title", K: 5}); !slices.Equal(got, []string{"p9"}) {
		t.Errorf("marker lookup: %v", got)
	}
	if got := search(t, e, engines.Query{Text: "zqxabcdefghi", Field: "sku", K: 5}); len(got) != 0 {
		t.Errorf("a lookup in sku found the title's word: %v", got)
	}
	if _, err := e.Search(ctx, engines.Query{Text: "- -", Field: "title", K: 5}); err == nil {
		t.Error("a lookup without a word was sent")
	}
}

// configs are the configurations CheckQuery and Search are compared in.
var configs = []map[string]string{
	nil,
	{"fields": "text,tag,numeric"},
	{"fields": "text,vector"},
	{"fields": "text", "exact_fields": "sku"},
}

// shapes are one query of each shape, valid where the shape is.
var shapes = []engines.Query{
	{Text: "lamp", K: 5},
	{Text: "IT-500", Field: "sku", K: 5},
	{Text: "IT", Field: "category", K: 5},
	{Text: "x", Field: "price", K: 5},
	{Text: "x", Field: "nope", K: 5},
	{Vector: near, K: 5},
	{Vector: near, K: 5, Filters: []engines.Filter{{Field: "category", Tag: "IT"}}},
	{Vector: near, K: 5, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 20}}},
	{Vector: near, K: 5, Filters: []engines.Filter{{Field: "title", Tag: "x"}}},
	{Vector: near, Text: "IT-500", Field: "sku", K: 5},
	{Text: "red lamp", Vector: near, K: 5},
	{Text: "lamp", K: 5, Filters: []engines.Filter{{Field: "category", Tag: "IT"}}},
	{K: 5, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 20}}},
}

// CheckQuery and Search agree on every shape in every configuration:
// what CheckQuery refuses, Search refuses with ErrUnsupported; what it
// accepts, Search answers (from the fake, which rejects what Meilisearch
// rejects: a filter on an attribute that is not filterable, an embedder
// the index lacks).
func TestCheckQueryAgreesWithSearch(t *testing.T) {
	f := fake(t)
	for i, opts := range configs {
		cfg := engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable, Options: opts}
		e := open(t, cfg)
		schema := productSchema(fmt.Sprintf("agree%d", i))
		if err := e.Create(context.Background(), schema); err != nil {
			t.Fatal(err)
		}
		if err := e.UpsertBatch(context.Background(), products); err != nil {
			t.Fatal(err)
		}
		for _, q := range shapes {
			checked := engines.CheckQuery("meilisearch", cfg, schema, q)
			if checked != nil && !errors.Is(checked, engines.ErrUnsupported) {
				t.Errorf("%v %s: CheckQuery %v does not wrap ErrUnsupported", opts, q.Shape(), checked)
			}
			if checked != nil && strings.Contains(checked.Error(), "meilisearch") {
				t.Errorf("CheckQuery's message names the driver: %v", checked)
			}
			_, err := e.Search(context.Background(), q)
			switch {
			case checked == nil && err != nil:
				t.Errorf("%v %s (field %q): CheckQuery accepts, Search: %v", opts, q.Shape(), q.Field, err)
			case checked != nil && !errors.Is(err, engines.ErrUnsupported):
				t.Errorf("%v %s (field %q): CheckQuery refuses (%v), Search: %v", opts, q.Shape(), q.Field, checked, err)
			}
		}
	}
}

// What each configuration refuses: kNN without the embedder, filters on
// fields that are not filterable, lookups in a non-text field.
func TestCheckQueryRefuses(t *testing.T) {
	schema := productSchema("product")
	for _, c := range []struct {
		opts map[string]string
		q    engines.Query
		want string
	}{
		{map[string]string{"fields": "text,tag,numeric"}, engines.Query{Vector: near, K: 1}, "no embedder"},
		{map[string]string{"fields": "text,vector"}, engines.Query{Vector: near, K: 1, Filters: []engines.Filter{{Field: "category", Tag: "IT"}}}, "not filterable"},
		{nil, engines.Query{Text: "1", Field: "price", K: 1}, "numeric field"},
		{nil, engines.Query{Vector: near, Text: "IT-500", Field: "sku", K: 1}, "restricted to field"},
	} {
		err := engines.CheckQuery("meilisearch", engines.Config{Options: c.opts}, schema, c.q)
		if !errors.Is(err, engines.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %s: %v; want ErrUnsupported saying %q", c.opts, c.q.Shape(), err, c.want)
		}
	}
	text := engines.Schema{Name: "t", Fields: []engines.FieldSpec{{Name: "name"}, {Name: "content"}}}
	if err := engines.CheckQuery("meilisearch", engines.Config{}, text, engines.Query{Vector: near, K: 1}); !errors.Is(err, engines.ErrUnsupported) {
		t.Errorf("kNN on a text schema: %v", err)
	}
	if err := engines.CheckQuery("meilisearch", engines.Config{}, text, engines.Query{Text: "x", K: 1}); err != nil {
		t.Errorf("text search on a text schema: %v", err)
	}
}

func TestProductOptions(t *testing.T) {
	schema := productSchema("product")
	for name, opts := range map[string]map[string]string{
		"fields without text":  {"fields": "tag,vector"},
		"fields unknown type":  {"fields": "text,geo"},
		"fields twice":         {"fields": "text,text"},
		"exact_fields bad":     {"exact_fields": "_vectors"},
		"exact_fields twice":   {"exact_fields": "sku,sku"},
		"semantic_ratio zero":  {"semantic_ratio": "0"},
		"semantic_ratio above": {"semantic_ratio": "1.5"},
		"semantic_ratio text":  {"semantic_ratio": "half"},
	} {
		err := engines.CheckConfig("meilisearch", engines.Config{Options: opts})
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want a one-line error", name, err)
		}
	}
	for _, ok := range []map[string]string{{"fields": "text, tag ,numeric"}, {"semantic_ratio": "1"}, {"exact_fields": "sku,title"}} {
		if err := engines.CheckConfig("meilisearch", engines.Config{Options: ok}); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for _, bad := range []string{"price", "category", "nope"} {
		err := engines.CheckSchema("meilisearch", engines.Config{Options: map[string]string{"exact_fields": bad}}, schema)
		var se *engines.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("exact_fields=%s: %v; want a SchemaError (not a text field)", bad, err)
		}
	}
	two := productSchema("two")
	two.Fields = append(two.Fields, engines.FieldSpec{Name: "other", Type: engines.Vector, Dim: 4})
	if err := engines.CheckSchema("meilisearch", engines.Config{}, two); !errors.Is(err, engines.ErrUnsupported) {
		t.Errorf("two vector fields: %v", err)
	}
	if err := engines.CheckSchema("meilisearch", engines.Config{}, schema); err != nil {
		t.Errorf("the product schema: %v", err)
	}
}

// Without the embedder the documents still carry their vectors (a plain
// field), so the two setups of the vector-cost experiment write the same
// documents; a wrong-length vector is refused before it is sent.
func TestVectorFieldWithoutEmbedder(t *testing.T) {
	e := productEngine(t, map[string]string{"fields": "text,tag,numeric"})
	ctx := context.Background()
	d, err := e.Get(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Text("sku") != "IT-500" || d.Text("category") != "IT" {
		t.Errorf("get: %+v", d)
	}
	if got := search(t, e, engines.Query{Text: "IT-500", Field: "sku", K: 5}); !slices.Equal(got, []string{"p1"}) {
		t.Errorf("lookup without the embedder: %v", got)
	}
	if err := e.Upsert(ctx, product("bad", "IT", 1, "IT-1", "x", 1, 2)); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("a 2-dimensional vector in a 4-dimensional field: %v", err)
	}
}

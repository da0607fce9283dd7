package typesense

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

// productSchema is the product corpus's schema (product.Products) with
// vectors of dim dimensions.
func productSchema(name string, dim int) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "category", Type: engines.Tag},
		{Name: "price", Type: engines.Numeric},
		{Name: "sku", Type: engines.Text},
		{Name: "title", Type: engines.Text},
		{Name: "description", Type: engines.Text},
		{Name: "embedding", Type: engines.Vector, Dim: dim},
	}}
}

func product(id, category string, price float64, sku, title string, vec []float32) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{
		{Name: "category", Text: category},
		{Name: "price", Number: price},
		{Name: "sku", Text: sku},
		{Name: "title", Text: title},
		{Name: "description", Text: "a product"},
		{Name: "embedding", Vector: vec},
	}}
}

const testKey = "product-typesense-key"

// products opens an engine with opts on a new fake and loads the test
// products: two categories, prices 1 to 8, vectors at angles around the
// unit circle so that cosine similarity orders them.
func products(t *testing.T, opts map[string]string) (*typesensefake.Server, *Engine) {
	t.Helper()
	srv := typesensefake.New(testKey)
	t.Cleanup(srv.Close)
	return srv, loadProducts(t, srv.URL, testKey, opts)
}

// loadProducts opens an engine on the server at url and loads the test
// products.
func loadProducts(t *testing.T, url, apiKey string, opts map[string]string) *Engine {
	t.Helper()
	eng, err := driver{}.Open(context.Background(), engines.Config{URL: url, APIKey: engines.Secret(apiKey), Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	e := eng.(*Engine)
	ctx := context.Background()
	if err := e.Create(ctx, productSchema("product", 2)); err != nil {
		t.Fatal(err)
	}
	var docs []engines.Document
	for i := 1; i <= 8; i++ {
		cat, code := "toys", "TO"
		if i%2 == 0 {
			cat, code = "books", "IT"
		}
		a := float64(i) * math.Pi / 16 // 8 vectors from 11° to 90°
		docs = append(docs, product(strconv.Itoa(i), cat, float64(i), code+"-"+strconv.Itoa(i*100), "thing number "+strconv.Itoa(i), []float32{float32(math.Cos(a)), float32(math.Sin(a))}))
	}
	if err := e.UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	return e
}

// near is a query vector at angle 0: the products rank 1, 2, …, 8.
var near = []float32{1, 0}

// The knob is vector_query's ef, any positive 32-bit value; the fake
// reads each one as sent.
func TestKnob(t *testing.T) {
	f, e := products(t, nil)
	enginetest.Knob(t, "typesense", e, engines.Query{Vector: near, K: 3}, f.LastEF)
}

func TestProductSearches(t *testing.T) {
	_, e := products(t, nil)
	productSearches(t, e)
}

// productSearches checks every product query kind on the test products.
func productSearches(t *testing.T, e *Engine) {
	ctx := context.Background()
	for _, c := range []struct {
		what string
		q    engines.Query
		want []string
	}{
		{"knn", engines.Query{Vector: near, K: 3}, []string{"1", "2", "3"}},
		// Filtered kNN: K of the matching documents, not the K nearest
		// filtered afterwards (which would leave 1 of 3).
		{"knn-category", engines.Query{Vector: near, K: 3, Filters: []engines.Filter{{Field: "category", Tag: "books"}}}, []string{"2", "4", "6"}},
		{"knn-price", engines.Query{Vector: near, K: 3, Filters: []engines.Filter{{Field: "price", Min: 5, Max: 7}}}, []string{"5", "6", "7"}},
		// "IT" is an English stop word; Typesense drops none unless told
		// to, and reads IT-500 as one token (it500).
		{"sku", engines.Query{Text: "IT-400", Field: "sku", K: 10}, []string{"4"}},
		{"sku, no partial", engines.Query{Text: "IT-40", Field: "sku", K: 10}, nil},
		{"field lookup needs every word", engines.Query{Text: "thing number 9", Field: "title", K: 10}, nil},
	} {
		h, err := e.Search(ctx, c.q)
		if err != nil || !slices.Equal(h.IDs, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.what, h.IDs, err, c.want)
		}
	}
	// Hybrid: the keyword match (8, farthest by vector) and the nearest
	// vectors both in one ranking.
	h, err := e.Search(ctx, engines.Query{Text: "number 8", Vector: near, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.IDs) != 3 || !slices.Contains(h.IDs, "8") || !slices.Contains(h.IDs, "1") {
		t.Errorf("hybrid: %v; want 8 (text) and 1 (vector) among 3", h.IDs)
	}
}

// The exact_fields option declares the SKU facet and looks it up by its
// whole value.
func TestExactFields(t *testing.T) {
	srv, e := products(t, map[string]string{"exact_fields": "sku"})
	ctx := context.Background()
	for _, c := range []struct {
		text string
		want []string
	}{{"IT-400", []string{"4"}}, {"it-400", nil}, {"IT-40", nil}} {
		h, err := e.Search(ctx, engines.Query{Text: c.text, Field: "sku", K: 10})
		if err != nil || !slices.Equal(h.IDs, c.want) {
			t.Errorf("lookup %s: %v, %v; want %v", c.text, h.IDs, err, c.want)
		}
	}
	if got := srv.LastQuery("GET /collections/{c}/documents/search").Get("filter_by"); got != "sku:=`IT-40`" {
		t.Errorf("filter_by = %q", got)
	}
	if !slices.Contains(e.lay.exact, "sku") || !isTrue(e.lay.fields[2].Facet) {
		t.Errorf("layout %+v", e.lay.fields[2])
	}
}

// CheckQuery and Search (against the fake) agree on every shape, for
// each index shape the fields option makes.
func TestCheckQueryAgreesWithSearch(t *testing.T) {
	shapes := map[string]engines.Query{
		"text":        {Text: "thing", K: 5},
		"text+filter": {Text: "thing", K: 5, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		"field":       {Text: "IT-400", Field: "sku", K: 5},
		"knn":         {Vector: near, K: 5},
		"knn+tag":     {Vector: near, K: 5, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		"knn+range":   {Vector: near, K: 5, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 3}}},
		"hybrid":      {Text: "thing", Vector: near, K: 5},
		"field+knn":   {Text: "IT-400", Field: "sku", Vector: near, K: 5},
		"text field":  {Text: "x", K: 5, Filters: []engines.Filter{{Field: "title", Tag: "x"}}},
		"no field":    {Text: "x", Field: "nope", K: 5},
	}
	for _, c := range []struct {
		fields  string
		refused []string
	}{
		{"text,tag,numeric,vector", []string{"field+knn", "text field", "no field"}},
		{"tag,numeric,vector", []string{"text", "text+filter", "field", "hybrid", "field+knn", "text field", "no field"}},
		{"text,tag,numeric", []string{"knn", "knn+tag", "knn+range", "hybrid", "field+knn", "text field", "no field"}},
		{"text,vector", []string{"text+filter", "knn+tag", "knn+range", "field+knn", "text field", "no field"}},
	} {
		opts := map[string]string{"fields": c.fields}
		_, e := products(t, opts)
		cfg := engines.Config{Options: opts}
		for name, q := range shapes {
			checked := driver{}.CheckQuery(cfg, productSchema("product", 2), q)
			_, searched := e.Search(context.Background(), q)
			want := slices.Contains(c.refused, name)
			if errors.Is(checked, engines.ErrUnsupported) != want || errors.Is(searched, engines.ErrUnsupported) != want {
				t.Errorf("fields=%s, %s: CheckQuery %v, Search %v; refused: %v", c.fields, name, checked, searched, want)
			}
			if !want && (checked != nil || searched != nil) {
				t.Errorf("fields=%s, %s: CheckQuery %v, Search %v", c.fields, name, checked, searched)
			}
			if checked != nil && strings.Contains(checked.Error(), "typesense") {
				t.Errorf("CheckQuery names the driver: %v", checked)
			}
		}
	}
}

func TestProductSchema(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string // the field list, or the error's start
	}{
		{nil, "category:string:facet price:float sku:string title:string description:string embedding:float[]:2"},
		{map[string]string{"fields": "tag,numeric"}, "category:string:facet price:float"},
		{map[string]string{"fields": "tag,numeric,vector"}, "category:string:facet price:float embedding:float[]:2"},
		{map[string]string{"exact_fields": "sku"}, "category:string:facet price:float sku:string:facet title:string description:string embedding:float[]:2"},
		{map[string]string{"exact_fields": "price"}, "typesense: option exact_fields: price is not a text field"},
	} {
		o, err := parseOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		l, err := checkSchema(o, productSchema("p", 2))
		var got []string
		for _, f := range l.fields {
			s := f.Name + ":" + f.Type
			if isTrue(f.Facet) {
				s += ":facet"
			}
			if f.NumDim != nil {
				s += ":" + strconv.Itoa(*f.NumDim)
			}
			got = append(got, s)
		}
		if err != nil {
			got = []string{err.Error()}
		}
		if s := strings.Join(got, " "); !strings.HasPrefix(s, c.want) {
			t.Errorf("%v: %s; want %s", c.opts, s, c.want)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	for opts, want := range map[string]map[string]string{
		`option fields="words": must list field types`:   {"fields": "words"},
		`option fields="tag,tag": must list field types`: {"fields": "tag,tag"},
		`option exact_fields="sku,sku": must list`:       {"exact_fields": "sku,sku"},
		`exact_fields names text fields; it needs text`:  {"fields": "tag,vector", "exact_fields": "sku"},
	} {
		err := driver{}.CheckConfig(engines.Config{Options: want})
		if err == nil || !strings.Contains(err.Error(), opts) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%v: %v; want %q", want, err, opts)
		}
	}
}

// The server's refusals come back classified: a wrong dimension is the
// fake's 400 in the multi_search result, not a success.
func TestVectorRefusals(t *testing.T) {
	_, e := products(t, nil)
	_, err := e.Search(context.Background(), engines.Query{Vector: []float32{1, 0, 0}, K: 3})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("3 dimensions on a 2-dimension field: %v", err)
	}
	if err := e.Upsert(context.Background(), product("9", "toys", 1, "TO-9", "x", []float32{1})); err == nil {
		t.Fatal("a vector of 1 dimension was stored")
	}
}

func TestParseMultiSearch(t *testing.T) {
	h, err := ParseMultiSearch([]byte(`{"results":[{"found":2,"hits":[{"document":{"id":"a"}},{"document":{"id":"b"}}]}]}`), 2)
	if err != nil || !slices.Equal(h.IDs, []string{"a", "b"}) || h.Total != 2 {
		t.Fatalf("%+v, %v", h, err)
	}
	_, err = ParseMultiSearch([]byte(`{"results":[{"code":503,"error":"Not Ready or Lagging"}]}`), 2)
	if !errors.Is(err, engines.ErrOverloaded) {
		t.Fatalf("a 503 result: %v", err)
	}
	for _, bad := range []string{`{"results":[]}`, `{"results":[1]}`, `[]`, `{"results":[{"found":1}]}`} {
		if _, err := ParseMultiSearch([]byte(bad), 2); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// Study A's search is the request it always was: the product work changed
// nothing of it (the parameters below are the ones the driver sent before
// there were vectors).
func TestTextCorpusRequestUnchanged(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := engines.Schema{Name: "searchbench", Fields: []engines.FieldSpec{{Name: "name", Type: engines.Text}, {Name: "content", Type: engines.Text}}}
	lay, err := checkSchema(o, schema)
	if err != nil {
		t.Fatal(err)
	}
	st := state{coll: "searchbench", fields: schema.Fields, lay: lay}
	r, err := st.search(engines.Query{Text: "Lot foot lot will.", K: 10})
	if err != nil || r.get == nil {
		t.Fatalf("%+v, %v", r, err)
	}
	got, err := requestURI(api.NewSearchCollectionRequest("http://x", "searchbench", r.get))
	if err != nil {
		t.Fatal(err)
	}
	want, err := requestURI(api.NewSearchCollectionRequest("http://x", "searchbench", &api.SearchCollectionParams{
		Q: pointer.String("Lot foot lot will."), QueryBy: pointer.String("name,content"), PerPage: pointer.Int(10),
		NumTypos: pointer.String("0"), TypoTokensThreshold: pointer.Int(0), Prefix: pointer.String("false"),
		IncludeFields: pointer.String("id"),
	}))
	if err != nil || got != want {
		t.Fatalf("Study A's search: %s\nwant %s (%v)", got, want, err)
	}
}

package meilisearch

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// testLayout is the layout of an index of fields under options raw.
func testLayout(t *testing.T, raw map[string]string, fields ...engines.FieldSpec) layout {
	t.Helper()
	o, err := parseOptions(raw)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layoutOf(engines.Schema{Name: "wire", Fields: fields}, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// wireAnswer answers the few routes the wire tests call.
func wireAnswer(r *enginetest.Captured) (int, string) {
	switch {
	case strings.HasSuffix(r.URI, "/version"):
		return http.StatusOK, `{"pkgVersion":"1.37.0"}`
	case strings.HasSuffix(r.URI, "/search"):
		return http.StatusOK, `{"hits":[{"id":"1"}],"estimatedTotalHits":1}`
	case strings.Contains(r.URI, "/documents") && r.Method == http.MethodGet:
		return http.StatusOK, `{"id":"doc-1","title":"a","body":"b"}`
	case strings.Contains(r.URI, "/documents"):
		return http.StatusAccepted, `{"taskUid":7,"indexUid":"wire","status":"enqueued","type":"documentAdditionOrUpdate","enqueuedAt":"2026-01-01T00:00:00Z"}`
	}
	return http.StatusNotFound, `{"code":"not_found","message":"no such route"}`
}

// A search sends, byte for byte, what the client's SearchRaw sends through
// the driver's former net/http transport: the same request line, Host,
// headers (Accept-Encoding: gzip included, which net/http adds) and body —
// for every matching strategy, with and without a key, for queries that
// need escaping, and under a URL with a path.
func TestSearchWire(t *testing.T) {
	w := enginetest.NewWire(t, wireAnswer)
	for _, c := range []struct {
		key, path, strategy, text string
		k                         int
	}{
		{"", "", "", "Lot foot lot will.", 10},
		{"wire-key-1", "", "last", `quote " back \ slash <b>&amp;</b>`, 1},
		{"wire-key-2", "/meili/", "frequency", "tab\tnew\nline é \u2028", 100},
		{"", "/p", "all", "", 7},
	} {
		url := w.URL + c.path
		opts := map[string]string{}
		if c.strategy != "" {
			opts["matching_strategy"] = c.strategy
		}
		eng, err := driver{}.Open(context.Background(), engines.Config{URL: url, APIKey: engines.Secret(c.key), Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		e.use(e.client.Index("wire"), "wire", testLayout(t, nil, engines.FieldSpec{Name: "title"}))
		w.Take()
		if _, err := e.Search(context.Background(), engines.Query{Text: c.text, K: c.k}); err != nil {
			t.Fatal(err)
		}
		got := w.TakeOne(t, http.MethodPost, "")

		clientOpts := []meilisearch.Option{meilisearch.WithCustomClient(&http.Client{Transport: transport(DefaultPool)}), meilisearch.DisableRetries()}
		if c.key != "" {
			clientOpts = append(clientOpts, meilisearch.WithAPIKey(c.key))
		}
		client := meilisearch.New(strings.TrimRight(url, "/"), clientOpts...)
		req := &meilisearch.SearchRequest{Limit: int64(c.k), AttributesToRetrieve: []string{PrimaryKey}, MatchingStrategy: meilisearch.MatchingStrategy(c.strategy)}
		if c.text == "" {
			req.Query = "" // SearchRaw sets it only when not empty
		}
		if _, err := client.Index("wire").SearchRaw(context.Background(), c.text, req); err != nil {
			t.Fatal(err)
		}
		client.Close()
		want := w.TakeOne(t, http.MethodPost, "")
		if !strings.HasSuffix(want.URI, "/indexes/wire/search") {
			t.Fatalf("the client searched %s", want.URI)
		}
		enginetest.SameRequest(t, want, got)
		e.Close()
	}
}

// Upserts, deletes and gets send what the client's AddDocuments,
// DeleteDocument and GetDocument send, with one difference the HTTP
// framing allows: a DELETE without a body carries "Content-Length: 0"
// (fasthttp frames every request that may have a body, http.go Write at
// v1.79.0), where net/http leaves the header out for a bodiless DELETE
// (transfer.go, shouldSendContentLength). Both say the same to a server:
// no body (RFC 9112 6.3).
func TestWritesWire(t *testing.T) {
	w := enginetest.NewWire(t, wireAnswer)
	const key = "wire-key-3"
	eng, err := driver{}.Open(context.Background(), engines.Config{URL: w.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*Engine)
	fields := []string{"title", "body"}
	lay := testLayout(t, nil, engines.FieldSpec{Name: "title"}, engines.FieldSpec{Name: "body"})
	e.use(e.client.Index("wire"), "wire", lay)
	client := meilisearch.New(w.URL, meilisearch.WithCustomClient(&http.Client{Transport: transport(DefaultPool)}),
		meilisearch.DisableRetries(), meilisearch.WithAPIKey(key))
	defer client.Close()
	index := client.Index("wire")
	ctx := context.Background()
	w.Take()

	doc := engines.Document{ID: "doc-1", Fields: []engines.Field{{Name: "title", Text: `quote " é <b>`}, {Name: "body", Text: "b\nc"}}}
	if err := e.Upsert(ctx, doc); err != nil {
		t.Fatal(err)
	}
	got := w.TakeOne(t, http.MethodPost, "/indexes/wire/documents")
	m, err := lay.body(doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.AddDocuments(ctx, []map[string]any{m}, nil); err != nil {
		t.Fatal(err)
	}
	enginetest.SameRequest(t, w.TakeOne(t, http.MethodPost, "/indexes/wire/documents"), got)

	if err := e.Delete(ctx, "doc-1"); err != nil {
		t.Fatal(err)
	}
	got = w.TakeOne(t, http.MethodDelete, "/indexes/wire/documents/doc-1")
	if _, err := index.DeleteDocument(ctx, "doc-1", nil); err != nil {
		t.Fatal(err)
	}
	want := w.TakeOne(t, http.MethodDelete, "/indexes/wire/documents/doc-1")
	if want.Header.Get("Content-Length") != "" || got.Header.Get("Content-Length") != "0" {
		t.Errorf("a DELETE's Content-Length: the client's %q, the fast path's %q; want none and 0", want.Header.Get("Content-Length"), got.Header.Get("Content-Length"))
	}
	got.Header.Del("Content-Length")
	enginetest.SameRequest(t, want, got)

	if _, err := e.Get(ctx, "doc-1"); err != nil {
		t.Fatal(err)
	}
	got = w.TakeOne(t, http.MethodGet, "/indexes/wire/documents/doc-1")
	var raw json.RawMessage
	if err := index.GetDocument(ctx, "doc-1", &meilisearch.DocumentQuery{Fields: append([]string{PrimaryKey}, fields...)}, &raw); err != nil {
		t.Fatal(err)
	}
	enginetest.SameRequest(t, w.TakeOne(t, http.MethodGet, "/indexes/wire/documents/doc-1"), got)
}

// productFields is the product schema's fields, 3-dimensional.
var productFields = []engines.FieldSpec{
	{Name: "category", Type: engines.Tag},
	{Name: "price", Type: engines.Numeric},
	{Name: "sku", Type: engines.Text},
	{Name: "title", Type: engines.Text},
	{Name: "embedding", Type: engines.Vector, Dim: 3},
}

// The product workload's searches send what SearchRaw sends for the
// SearchRequest written out here by hand (not by the code under test):
// kNN as a semantic hybrid search, filters as an array of conditions, the
// SKU lookup as a phrase in one attribute or, with exact_fields, a filter.
func TestProductSearchWire(t *testing.T) {
	w := enginetest.NewWire(t, wireAnswer)
	vec := []float32{0.25, -1, 1e-7}
	hybrid := func(ratio float64) *meilisearch.SearchRequestHybrid {
		return &meilisearch.SearchRequestHybrid{SemanticRatio: ratio, Embedder: "embedding"}
	}
	for _, c := range []struct {
		opts map[string]string
		q    engines.Query
		want meilisearch.SearchRequest
	}{
		{nil, engines.Query{Vector: vec, K: 10},
			meilisearch.SearchRequest{Vector: vec, Hybrid: hybrid(1)}},
		{nil, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "category", Tag: `Home "and" garden`}}},
			meilisearch.SearchRequest{Vector: vec, Hybrid: hybrid(1), Filter: []string{`category = "Home \"and\" garden"`}}},
		{nil, engines.Query{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "price", Min: 10.5, Max: 1e7}, {Field: "category", Tag: "IT"}}},
			meilisearch.SearchRequest{Vector: vec, Hybrid: hybrid(1), Filter: []string{"price 10.5 TO 10000000", `category = "IT"`}}},
		{nil, engines.Query{Text: "IT-500", Field: "sku", K: 10},
			meilisearch.SearchRequest{Query: `"IT 500"`, AttributesToSearchOn: []string{"sku"}}},
		{map[string]string{"exact_fields": "sku"}, engines.Query{Text: "IT-500", Field: "sku", K: 10},
			meilisearch.SearchRequest{Filter: []string{`sku = "IT-500"`}}},
		{nil, engines.Query{Text: "red lamp", Vector: vec, K: 10},
			meilisearch.SearchRequest{Query: "red lamp", Vector: vec, Hybrid: hybrid(0.5)}},
		{map[string]string{"semantic_ratio": "0.8", "matching_strategy": "all"}, engines.Query{Text: "red lamp", Vector: vec, K: 10},
			meilisearch.SearchRequest{Query: "red lamp", Vector: vec, Hybrid: hybrid(0.8), MatchingStrategy: meilisearch.All}},
		{nil, engines.Query{Text: "lamp", K: 10, Filters: []engines.Filter{{Field: "price", Min: -1, Max: 0}}},
			meilisearch.SearchRequest{Query: "lamp", Filter: []string{"price -1 TO 0"}}},
	} {
		eng, err := driver{}.Open(context.Background(), engines.Config{URL: w.URL, Options: c.opts})
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		e.use(e.client.Index("wire"), "wire", testLayout(t, c.opts, productFields...))
		w.Take()
		if _, err := e.Search(context.Background(), c.q); err != nil {
			t.Fatal(err)
		}
		got := w.TakeOne(t, http.MethodPost, "/indexes/wire/search")
		client := meilisearch.New(w.URL, meilisearch.WithCustomClient(&http.Client{Transport: transport(DefaultPool)}), meilisearch.DisableRetries())
		req := c.want
		req.Limit, req.AttributesToRetrieve = int64(c.q.K), []string{PrimaryKey}
		if _, err := client.Index("wire").SearchRaw(context.Background(), "", &req); err != nil {
			t.Fatal(err)
		}
		client.Close()
		enginetest.SameRequest(t, w.TakeOne(t, http.MethodPost, "/indexes/wire/search"), got)
		e.Close()
	}
}

// A product upsert sends what AddDocuments sends for the document written
// out by hand: the vector under _vectors.<embedder>, or, without the
// embedder, as a plain field.
func TestProductWritesWire(t *testing.T) {
	w := enginetest.NewWire(t, wireAnswer)
	ctx := context.Background()
	doc := engines.Document{ID: "p-1", Fields: []engines.Field{
		{Name: "category", Text: "IT"}, {Name: "price", Number: 19.99}, {Name: "sku", Text: "IT-1"},
		{Name: "title", Text: "red lamp"}, {Name: "embedding", Vector: []float32{0.5, -0.25, 3e-9}},
	}}
	common := map[string]any{"id": "p-1", "category": "IT", "price": 19.99, "sku": "IT-1", "title": "red lamp"}
	for _, c := range []struct {
		opts map[string]string
		want map[string]any
	}{
		{nil, map[string]any{"_vectors": map[string][]float32{"embedding": {0.5, -0.25, 3e-9}}}},
		{map[string]string{"fields": "text,tag,numeric"}, map[string]any{"embedding": []float32{0.5, -0.25, 3e-9}}},
	} {
		eng, err := driver{}.Open(ctx, engines.Config{URL: w.URL, Options: c.opts})
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		e.use(e.client.Index("wire"), "wire", testLayout(t, c.opts, productFields...))
		w.Take()
		if err := e.Upsert(ctx, doc); err != nil {
			t.Fatal(err)
		}
		got := w.TakeOne(t, http.MethodPost, "/indexes/wire/documents")
		want := maps.Clone(common)
		maps.Copy(want, c.want)
		client := meilisearch.New(w.URL, meilisearch.WithCustomClient(&http.Client{Transport: transport(DefaultPool)}), meilisearch.DisableRetries())
		if _, err := client.Index("wire").AddDocuments(ctx, []map[string]any{want}, nil); err != nil {
			t.Fatal(err)
		}
		client.Close()
		enginetest.SameRequest(t, w.TakeOne(t, http.MethodPost, "/indexes/wire/documents"), got)
		e.Close()
	}
}

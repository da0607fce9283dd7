package typesense

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/typesense/typesense-go/v3/typesense/api"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

func wireAnswer(r *enginetest.Captured) (int, string) {
	switch {
	case r.URI == "/debug":
		return http.StatusOK, `{"state":1,"version":"30.1"}`
	case strings.HasPrefix(r.URI, "/multi_search"):
		return http.StatusOK, `{"results":[{"found":1,"hits":[{"document":{"id":"1"}}]}]}`
	case strings.Contains(r.URI, "/documents/search"):
		return http.StatusOK, `{"found":1,"hits":[{"document":{"id":"1"}}]}`
	case r.Method == http.MethodPost:
		return http.StatusCreated, `{"id":"doc-1","name":"a","content":"b"}`
	}
	return http.StatusOK, `{"id":"doc-1","name":"a","content":"b"}`
}

// Searches, upserts, deletes and gets send what the generated API's
// methods send through net/http — the driver's calls before the fast path,
// which the Engine still holds — with one difference the HTTP framing
// allows: a DELETE without a body carries "Content-Length: 0" (fasthttp
// frames every request that may have a body, http.go Write at v1.79.0),
// where net/http leaves it out (transfer.go, shouldSendContentLength).
// Both mean no body (RFC 9112 6.3).
func TestHotCallsWire(t *testing.T) {
	w := enginetest.NewWire(t, wireAnswer)
	const key = "wire-typesense-key"
	eng, err := driver{}.Open(context.Background(), engines.Config{URL: w.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*Engine)
	schema := productSchema("wire", 3)
	lay, err := checkSchema(e.opts, schema)
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.coll, e.fields, e.lay = "wire", schema.Fields, lay
	e.mu.Unlock()
	st, _ := e.state()
	ctx := context.Background()
	w.Take()

	vec := []float32{0.25, -1e-7, 3}
	for _, q := range []engines.Query{
		{Text: "Lot foot lot will.", K: 10},
		{Text: `quote " & = + ? é #`, K: 1, Field: "title"},
		{Text: "IT-500", K: 1, Field: "sku"},
		{Text: "red ball", K: 5, Filters: []engines.Filter{{Field: "category", Tag: "toys"}, {Field: "price", Min: 1, Max: 9.5}}},
		{Vector: vec, K: 10},
		{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
		{Vector: vec, K: 10, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 9.5}}},
		{Text: "red ball", Vector: vec, K: 10},
	} {
		if _, err := e.Search(ctx, q); err != nil {
			t.Fatal(err)
		}
		r, err := st.search(q)
		if err != nil {
			t.Fatal(err)
		}
		if r.multi != nil {
			got := w.TakeOne(t, http.MethodPost, "/multi_search")
			if _, err := e.client.MultiSearch.Perform(ctx, &api.MultiSearchParams{}, *r.multi); err != nil {
				t.Fatal(err)
			}
			enginetest.SameRequest(t, w.TakeOne(t, http.MethodPost, "/multi_search"), got)
			continue
		}
		got := w.TakeOne(t, http.MethodGet, "/collections/wire/documents/search")
		resp, err := e.api.SearchCollection(ctx, "wire", r.get)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		enginetest.SameRequest(t, w.TakeOne(t, http.MethodGet, "/collections/wire/documents/search"), got)
	}

	doc := product("doc-1", "toys", 1.5, "TO-1", `a "b" é`, vec)
	if err := e.Upsert(ctx, doc); err != nil {
		t.Fatal(err)
	}
	got := w.TakeOne(t, http.MethodPost, "/collections/wire/documents")
	body, err := st.document(doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Collection("wire").Documents().Upsert(ctx, body, &api.DocumentIndexParameters{}); err != nil {
		t.Fatal(err)
	}
	enginetest.SameRequest(t, w.TakeOne(t, http.MethodPost, "/collections/wire/documents"), got)

	if err := e.Delete(ctx, "doc-1"); err != nil {
		t.Fatal(err)
	}
	got = w.TakeOne(t, http.MethodDelete, "/collections/wire/documents/doc-1")
	if _, err := e.api.DeleteDocumentWithResponse(ctx, "wire", "doc-1"); err != nil {
		t.Fatal(err)
	}
	want := w.TakeOne(t, http.MethodDelete, "/collections/wire/documents/doc-1")
	if want.Header.Get("Content-Length") != "" || got.Header.Get("Content-Length") != "0" {
		t.Errorf("a DELETE's Content-Length: the client's %q, the fast path's %q; want none and 0", want.Header.Get("Content-Length"), got.Header.Get("Content-Length"))
	}
	got.Header.Del("Content-Length")
	enginetest.SameRequest(t, want, got)

	if _, err := e.Get(ctx, "doc-1"); err != nil {
		t.Fatal(err)
	}
	got = w.TakeOne(t, http.MethodGet, "/collections/wire/documents/doc-1")
	resp, err := e.api.GetDocument(ctx, "wire", "doc-1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	enginetest.SameRequest(t, w.TakeOne(t, http.MethodGet, "/collections/wire/documents/doc-1"), got)
}

package elasticsearch

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// The calls a run repeats send through the fast transport (call) what the
// official client sends through net/http's (api, which the other calls
// use): elastic-transport-go adds its headers either way, and call's
// request is what esapi builds for the same call. Each request is made both ways
// and compared on a raw TCP listener, with and without credentials. One
// difference is the framing's: a DELETE without a body carries
// "Content-Length: 0" (fasthttp frames every request that may have a body,
// http.go Write at v1.79.0), where net/http leaves it out (transfer.go,
// shouldSendContentLength); both mean no body (RFC 9112 6.3).
func TestHotCallsWire(t *testing.T) {
	w := enginetest.NewWire(t, func(r *enginetest.Captured) (int, string) {
		if r.URI == "/" {
			return http.StatusOK, `{"version":{"number":"8.19.7"}}`
		}
		return http.StatusOK, `{"hits":{"total":{"value":0},"hits":[]}}`
	}, "X-Elastic-Product", "Elasticsearch")
	for _, cfg := range []engines.Config{
		{URL: w.URL},
		{URL: w.URL, APIKey: "wire-es-key"},
		{URL: w.URL, Username: "elastic", Password: "wire-es-password"},
	} {
		eng, err := driver{}.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		search := []byte(`{"size":10,"query":{"match":{"name":"quote \" é"}}}`)
		for _, c := range []struct {
			method, path string
			body         []byte
			req          func() esapi.Request
		}{
			{http.MethodPost, "/wire/_search", search, func() esapi.Request {
				return esapi.SearchRequest{Index: []string{"wire"}, Body: bytes.NewReader(search)}
			}},
			{http.MethodPut, "/wire/_doc/d%2F1?refresh=wait_for", []byte(`{"name":"a"}`), func() esapi.Request {
				return esapi.IndexRequest{Index: "wire", DocumentID: "d%2F1", Body: bytes.NewReader([]byte(`{"name":"a"}`)), Refresh: "wait_for"}
			}},
			{http.MethodGet, "/wire/_doc/d1", nil, func() esapi.Request { return esapi.GetRequest{Index: "wire", DocumentID: "d1"} }},
			{http.MethodDelete, "/wire/_doc/d1", nil, func() esapi.Request { return esapi.DeleteRequest{Index: "wire", DocumentID: "d1"} }},
		} {
			w.Take()
			if err := e.call(context.Background(), c.method, c.path, c.body, func(int, []byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
			got := w.TakeOne(t, c.method, "/wire/")
			if _, _, err := e.api(context.Background(), "wire", c.req()); err != nil {
				t.Fatal(err)
			}
			want := w.TakeOne(t, c.method, "/wire/")
			if c.method == http.MethodDelete {
				if want.Header.Get("Content-Length") != "" || got.Header.Get("Content-Length") != "0" {
					t.Errorf("a DELETE's Content-Length: net/http's %q, the fast path's %q; want none and 0", want.Header.Get("Content-Length"), got.Header.Get("Content-Length"))
				}
				got.Header.Del("Content-Length")
			}
			enginetest.SameRequest(t, want, got)
		}
		e.Close()
	}
}

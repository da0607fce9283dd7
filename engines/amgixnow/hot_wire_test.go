package amgixnow

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// The calls a run repeats send through httpwire.FastClient what they sent
// through net/http (api, which the other calls use): each of their
// shapes — a POST with a JSON body, a GET, a DELETE with a query — made
// both ways and compared on a raw TCP listener. One difference is the
// framing's: a DELETE without a body carries "Content-Length: 0"
// (fasthttp frames every request that may have a body, http.go Write at
// v1.79.0), where net/http leaves it out (transfer.go,
// shouldSendContentLength); both mean no body (RFC 9112 6.3).
func TestHotCallsWire(t *testing.T) {
	w := enginetest.NewWire(t, func(*enginetest.Captured) (int, string) { return http.StatusOK, `{"version":"1.0.0"}` })
	for _, key := range []string{"", "wire-amgix-key"} {
		eng, err := driver{name: Name, vis: engines.Acknowledged}.Open(context.Background(), engines.Config{URL: w.URL + "/", APIKey: engines.Secret(key)})
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPost, "/v1/collections/wire/search", searchRequest{Query: `quote " é <b>`, Limit: 10}},
			{http.MethodPost, "/v1/collections/wire/documents?sync=true", map[string]any{"id": "d1", "name": "a b"}},
			{http.MethodGet, "/v1/collections/wire/documents/d1", nil},
			{http.MethodDelete, "/v1/collections/wire/documents/d1?request_timestamp=2026-01-01T00%3A00%3A00Z", nil},
		} {
			var body []byte
			if c.body != nil {
				var err error
				if body, err = json.Marshal(c.body); err != nil {
					t.Fatal(err)
				}
			}
			w.Take()
			if err := e.call(context.Background(), c.method, c.path, body, e.answer(nil)); err != nil {
				t.Fatal(err)
			}
			got := w.TakeOne(t, c.method, c.path)
			if err := e.api(context.Background(), c.method, c.path, body, e.answer(nil)); err != nil {
				t.Fatal(err)
			}
			want := w.TakeOne(t, c.method, c.path)
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

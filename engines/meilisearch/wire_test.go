package meilisearch

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// wireAnswer answers the few routes the wire tests call.
func wireAnswer(r *enginetest.Captured) (int, string) {
	switch {
	case strings.HasSuffix(r.URI, "/version"):
		return http.StatusOK, `{"pkgVersion":"1.37.0"}`
	case strings.HasSuffix(r.URI, "/search"):
		return http.StatusOK, `{"hits":[{"id":"1"}],"estimatedTotalHits":1}`
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
		e.use(e.client.Index("wire"), "wire", []string{"title"})
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

package meilisearch_test

import (
	"context"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// The conformance suite in both write modes against the real server checks,
// among the rest, that a searchable-mode write is visible on return and
// that a searchable-mode delete of a missing ID is reported (the task's
// deletedDocuments is 0).
func TestConformanceLive(t *testing.T) {
	url, key := containertest.Server(t, "meilisearch", container.Options{CPUs: 1})
	conformance(t, url, key)
	e := open(t, engines.Config{URL: url, APIKey: engines.Secret(key)})
	v, err := e.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", v)
}

// The product queries against the real server: settings with the
// userProvided embedder and filterable attributes, each query kind, with
// and without exact_fields. The hybrid ratio is 0.2, so that the keyword
// matches reach the three hits checkProductQueries asks for.
func TestProductLive(t *testing.T) {
	url, key := containertest.Server(t, "meilisearch", container.Options{CPUs: 1})
	for _, opts := range []map[string]string{{"semantic_ratio": "0.2"}, {"semantic_ratio": "0.2", "exact_fields": "sku"}} {
		e := loadProducts(t, engines.Config{URL: url, APIKey: engines.Secret(key), WriteMode: engines.Searchable, Options: opts})
		checkProductQueries(t, e)
	}
	e := loadProducts(t, engines.Config{URL: url, APIKey: engines.Secret(key), WriteMode: engines.Searchable, Options: map[string]string{"fields": "text,tag,numeric"}})
	if got := search(t, e, engines.Query{Text: "IT-500", Field: "sku", K: 5}); !slices.Equal(got, []string{"p1"}) {
		t.Errorf("lookup without the embedder: %v", got)
	}
}

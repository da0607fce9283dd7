package typesense

import (
	"context"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// The product query kinds against the real server: what the fake's tests
// claim of Typesense (the kNN, its pre-filter, the SKU lookup, the fusion,
// the verbatim lookup) checked where the official image can run.
func TestProductLive(t *testing.T) {
	url, apiKey := containertest.Server(t, "typesense", container.Options{CPUs: 1})
	productSearches(t, loadProducts(t, url, apiKey, nil))

	e := loadProducts(t, url, apiKey, map[string]string{"exact_fields": "sku"})
	for text, want := range map[string][]string{"IT-400": {"4"}, "it-400": nil} {
		h, err := e.Search(context.Background(), engines.Query{Text: text, Field: "sku", K: 10})
		if err != nil || !slices.Equal(h.IDs, want) {
			t.Errorf("verbatim lookup %s: %v, %v; want %v", text, h.IDs, err, want)
		}
	}
	// A wrong dimension is the server's 400 in the multi_search result.
	if _, err := e.Search(context.Background(), engines.Query{Vector: []float32{1, 0, 0}, K: 3}); err == nil {
		t.Error("a 3-dimension query on a 2-dimension field succeeded")
	}
}

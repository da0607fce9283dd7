package meilisearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// Attach accepts the index Create made with the same options and refuses,
// naming what differs, one made with other options: a second shard would
// otherwise run filters or kNN on an index that cannot answer them, and
// fail at its first call rather than before.
func TestAttachChecksFilterableAndEmbedder(t *testing.T) {
	f := fake(t)
	ctx := context.Background()
	cfg := func(options map[string]string) engines.Config {
		return engines.Config{URL: f.URL, APIKey: masterKey, Options: options}
	}
	all := map[string]string{"fields": "text,tag,numeric,vector", "exact_fields": "sku"}
	cases := []struct {
		created map[string]string // the options of the engine that made the index
		want    string            // "" to attach
	}{
		{all, ""},
		{map[string]string{"fields": "text,tag,numeric", "exact_fields": "sku"}, `no embedder "embedding"`},
		{map[string]string{"fields": "text,vector", "exact_fields": "sku"}, "filterable attributes are [sku], not"},
		{map[string]string{"fields": "text,tag,numeric,vector"}, "filterable attributes are [category price], not"},
	}
	for _, c := range cases {
		if err := open(t, cfg(c.created)).Create(ctx, productSchema("products")); err != nil {
			t.Fatal(err)
		}
		err := open(t, cfg(all)).Attach(ctx, productSchema("products"))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("created with %v: Attach: %v", c.created, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "products")):
			t.Errorf("created with %v: Attach: %v; want an error naming the index and %q", c.created, err, c.want)
		}
	}
	// The schema's dimension is the embedder's: a run of 8 dimensions
	// cannot attach to an index of 4.
	if err := open(t, cfg(all)).Create(ctx, productSchema("products")); err != nil {
		t.Fatal(err)
	}
	wide := productSchema("products")
	wide.Fields[5].Dim = 8
	if err := open(t, cfg(all)).Attach(ctx, wide); err == nil || !strings.Contains(err.Error(), "userProvided of 4 dimensions, not userProvided of 8") {
		t.Errorf("Attach with 8 dimensions to an index of 4: %v", err)
	}
}

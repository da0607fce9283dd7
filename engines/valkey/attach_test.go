package valkey_test

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// A shard attaches to Study B's layouts as shard 0 made them (several
// matching indexes, idle ones, the hybrid pair), sees shard 0's documents
// through its own searches, and refuses, naming the index, a layout that
// differs: one more matching index than was created, a field type
// another index holds differently, or a vector another metric ranks.
func attachLayouts(t *testing.T, tg target) {
	ctx := context.Background()
	for _, opts := range []map[string]string{
		{"matching_indexes": "2", "idle_indexes": "1"},
		{"hybrid": "on"},
	} {
		tg = tg.again(t)
		first := tg.open(t, opts)
		loadProducts(t, first)
		second := tg.open(t, opts)
		if err := second.(engines.Attacher).Attach(ctx, productSchema("products")); err != nil {
			t.Fatalf("%v: Attach: %v", opts, err)
		}
		h, err := second.Search(ctx, engines.Query{Text: "GA-503", Field: "sku", K: 5})
		if err != nil || len(h.IDs) != 1 {
			t.Fatalf("%v: the attached engine's search of a SKU shard 0 wrote: %+v, %v", opts, h, err)
		}
	}

	tg = tg.again(t)
	loadProducts(t, tg.open(t, map[string]string{"matching_indexes": "2"}))
	err := tg.open(t, map[string]string{"matching_indexes": "3"}).(engines.Attacher).Attach(ctx, productSchema("products"))
	if err == nil || !strings.Contains(err.Error(), "no index products-3") {
		t.Fatalf("attach with one more matching index than created: %v", err)
	}
	other := productSchema("products")
	other.Fields[1].Type = engines.Tag // price is NUMERIC in the index
	err = tg.open(t, map[string]string{"matching_indexes": "2"}).(engines.Attacher).Attach(ctx, other)
	if err == nil || !strings.Contains(err.Error(), "field price as TAG") {
		t.Fatalf("attach with price as a tag: %v", err)
	}
	other = productSchema("products")
	other.Fields[5].Metric = engines.L2 // the index ranks by COSINE
	err = tg.open(t, map[string]string{"matching_indexes": "2"}).(engines.Attacher).Attach(ctx, other)
	if err == nil || !strings.Contains(err.Error(), "ranks field embedding by DISTANCE_METRIC COSINE, the schema's metric (l2) is L2") {
		t.Fatalf("attach with an l2 embedding to a cosine index: %v", err)
	}
}

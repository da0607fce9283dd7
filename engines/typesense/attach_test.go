package typesense_test

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

func products(category engines.FieldType) engines.Schema {
	return engines.Schema{Name: "products", Fields: []engines.FieldSpec{
		{Name: "category", Type: category},
		{Name: "price", Type: engines.Numeric},
		{Name: "title", Type: engines.Text},
	}}
}

// Attach accepts the collection Create made for the same schema (a faceted
// string, a float, a string) and refuses one whose field differs, here a
// tag (faceted) where the collection has a plain string.
func TestAttachChecksTypesAndFacets(t *testing.T) {
	srv := typesensefake.New(key)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	if err := open(t, srv.URL, key, nil).Create(ctx, products(engines.Tag)); err != nil {
		t.Fatal(err)
	}
	second := open(t, srv.URL, key, nil).(engines.Attacher)
	if err := second.Attach(ctx, products(engines.Tag)); err != nil {
		t.Fatalf("Attach to the collection Create made: %v", err)
	}
	if err := open(t, srv.URL, key, nil).Create(ctx, products(engines.Text)); err != nil {
		t.Fatal(err)
	}
	if err := second.Attach(ctx, products(engines.Tag)); err == nil || !strings.Contains(err.Error(), "field category") {
		t.Fatalf("Attach with category as a tag to a collection holding it unfaceted: %v", err)
	}
}

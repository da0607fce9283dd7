package elasticsearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
)

// productFields are a schema of every type the driver maps.
func productFields(name string, price engines.FieldType) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "category", Type: engines.Tag},
		{Name: "price", Type: price},
		{Name: "title", Type: engines.Text},
	}}
}

// Attach accepts the index Create made for the same schema (keyword, double
// and analysed text fields), refuses one whose field is mapped as another
// type, and creates nothing: an index it refused is still not there.
func TestAttachChecksEveryFieldType(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	first := open(t, engines.Config{URL: f.URL()})
	if err := first.Create(ctx, productFields("products", engines.Numeric)); err != nil {
		t.Fatal(err)
	}
	second := open(t, engines.Config{URL: f.URL()})
	if err := second.Attach(ctx, productFields("products", engines.Numeric)); err != nil {
		t.Fatalf("Attach to the index Create made: %v", err)
	}
	err := second.Attach(ctx, productFields("products", engines.Tag))
	if err == nil || !strings.Contains(err.Error(), "field price") {
		t.Fatalf("Attach with price as a keyword to an index mapping it as double: %v", err)
	}
	if err := second.Attach(ctx, productFields("other", engines.Numeric)); err == nil {
		t.Fatal("Attach to an index that is not there succeeded")
	}
	if err := second.Attach(ctx, productFields("other", engines.Numeric)); err == nil || !strings.Contains(err.Error(), "no index other") {
		t.Fatalf("a refused Attach created the index: the second attempt says %v", err)
	}
}

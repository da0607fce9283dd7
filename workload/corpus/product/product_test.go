package product

import (
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
)

// Product queries map every kind: KNN with and without a filter on the
// schema's Tag and Numeric fields, and exact SKU lookups on the sku field.
func TestProductQueries(t *testing.T) {
	src, err := New(dataset.Config{Seed: 1, IDs: 1000, Prepopulate: 1}, 8, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i := range uint64(400) {
		q, kind := src.Query(i)
		if name := src.QueryKinds()[kind]; !strings.HasPrefix(name, map[bool]string{true: "knn", false: "sku"}[q.Vector != nil]) {
			t.Errorf("query %d = %+v is of kind %s", i, q, name)
		}
		switch {
		case q.Field == FieldSKU && q.Text != "" && q.Vector == nil:
			kinds["sku"]++
		case len(q.Vector) == 8 && len(q.Filters) == 0:
			kinds["knn"]++
		case len(q.Vector) == 8 && len(q.Filters) == 1 && q.Filters[0].Field == FieldCategory && q.Filters[0].Tag != "":
			kinds["category"]++
		case len(q.Vector) == 8 && len(q.Filters) == 1 && q.Filters[0].Field == FieldPrice && q.Filters[0].Max > q.Filters[0].Min:
			kinds["price"]++
		default:
			t.Fatalf("query %d = %+v fits no kind", i, q)
		}
	}
	for _, k := range []string{"sku", "knn", "category", "price"} {
		if kinds[k] < 40 {
			t.Errorf("%d %s queries of 400; want each kind well represented (%v)", kinds[k], k, kinds)
		}
	}
}

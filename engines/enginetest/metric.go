package enginetest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
)

// MetricSchema is a product-shaped schema whose vector field, of
// metricDim dimensions, ranks by m: the fields the product corpus's
// schema has, so that a driver's product layout takes it.
func MetricSchema(name string, m engines.Metric) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: dataset.FieldCategory, Type: engines.Tag},
		{Name: dataset.FieldPrice, Type: engines.Numeric},
		{Name: dataset.FieldSKU, Type: engines.Text},
		{Name: dataset.FieldTitle, Type: engines.Text},
		{Name: dataset.FieldDescription, Type: engines.Text},
		{Name: dataset.FieldEmbedding, Type: engines.Vector, Dim: metricDim, Metric: m},
	}}
}

const metricDim = 3

// metricQuery and metricDocs are placed so that each metric's three
// nearest differ from the others' — by cosine 2, 1, 3 (2 points the
// query's way); by L2 1, 4, 5 (1 is nearest in space); by inner product
// 3, 2, 1 (3 is longest along the query) — so that an index of the wrong
// metric, or a fake that ranks every metric alike, gives a wrong answer.
var (
	metricQuery = []float32{1, 0, 0}
	metricDocs  = [][]float32{
		{0.9, 0.1, 0}, // 1: L2 0.14, cos 0.994, dot 0.9
		{5, 0, 0},     // 2: L2 4, cos 1, dot 5
		{8, 6, 0},     // 3: L2 9.2, cos 0.8, dot 8
		{0.5, 0.5, 0.5},
		{-1, 0, 0},
	}
)

// Metrics checks driver name's vector metrics end to end: for each of
// engines.Cosine, L2 and Dot, CheckSchema accepts MetricSchema exactly
// when the metric is in accepts (and otherwise refuses with a
// SchemaError, as Create of an engine from open does); for an accepted
// one, an engine from open, created with it and given metricDocs, answers
// a kNN search for metricQuery with its three nearest by that metric, as
// the harness's exact search (neighbours.Exact) ranks them. within bounds
// the wait for the writes to be searchable (Refresh where offered).
func Metrics(t *testing.T, name string, cfg engines.Config, open func(t *testing.T) engines.Engine, accepts []engines.Metric, within time.Duration) {
	t.Helper()
	for _, m := range []engines.Metric{engines.Cosine, engines.L2, engines.Dot} {
		t.Run(m.String(), func(t *testing.T) {
			schema := MetricSchema("metric-"+m.String(), m)
			err := engines.CheckSchema(name, cfg, schema)
			var se *engines.SchemaError
			if !slices.Contains(accepts, m) {
				if !errors.As(err, &se) {
					t.Fatalf("CheckSchema with a %s vector: %v, want a SchemaError", m, err)
				}
				e := open(t)
				defer e.Close()
				if err := e.Create(context.Background(), schema); err == nil {
					t.Fatalf("Create with a %s vector succeeded; CheckSchema refused it: %v", m, se)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckSchema with a %s vector: %v", m, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			e := open(t)
			defer e.Close()
			if err := e.Create(ctx, schema); err != nil {
				t.Fatalf("Create with a %s vector: %v", m, err)
			}
			for i, v := range metricDocs {
				d := engines.Document{ID: dataset.DocID(uint32(i + 1)), Fields: []engines.Field{
					{Name: dataset.FieldCategory, Text: "c"},
					{Name: dataset.FieldPrice, Number: float64(i)},
					{Name: dataset.FieldSKU, Text: "sku" + strconv.Itoa(i+1)},
					{Name: dataset.FieldTitle, Text: "title"},
					{Name: dataset.FieldDescription, Text: "description"},
					{Name: dataset.FieldEmbedding, Vector: v},
				}}
				if err := e.Upsert(ctx, d); err != nil {
					t.Fatalf("Upsert(%s): %v", d.ID, err)
				}
			}
			want := exactIDs(t, m)
			q := engines.Query{Vector: metricQuery, K: len(want)}
			var got []string
			for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
				if r, ok := e.(engines.Refresher); ok {
					if err := r.Refresh(ctx); err != nil {
						t.Fatalf("Refresh: %v", err)
					}
				}
				h, err := e.Search(ctx, q)
				if err != nil {
					t.Fatalf("kNN search by %s: %v", m, err)
				}
				got = h.IDs
				if slices.Equal(got, want) || time.Now().After(deadline) {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("kNN search by %s: %v, want %v (the exact nearest by %s)", m, got, want, m)
			}
		})
	}
}

// exactIDs is the three nearest of metricDocs to metricQuery by m, as
// neighbours.Exact finds them, nearest first.
func exactIDs(t *testing.T, m engines.Metric) []string {
	t.Helper()
	nm, ok := neighbours.ForIndex(m)
	if !ok {
		t.Fatalf("no exact search ranks as a %s index does", m)
	}
	found, err := neighbours.Exact(context.Background(), []neighbours.Query{{Vector: metricQuery, Metric: nm}}, 3, func(yield func(neighbours.Doc) bool) {
		for i, v := range metricDocs {
			if !yield(neighbours.Doc{ID: uint32(i + 1), Vector: v}) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(found[0]))
	for i, n := range found[0] {
		ids[i] = dataset.DocID(n.ID)
	}
	return ids
}

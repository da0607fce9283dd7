package elasticsearch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/elastic/go-elasticsearch/v8/typedapi/types"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/densevectorindexoptionstype"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/densevectorsimilarity"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// Every metric is accepted and answers its own exact nearest, end to end
// against the fake, which scores each similarity as Elasticsearch does.
func TestMetricsFake(t *testing.T) {
	f := fake(t, esfake.Options{})
	cfg := engines.Config{URL: f.URL()}
	enginetest.Metrics(t, "elasticsearch", cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), "elasticsearch", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine, engines.L2, engines.Dot}, 5*time.Second)
}

// A metric's dense_vector is the official client's typed property with
// the similarity the dense_vector reference names for it — Dot is
// max_inner_product, which takes vectors of any length, not dot_product —
// and Attach refuses an index made for another metric.
func TestMetricMapping(t *testing.T) {
	f := fake(t, esfake.Options{})
	sims := map[engines.Metric]densevectorsimilarity.DenseVectorSimilarity{
		engines.Cosine: densevectorsimilarity.Cosine,
		engines.L2:     densevectorsimilarity.L2norm,
		engines.Dot:    densevectorsimilarity.Maxinnerproduct,
	}
	for m, sim := range sims {
		schema := enginetest.MetricSchema("metric-"+m.String(), m)
		e := open(t, engines.Config{URL: f.URL()})
		if err := e.Create(context.Background(), schema); err != nil {
			t.Fatal(err)
		}
		_, b := body(t, f, "PUT", "/"+schema.Name)
		sameJSON(t, m.String(), at(b, "mappings", "properties", dataset.FieldEmbedding), types.DenseVectorProperty{
			Dims: ptr(3), Index: ptr(true), Similarity: &sim,
			IndexOptions: &types.DenseVectorIndexOptions{Type: densevectorindexoptionstype.Hnsw, M: ptr(16), EfConstruction: ptr(100)},
		})
		for other := range sims {
			s := enginetest.MetricSchema(schema.Name, other)
			err := open(t, engines.Config{URL: f.URL()}).Attach(context.Background(), s)
			if (err == nil) != (other == m) {
				t.Errorf("attach to a %s index with a %s schema: %v", m, other, err)
			}
		}
	}
	// A metric this driver does not know is refused before anything is sent.
	err := engines.CheckSchema("elasticsearch", engines.Config{URL: f.URL()}, enginetest.MetricSchema("unknown", engines.Metric(9)))
	var se *engines.SchemaError
	if !errors.As(err, &se) || !errors.Is(err, engines.ErrUnsupported) {
		t.Errorf("CheckSchema with metric 9: %v; want a SchemaError wrapping ErrUnsupported", err)
	}
}

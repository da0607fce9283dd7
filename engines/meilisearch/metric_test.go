package meilisearch_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// Meilisearch's embedders compare embeddings by cosine only (no embedder
// setting names a distance), so a vector field of another metric is
// refused before anything starts, and the cosine kNN answers the exact
// nearest.
func TestMetrics(t *testing.T) {
	f := fake(t)
	cfg := engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable}
	enginetest.Metrics(t, "meilisearch", cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), "meilisearch", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine}, time.Second)
}

// The refusal is one line that says why; an index without the embedder
// (fields without vector) only stores the vector, so any metric is taken.
func TestMetricRefusal(t *testing.T) {
	err := engines.CheckSchema("meilisearch", engines.Config{}, enginetest.MetricSchema("m", engines.L2))
	var se *engines.SchemaError
	if !errors.As(err, &se) || !errors.Is(err, engines.ErrUnsupported) || !strings.Contains(err.Error(), "cosine only") || strings.Contains(err.Error(), "\n") {
		t.Errorf("an L2 vector: %v; want a one-line SchemaError wrapping ErrUnsupported that says cosine only", err)
	}
	stored := engines.Config{Options: map[string]string{"fields": "text,tag,numeric"}}
	for _, m := range []engines.Metric{engines.L2, engines.Dot} {
		if err := engines.CheckSchema("meilisearch", stored, enginetest.MetricSchema("m", m)); err != nil {
			t.Errorf("a %s vector without the embedder: %v", m, err)
		}
	}
}

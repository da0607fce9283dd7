package amgixnow_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow"
	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// Every metric a vector field can ask for is one of Amgix's dense
// distances (cosine, euclid, dot: DenseDistance in src/common.rs), and
// the fake ranks each as Qdrant scores it, so a kNN answers the exact
// nearest by the schema's metric.
func TestMetrics(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	cfg := engines.Config{URL: f.URL}
	enginetest.Metrics(t, amgixnow.SyncName, cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), amgixnow.SyncName, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine, engines.L2, engines.Dot}, time.Second)
}

// Create asks for the metric's dense_distance on the dense_custom vector
// (VectorConfig in src/models.rs: "cosine", "dot" or "euclid") and
// nothing else differs: "normalization" is not sent, since Amgix applies
// it only to the embeddings it computes (src/vectors/dense_model.rs), not
// to a client's vector.
func TestMetricWire(t *testing.T) {
	w := newWire(t)
	e := open(t, amgixnow.SyncName, engines.Config{URL: w.URL})
	for m, distance := range map[engines.Metric]string{engines.Cosine: "cosine", engines.L2: "euclid", engines.Dot: "dot"} {
		w.Take()
		if err := e.Create(context.Background(), enginetest.MetricSchema("metric", m)); err != nil {
			t.Fatal(err)
		}
		sameJSON(t, m.String(), w.TakeOne(t, "POST", "/v1/collections/metric").Body, `{"vectors":[
			{"name":"ft","type":"full_text","index_fields":["name","description","content"]},
			{"name":"kw","type":"whitespace","index_fields":["name"]},
			{"name":"dense","type":"dense_custom","index_fields":["content"],"dimensions":3,"dense_distance":"`+distance+`"}],
			"store_content":true,
			"metadata_indexes":[{"key":"category","type":"string"},{"key":"price","type":"float"}]}`)
	}
}

// A shard attaches only to a collection of its schema's metric: one made
// for another distance would rank its kNN by that one.
func TestAttachChecksMetric(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	cfg := engines.Config{URL: f.URL}
	first := open(t, amgixnow.SyncName, cfg)
	ctx := context.Background()
	if err := first.Create(ctx, enginetest.MetricSchema("shared", engines.Dot)); err != nil {
		t.Fatal(err)
	}
	second := open(t, amgixnow.SyncName, cfg).(engines.Attacher)
	err := second.Attach(ctx, enginetest.MetricSchema("shared", engines.L2))
	if err == nil || !strings.Contains(err.Error(), "dot") || !strings.Contains(err.Error(), "euclid") {
		t.Errorf("Attach with L2 to a dot collection: %v; want a refusal naming both distances", err)
	}
	t.Logf("Attach with L2 to a dot collection: %v", err)
	if err := second.Attach(ctx, enginetest.MetricSchema("shared", engines.Dot)); err != nil {
		t.Errorf("Attach with the collection's own metric: %v", err)
	}
}

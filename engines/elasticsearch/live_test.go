package elasticsearch_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// The official image (docker.elastic.co/elasticsearch/elasticsearch:8.19.6,
// the launcher's definition) runs the same conformance suite, or the server
// named by SEARCHBENCH_ELASTICSEARCH_URL (with SEARCHBENCH_USERNAME and
// SEARCHBENCH_PASSWORD when it asks for them; see containertest.Server). It skips with one line where
// the image cannot be pulled.
func TestLive(t *testing.T) {
	url, _ := containertest.Server(t, "elasticsearch", container.Options{CPUs: 2})
	cfg := engines.Config{
		URL:      url,
		Username: os.Getenv("SEARCHBENCH_USERNAME"),
		Password: engines.Secret(os.Getenv("SEARCHBENCH_PASSWORD")),
	}
	// Searchable writes wait for the periodic refresh: 100ms keeps the
	// suite's concurrent phase to seconds instead of minutes.
	conformance(t, cfg, map[string]string{"refresh_interval": "100ms"})
}

// Study B's corpus and query kinds on the official image: filtered kNN
// answers pass their filter and hold K products, kNN recall@10 against
// brute force is at least 0.9 (HNSW is approximate, num_candidates 100),
// SKU lookups find their product (with the english analyser, which drops
// a code such as "it", and with the exact sub-field), and hybrid answers
// hold the text's matches.
func TestLiveProduct(t *testing.T) {
	url, _ := containertest.Server(t, "elasticsearch", container.Options{CPUs: 2})
	// The last: the exact sub-field under text fields that are not
	// indexed themselves (the exact-index scenario's second setup).
	for _, options := range []map[string]string{nil, {"exact": "on"}, {"fields": "tag,numeric,vector", "exact": "on"}} {
		cfg := engines.Config{
			URL:      url,
			Username: os.Getenv("SEARCHBENCH_USERNAME"),
			Password: engines.Secret(os.Getenv("SEARCHBENCH_PASSWORD")),
			Options:  options,
		}
		e, err := engines.Open(context.Background(), "elasticsearch", cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		src := products(t, 2000, 64)
		loadProducts(t, e, src)
		checkProductQueries(t, e, cfg, src, 0.9)
	}
}

// The metrics on the official image: cosine, l2_norm and
// max_inner_product indexes answer each metric's exact nearest, as the
// fake (TestMetricsFake) models them.
func TestLiveMetrics(t *testing.T) {
	url, _ := containertest.Server(t, "elasticsearch", container.Options{CPUs: 2})
	cfg := engines.Config{
		URL:      url,
		Username: os.Getenv("SEARCHBENCH_USERNAME"),
		Password: engines.Secret(os.Getenv("SEARCHBENCH_PASSWORD")),
	}
	enginetest.Metrics(t, "elasticsearch", cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), "elasticsearch", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine, engines.L2, engines.Dot}, 10*time.Second)
}

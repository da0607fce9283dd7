package typesense_test

import (
	"context"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// The conformance suite against the real server checks, among the rest,
// the driver's claim that a write is searchable when it returns.
func TestConformanceLive(t *testing.T) {
	url, apiKey := containertest.Server(t, "typesense", container.Options{CPUs: 1})
	conformance(t, url, apiKey)
	e := open(t, url, apiKey, nil)
	v, err := e.(engines.Versioner).Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", v)
}

// The metrics on the real server: vec_dist cosine and ip answer each
// metric's exact nearest, as the fake (TestMetricsFake) models them, and
// L2 is refused before the server is asked.
func TestLiveMetrics(t *testing.T) {
	url, apiKey := containertest.Server(t, "typesense", container.Options{CPUs: 1})
	cfg := engines.Config{URL: url, APIKey: engines.Secret(apiKey)}
	enginetest.Metrics(t, "typesense", cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), "typesense", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine, engines.Dot}, 5*time.Second)
}

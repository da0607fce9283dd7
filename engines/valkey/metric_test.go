package valkey_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// metricsContract: the driver indexes a vector field by the metric its
// schema names — COSINE, L2 or IP, each of valkey-search's three
// (src/indexes/vector_base.h, kDistanceMetricByStr, 1.2.1) — and a KNN
// search answers the exact three nearest by it (enginetest.Metrics: the
// three metrics give three different answers). On the fake and on the
// module (TestContracts, TestContractsModule).
func metricsContract(t *testing.T, tg target) {
	cfg := engines.Config{URL: tg.url, Password: engines.Secret(tg.password)}
	enginetest.Metrics(t, "valkey", cfg, func(t *testing.T) engines.Engine { return tg.open(t, nil) },
		[]engines.Metric{engines.Cosine, engines.L2, engines.Dot}, 10*time.Second)
}

// A metric the driver has no DISTANCE_METRIC for is refused before
// anything starts, as a schema error, and by Create.
func TestUnknownMetricRefused(t *testing.T) {
	schema := enginetest.MetricSchema("metric-unknown", engines.Dot+1)
	var se *engines.SchemaError
	if err := engines.CheckSchema("valkey", engines.Config{}, schema); !errors.As(err, &se) || !strings.Contains(err.Error(), "metric unknown") {
		t.Fatalf("CheckSchema with metric %d: %v, want a SchemaError naming it", engines.Dot+1, err)
	}
	tg := fakeTarget(t)
	if err := tg.open(t, nil).Create(context.Background(), schema); !errors.As(err, &se) {
		t.Fatalf("Create with metric %d: %v, want a SchemaError", engines.Dot+1, err)
	}
}

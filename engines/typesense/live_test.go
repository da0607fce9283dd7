package typesense_test

import (
	"context"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
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

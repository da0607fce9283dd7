package meilisearch_test

import (
	"context"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// The conformance suite in both write modes against the real server checks,
// among the rest, that a searchable-mode write is visible on return and
// that a searchable-mode delete of a missing ID is reported (the task's
// deletedDocuments is 0).
func TestConformanceLive(t *testing.T) {
	url, key := containertest.Server(t, "meilisearch", container.Options{CPUs: 1})
	conformance(t, url, key)
	e := open(t, engines.Config{URL: url, APIKey: engines.Secret(key)})
	v, err := e.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", v)
}

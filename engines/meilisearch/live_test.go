package meilisearch_test

import (
	"context"
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// server returns a URL and master key for a real Meilisearch:
// SEARCHBENCH_MEILISEARCH_URL and SEARCHBENCH_MEILISEARCH_API_KEY (attach),
// or the official image started by the launcher (one CPU). It skips, with
// one line, where neither can run.
func server(t *testing.T) (string, string) {
	t.Helper()
	if u := os.Getenv("SEARCHBENCH_MEILISEARCH_URL"); u != "" {
		return u, os.Getenv("SEARCHBENCH_MEILISEARCH_API_KEY")
	}
	c := containertest.Start(t, "meilisearch", container.Options{CPUs: 1})
	return c.URL, c.Secret
}

// The conformance suite in both write modes against the real server checks,
// among the rest, that a searchable-mode write is visible on return and
// that a searchable-mode delete of a missing ID is reported (the task's
// deletedDocuments is 0).
func TestConformanceLive(t *testing.T) {
	url, key := server(t)
	conformance(t, url, key)
	e := open(t, engines.Config{URL: url, APIKey: engines.Secret(key)})
	v, err := e.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", v)
}

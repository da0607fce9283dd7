package apispec_test

import (
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
)

// TestLoad loads every document kept here: its sha256 is the published
// one's, and it parses.
func TestLoad(t *testing.T) {
	for _, s := range []*apispec.Spec{apispec.Elasticsearch, apispec.Typesense, apispec.Meilisearch} {
		start := time.Now()
		d, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: OpenAPI %s, %d paths, loaded in %v", s.Engine, d.T.OpenAPI, d.T.Paths.Len(), time.Since(start).Round(time.Millisecond))
	}
}

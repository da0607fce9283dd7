package typesense_test

import (
	"context"
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// server returns a URL and API key for a real Typesense:
// SEARCHBENCH_TYPESENSE_URL and SEARCHBENCH_TYPESENSE_API_KEY (attach), or
// the official image started by the launcher (typesense/typesense:29.0,
// one CPU). It skips, with one line, where neither can run.
func server(t *testing.T) (string, string) {
	t.Helper()
	if u := os.Getenv("SEARCHBENCH_TYPESENSE_URL"); u != "" {
		return u, os.Getenv("SEARCHBENCH_TYPESENSE_API_KEY")
	}
	c := containertest.Start(t, "typesense", container.Options{CPUs: 1})
	return c.URL, c.Secret
}

// The conformance suite against the real server checks, among the rest,
// the driver's claim that a write is searchable when it returns.
func TestConformanceLive(t *testing.T) {
	url, apiKey := server(t)
	conformance(t, url, apiKey)
	e := open(t, url, apiKey, nil)
	v, err := e.(engines.Versioner).Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", v)
}

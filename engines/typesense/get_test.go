package typesense_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

// Only a missing document is NotFound: a missing collection's 404 is a
// broken setup, class Other.
func TestGetMissingCollection(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	if _, err := e.(engines.Getter).Get(ctx, "1"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("Get(missing document): %v; want not_found", err)
	}
	req, err := http.NewRequest(http.MethodDelete, srv.URL+"/collections/docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(typesensefake.APIKeyHeader, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("drop: %d", resp.StatusCode)
	}
	if _, err := e.(engines.Getter).Get(ctx, "1"); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("Get in a dropped collection: %v, class %s; want other", err, engines.Classify(err))
	}
}

package amgixnow_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow"
	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
)

// Get: a missing document is NotFound (Amgix's own 404); any other 404 (a
// proxy's, a server without the route) and a missing collection (Qdrant's
// 500) are class Other.
func TestGetClasses(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "get")
	g := e.(engines.Getter)
	ctx := context.Background()
	if err := e.Upsert(ctx, doc("1", "a")); err != nil {
		t.Fatal(err)
	}
	if d, err := g.Get(ctx, "1"); err != nil || d.ID != "1" || d.Text("name") != "a" || d.Text("content") != "body of 1" {
		t.Fatalf("Get(1) = %+v, %v", d, err)
	}
	if _, err := g.Get(ctx, "2"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("Get(missing): %v; want not_found", err)
	}
	if _, err := g.Get(ctx, "a/b"); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("Get(a/b): %v; want a refusal before any request", err)
	}
	f.Reject(http.StatusNotFound, 1)
	if _, err := g.Get(ctx, "1"); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("Get answered a 404 without Amgix's mark: %v, class %s; want other", err, engines.Classify(err))
	}
	req, _ := http.NewRequest(http.MethodDelete, f.URL+"/v1/collections/get", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := g.Get(ctx, "1"); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("Get in a dropped collection: %v, class %s; want other", err, engines.Classify(err))
	}
}

package typesense_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tsclient "github.com/typesense/typesense-go/v3/typesense"
	"github.com/typesense/typesense-go/v3/typesense/api"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/typesense"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

const key = "s3cret-typesense-key"

func open(t *testing.T, url, apiKey string, opts map[string]string) engines.Engine {
	t.Helper()
	e, err := engines.Open(context.Background(), "typesense", engines.Config{URL: url, APIKey: engines.Secret(apiKey), Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func conformance(t *testing.T, url, apiKey string) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			e, err := engines.Open(context.Background(), "typesense", engines.Config{URL: url, APIKey: engines.Secret(apiKey)})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		Visibility: engines.Searchable,
	})
}

func TestConformanceFake(t *testing.T) {
	srv := typesensefake.New(key)
	defer srv.Close()
	conformance(t, srv.URL, key)
}

// fresh is an engine on a new fake with the mixed workload's collection.
func fresh(t *testing.T, opts map[string]string) (*typesensefake.Server, engines.Engine) {
	t.Helper()
	srv := typesensefake.New(key)
	t.Cleanup(srv.Close)
	e := open(t, srv.URL, key, opts)
	if err := e.Create(context.Background(), enginetest.Schema("docs")); err != nil {
		t.Fatal(err)
	}
	return srv, e
}

func doc(id, name, content string) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{{Name: "name", Text: name}, {Name: "content", Text: content}}}
}

const searchRoute = "GET /collections/{c}/documents/search"

// The search sends the published configuration and nothing that would
// change Typesense's defaults otherwise.
func TestSearchParameters(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	if err := e.Upsert(ctx, doc("1", "alpha beta", "gamma")); err != nil {
		t.Fatal(err)
	}
	h, err := e.Search(ctx, engines.Query{Text: "alpha beta", K: 7})
	if err != nil || !slices.Equal(h.IDs, []string{"1"}) || h.Total != 1 {
		t.Fatalf("Search = %v, %v", h, err)
	}
	got := srv.LastQuery(searchRoute)
	for k, want := range map[string]string{
		"q": "alpha beta", "query_by": "name,content", "per_page": "7", "num_typos": "0",
		"typo_tokens_threshold": "0", "prefix": "false", "include_fields": "id",
	} {
		if got.Get(k) != want {
			t.Errorf("%s = %q; want %q", k, got.Get(k), want)
		}
	}
	for _, absent := range []string{"drop_tokens_threshold", "filter_by", "sort_by"} {
		if got.Has(absent) {
			t.Errorf("%s sent (%q); the published configuration leaves it at its default", absent, got.Get(absent))
		}
	}
	// Typesense's default drop_tokens_threshold (1) then finds the document
	// for a query whose last word matches nothing.
	if h, err := e.Search(ctx, engines.Query{Text: "alpha zzz", K: 10}); err != nil || !slices.Equal(h.IDs, []string{"1"}) {
		t.Fatalf("drop tokens: %v, %v", h, err)
	}
	// Strict: no prefix, no typos.
	for _, text := range []string{"alph", "alpah"} {
		if h, err := e.Search(ctx, engines.Query{Text: text, K: 10}); err != nil || len(h.IDs) != 0 {
			t.Fatalf("Search(%q) = %v, %v; want nothing (strict matching)", text, h, err)
		}
	}
	if _, err := e.Search(ctx, engines.Query{Text: "x", K: typesense.MaxK + 1}); err == nil {
		t.Fatal("k above 250 accepted")
	}
}

// IDs travel as JSON strings, even when they look like numbers: the fake
// (like Typesense) rejects a number.
func TestStringIDs(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	if err := e.Upsert(ctx, doc("123", "n", "c")); err != nil {
		t.Fatal(err)
	}
	b, ok := e.(engines.BulkUpserter)
	if !ok {
		t.Fatal("no BulkUpserter")
	}
	if err := b.UpsertBatch(ctx, []engines.Document{doc("456", "n", "c")}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"123", "456"} {
		if d, ok := srv.Document("docs", id); !ok || d["id"] != id {
			t.Fatalf("document %s stored as %v", id, d)
		}
	}
}

// A failed import line is an error that names its document.
func TestUpsertBatchFailedLine(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	// Replace the collection behind the driver's back with one whose
	// content is an integer: "12" coerces, "twelve" does not.
	req, _ := http.NewRequest("DELETE", srv.URL+"/collections/docs", nil)
	req.Header.Set(typesensefake.APIKeyHeader, key)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("drop: %v %v", resp, err)
	}
	req, _ = http.NewRequest("POST", srv.URL+"/collections", strings.NewReader(`{"name":"docs","fields":[{"name":"name","type":"string"},{"name":"content","type":"int32"}]}`))
	req.Header.Set(typesensefake.APIKeyHeader, key)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v %v", resp, err)
	}
	err := e.(engines.BulkUpserter).UpsertBatch(ctx, []engines.Document{doc("a1", "n", "12"), doc("b2", "n", "twelve"), doc("c3", "n", "13")})
	if err == nil || !strings.Contains(err.Error(), "document b2") || !strings.Contains(err.Error(), "1 of 3") {
		t.Fatalf("UpsertBatch = %v; want an error naming b2", err)
	}
	if _, ok := srv.Document("docs", "c3"); !ok {
		t.Fatal("the lines after the failed one were not written (Typesense writes them)")
	}
}

func TestOpenRejects(t *testing.T) {
	srv := typesensefake.New(key)
	defer srv.Close()
	ctx := context.Background()
	for _, cfg := range []engines.Config{
		{URL: srv.URL, APIKey: key, WriteMode: engines.Acknowledged},
		{URL: srv.URL, APIKey: key, Options: map[string]string{"retries": "3"}},
		{URL: srv.URL, APIKey: key, Options: map[string]string{"timeout": "-1s"}},
		{URL: srv.URL, APIKey: key, Options: map[string]string{"import_timeout": "0s"}},
		{URL: srv.URL, APIKey: key, Options: map[string]string{"pool": "0"}},
		{URL: "localhost:8108", APIKey: key},
		{URL: srv.URL},
	} {
		if e, err := engines.Open(ctx, "typesense", cfg); err == nil {
			e.Close()
			t.Errorf("Open(%+v) accepted", cfg)
		}
	}
	_, err := engines.Open(ctx, "typesense", engines.Config{URL: srv.URL, APIKey: key, Options: map[string]string{"retries": "3"}})
	if err == nil || !strings.Contains(err.Error(), "import_timeout, pool, timeout") {
		t.Fatalf("unknown option error %v does not list the valid ones", err)
	}
	e := open(t, srv.URL, key, map[string]string{"timeout": "2s", "pool": "10"})
	if v, err := e.(engines.Versioner).Version(ctx); err != nil || v != "Typesense "+typesensefake.Version {
		t.Fatalf("Version = %q, %v", v, err)
	}
}

func TestSchemaTypes(t *testing.T) {
	srv := typesensefake.New(key)
	defer srv.Close()
	e := open(t, srv.URL, key, nil)
	ctx := context.Background()
	two := engines.Schema{Name: "v", Fields: []engines.FieldSpec{{Name: "t", Type: engines.Text}, {Name: "e", Type: engines.Vector, Dim: 4}, {Name: "f", Type: engines.Vector, Dim: 4}}}
	if err := e.Create(ctx, two); !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("two vector fields: %v; want ErrUnsupported", err)
	}
	products := engines.Schema{Name: "p", Fields: []engines.FieldSpec{
		{Name: "title", Type: engines.Text}, {Name: "sku", Type: engines.Text},
		{Name: "category", Type: engines.Tag}, {Name: "price", Type: engines.Numeric},
	}}
	if err := e.Create(ctx, products); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		cat   string
		price float64
	}{{"toys", 5}, {"toys", 50}, {"books", 5}} {
		d := engines.Document{ID: string(rune('1' + i)), Fields: []engines.Field{
			{Name: "title", Text: "red ball"}, {Name: "sku", Text: "TO-" + string(rune('1'+i))},
			{Name: "category", Text: c.cat}, {Name: "price", Number: c.price},
		}}
		if err := e.Upsert(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if d, _ := srv.Document("p", "2"); d["price"] != 50.0 || d["category"] != "toys" {
		t.Fatalf("stored %v", d)
	}
	// Get reads every field back with its type.
	got, err := e.(engines.Getter).Get(ctx, "2")
	want := engines.Document{ID: "2", Fields: []engines.Field{
		{Name: "title", Text: "red ball"}, {Name: "sku", Text: "TO-2"},
		{Name: "category", Text: "toys"}, {Name: "price", Number: 50},
	}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get(2) = %+v, %v; want %+v", got, err, want)
	}
	for _, tc := range []struct {
		q    engines.Query
		want []string
	}{
		{engines.Query{Text: "ball", K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}}, []string{"2", "1"}},
		{engines.Query{Text: "ball", K: 10, Filters: []engines.Filter{{Field: "price", Min: 1, Max: 10}}}, []string{"3", "1"}},
		{engines.Query{Text: "ball", K: 10, Filters: []engines.Filter{{Field: "price", Min: 10, Max: math.Inf(1)}, {Field: "category", Tag: "toys"}}}, []string{"2"}},
		{engines.Query{Text: "TO-3", K: 10, Field: "sku"}, []string{"3"}},
	} {
		h, err := e.Search(ctx, tc.q)
		if err != nil || !slices.Equal(h.IDs, tc.want) {
			t.Errorf("Search(%+v) = %v, %v; want %v", tc.q, h.IDs, err, tc.want)
		}
	}
	if got := srv.LastQuery(searchRoute).Get("query_by"); got != "sku" {
		t.Fatalf("Field search sent query_by=%q", got)
	}
	if _, err := e.Search(ctx, engines.Query{Text: "x", K: 1, Vector: []float32{1}}); !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("vector query on a schema without a vector: %v; want ErrUnsupported", err)
	}
	if err := e.Upsert(ctx, engines.Document{ID: "9", Fields: []engines.Field{{Name: "title", Text: "x"}}}); err == nil {
		t.Fatal("a document without its numeric field was sent")
	}
}

// Neither a 401 nor a connection failure shows the key.
func TestErrorsDoNotShowTheKey(t *testing.T) {
	srv := typesensefake.New(key)
	defer srv.Close()
	ctx := context.Background()
	_, err := engines.Open(ctx, "typesense", engines.Config{URL: srv.URL, APIKey: "wrong-" + key})
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), key) {
		t.Fatalf("wrong key: %v; want a 401 without the key", err)
	}
	_, err = engines.Open(ctx, "typesense", engines.Config{URL: "http://127.0.0.1:1", APIKey: key})
	if err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("bad URL: %v; want a failure without the key", err)
	}
	// A server that echoes the key gets it scrubbed.
	e := open(t, srv.URL, key, nil)
	if err := e.Create(ctx, enginetest.Schema("docs")); err != nil {
		t.Fatal(err)
	}
	srv.Inject(typesensefake.Fault{Status: 500, Message: "bad key " + key, Times: 1})
	err = e.Upsert(ctx, doc("1", "a", "b"))
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("echoed key: %v", err)
	}
}

// 429 and 503 are overloaded; a hung server is a timeout.
func TestErrorClasses(t *testing.T) {
	srv, e := fresh(t, map[string]string{"timeout": "200ms"})
	ctx := context.Background()
	for _, status := range []int{429, 503} {
		srv.Inject(typesensefake.Fault{Status: status, Times: 3})
		for _, call := range []func() error{
			func() error { return e.Upsert(ctx, doc("1", "a", "b")) },
			func() error { _, err := e.Search(ctx, engines.Query{Text: "a", K: 10}); return err },
			func() error { return e.Delete(ctx, "1") },
		} {
			if err := call(); engines.Classify(err) != engines.Overloaded {
				t.Fatalf("%d: %v classified %s; want overloaded", status, err, engines.Classify(err))
			}
		}
	}
	srv.Inject(typesensefake.Fault{Hang: true, Times: 1})
	if _, err := e.Search(ctx, engines.Query{Text: "a", K: 10}); engines.Classify(err) != engines.Timeout {
		t.Fatalf("hung search: %v classified %s; want timeout", err, engines.Classify(err))
	}
	if err := e.Delete(ctx, "nope"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("missing document: %v; want not_found", err)
	}
	// A missing collection is a setup mistake, not a missing document.
	other := open(t, srv.URL, key, nil)
	if err := other.Create(ctx, enginetest.Schema("gone")); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("DELETE", srv.URL+"/collections/gone", nil)
	req.Header.Set(typesensefake.APIKeyHeader, key)
	if _, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, "1"); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("delete in a missing collection: %v; want an error that is not not_found", err)
	}
}

// failures drives n answers of each kind the client's circuit breaker
// could count: 503s, and transport failures (dropped connections), which
// gobreaker's default counts. Each call must reach the server.
func failures(t *testing.T, srv *typesensefake.Server, n int, upsert func() error) {
	t.Helper()
	for _, f := range []typesensefake.Fault{{Status: 503, Times: n}, {Drop: true, Times: n}} {
		srv.Inject(f)
		before := srv.Calls("")
		for i := range n {
			if err := upsert(); err == nil {
				t.Fatalf("fault %+v: call %d succeeded", f, i)
			}
		}
		if got := srv.Calls("") - before; got != n {
			t.Fatalf("fault %+v: %d of %d calls reached the server", f, got, n)
		}
	}
}

// The driver's client has no circuit breaker and no retries: after 150
// consecutive 503s and 150 dropped connections the next request still
// reaches the server, and succeeds.
func TestNoCircuitBreaker(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	upsert := func() error { return e.Upsert(ctx, doc("1", "a", "b")) }
	failures(t, srv, 150, upsert)
	before := srv.Calls("")
	if err := upsert(); err != nil {
		t.Fatalf("after the failures: %v (a local circuit-breaker failure?)", err)
	}
	if srv.Calls("") != before+1 {
		t.Fatal("the request after the failures did not reach the server")
	}
}

// Control for TestNoCircuitBreaker: the client as typesense.NewClient
// builds it does trip on the same sequence, so the test above can fail.
func TestDefaultClientWouldTrip(t *testing.T) {
	srv := typesensefake.New(key)
	defer srv.Close()
	c := tsclient.NewClient(tsclient.WithServer(srv.URL), tsclient.WithAPIKey(key))
	ctx := context.Background()
	if _, err := c.Collections().Create(ctx, &api.CollectionSchema{Name: "docs", Fields: []api.Field{{Name: "name", Type: "string"}}}); err != nil {
		t.Fatal(err)
	}
	upsert := func() error {
		_, err := c.Collection("docs").Documents().Upsert(ctx, map[string]any{"id": "1", "name": "a"}, &api.DocumentIndexParameters{})
		return err
	}
	srv.Inject(typesensefake.Fault{Drop: true, Times: 150})
	for range 150 {
		_ = upsert()
	}
	before := srv.Calls("")
	err := upsert()
	if err == nil || srv.Calls("") != before {
		t.Fatalf("default client after 150 transport failures: %v, reached the server: %v; want a local circuit-breaker failure", err, srv.Calls("") != before)
	}
}

// An import is allowed more time than a single call (Typesense's docs ask
// clients for at least 5 minutes): a batch the server takes longer than the
// call timeout over still lands, a single write that slow times out, and
// import_timeout bounds the import.
func TestImportHasItsOwnTimeout(t *testing.T) {
	const slow = 750 * time.Millisecond
	srv, e := fresh(t, map[string]string{"timeout": "250ms"})
	ctx := context.Background()
	docs := []engines.Document{doc("1", "a", "b"), doc("2", "c", "d")}
	srv.Inject(typesensefake.Fault{Path: "/collections/docs/documents/import", Delay: slow, Times: 1})
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatalf("import slower than the call timeout: %v; want it to land", err)
	}
	srv.Inject(typesensefake.Fault{Path: "/collections/docs/documents", Delay: slow, Times: 1})
	if err := e.Upsert(ctx, doc("3", "e", "f")); engines.Classify(err) != engines.Timeout {
		t.Fatalf("single upsert slower than the call timeout: %v; want a timeout", err)
	}

	short := open(t, srv.URL, key, map[string]string{"import_timeout": "250ms"})
	if err := short.Create(ctx, enginetest.Schema("docs")); err != nil {
		t.Fatal(err)
	}
	srv.Inject(typesensefake.Fault{Path: "/collections/docs/documents/import", Delay: slow, Times: 1})
	if err := short.(engines.BulkUpserter).UpsertBatch(ctx, docs); engines.Classify(err) != engines.Timeout {
		t.Fatalf("import over import_timeout: %v; want a timeout", err)
	}
}

// Stats reads /stats.json: the write queue as queue_depth, which the ladder
// table reads, and an overloaded server is reported as such.
func TestStats(t *testing.T) {
	srv, e := fresh(t, nil)
	ctx := context.Background()
	sr := e.(engines.StatsReporter)
	st, err := sr.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := st["queue_depth"]; !ok || d != 0 {
		t.Fatalf("Stats = %v; want queue_depth 0 from pending_write_batches", st)
	}
	if _, ok := st["overloaded_requests_per_second"]; !ok {
		t.Fatalf("Stats = %v; want the server's overloaded_requests_per_second", st)
	}
	srv.Inject(typesensefake.Fault{Path: "/stats.json", Status: 503, Times: 1})
	if _, err := sr.Stats(ctx); engines.Classify(err) != engines.Overloaded {
		t.Fatalf("Stats of a lagging server: %v; want overloaded", err)
	}
}

// Each unexpected status fails in the class it does for every HTTP driver
// (a 504 was class other here while the others made it a timeout).
func TestStatusClasses(t *testing.T) {
	enginetest.StatusClasses(t, enginetest.Answers{
		Driver: "typesense",
		Config: engines.Config{APIKey: key},
		Good: func(r *http.Request) (int, []byte) {
			switch {
			case r.URL.Path == "/debug":
				return 200, []byte(`{"state":1,"version":"29.0"}`)
			case r.Method == http.MethodDelete:
				return 404, []byte(`{"message":"Not Found"}`)
			}
			return 201, []byte(`{"name":"fuzz","fields":[],"num_documents":0,"created_at":1}`)
		},
		Missing:    &enginetest.Answer{Status: 404, Body: `{"message":"Could not find a document with id: 1"}`},
		GetMissing: &enginetest.Answer{Status: 404, Body: `{"message":"Could not find a document with id: 1"}`},
	})
}

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

package elasticsearch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
)

// getSchema has a field of every type the driver maps, so Get's conversion
// of each is checked.
func getSchema(name string) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "name", Type: engines.Text}, {Name: "content", Type: engines.Text},
		{Name: "tag", Type: engines.Tag}, {Name: "price", Type: engines.Numeric},
	}}
}

func TestGet(t *testing.T) {
	d, err := engines.Lookup("elasticsearch")
	if err != nil || !d.Describe().Getter {
		t.Fatalf("the driver's description does not offer get (%v)", err)
	}
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	// No periodic refresh: what Get finds, it finds in real time.
	e := open(t, engines.Config{URL: f.URL(), Options: map[string]string{"refresh_interval": "-1"}})
	if err := e.Create(ctx, getSchema("get")); err != nil {
		t.Fatal(err)
	}
	want := engines.Document{ID: "a/b c", Fields: []engines.Field{
		{Name: "name", Text: "The Name"}, {Name: "content", Text: "first words"},
		{Name: "tag", Text: "red"}, {Name: "price", Number: 2.5},
	}}
	// Fields in another order than the schema's: Get answers in schema order.
	written := want
	written.Fields = []engines.Field{want.Fields[3], want.Fields[1], want.Fields[2], want.Fields[0]}
	mustUpsert(t, e, written)
	got, err := e.Get(ctx, "a/b c")
	if err != nil {
		t.Fatalf("Get after Upsert: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Get after Upsert = %+v; want %+v", got, want)
	}
	if rec, ok := f.LastRequest("GET", "/get/_doc/a/b c"); !ok || len(rec.Query) != 0 {
		t.Fatalf("get request: sent %v, parameters %v; want GET /get/_doc/{id} with none", ok, rec.Query)
	}
	if v, _ := f.Visible("get"); v != 0 {
		t.Fatalf("%d documents visible: the test meant to Get an unrefreshed one", v)
	}

	// A replacement is what Get returns next; a field left out is absent.
	mustUpsert(t, e, doc("a/b c", "The Name", "second words"))
	if got, err := e.Get(ctx, "a/b c"); err != nil || got.Text("content") != "second words" || len(got.Fields) != 2 {
		t.Fatalf("Get after a replacement = %+v, %v", got, err)
	}

	for _, id := range []string{"missing", "a/b c"} {
		if id == "a/b c" {
			if err := e.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		_, err := e.Get(ctx, id)
		if !errors.Is(err, engines.ErrNotFound) || engines.Classify(err) != engines.NotFound {
			t.Fatalf("Get(%q) of a missing document = %v; want NotFound", id, err)
		}
	}

	before := f.Requests("", "")
	if _, err := e.Get(ctx, ""); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("Get of an empty id = %v; want a plain error", err)
	}
	if n := f.Requests("", "") - before; n != 0 {
		t.Fatalf("an invalid id sent %d requests", n)
	}

	// A missing index is a broken setup, not a missing document.
	if r := rawDo(t, f, "DELETE", "/get", nil); r != 200 {
		t.Fatal(r)
	}
	_, err = e.Get(ctx, "missing")
	if engines.Classify(err) != engines.Other || !strings.Contains(err.Error(), "index_not_found_exception") {
		t.Fatalf("Get in a deleted index = %v (class %s); want other", err, engines.Classify(err))
	}
	// Faults classify as every call's do.
	if err := e.Create(ctx, getSchema("get")); err != nil {
		t.Fatal(err)
	}
	f.Inject(esfake.Fault{Method: "GET", Path: "/get/_doc/x", Status: 429})
	defer f.ClearFaults()
	if _, err := e.Get(ctx, "x"); engines.Classify(err) != engines.Overloaded {
		t.Fatalf("Get answered 429 = %v; want overloaded", err)
	}
}

func TestParseGet(t *testing.T) {
	s := getSchema("p")
	for _, c := range []struct {
		status int
		body   string
		class  engines.Class // OK: a document
		fields int
	}{
		{200, `{"_index":"p","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"name":"a","price":1,"extra":"x"}}`, engines.OK, 2},
		{200, `{"_id":"1","found":true,"_source":{"name":null}}`, engines.OK, 0},
		{404, `{"_index":"p","_id":"1","found":false}`, engines.NotFound, 0},
		// A 404 about another document, or an error body, is not this one missing.
		{404, `{"_index":"p","_id":"2","found":false}`, engines.Other, 0},
		{404, `{"error":{"type":"index_not_found_exception","reason":"no such index [p]"},"status":404}`, engines.Other, 0},
		{200, `{"_id":"2","found":true,"_source":{}}`, engines.Other, 0},
		{200, `{"_id":"1","found":false}`, engines.Other, 0},
		{200, `{"_id":"1","_source":{}}`, engines.Other, 0},
		{200, `{"_id":"1","found":true}`, engines.Other, 0},
		{200, `{"_id":"1","found":true,"_source":{"name":1}}`, engines.Other, 0},
		{200, `{"_id":"1","found":true,"_source":{"price":"1"}}`, engines.Other, 0},
		{200, `<html>`, engines.Other, 0},
	} {
		d, err := elasticsearch.ParseGet(c.status, []byte(c.body), "1", s)
		if got := engines.Classify(err); got != c.class {
			t.Errorf("ParseGet(%d, %s): %v, class %s; want %s", c.status, c.body, err, got, c.class)
			continue
		}
		if err == nil && (d.ID != "1" || len(d.Fields) != c.fields) {
			t.Errorf("ParseGet(%d, %s) = %+v; want id 1 with %d fields", c.status, c.body, d, c.fields)
		}
	}
}

// The product check is the root package's: only a 2xx response is checked,
// and only until one passed.
func TestProductCheckOnce(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("User-Agent"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/" && r.Header.Get("Authorization") == "":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"type":"security_exception","reason":"missing authentication credentials"},"status":401}`))
		case r.URL.Path == "/":
			w.Header().Set("X-Elastic-Product", "Elasticsearch")
			_, _ = w.Write([]byte(`{"version":{"number":"8.19.6"}}`))
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"type":"index_not_found_exception","reason":"no such index"},"status":404}`))
		default:
			_, _ = w.Write([]byte(`{"acknowledged":true,"shards_acknowledged":true,"index":"once"}`))
		}
	}))
	defer srv.Close()
	// An error answer without the header is the error, not a failed check.
	_, err := engines.Open(context.Background(), "elasticsearch", engines.Config{URL: srv.URL})
	if err == nil || errors.Is(err, elasticsearch.ErrNotElasticsearch) || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("401 without the product header = %v; want the 401", err)
	}
	// Once GET / passed, answers without the header are taken.
	e := open(t, engines.Config{URL: srv.URL, APIKey: "k"})
	if err := e.Create(context.Background(), getSchema("once")); err != nil {
		t.Fatalf("Create after a passed product check: %v", err)
	}
	// The User-Agent is the official client's.
	ua := "go-elasticsearch/" + esapi.Version + " ("
	mu.Lock()
	defer mu.Unlock()
	for _, r := range requests {
		if !strings.Contains(r, " "+ua) {
			t.Fatalf("request %q: User-Agent does not start %q", r, ua)
		}
	}
}

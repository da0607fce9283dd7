package typesensefake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

const key = "fake-key"

type client struct {
	t   *testing.T
	srv *typesensefake.Server
}

func start(t *testing.T) client {
	t.Helper()
	s := typesensefake.New(key)
	t.Cleanup(s.Close)
	return client{t, s}
}

// do sends a request with the key and returns the status and body.
func (c client) do(method, path, body string) (int, string) {
	c.t.Helper()
	return c.raw(method, path, body, key)
}

func (c client) raw(method, path, body, apiKey string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if apiKey != "" {
		req.Header.Set(typesensefake.APIKeyHeader, apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// want checks a status and that the body's message is msg.
func (c client) want(status int, body string, wantStatus int, msg string) {
	c.t.Helper()
	var m struct{ Message string }
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		c.t.Fatalf("body %q is not Typesense's error shape: %v", body, err)
	}
	if status != wantStatus || m.Message != msg {
		c.t.Fatalf("got %d %q; want %d %q", status, m.Message, wantStatus, msg)
	}
}

func (c client) mustDo(method, path, body string, wantStatus int) string {
	c.t.Helper()
	status, b := c.do(method, path, body)
	if status != wantStatus {
		c.t.Fatalf("%s %s: %d %s; want %d", method, path, status, b, wantStatus)
	}
	return b
}

const docsSchema = `{"name":"docs","fields":[{"name":"name","type":"string"},{"name":"content","type":"string"},{"name":"price","type":"float","optional":true},{"name":"cat","type":"string","facet":true,"optional":true}]}`

func withDocs(t *testing.T, docs ...string) client {
	c := start(t)
	c.mustDo("POST", "/collections", docsSchema, 201)
	for _, d := range docs {
		c.mustDo("POST", "/collections/docs/documents?action=upsert", d, 201)
	}
	return c
}

// search returns the hit IDs and found for a query string.
func (c client) search(params string) ([]string, int) {
	c.t.Helper()
	b := c.mustDo("GET", "/collections/docs/documents/search?"+params, "", 200)
	var r struct {
		Found int
		Hits  []struct{ Document map[string]any }
	}
	if err := json.Unmarshal([]byte(b), &r); err != nil {
		c.t.Fatal(err)
	}
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.Document["id"].(string))
	}
	return ids, r.Found
}

func q(text string, extra ...string) string {
	v := url.Values{"q": {text}, "query_by": {"name,content"}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v.Encode()
}

func TestAPIKeyRequired(t *testing.T) {
	c := start(t)
	const forbidden = "Forbidden - a valid `x-typesense-api-key` header must be sent."
	for _, k := range []string{"", "wrong"} {
		status, body := c.raw("GET", "/debug", "", k)
		c.want(status, body, 401, forbidden)
		status, body = c.raw("POST", "/collections", docsSchema, k)
		c.want(status, body, 401, forbidden)
	}
	if status, body := c.raw("GET", "/health", "", ""); status != 200 || body != `{"ok":true}` {
		t.Fatalf("/health without a key: %d %s", status, body)
	}
	if b := c.mustDo("GET", "/debug", "", 200); !strings.Contains(b, `"version":"29.0"`) {
		t.Fatalf("/debug: %s", b)
	}
	if status, _ := c.raw("GET", "/debug?x-typesense-api-key="+key, "", ""); status != 200 {
		t.Fatalf("key as a query parameter (Typesense accepts it): %d", status)
	}
}

func TestUnknownCollection(t *testing.T) {
	c := start(t)
	status, body := c.do("GET", "/collections/nope", "")
	c.want(status, body, 404, "Not Found")
	status, body = c.do("POST", "/collections/nope/documents", `{"id":"1"}`)
	c.want(status, body, 404, "Not Found")
	status, body = c.do("GET", "/collections/nope/documents/search?q=a&query_by=name", "")
	c.want(status, body, 404, "Not found.")
	status, body = c.do("DELETE", "/collections/nope", "")
	c.want(status, body, 404, "No collection with name `nope` found.")
}

func TestCollectionLifecycle(t *testing.T) {
	c := withDocs(t)
	status, body := c.do("POST", "/collections", docsSchema)
	c.want(status, body, 409, "A collection with name `docs` already exists.")
	status, body = c.do("POST", "/collections", `{"name":"x","fields":[{"name":"a","type":"strin"}]}`)
	c.want(status, body, 400, "Field `a` has an invalid data type `strin`, see docs for supported data types.")
	status, body = c.do("POST", "/collections", `{"name":"x","fields":[{"name":"v","type":"float[]"}]}`)
	if status != 501 {
		t.Fatalf("float[] without num_dim: %d %s; want 501 (not modelled)", status, body)
	}
	b := c.mustDo("POST", "/collections", `{"name":"x","fields":[{"name":"v","type":"float[]","num_dim":4}]}`, 201)
	if !strings.Contains(b, `"num_dim":4,"vec_dist":"cosine"`) {
		t.Fatalf("vector field: %s", b)
	}
	c.mustDo("POST", "/collections/docs/documents", `{"id":"1","name":"a","content":"b"}`, 201)
	b = c.mustDo("GET", "/collections/docs", "", 200)
	if !strings.Contains(b, `"num_documents":1`) {
		t.Fatalf("collection summary: %s", b)
	}
	c.mustDo("DELETE", "/collections/docs", "", 200)
	c.mustDo("GET", "/collections/docs", "", 404)
}

func TestDocumentRejections(t *testing.T) {
	c := withDocs(t)
	for _, tc := range []struct {
		doc    string
		status int
		msg    string
	}{
		{`{"id":1,"name":"a","content":"b"}`, 400, "Document's `id` field should be a string."},
		{`{"id":null,"name":"a","content":"b"}`, 400, "Document's `id` field should be a string."},
		{`{"id":"1","content":"b"}`, 400, "Field `name` has been declared in the schema, but is not found in the document."},
		{`{"id":"1","name":["a"],"content":"b"}`, 400, "Field `name` must be a string."},
		{`{"id":"1","name":"a","content":"b","price":"cheap"}`, 400, "Field `price` must be a float."},
		{`{"id":"1","name":"a"`, 400, "Bad JSON."},
	} {
		status, body := c.do("POST", "/collections/docs/documents?action=upsert", tc.doc)
		c.want(status, body, tc.status, tc.msg)
	}
	status, body := c.do("POST", "/collections/docs/documents?action=replace", `{"id":"1","name":"a","content":"b"}`)
	c.want(status, body, 400, "Parameter `action` must be a create|update|upsert.")
	// Coercion, as dirty_values=coerce_or_reject: a number for a string.
	c.mustDo("POST", "/collections/docs/documents", `{"id":"1","name":42,"content":"b","price":"1.5"}`, 201)
	d, _ := c.srv.Document("docs", "1")
	if d["name"] != "42" || d["price"] != 1.5 {
		t.Fatalf("coerced document %v", d)
	}
	status, body = c.do("POST", "/collections/docs/documents", `{"id":"1","name":"a","content":"b"}`)
	c.want(status, body, 409, "A document with id 1 already exists.")
	c.mustDo("POST", "/collections/docs/documents?action=upsert", `{"id":"1","name":"a","content":"b"}`, 201)
	if d, _ := c.srv.Document("docs", "1"); d["name"] != "a" || d["price"] != nil {
		t.Fatalf("upsert did not replace every field: %v", d)
	}
}

func TestDeleteDocument(t *testing.T) {
	c := withDocs(t, `{"id":"7","name":"a","content":"b"}`)
	c.mustDo("DELETE", "/collections/docs/documents/7", "", 200)
	status, body := c.do("DELETE", "/collections/docs/documents/7", "")
	c.want(status, body, 404, "Could not find a document with id: 7")
}

func TestImport(t *testing.T) {
	c := withDocs(t)
	body := `{"id":"1","name":"a","content":"b"}` + "\n" + `{"id":2,"name":"a","content":"b"}` + "\n" + `{"id":"3","content":"b"}` + "\n"
	status, out := c.do("POST", "/collections/docs/documents/import?action=upsert", body)
	if status != 200 {
		t.Fatalf("import: %d %s", status, out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		t.Fatalf("import answered %q: want one line a document", out)
	}
	want := []struct {
		ok  bool
		msg string
	}{{true, ""}, {false, "Document's `id` field should be a string."}, {false, "Field `name` has been declared in the schema, but is not found in the document."}}
	for i, l := range lines {
		var r struct {
			Success bool
			Error   string
			Code    int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Success != want[i].ok || r.Error != want[i].msg || (!r.Success && r.Code != 400) {
			t.Fatalf("line %d: %s; want success=%v %q", i, l, want[i].ok, want[i].msg)
		}
	}
	status, out = c.do("POST", "/collections/docs/documents/import?batch_size=0", body)
	c.want(status, out, 400, "Parameter `batch_size` must be a positive integer.")
}

func TestSearchRejections(t *testing.T) {
	c := withDocs(t)
	for _, tc := range []struct {
		params string
		status int
		msg    string
	}{
		{"query_by=name", 400, "Parameter `q` is required."},
		{"q=a", 400, "No search fields specified for the query."},
		{"q=a&query_by=name,title", 404, "Could not find a field named `title` in the schema."},
		{"q=a&query_by=price", 400, "Field `price` should be a string or a string array."},
		{"q=a&query_by=name&per_page=251", 422, "Only upto 250 hits can be fetched per page."},
		{"q=a&query_by=name&per_page=ten", 400, "Parameter `per_page` must be an unsigned integer."},
		{"q=a&query_by=name,content&num_typos=0,0,0", 400, "Number of values in `num_typos` does not match number of `query_by` fields."},
		{"q=a&query_by=name&filter_by=color:=red", 404, "Could not find a filter field named `color` in the schema."},
	} {
		status, body := c.do("GET", "/collections/docs/documents/search?"+tc.params, "")
		c.want(status, body, tc.status, tc.msg)
	}
	if status, body := c.do("GET", "/collections/docs/documents/search?q=a&query_by=name&sort_by=price:asc", ""); status != 501 {
		t.Fatalf("sort_by: %d %s; want 501 (not modelled)", status, body)
	}
	if status, _ := c.do("GET", "/collections/docs/documents/search?q=a&query_by=name&per_page=250", ""); status != 200 {
		t.Fatalf("per_page=250 refused: %d", status)
	}
}

func TestSearchSemantics(t *testing.T) {
	c := withDocs(t,
		`{"id":"1","name":"Red apple.","content":"A fruit, crisp."}`,
		`{"id":"2","name":"Green apple","content":"sour fruit"}`,
		`{"id":"3","name":"Banana","content":"yellow fruit"}`,
		`{"id":"4","name":"Applesauce","content":"made of apples"}`,
	)
	strict := []string{"num_typos", "0", "prefix", "false", "typo_tokens_threshold", "0"}
	for _, tc := range []struct {
		name   string
		params string
		want   []string
	}{
		{"all tokens must match, across fields", q("red fruit", strict...), []string{"1"}},
		{"punctuation is removed, case ignored", q("APPLE.", strict...), []string{"2", "1"}},
		{"drop tokens from the right when nothing matches all", q("banana zzz", strict...), []string{"3"}},
		{"the first token is not dropped", q("zzz banana", strict...), nil},
		{"drop_tokens_threshold=0 drops nothing", q("banana zzz", append(strict, "drop_tokens_threshold", "0")...), nil},
		{"prefix=false", q("appl", strict...), nil},
		{"num_typos=0", q("banane", strict...), nil},
		{"words match exactly, whatever num_typos and prefix say", q("appl", "num_typos", "2", "prefix", "true"), nil},
		{"per_page", q("fruit", append(strict, "per_page", "2")...), []string{"3", "2"}},
		{"wildcard", "q=*&per_page=10", []string{"4", "3", "2", "1"}},
	} {
		got, _ := c.search(tc.params)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (%s): got %v, want %v", tc.name, tc.params, got, tc.want)
		}
	}
	// Documents matching every token rank before those found by dropping.
	c.mustDo("POST", "/collections/docs/documents", `{"id":"5","name":"banana split","content":"x"}`, 201)
	got, found := c.search(q("banana split zzz", append(strict, "drop_tokens_threshold", "2")...))
	if !slices.Equal(got, []string{"5", "3"}) || found != 2 {
		t.Fatalf("drop rounds: %v (found %d); want [5 3]", got, found)
	}
	// include_fields projects the document.
	b := c.mustDo("GET", "/collections/docs/documents/search?"+q("banana", append(strict, "include_fields", "id")...), "", 200)
	if !strings.Contains(b, `"document":{"id":"5"}`) {
		t.Fatalf("include_fields=id: %s", b)
	}
}

func TestFilters(t *testing.T) {
	c := withDocs(t,
		`{"id":"1","name":"lamp","content":"x","price":10,"cat":"home"}`,
		`{"id":"2","name":"lamp","content":"x","price":20,"cat":"office"}`,
		`{"id":"3","name":"lamp","content":"x","price":30,"cat":"home"}`,
	)
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"cat:=home", []string{"3", "1"}},
		{"cat:=`office`", []string{"2"}},
		{"price:[15..30]", []string{"3", "2"}},
		{"price:>=20 && cat:=home", []string{"3"}},
		{"price:<=10", []string{"1"}},
	} {
		got, _ := c.search(q("lamp", "filter_by", tc.filter))
		if !slices.Equal(got, tc.want) {
			t.Errorf("filter %s: got %v, want %v", tc.filter, got, tc.want)
		}
	}
}

func TestFaults(t *testing.T) {
	c := withDocs(t)
	const search = "/collections/docs/documents/search"
	c.srv.Inject(typesensefake.Fault{Path: search, Status: 503, Times: 2})
	for range 2 {
		status, body := c.do("GET", search+"?"+q("a"), "")
		c.want(status, body, 503, "Not Ready or Lagging")
	}
	c.mustDo("GET", search+"?"+q("a"), "", 200)
	if n := c.srv.Calls("GET /collections/{c}/documents/search"); n != 3 {
		t.Fatalf("Calls = %d; want 3 (faulted requests count)", n)
	}
	if got := c.srv.LastQuery("GET /collections/{c}/documents/search").Get("query_by"); got != "name,content" {
		t.Fatalf("LastQuery query_by = %q", got)
	}

	c.srv.Inject(typesensefake.Fault{Status: 429, Times: 1})
	status, body := c.do("GET", "/debug", "")
	c.want(status, body, 429, "Rate limit exceeded or blocked")
	if status, _ := c.raw("GET", "/health", "", ""); status != 200 {
		t.Fatal("a fault without a path hit /health")
	}

	c.srv.Inject(typesensefake.Fault{Drop: true, Times: 1})
	if _, err := http.Post(c.srv.URL+"/collections", "application/json", strings.NewReader("{}")); err == nil {
		t.Fatal("a dropped connection answered")
	}

	c.srv.Inject(typesensefake.Fault{Hang: true})
	done := make(chan int)
	go func() {
		status, _ := c.do("GET", "/debug", "")
		done <- status
	}()
	select {
	case <-done:
		t.Fatal("a hung request answered before ClearFaults")
	case <-time.After(50 * time.Millisecond):
	}
	c.srv.ClearFaults()
	<-done
	c.mustDo("GET", "/debug", "", 200)
}

// GET /collections/{c}/documents/{id}: the stored document, coerced as
// written; a missing one is Typesense's 404, a missing collection its bare
// "Not Found"; the key is needed; parameters that would narrow the answer
// are not modelled.
func TestGetDocument(t *testing.T) {
	c := withDocs(t, `{"id":"1","name":"a","content":"b\n\nc","price":"2.5","cat":"x","extra":[1]}`)
	var d map[string]any
	if err := json.Unmarshal([]byte(c.mustDo("GET", "/collections/docs/documents/1", "", 200)), &d); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "1", "name": "a", "content": "b\n\nc", "price": 2.5, "cat": "x", "extra": []any{1.0}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("document %v; want %v", d, want)
	}
	status, body := c.do("GET", "/collections/docs/documents/2", "")
	c.want(status, body, 404, "Could not find a document with id: 2")
	status, body = c.do("GET", "/collections/nope/documents/1", "")
	c.want(status, body, 404, "Not Found")
	status, body = c.raw("GET", "/collections/docs/documents/1", "", "")
	c.want(status, body, 401, "Forbidden - a valid `x-typesense-api-key` header must be sent.")
	for _, p := range []string{"include_fields=name", "exclude_fields=content"} {
		if status, body := c.do("GET", "/collections/docs/documents/1?"+p, ""); status != 501 {
			t.Errorf("%s: %d %s; want 501 (not modelled)", p, status, body)
		}
	}
	// A deleted document is gone.
	c.mustDo("DELETE", "/collections/docs/documents/1", "", 200)
	status, body = c.do("GET", "/collections/docs/documents/1", "")
	c.want(status, body, 404, "Could not find a document with id: 1")
}

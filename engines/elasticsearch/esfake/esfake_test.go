package esfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// httpClient bounds every request, so a fake that hangs fails the test.
var httpClient = &http.Client{Timeout: 10 * time.Second}

type client struct {
	t   *testing.T
	url string
	// header is added to every request (credentials).
	header http.Header
}

func newFake(t *testing.T, o esfake.Options) (*esfake.Server, client) {
	t.Helper()
	f := esfake.New(o)
	t.Cleanup(f.Close)
	return f, client{t: t, url: f.URL()}
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// do sends a request; a string body is sent as is (NDJSON), anything else
// as JSON.
func (c client) do(method, path string, body any) response {
	c.t.Helper()
	req := enginetest.Request(c.t, method, c.url+path, body)
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	out.raw, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(out.raw, &out.body)
	return out
}

// ok fails unless the response is 2xx.
func (c client) ok(method, path string, body any) response {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.status/100 != 2 {
		c.t.Fatalf("%s %s: %d %s", method, path, r.status, r.raw)
	}
	return r
}

// wantError checks Elasticsearch's error shape: status, error.type (or a
// plain error string containing typ when the error has no type), and
// root_cause.
func wantError(t *testing.T, what string, r response, status int, typ string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d (%s); want %d", what, r.status, r.raw, status)
	}
	if got := r.body["status"]; got != float64(status) {
		t.Fatalf("%s: body status %v; want %d", what, got, status)
	}
	e, ok := r.body["error"].(map[string]any)
	if !ok {
		if s, _ := r.body["error"].(string); !strings.Contains(s, typ) {
			t.Fatalf("%s: error %s; want %q", what, r.raw, typ)
		}
		return
	}
	if e["type"] != typ {
		t.Fatalf("%s: error type %v (%v); want %s", what, e["type"], e["reason"], typ)
	}
	if rc, _ := e["root_cause"].([]any); len(rc) == 0 {
		t.Fatalf("%s: no root_cause in %s", what, r.raw)
	}
}

// wantRefused checks the fake's own refusal of what it does not model.
func wantRefused(t *testing.T, what string, r response) {
	t.Helper()
	if wantError(t, what, r, 400, "illegal_argument_exception"); !strings.HasPrefix(reason(r), "esfake:") {
		t.Errorf("%s: %s; want the fake's refusal", what, reason(r))
	}
}

func reason(r response) string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["reason"].(string)
	return s
}

// studyIndex is the driver's index body: the custom analyzer on name and
// content, strict mapping.
func studyIndex(refreshInterval string) map[string]any {
	idx := map[string]any{"number_of_shards": 1, "number_of_replicas": 0}
	if refreshInterval != "" {
		idx["refresh_interval"] = refreshInterval
	}
	text := map[string]any{"type": "text", "analyzer": "en"}
	return map[string]any{
		"settings": map[string]any{
			"index": idx,
			"analysis": map[string]any{
				"filter": map[string]any{
					"en_stop":    map[string]any{"type": "stop", "stopwords": "_english_"},
					"en_stemmer": map[string]any{"type": "stemmer", "language": "english"},
				},
				"analyzer": map[string]any{"en": map[string]any{
					"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase", "en_stop", "en_stemmer"},
				}},
			},
		},
		"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{"name": text, "content": text}},
	}
}

func put(c client, index, id, name, content string, query string) response {
	c.t.Helper()
	return c.ok("PUT", "/"+index+"/_doc/"+url.PathEscape(id)+query, map[string]any{"name": name, "content": content})
}

// search runs the driver's query and returns the hits' ids and the total.
func search(c client, index, text string, size int) ([]string, any) {
	c.t.Helper()
	r := c.ok("POST", "/"+index+"/_search", map[string]any{
		"size": size, "_source": false,
		"query": map[string]any{"multi_match": map[string]any{
			"query": text, "fields": []string{"name", "content"}, "type": "most_fields", "fuzziness": "0",
		}},
	})
	return hitIDs(c.t, r), r.body["hits"].(map[string]any)["total"]
}

func hitIDs(t *testing.T, r response) []string {
	t.Helper()
	hits := r.body["hits"].(map[string]any)["hits"].([]any)
	ids := []string{}
	for _, h := range hits {
		ids = append(ids, h.(map[string]any)["_id"].(string))
	}
	return ids
}

func count(c client, index string) int {
	c.t.Helper()
	return int(c.ok("POST", "/"+index+"/_count", nil).body["count"].(float64))
}

func TestInfoAndProductHeader(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	r := c.ok("GET", "/", nil)
	if v := r.body["version"].(map[string]any)["number"]; v != esfake.Version || esfake.Version != "8.19.6" {
		t.Fatalf("version %v", v)
	}
	// Every answer carries the product header: success, error, 404, 405.
	for _, req := range [][2]string{{"GET", "/"}, {"GET", "/nope/_search"}, {"PUT", "/Bad"}, {"PATCH", "/idx/_doc/1"}, {"GET", "/_cat/indices"}} {
		if r := c.do(req[0], req[1], nil); r.header.Get("X-Elastic-Product") != "Elasticsearch" {
			t.Errorf("%s %s (%d): no X-Elastic-Product header", req[0], req[1], r.status)
		}
	}
	_, bare := newFake(t, esfake.Options{NoProductHeader: true})
	if r := bare.ok("GET", "/", nil); r.header.Get("X-Elastic-Product") != "" {
		t.Fatal("NoProductHeader still sends the header")
	}
}

func TestAuth(t *testing.T) {
	_, c := newFake(t, esfake.Options{Username: "elastic", Password: "pw-secret", APIKey: "a2V5OmlkCg=="})
	wantError(t, "no credentials", c.do("GET", "/", nil), 401, "security_exception")
	req, _ := http.NewRequest("GET", c.url+"/", nil)
	req.SetBasicAuth("elastic", "wrong")
	c.header = req.Header
	wantError(t, "wrong password", c.do("GET", "/", nil), 401, "security_exception")
	req.SetBasicAuth("elastic", "pw-secret")
	c.ok("GET", "/", nil)
	c.header = http.Header{"Authorization": {"APIKey a2V5OmlkCg=="}}
	c.ok("GET", "/", nil)
	c.header = http.Header{"Authorization": {"ApiKey other"}}
	wantError(t, "wrong key", c.do("GET", "/", nil), 401, "security_exception")
}

func TestCreateIndexValidation(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/ok", studyIndex("1s"))
	wantError(t, "existing index", c.do("PUT", "/ok", studyIndex("1s")), 400, "resource_already_exists_exception")
	wantError(t, "unknown analyzer", c.do("PUT", "/x", map[string]any{"mappings": map[string]any{"properties": map[string]any{
		"f": map[string]any{"type": "text", "analyzer": "nope"}}}}), 400, "mapper_parsing_exception")
	for name, body := range map[string]any{
		"unknown setting":        map[string]any{"settings": map[string]any{"index.refresh_intervall": "1s"}},
		"time without unit":      map[string]any{"settings": map[string]any{"refresh_interval": "5"}},
		"a replica":              map[string]any{"settings": map[string]any{"number_of_replicas": 1}},
		"more than one shard":    map[string]any{"settings": map[string]any{"number_of_shards": 2}},
		"unknown body key":       map[string]any{"setting": map[string]any{}},
		"unknown field type":     map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": map[string]any{"type": "txt"}}}},
		"unknown field param":    map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": map[string]any{"type": "text", "analyser": "x"}}}},
		"unknown mapping key":    map[string]any{"mappings": map[string]any{"dynamik": "strict"}},
		"undefined filter":       map[string]any{"settings": map[string]any{"analysis": map[string]any{"analyzer": map[string]any{"a": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"nope"}}}}}},
		"unknown stemmer":        map[string]any{"settings": map[string]any{"analysis": map[string]any{"filter": map[string]any{"s": map[string]any{"type": "stemmer", "language": "klingon"}}}}},
		"not modelled: an alias": map[string]any{"aliases": map[string]any{"a": map[string]any{}}},
	} {
		wantRefused(t, name, c.do("PUT", "/x", body))
	}
	wantError(t, "malformed JSON", c.do("PUT", "/x", "{"), 400, "x_content_parse_exception")
	// Nested and flat settings are the same settings.
	c.ok("PUT", "/flat", map[string]any{"settings": map[string]any{"index.number_of_replicas": "0", "index.refresh_interval": "250ms"}})
	wantError(t, "delete missing index", c.do("DELETE", "/missing", nil), 404, "index_not_found_exception")
	c.ok("DELETE", "/flat", nil)
	wantError(t, "mapping of a deleted index", c.do("GET", "/flat/_mapping", nil), 404, "index_not_found_exception")
}

// GET /{index}/_mapping echoes the mapping as created; a missing index is
// index_not_found_exception, as Elasticsearch answers (its get mapping API
// does not ignore unavailable indices unless asked to).
func TestGetMapping(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/m", studyIndex("1s"))
	r := c.ok("GET", "/m/_mapping", nil)
	want := map[string]any{"m": map[string]any{"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
		"name":    map[string]any{"type": "text", "analyzer": "en"},
		"content": map[string]any{"type": "text", "analyzer": "en"},
	}}}}
	if !reflect.DeepEqual(r.body, want) {
		t.Fatalf("GET /m/_mapping = %s; want %v", r.raw, want)
	}
	wantError(t, "mapping of a missing index", c.do("GET", "/missing/_mapping", nil), 404, "index_not_found_exception")
	wantRefused(t, "unknown parameter", c.do("GET", "/m/_mapping?nope=1", nil))
}

func TestSettingsAreEchoed(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/s", studyIndex("1s"))
	s, ok := f.Settings("s")
	want := map[string]string{
		"index.number_of_shards": "1", "index.number_of_replicas": "0", "index.refresh_interval": "1s",
		"index.analysis.filter.en_stop.stopwords": "_english_", "index.analysis.analyzer.en.tokenizer": "standard",
	}
	for k, v := range want {
		if !ok || s[k] != v {
			t.Errorf("setting %s = %q; want %q", k, s[k], v)
		}
	}
}

func TestStrictMappingAndDocumentParsing(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/strict", studyIndex("1s"))
	wantError(t, "unknown field", c.do("PUT", "/strict/_doc/1", map[string]any{"name": "x", "extra": "y"}), 400, "strict_dynamic_mapping_exception")
	wantError(t, "object in a text field", c.do("PUT", "/strict/_doc/1", map[string]any{"name": map[string]any{"a": 1}}), 400, "document_parsing_exception")
	wantError(t, "not an object", c.do("PUT", "/strict/_doc/1", "[1,2]"), 400, "document_parsing_exception")
	wantRefused(t, "unknown parameter", c.do("PUT", "/strict/_doc/1?refresh_now=true", map[string]any{"name": "x"}))
	wantRefused(t, "bad refresh value", c.do("PUT", "/strict/_doc/1?refresh=soon", map[string]any{"name": "x"}))
	wantRefused(t, "write to a missing index", c.do("PUT", "/missing/_doc/1", map[string]any{"name": "x"}))
	// A value of another JSON type than the driver writes for the field.
	c.ok("PUT", "/typed", map[string]any{"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
		"price": map[string]any{"type": "double"}, "tag": map[string]any{"type": "keyword"}}}})
	for _, doc := range []map[string]any{{"price": "cheap"}, {"price": true}, {"tag": map[string]any{"a": 1}}, {"tag": 7}} {
		wantError(t, fmt.Sprint(doc), c.do("PUT", "/typed/_doc/1", doc), 400, "document_parsing_exception")
	}
	c.ok("PUT", "/typed/_doc/1?refresh=true", map[string]any{"price": 2.5, "tag": "7"})
	rng := map[string]any{"_source": false, "query": map[string]any{"range": map[string]any{"price": map[string]any{"gte": 2, "lte": 3}}}}
	if ids := hitIDs(t, c.ok("POST", "/typed/_search", rng)); len(ids) != 1 {
		t.Errorf("range over a double: %v", ids)
	}
	term := map[string]any{"_source": false, "query": map[string]any{"term": map[string]any{"tag": map[string]any{"value": "7"}}}}
	if ids := hitIDs(t, c.ok("POST", "/typed/_search", term)); len(ids) != 1 {
		t.Errorf("term on a keyword: %v", ids)
	}
	// Without dynamic strict, a new field would be mapped dynamically.
	c.ok("PUT", "/loose", map[string]any{"mappings": map[string]any{"properties": map[string]any{"name": map[string]any{"type": "text"}}}})
	wantRefused(t, "dynamic mapping", c.do("PUT", "/loose/_doc/1", map[string]any{"name": "alpha", "other": "beta"}))
	wantError(t, "content type", func() response {
		req, _ := http.NewRequest("PUT", c.url+"/strict/_doc/1", strings.NewReader(`{"name":"x"}`))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := response{status: resp.StatusCode}
		_ = json.NewDecoder(resp.Body).Decode(&r.body)
		return r
	}(), 406, "Content-Type header [text/plain] is not supported")
}

// The study's analyzer: lowercase, English stop words, Porter stemming.
func TestAnalysis(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/a", studyIndex("1s"))
	put(c, "a", "1", "The Running Dogs", "Quickly jumped, over fences.", "")
	put(c, "a", "2", "A cat", "sleeps", "?refresh=true")
	for q, want := range map[string][]string{
		"runs":       {"1"},
		"DOG":        {"1"},
		"jumping":    {"1"},
		"fence":      {"1"},
		"the":        {},
		"a the":      {},
		"sleeping":   {"2"},
		"quick":      {}, // Porter: quickly → quickli
		"cats dogs.": {"1", "2"},
	} {
		got, _ := search(c, "a", q, 10)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("query %q: %v; want %v", q, got, want)
		}
	}
}

func TestNearRealTime(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/nrt", studyIndex("-1"))
	r := put(c, "nrt", "1", "quokkazed", "x", "")
	if r.status != 201 || r.body["result"] != "created" || r.body["forced_refresh"] != nil {
		t.Fatalf("first write: %d %s", r.status, r.raw)
	}
	if ids, _ := search(c, "nrt", "quokkazed", 10); len(ids) != 0 || count(c, "nrt") != 0 {
		t.Fatal("a write without refresh is visible before any refresh")
	}
	if v, live := f.Visible("nrt"); v != 0 || live != 1 {
		t.Fatalf("visible %d live %d", v, live)
	}
	// A delete is real-time: it finds the unrefreshed document.
	if r := c.do("DELETE", "/nrt/_doc/1", nil); r.status != 200 || r.body["result"] != "deleted" {
		t.Fatalf("delete of an unrefreshed document: %d %s", r.status, r.raw)
	}
	put(c, "nrt", "2", "quokkazed", "x", "")
	r = c.ok("POST", "/nrt/_refresh", nil)
	if sh := r.body["_shards"].(map[string]any); sh["successful"] != 1.0 || sh["failed"] != 0.0 {
		t.Fatalf("refresh: %s", r.raw)
	}
	if ids, _ := search(c, "nrt", "quokkazed", 10); !slices.Equal(ids, []string{"2"}) || count(c, "nrt") != 1 {
		t.Fatalf("after _refresh: %v", ids)
	}
	// refresh=true refreshes before answering.
	r = put(c, "nrt", "3", "quokkazed", "x", "?refresh=true")
	if r.body["forced_refresh"] != true {
		t.Fatalf("refresh=true: %s", r.raw)
	}
	if ids, _ := search(c, "nrt", "quokkazed", 10); len(ids) != 2 {
		t.Fatalf("after refresh=true: %v", ids)
	}
	r = put(c, "nrt", "3", "wombatzed", "x", "?refresh=true")
	if r.status != 200 || r.body["result"] != "updated" || r.body["_version"] != 2.0 {
		t.Fatalf("replace: %d %s", r.status, r.raw)
	}
}

func TestPeriodicRefresh(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/p", studyIndex("20ms"))
	put(c, "p", "1", "quokkazed", "x", "")
	deadline := time.Now().Add(5 * time.Second)
	for count(c, "p") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("refresh_interval 20ms: the write never became visible")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWaitFor(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/w", studyIndex("1h"))
	done := make(chan response)
	go func() { done <- put(c, "w", "1", "quokkazed", "x", "?refresh=wait_for") }()
	for deadline := time.Now().Add(5 * time.Second); f.Waiting("w") != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the wait_for write is not waiting")
		}
	}
	select {
	case r := <-done:
		t.Fatalf("wait_for answered before any refresh: %s", r.raw)
	case <-time.After(50 * time.Millisecond):
	}
	if count(c, "w") != 0 {
		t.Fatal("the waiting write is visible")
	}
	c.ok("POST", "/w/_refresh", nil)
	r := <-done
	if r.body["result"] != "created" || r.body["forced_refresh"] != nil {
		t.Fatalf("wait_for released by a refresh: %s", r.raw)
	}
	if ids, _ := search(c, "w", "quokkazed", 10); len(ids) != 1 {
		t.Fatal("released write not visible")
	}
}

// Without an explicit refresh_interval a shard that has not been searched
// for index.search.idle.after stops its periodic refreshes; the next search
// waits for a refresh. An explicit refresh_interval keeps them going.
func TestSearchIdle(t *testing.T) {
	f, c := newFake(t, esfake.Options{SearchIdleAfter: 30 * time.Millisecond})
	implicit, explicit := studyIndex(""), studyIndex("1s")
	// 1s is the default value, but setting it is what counts; a shorter
	// interval for the implicit index would make it explicit.
	c.ok("PUT", "/implicit", implicit)
	c.ok("PUT", "/explicit", explicit)
	time.Sleep(60 * time.Millisecond) // both idle now
	put(c, "implicit", "1", "quokkazed", "x", "")
	put(c, "explicit", "1", "quokkazed", "x", "")
	time.Sleep(1300 * time.Millisecond) // one periodic refresh (1s)
	if v, _ := f.Visible("explicit"); v != 1 {
		t.Fatal("explicit refresh_interval: an idle shard stopped refreshing")
	}
	if v, _ := f.Visible("implicit"); v != 0 {
		t.Fatal("default refresh_interval: a search-idle shard refreshed")
	}
	if ids, _ := search(c, "implicit", "quokkazed", 10); len(ids) != 1 {
		t.Fatal("a search on a search-idle shard did not wait for the refresh")
	}
}

func TestDelete(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/d", studyIndex("1s"))
	r := c.do("DELETE", "/d/_doc/nope", nil)
	if r.status != 404 || r.body["result"] != "not_found" || r.body["_id"] != "nope" || r.body["error"] != nil {
		t.Fatalf("delete of a missing document: %d %s", r.status, r.raw)
	}
	put(c, "d", "a/b c", "x", "y", "?refresh=true")
	if r := c.do("DELETE", "/d/_doc/a%2Fb%20c?refresh=wait_for", nil); r.status != 200 || r.body["result"] != "deleted" {
		t.Fatalf("delete of an escaped id: %d %s", r.status, r.raw)
	}
	if count(c, "d") != 0 {
		t.Fatal("wait_for delete not visible when it returned")
	}
	wantError(t, "delete in a missing index", c.do("DELETE", "/gone/_doc/1", nil), 404, "index_not_found_exception")
}

func TestBulk(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/b", studyIndex("1s"))
	body := `{"index":{"_id":"1"}}
{"name":"quokkazed","content":"x"}
{"index":{"_id":"2"}}
{"name":"quokkazed","extra":"x"}
{"index":{"_id":"3"}}
{"name":"quokkazed"}
`
	r := c.ok("POST", "/b/_bulk?refresh=wait_for", body)
	if r.body["errors"] != true {
		t.Fatalf("errors flag: %s", r.raw)
	}
	var statuses []float64
	for _, it := range r.body["items"].([]any) {
		statuses = append(statuses, it.(map[string]any)["index"].(map[string]any)["status"].(float64))
	}
	if !slices.Equal(statuses, []float64{201, 400, 201}) {
		t.Fatalf("item statuses %v; want 201 400 201 (%s)", statuses, r.raw)
	}
	if ids, _ := search(c, "b", "quokkazed", 10); !slices.Equal(ids, []string{"1", "3"}) {
		t.Fatalf("bulk wait_for: visible %v", ids)
	}
	r = c.ok("POST", "/b/_bulk", "{\"index\":{\"_id\":\"4\"}}\n{\"name\":\"y\"}\n")
	if r.body["errors"] != false {
		t.Fatalf("clean bulk: %s", r.raw)
	}
	f.RejectBulkItems(1)
	r = c.ok("POST", "/b/_bulk", "{\"index\":{\"_id\":\"5\"}}\n{\"name\":\"y\"}\n{\"index\":{\"_id\":\"6\"}}\n{\"name\":\"y\"}\n")
	first := r.body["items"].([]any)[0].(map[string]any)["index"].(map[string]any)
	if r.body["errors"] != true || first["status"] != 429.0 || first["error"].(map[string]any)["type"] != "es_rejected_execution_exception" {
		t.Fatalf("rejected item: %s", r.raw)
	}
	if _, live := f.Visible("b"); live != 4 {
		t.Fatalf("live documents %d; want 4 (the rejected item is not written)", live)
	}
	wantError(t, "no final newline", c.do("POST", "/b/_bulk", "{\"index\":{\"_id\":\"7\"}}\n{\"name\":\"y\"}"), 400, "illegal_argument_exception")
	wantError(t, "missing source", c.do("POST", "/b/_bulk", "{\"index\":{\"_id\":\"7\"}}\n"), 400, "action_request_validation_exception")
	wantRefused(t, "another action", c.do("POST", "/b/_bulk", "{\"create\":{\"_id\":\"7\"}}\n{}\n"))
	wantRefused(t, "no index", c.do("POST", "/_bulk", "{\"index\":{\"_id\":\"7\"}}\n{}\n"))
	wantRefused(t, "malformed action", c.do("POST", "/b/_bulk", "{\"index\":\n{}\n"))
}

// Matching: every query term an OR clause, a field's score how often the
// query's terms occur in it, most_fields summing the fields; equal scores
// keep index order. Not BM25: ranking belongs to the live tests.
func TestMatching(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/s", studyIndex("1s"))
	put(c, "s", "1", "alpha", "gamma delta", "")
	put(c, "s", "2", "beta gamma", "alpha alpha alpha", "")
	put(c, "s", "3", "alpha", "alpha", "?refresh=true")
	r := c.ok("POST", "/s/_search", map[string]any{"_source": false, "query": map[string]any{"multi_match": map[string]any{
		"query": "alpha", "fields": []string{"name"}, "type": "most_fields"}}})
	// Equal scores keep index order.
	if ids := hitIDs(t, r); !slices.Equal(ids, []string{"1", "3"}) {
		t.Fatalf("tie order %v", ids)
	}
	// most_fields adds the fields' scores: 3 matches in both fields and
	// beats 1, which matches in one.
	ids, total := search(c, "s", "alpha", 10)
	if len(ids) != 3 || slices.Index(ids, "3") > slices.Index(ids, "1") || total.(map[string]any)["value"] != 3.0 {
		t.Fatalf("most_fields ranking %v (total %v)", ids, total)
	}
	if ids, _ := search(c, "s", "alpha", 2); len(ids) != 2 {
		t.Fatalf("size 2: %v", ids)
	}
}

func TestSearchRequestValidation(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/v", studyIndex("1s"))
	for i := range 12 {
		put(c, "v", fmt.Sprint(i), "same", "x", "")
	}
	c.ok("POST", "/v/_refresh", nil)
	mm := func(extra map[string]any) map[string]any {
		q := map[string]any{"query": "same", "fields": []string{"name"}, "type": "most_fields"}
		for k, v := range extra {
			q[k] = v
		}
		return map[string]any{"_source": false, "query": map[string]any{"multi_match": q}}
	}
	total := func(body map[string]any) any {
		return c.ok("POST", "/v/_search", body).body["hits"].(map[string]any)["total"]
	}
	if tt := total(map[string]any{"_source": false, "track_total_hits": 5}); fmt.Sprint(tt) != "map[relation:gte value:5]" {
		t.Fatalf("track_total_hits 5: %v", tt)
	}
	if tt := total(map[string]any{"_source": false, "track_total_hits": false}); tt != nil {
		t.Fatalf("track_total_hits false: %v", tt)
	}
	if r := c.ok("POST", "/v/_search", map[string]any{"_source": false}); len(hitIDs(t, r)) != 10 {
		t.Fatal("size does not default to 10")
	}
	c.ok("POST", "/v/_search", mm(map[string]any{"fuzziness": "0"}))
	wantError(t, "result window", c.do("POST", "/v/_search", map[string]any{"_source": false, "size": 10001}), 400, "search_phase_execution_exception")
	wantError(t, "missing index", c.do("POST", "/nope/_search", map[string]any{"_source": false}), 404, "index_not_found_exception")
	wantError(t, "malformed JSON", c.do("POST", "/v/_search", "{"), 400, "x_content_parse_exception")
	for name, body := range map[string]any{
		"unknown body key": map[string]any{"_source": false, "sise": 10},
		"hits' _source":    map[string]any{},
		"unknown query":    map[string]any{"_source": false, "query": map[string]any{"multimatch": map[string]any{}}},
		"unknown mm key":   mm(map[string]any{"fuzzyness": 0}),
		"best_fields":      mm(map[string]any{"type": "best_fields"}),
		"fuzziness AUTO":   mm(map[string]any{"fuzziness": "AUTO"}),
		"negative size":    map[string]any{"_source": false, "size": -1},
	} {
		wantRefused(t, name, c.do("POST", "/v/_search", body))
	}
	wantRefused(t, "size parameter", c.do("POST", "/v/_search?size=3", mm(nil)))
	wantRefused(t, "count body", c.do("POST", "/v/_count", map[string]any{"size": 1}))
}

func TestFaults(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/f", studyIndex("1s"))
	f.Inject(esfake.Fault{Method: "POST", Path: "/f/_search", Status: 429, Times: 1})
	wantError(t, "injected 429", c.do("POST", "/f/_search", nil), 429, "es_rejected_execution_exception")
	c.ok("POST", "/f/_search", map[string]any{"_source": false}) // Times: 1
	f.Inject(esfake.Fault{Status: 503})
	wantError(t, "injected 503", c.do("GET", "/", nil), 503, "unavailable_shards_exception")
	f.ClearFaults()
	f.Inject(esfake.Fault{Status: 429, Code: "circuit_breaking_exception", Message: "[parent] Data too large"})
	wantError(t, "injected breaker", c.do("GET", "/", nil), 429, "circuit_breaking_exception")
	f.ClearFaults()

	f.Inject(esfake.Fault{Path: "/f/_count", Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", c.url+"/f/_count", nil)
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a hung request was answered")
	}
	done := make(chan int)
	go func() { done <- c.do("POST", "/f/_count", nil).status }()
	time.Sleep(20 * time.Millisecond)
	f.ClearFaults()
	if s := <-done; s != 200 {
		t.Fatalf("freed request answered %d", s)
	}
	if n := f.Requests("POST", "/f/_count"); n != 2 {
		t.Fatalf("Requests = %d; want 2", n)
	}
	if rec, ok := f.LastRequest("PUT", "/f"); !ok || !bytes.Contains(rec.Body, []byte(`"en_stop"`)) {
		t.Fatalf("LastRequest: %v %s", ok, rec.Body)
	}
}

func TestRouting(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	for _, req := range [][2]string{{"PATCH", "/idx/_doc/1"}, {"GET", "/idx/things"}, {"GET", "/_cat/indices"},
		{"GET", "/?filter_path=version"}, {"POST", "/idx"}, {"GET", "/_cluster/health"}} {
		wantRefused(t, req[0]+" "+req[1], c.do(req[0], req[1], nil))
	}
}

// GET /{index}/_doc/{id} answers as Elasticsearch's get API does: real-time
// (a write not yet refreshed is found, a delete is seen at once), the source
// as written, and a 404 with found false for a missing document.
func TestGetDoc(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/g", studyIndex("-1")) // no periodic refresh: only real-time reads find anything
	put(c, "g", "a/b c", "quokkazed", "first", "")
	w := put(c, "g", "a/b c", "quokkazed", "second", "")
	r := c.do("GET", "/g/_doc/a%2Fb%20c", nil)
	if r.status != 200 {
		t.Fatalf("get of an unrefreshed document: %d %s", r.status, r.raw)
	}
	want := map[string]any{"_index": "g", "_id": "a/b c", "_version": 2.0, "_seq_no": w.body["_seq_no"], "_primary_term": 1.0,
		"found": true, "_source": map[string]any{"name": "quokkazed", "content": "second"}}
	if fmt.Sprint(r.body) != fmt.Sprint(want) {
		t.Fatalf("get\n got %s\nwant %v", r.raw, want)
	}
	if r.body["_seq_no"] != 1.0 {
		t.Fatalf("_seq_no %v after two writes; want 1", r.body["_seq_no"])
	}

	c.ok("DELETE", "/g/_doc/a%2Fb%20c", nil)
	for _, id := range []string{"a%2Fb%20c", "never"} {
		r := c.do("GET", "/g/_doc/"+id, nil)
		want := map[string]any{"_index": "g", "_id": map[string]string{"a%2Fb%20c": "a/b c", "never": "never"}[id], "found": false}
		if r.status != 404 || fmt.Sprint(r.body) != fmt.Sprint(want) {
			t.Fatalf("get of a missing document %s: %d %s; want 404 %v", id, r.status, r.raw, want)
		}
	}

	wantError(t, "get in a missing index", c.do("GET", "/gone/_doc/1", nil), 404, "index_not_found_exception")
	wantRefused(t, "unknown parameter", c.do("GET", "/g/_doc/1?nope=1", nil))
	for _, p := range []string{"realtime=false", "refresh=true", "_source=name", "routing=x"} {
		wantRefused(t, "unmodelled "+p, c.do("GET", "/g/_doc/1?"+p, nil))
	}
}

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
	for name, tc := range map[string]struct {
		path string
		body any
		typ  string
	}{
		"capital letters":        {"/Idx", nil, "invalid_index_name_exception"},
		"leading underscore":     {"/-idx", nil, "invalid_index_name_exception"},
		"colon":                  {"/a:b", nil, "invalid_index_name_exception"},
		"unknown setting":        {"/x", map[string]any{"settings": map[string]any{"index.refresh_intervall": "1s"}}, "illegal_argument_exception"},
		"time without unit":      {"/x", map[string]any{"settings": map[string]any{"refresh_interval": "5"}}, "illegal_argument_exception"},
		"negative replicas":      {"/x", map[string]any{"settings": map[string]any{"number_of_replicas": -1}}, "illegal_argument_exception"},
		"unknown body key":       {"/x", map[string]any{"setting": map[string]any{}}, "parse_exception"},
		"unknown analyzer":       {"/x", map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": map[string]any{"type": "text", "analyzer": "nope"}}}}, "mapper_parsing_exception"},
		"unknown field type":     {"/x", map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": map[string]any{"type": "txt"}}}}, "mapper_parsing_exception"},
		"unknown field param":    {"/x", map[string]any{"mappings": map[string]any{"properties": map[string]any{"f": map[string]any{"type": "text", "analyser": "x"}}}}, "mapper_parsing_exception"},
		"unknown mapping key":    {"/x", map[string]any{"mappings": map[string]any{"dynamik": "strict"}}, "mapper_parsing_exception"},
		"undefined filter":       {"/x", map[string]any{"settings": map[string]any{"analysis": map[string]any{"analyzer": map[string]any{"a": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"nope"}}}}}}, "illegal_argument_exception"},
		"unknown stemmer":        {"/x", map[string]any{"settings": map[string]any{"analysis": map[string]any{"filter": map[string]any{"s": map[string]any{"type": "stemmer", "language": "klingon"}}}}}, "illegal_argument_exception"},
		"more than one shard":    {"/x", map[string]any{"settings": map[string]any{"number_of_shards": 2}}, "illegal_argument_exception"},
		"not modelled: an alias": {"/x", map[string]any{"aliases": map[string]any{"a": map[string]any{}}}, "illegal_argument_exception"},
	} {
		wantError(t, name, c.do("PUT", tc.path, tc.body), 400, tc.typ)
		if name == "more than one shard" && !strings.HasPrefix(reason(c.do("PUT", tc.path, tc.body)), "esfake:") {
			t.Errorf("an unmodelled but valid setting must say it is the fake's limit")
		}
	}
	wantError(t, "malformed JSON", c.do("PUT", "/x", "{"), 400, "x_content_parse_exception")
	// Nested and flat settings are the same settings.
	c.ok("PUT", "/flat", map[string]any{"settings": map[string]any{"index.number_of_replicas": "0", "index.refresh_interval": "250ms"}})
	wantError(t, "delete missing index", c.do("DELETE", "/missing", nil), 404, "index_not_found_exception")
	c.ok("DELETE", "/flat", nil)
	if r := c.do("HEAD", "/flat", nil); r.status != 404 {
		t.Fatalf("HEAD deleted index: %d", r.status)
	}
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
	wantError(t, "unknown parameter", c.do("GET", "/m/_mapping?nope=1", nil), 400, "illegal_argument_exception")
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
	wantError(t, "metadata field", c.do("PUT", "/strict/_doc/1", map[string]any{"_id": "2"}), 400, "document_parsing_exception")
	wantError(t, "not an object", c.do("PUT", "/strict/_doc/1", "[1,2]"), 400, "document_parsing_exception")
	wantError(t, "id too long", c.do("PUT", "/strict/_doc/"+strings.Repeat("x", 513), map[string]any{"name": "x"}), 400, "action_request_validation_exception")
	wantError(t, "unknown parameter", c.do("PUT", "/strict/_doc/1?refresh_now=true", map[string]any{"name": "x"}), 400, "illegal_argument_exception")
	wantError(t, "bad refresh value", c.do("PUT", "/strict/_doc/1?refresh=soon", map[string]any{"name": "x"}), 400, "illegal_argument_exception")
	wantError(t, "write to a missing index", c.do("PUT", "/Missing/_doc/1", map[string]any{"name": "x"}), 400, "invalid_index_name_exception")
	// A value a field cannot take: the reason previews it, a string as
	// written, anything else as JSON.
	c.ok("PUT", "/typed", map[string]any{"mappings": map[string]any{"properties": map[string]any{
		"price": map[string]any{"type": "float"}, "tag": map[string]any{"type": "keyword"}}}})
	for _, tc := range []struct {
		doc     map[string]any
		preview string
	}{
		{map[string]any{"price": "cheap"}, "'cheap'"},
		{map[string]any{"price": true}, "'true'"},
		{map[string]any{"tag": map[string]any{"a": 1}}, `'{"a":1}'`},
		{map[string]any{"price": []any{1, []any{2}}}, "'[2]'"},
	} {
		r := c.do("PUT", "/typed/_doc/1", tc.doc)
		wantError(t, fmt.Sprint(tc.doc), r, 400, "document_parsing_exception")
		if !strings.HasSuffix(reason(r), "Preview of field's value: "+tc.preview) {
			t.Errorf("%v: reason %q; want the preview %s", tc.doc, reason(r), tc.preview)
		}
	}
	// Numbers may come as strings, and a keyword takes any scalar.
	c.ok("PUT", "/typed/_doc/1?refresh=true", map[string]any{"price": " 2.5 ", "tag": 7})
	rng := map[string]any{"query": map[string]any{"range": map[string]any{"price": map[string]any{"gte": 2, "lt": 3}}}}
	if ids := hitIDs(t, c.ok("POST", "/typed/_search", rng)); len(ids) != 1 {
		t.Errorf("range over a number given as a string: %v", ids)
	}
	if ids := hitIDs(t, c.ok("POST", "/typed/_search", map[string]any{"query": map[string]any{"term": map[string]any{"tag": "7"}}})); len(ids) != 1 {
		t.Errorf("term on a keyword given as a number: %v", ids)
	}
	// dynamic false keeps an unknown field in _source without indexing it.
	c.ok("PUT", "/loose", map[string]any{"mappings": map[string]any{"dynamic": false, "properties": map[string]any{"name": map[string]any{"type": "text"}}}})
	c.ok("PUT", "/loose/_doc/1?refresh=true", map[string]any{"name": "alpha", "other": "beta"})
	if n := len(hitIDs(t, c.ok("POST", "/loose/_search", map[string]any{"query": map[string]any{"match": map[string]any{"other": "beta"}}}))); n != 0 {
		t.Fatal("an unmapped field was indexed")
	}
	if n := len(hitIDs(t, c.ok("POST", "/loose/_search", map[string]any{"query": map[string]any{"match": map[string]any{"name": "ALPHA"}}}))); n != 1 {
		t.Fatal("the standard analyzer does not lowercase")
	}
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
	// Past index.max_refresh_listeners a wait_for write forces a refresh.
	c.ok("PUT", "/full", map[string]any{"settings": map[string]any{"refresh_interval": "1h", "max_refresh_listeners": 0},
		"mappings": map[string]any{"properties": map[string]any{"name": map[string]any{"type": "text"}}}})
	r = c.ok("PUT", "/full/_doc/1?refresh=wait_for", map[string]any{"name": "x"})
	if r.body["forced_refresh"] != true || count(c, "full") != 1 {
		t.Fatalf("wait_for beyond the listener limit: %s", r.raw)
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
{"create":{"_id":"1"}}
{"name":"x"}
{"delete":{"_id":"9"}}
{"index":{"_index":"b","_id":"3"}}
{"name":"quokkazed"}
`
	r := c.ok("POST", "/b/_bulk?refresh=wait_for", body)
	if r.body["errors"] != true {
		t.Fatalf("errors flag: %s", r.raw)
	}
	var statuses []float64
	for _, it := range r.body["items"].([]any) {
		for _, v := range it.(map[string]any) {
			statuses = append(statuses, v.(map[string]any)["status"].(float64))
		}
	}
	if !slices.Equal(statuses, []float64{201, 400, 409, 404, 201}) {
		t.Fatalf("item statuses %v; want 201 400 409 404 201 (%s)", statuses, r.raw)
	}
	if ids, _ := search(c, "b", "quokkazed", 10); !slices.Equal(ids, []string{"1", "3"}) {
		t.Fatalf("bulk wait_for: visible %v", ids)
	}
	r = c.ok("POST", "/_bulk", "{\"index\":{\"_index\":\"b\",\"_id\":\"4\"}}\n{\"name\":\"y\"}\n")
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
	wantError(t, "unknown action", c.do("POST", "/b/_bulk", "{\"upsert\":{\"_id\":\"7\"}}\n{}\n"), 400, "illegal_argument_exception")
	wantError(t, "empty", c.do("POST", "/b/_bulk", "\n"), 400, "action_request_validation_exception")
	wantError(t, "missing source", c.do("POST", "/b/_bulk", "{\"index\":{\"_id\":\"7\"}}\n"), 400, "action_request_validation_exception")
	wantError(t, "no index", c.do("POST", "/_bulk", "{\"index\":{\"_id\":\"7\"}}\n{}\n"), 400, "action_request_validation_exception")
	wantError(t, "malformed action", c.do("POST", "/b/_bulk", "{\"index\":\n{}\n"), 400, "x_content_parse_exception")
}

// Matching: every query term an OR clause (AND with operator and), a
// field's score how often the query's terms occur in it, most_fields
// summing the fields and best_fields taking the best one; equal scores keep
// index order. Not BM25: ranking belongs to the live tests.
func TestMatching(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/s", studyIndex("1s"))
	put(c, "s", "1", "alpha", "gamma delta", "")
	put(c, "s", "2", "beta gamma", "alpha alpha alpha", "")
	put(c, "s", "3", "alpha", "alpha", "?refresh=true")
	r := c.ok("POST", "/s/_search", map[string]any{"query": map[string]any{"match": map[string]any{"name": "alpha"}}})
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
	// best_fields takes the best field only.
	r = c.ok("POST", "/s/_search", map[string]any{"query": map[string]any{"multi_match": map[string]any{
		"query": "alpha", "fields": []string{"name", "content"}}}})
	if hitIDs(t, r)[0] != "2" {
		t.Fatalf("best_fields: %v", hitIDs(t, r))
	}
	// operator and: every term in one field.
	r = c.ok("POST", "/s/_search", map[string]any{"query": map[string]any{"multi_match": map[string]any{
		"query": "gamma delta", "fields": []string{"name", "content"}, "type": "most_fields", "operator": "and"}}})
	if ids := hitIDs(t, r); !slices.Equal(ids, []string{"1"}) {
		t.Fatalf("operator and: %v", ids)
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
		return map[string]any{"query": map[string]any{"multi_match": q}}
	}
	total := func(body map[string]any) any {
		return c.ok("POST", "/v/_search", body).body["hits"].(map[string]any)["total"]
	}
	if tt := total(map[string]any{"track_total_hits": 5}); fmt.Sprint(tt) != "map[relation:gte value:5]" {
		t.Fatalf("track_total_hits 5: %v", tt)
	}
	if tt := total(map[string]any{"track_total_hits": false}); tt != nil {
		t.Fatalf("track_total_hits false: %v", tt)
	}
	if r := c.ok("POST", "/v/_search", nil); len(hitIDs(t, r)) != 10 {
		t.Fatal("size does not default to 10")
	}
	if r := c.ok("POST", "/v/_search?size=3", mm(nil)); len(hitIDs(t, r)) != 3 {
		t.Fatal("size URL parameter ignored")
	}
	c.ok("POST", "/v/_search", mm(map[string]any{"fuzziness": 0}))
	for name, tc := range map[string]struct {
		path string
		body any
		typ  string
	}{
		"unknown body key":  {"/v/_search", map[string]any{"sise": 10}, "parsing_exception"},
		"unknown query":     {"/v/_search", map[string]any{"query": map[string]any{"multimatch": map[string]any{}}}, "parsing_exception"},
		"unknown mm key":    {"/v/_search", mm(map[string]any{"fuzzyness": 0}), "parsing_exception"},
		"unknown mm type":   {"/v/_search", mm(map[string]any{"type": "most"}), "parse_exception"},
		"no query text":     {"/v/_search", map[string]any{"query": map[string]any{"multi_match": map[string]any{"fields": []string{"name"}}}}, "parsing_exception"},
		"bad fuzziness":     {"/v/_search", mm(map[string]any{"fuzziness": 3}), "illegal_argument_exception"},
		"fuzzy phrase":      {"/v/_search", mm(map[string]any{"type": "phrase", "fuzziness": "AUTO"}), "parsing_exception"},
		"negative size":     {"/v/_search", map[string]any{"size": -1}, "illegal_argument_exception"},
		"result window":     {"/v/_search", map[string]any{"size": 10001}, "search_phase_execution_exception"},
		"unknown parameter": {"/v/_search?sizee=1", nil, "illegal_argument_exception"},
		"missing index":     {"/nope/_search", nil, "index_not_found_exception"},
		"fuzziness AUTO":    {"/v/_search", mm(map[string]any{"fuzziness": "AUTO"}), "illegal_argument_exception"},
		"count body key":    {"/v/_count", map[string]any{"size": 1}, "parsing_exception"},
	} {
		status := 400
		if tc.typ == "index_not_found_exception" {
			status = 404
		}
		r := c.do("POST", tc.path, tc.body)
		wantError(t, name, r, status, tc.typ)
		if name == "fuzziness AUTO" && !strings.HasPrefix(reason(r), "esfake:") {
			t.Errorf("fuzziness AUTO is valid in Elasticsearch: the refusal must say it is the fake's: %s", reason(r))
		}
	}
}

func TestClusterHealth(t *testing.T) {
	_, c := newFake(t, esfake.Options{})
	if r := c.ok("GET", "/_cluster/health?wait_for_status=yellow&timeout=1s", nil); r.body["status"] != "green" {
		t.Fatalf("empty cluster: %s", r.raw)
	}
	c.ok("PUT", "/r", map[string]any{"settings": map[string]any{"number_of_replicas": 1},
		"mappings": map[string]any{"properties": map[string]any{"a": map[string]any{"type": "keyword"}}}})
	r := c.do("GET", "/_cluster/health?wait_for_status=green&timeout=20ms", nil)
	if r.status != 408 || r.body["status"] != "yellow" || r.body["timed_out"] != true || r.body["unassigned_shards"] != 1.0 {
		t.Fatalf("a replica on one node: %d %s", r.status, r.raw)
	}
	// A write counts the unplaced replica in _shards.total.
	r = c.ok("PUT", "/r/_doc/1", map[string]any{"a": "b"})
	if sh := r.body["_shards"].(map[string]any); sh["total"] != 2.0 || sh["successful"] != 1.0 {
		t.Fatalf("write with an unplaced replica: %s", r.raw)
	}
}

func TestFaults(t *testing.T) {
	f, c := newFake(t, esfake.Options{})
	c.ok("PUT", "/f", studyIndex("1s"))
	f.Inject(esfake.Fault{Method: "POST", Path: "/f/_search", Status: 429, Times: 1})
	wantError(t, "injected 429", c.do("POST", "/f/_search", nil), 429, "es_rejected_execution_exception")
	c.ok("POST", "/f/_search", nil) // Times: 1
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
	wantError(t, "wrong method", c.do("PATCH", "/idx/_doc/1", nil), 405, "Incorrect HTTP method")
	wantError(t, "no handler", c.do("GET", "/idx/things", nil), 400, "no handler found")
	wantError(t, "unmodelled API", c.do("GET", "/_cat/indices", nil), 400, "illegal_argument_exception")
	wantError(t, "unmodelled parameter", c.do("GET", "/?filter_path=version", nil), 400, "illegal_argument_exception")
	c.ok("PUT", "/idx", studyIndex("1s"))
	wantError(t, "body on a delete", c.do("DELETE", "/idx/_doc/1", map[string]any{"x": 1}), 400, "illegal_argument_exception")
	wantError(t, "body on a refresh", c.do("POST", "/idx/_refresh", map[string]any{}), 400, "illegal_argument_exception")
	// Go keeps the last of two equal keys; Elasticsearch refuses them.
	for _, b := range []string{`{"size":1,"size":2}`, `{"query":{"match":{"name":{"query":"a","query":"b"}}}}`,
		`{"query":{"bool":{"must":[{"term":{"name":"a"}},{"match":{"name":"a","name":"b"}}]}}}`} {
		r := c.do("POST", "/idx/_search", b)
		wantError(t, "duplicate key "+b, r, 400, "x_content_parse_exception")
		if !strings.Contains(reason(r), "Duplicate field") {
			t.Errorf("duplicate key: %s", reason(r))
		}
	}
	c.ok("POST", "/idx/_search", `{"size":1,"query":{"match":{"name":{"query":"a"}}},"track_total_hits":true}`)
	// The same key in sibling objects of an array is no duplicate.
	c.ok("POST", "/idx/_search", `{"query":{"bool":{"must":[{"match":{"name":"a"}},{"match":{"name":"b"}}]}}}`)
	wantError(t, "duplicate key in a document", c.do("PUT", "/idx/_doc/1", `{"name":"a","name":"b"}`), 400, "document_parsing_exception")
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
	if h := c.do("HEAD", "/g/_doc/a%2Fb%20c", nil); h.status != 200 || len(h.raw) != 0 {
		t.Fatalf("HEAD of a document: %d %q", h.status, h.raw)
	}

	c.ok("DELETE", "/g/_doc/a%2Fb%20c", nil)
	for _, id := range []string{"a%2Fb%20c", "never"} {
		r := c.do("GET", "/g/_doc/"+id, nil)
		want := map[string]any{"_index": "g", "_id": map[string]string{"a%2Fb%20c": "a/b c", "never": "never"}[id], "found": false}
		if r.status != 404 || fmt.Sprint(r.body) != fmt.Sprint(want) {
			t.Fatalf("get of a missing document %s: %d %s; want 404 %v", id, r.status, r.raw, want)
		}
		if h := c.do("HEAD", "/g/_doc/"+id, nil); h.status != 404 || len(h.raw) != 0 {
			t.Fatalf("HEAD of a missing document: %d %q", h.status, h.raw)
		}
	}

	wantError(t, "get in a missing index", c.do("GET", "/gone/_doc/1", nil), 404, "index_not_found_exception")
	wantError(t, "body on a get", c.do("GET", "/g/_doc/1", map[string]any{"x": 1}), 400, "illegal_argument_exception")
	wantError(t, "unknown parameter", c.do("GET", "/g/_doc/1?nope=1", nil), 400, "illegal_argument_exception")
	for _, p := range []string{"realtime=false", "refresh=true", "_source=name", "routing=x"} {
		r := c.do("GET", "/g/_doc/1?"+p, nil)
		wantError(t, "unmodelled "+p, r, 400, "illegal_argument_exception")
		if !strings.Contains(reason(r), "esfake:") {
			t.Errorf("%s: %s; want the fake's refusal", p, reason(r))
		}
	}
}

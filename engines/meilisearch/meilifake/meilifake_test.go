package meilifake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
)

const key = "fake-master-key-0123456789"

type client struct {
	t   *testing.T
	url string
	key string
}

func newFake(t *testing.T) (*meilifake.Server, client) {
	t.Helper()
	f := meilifake.New(meilifake.Options{MasterKey: key})
	t.Cleanup(f.Close)
	return f, client{t: t, url: f.URL, key: key}
}

// do sends a request; body is sent as JSON unless it is a string.
func (c client) do(method, path string, body any, header ...string) (int, map[string]any) {
	c.t.Helper()
	req := enginetest.Request(c.t, method, c.url+path, body)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// wait polls a task until it is finished and returns it.
func (c client) wait(uid any) map[string]any {
	c.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		_, task := c.do("GET", fmt.Sprintf("/tasks/%v", uid), nil)
		if s := task["status"]; s != "enqueued" && s != "processing" {
			return task
		}
	}
	c.t.Fatalf("task %v did not finish", uid)
	return nil
}

// write sends a write and waits for its task.
func (c client) write(method, path string, body any) map[string]any {
	c.t.Helper()
	status, sum := c.do(method, path, body)
	if status != http.StatusAccepted {
		c.t.Fatalf("%s %s: %d %v; want 202", method, path, status, sum)
	}
	return c.wait(sum["taskUid"])
}

func (c client) mustSucceed(method, path string, body any) map[string]any {
	c.t.Helper()
	task := c.write(method, path, body)
	if task["status"] != "succeeded" {
		c.t.Fatalf("%s %s: task %v", method, path, task)
	}
	return task
}

// wantError checks Meilisearch's error body: status, code, and the four
// fields every error has.
func wantError(t *testing.T, what string, status int, body map[string]any, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus || body["code"] != wantCode {
		t.Fatalf("%s: %d %v; want %d %s", what, status, body, wantStatus, wantCode)
	}
	for _, f := range []string{"message", "code", "type", "link"} {
		if s, _ := body[f].(string); s == "" {
			t.Fatalf("%s: error body %v lacks %q", what, body, f)
		}
	}
	if body["link"] != "https://docs.meilisearch.com/errors#"+wantCode {
		t.Fatalf("%s: link %v", what, body["link"])
	}
}

// setup creates index "books" with primary key id and the given settings.
func setup(c client, settings map[string]any) {
	c.t.Helper()
	c.mustSucceed("POST", "/indexes", map[string]any{"uid": "books", "primaryKey": "id"})
	if settings != nil {
		c.mustSucceed("PATCH", "/indexes/books/settings", settings)
	}
}

func ids(t *testing.T, body map[string]any) []string {
	t.Helper()
	hits, ok := body["hits"].([]any)
	if !ok {
		t.Fatalf("no hits in %v", body)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprint(h.(map[string]any)["id"])
	}
	return out
}

func TestAuth(t *testing.T) {
	_, c := newFake(t)
	status, body := c.do("GET", "/version", nil, "Authorization", "")
	wantError(t, "no header", status, body, 401, "missing_authorization_header")
	if body["type"] != "auth" {
		t.Fatalf("type %v", body["type"])
	}
	status, body = c.do("GET", "/version", nil, "Authorization", "Basic "+key)
	wantError(t, "basic scheme", status, body, 401, "missing_authorization_header")
	status, body = c.do("GET", "/version", nil, "Authorization", "Bearer nope")
	wantError(t, "wrong key", status, body, 403, "invalid_api_key")
	if strings.Contains(fmt.Sprint(body), "nope") {
		t.Fatalf("the error echoes the key: %v", body)
	}
	if status, body := c.do("GET", "/health", nil, "Authorization", ""); status != 200 || body["status"] != "available" {
		t.Fatalf("health needs no key: %d %v", status, body)
	}
	if status, body := c.do("GET", "/version", nil); status != 200 || body["pkgVersion"] != meilifake.Version {
		t.Fatalf("version: %d %v", status, body)
	}
	open := meilifake.New(meilifake.Options{})
	defer open.Close()
	if status, _ := (client{t: t, url: open.URL}).do("GET", "/version", nil); status != 200 {
		t.Fatalf("without a master key every route is open; got %d", status)
	}
}

func TestSearchRejections(t *testing.T) {
	_, c := newFake(t)
	setup(c, nil)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"unknown field", map[string]any{"q": "x", "limitt": 10}, 400, "bad_request"},
		{"limit as string", map[string]any{"q": "x", "limit": "10"}, 400, "invalid_search_limit"},
		{"negative limit", map[string]any{"q": "x", "limit": -1}, 400, "invalid_search_limit"},
		{"fractional limit", map[string]any{"q": "x", "limit": 1.5}, 400, "invalid_search_limit"},
		{"q not a string", map[string]any{"q": 3}, 400, "invalid_search_q"},
		{"bad strategy", map[string]any{"q": "x", "matchingStrategy": "any"}, 400, "invalid_search_matching_strategy"},
		{"retrieve not a list", map[string]any{"q": "x", "attributesToRetrieve": "id"}, 400, "invalid_search_attributes_to_retrieve"},
		{"not an object", []int{1}, 400, "bad_request"},
		{"malformed", `{"q": `, 400, "malformed_payload"},
		{"not modelled", map[string]any{"q": "x", "sort": []string{"a:asc"}}, 501, "meilifake_not_modelled"},
		{"filter not filterable", map[string]any{"q": "x", "filter": "a = 1"}, 400, "invalid_search_filter"},
		{"vector without hybrid", map[string]any{"q": "", "vector": []float64{1}}, 400, "missing_search_hybrid"},
		{"no such embedder", map[string]any{"q": "", "vector": []float64{1}, "hybrid": map[string]any{"embedder": "e"}}, 400, "invalid_search_embedder"},
		{"hybrid unknown key", map[string]any{"q": "", "hybrid": map[string]any{"embedder": "e", "k": 1}}, 400, "invalid_search_hybrid_query"},
	} {
		status, body := c.do("POST", "/indexes/books/search", tc.body)
		wantError(t, tc.name, status, body, tc.status, tc.code)
	}
	status, body := c.do("POST", "/indexes/books/search", `{"q":"x"}`, "Content-Type", "")
	wantError(t, "no content type", status, body, 415, "missing_content_type")
	status, body = c.do("POST", "/indexes/nope/search", map[string]any{"q": "x"})
	wantError(t, "missing index", status, body, 404, "index_not_found")
	// The client's "hybrid": null is accepted (null means absent).
	if status, body := c.do("POST", "/indexes/books/search", map[string]any{"q": "x", "hybrid": nil, "limit": 3}); status != 200 {
		t.Fatalf("hybrid null: %d %v", status, body)
	}
	c.mustSucceed("PATCH", "/indexes/books/settings", map[string]any{"searchableAttributes": []string{"name"}})
	status, body = c.do("POST", "/indexes/books/search", map[string]any{"q": "x", "attributesToSearchOn": []string{"content"}})
	wantError(t, "search on an unsearchable attribute", status, body, 400, "invalid_search_attributes_to_search_on")
}

func TestLimitHonoured(t *testing.T) {
	_, c := newFake(t)
	setup(c, nil)
	docs := make([]map[string]any, 30)
	for i := range docs {
		docs[i] = map[string]any{"id": i, "name": "same words"}
	}
	c.mustSucceed("POST", "/indexes/books/documents", docs)
	for limit, want := range map[any]int{nil: 20, 25: 25, 0: 0, 40: 30} {
		req := map[string]any{"q": "same"}
		if limit != nil {
			req["limit"] = limit
		}
		status, body := c.do("POST", "/indexes/books/search", req)
		if got := ids(t, body); status != 200 || len(got) != want || body["estimatedTotalHits"] != 30.0 {
			t.Fatalf("limit %v: %d, %d hits %v; want %d of 30", limit, status, len(got), body, want)
		}
	}
	status, body := c.do("POST", "/indexes/books/search", map[string]any{"q": "same", "limit": 5, "offset": 27})
	if got := ids(t, body); status != 200 || len(got) != 3 {
		t.Fatalf("offset 27 limit 5: %v", body)
	}
	status, body = c.do("POST", "/indexes/books/search", map[string]any{"q": "same", "limit": 1, "attributesToRetrieve": []string{"id"}})
	hit := body["hits"].([]any)[0].(map[string]any)
	if status != 200 || len(hit) != 1 || hit["id"] != 0.0 {
		t.Fatalf("attributesToRetrieve [id]: %v", hit)
	}
}

func TestDocumentRejections(t *testing.T) {
	_, c := newFake(t)
	setup(c, nil)
	for name, tc := range map[string]struct {
		docs any
		code string
	}{
		"no primary key":     {[]map[string]any{{"name": "x"}}, "missing_document_id"},
		"id with a space":    {[]map[string]any{{"id": "a b"}}, "invalid_document_id"},
		"id with a slash":    {[]map[string]any{{"id": "a/b"}}, "invalid_document_id"},
		"fractional id":      {[]map[string]any{{"id": 1.5}}, "invalid_document_id"},
		"id of 512 bytes":    {[]map[string]any{{"id": strings.Repeat("a", 512)}}, "invalid_document_id"},
		"boolean id":         {[]map[string]any{{"id": true}}, "invalid_document_id"},
		"one bad in a batch": {[]map[string]any{{"id": "ok"}, {"id": "not ok"}}, "invalid_document_id"},
	} {
		task := c.write("POST", "/indexes/books/documents", tc.docs)
		e, _ := task["error"].(map[string]any)
		if task["status"] != "failed" || e["code"] != tc.code || e["type"] != "invalid_request" {
			t.Fatalf("%s: task %v; want failed with %s", name, task, tc.code)
		}
	}
	// A failed task changed nothing: not even the valid document of a batch.
	if _, body := c.do("GET", "/indexes/books/stats", nil); body["numberOfDocuments"] != 0.0 {
		t.Fatalf("stats after failed tasks: %v", body)
	}
	c.mustSucceed("POST", "/indexes/books/documents", []map[string]any{{"id": "a-b_1"}, {"id": 7}})
	status, body := c.do("POST", "/indexes/books/documents", `[{"id": 1}`)
	wantError(t, "malformed payload", status, body, 400, "malformed_payload")
	status, body = c.do("POST", "/indexes/books/documents", `[]`, "Content-Type", "")
	wantError(t, "no content type", status, body, 415, "missing_content_type")
	status, body = c.do("POST", "/indexes/books/documents", `[]`, "Content-Type", "text/plain")
	wantError(t, "text/plain", status, body, 415, "invalid_content_type")
}

func TestIndexAndSettingsRejections(t *testing.T) {
	_, c := newFake(t)
	status, body := c.do("POST", "/indexes", map[string]any{"uid": "bad uid"})
	wantError(t, "invalid uid", status, body, 400, "invalid_index_uid")
	status, body = c.do("POST", "/indexes", map[string]any{"primaryKey": "id"})
	wantError(t, "missing uid", status, body, 400, "missing_index_uid")
	status, body = c.do("POST", "/indexes", map[string]any{"uid": "a", "primary": "id"})
	wantError(t, "unknown field", status, body, 400, "bad_request")
	setup(c, nil)
	task := c.write("POST", "/indexes", map[string]any{"uid": "books"})
	if e, _ := task["error"].(map[string]any); task["status"] != "failed" || e["code"] != "index_already_exists" {
		t.Fatalf("second create: %v", task)
	}
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"searchableAtributes": []string{"name"}})
	wantError(t, "unknown setting", status, body, 400, "bad_request")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"typoTolerance": map[string]any{"enable": false}})
	wantError(t, "unknown typo field", status, body, 400, "invalid_settings_typo_tolerance")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"typoTolerance": map[string]any{"minWordSizeForTypos": map[string]any{"oneTypo": 300}}})
	wantError(t, "oneTypo above 255", status, body, 400, "invalid_settings_typo_tolerance")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"searchableAttributes": "name"})
	wantError(t, "searchable not a list", status, body, 400, "invalid_settings_searchable_attributes")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"rankingRules": []string{"words"}})
	wantError(t, "not modelled", status, body, 501, "meilifake_not_modelled")
	task = c.write("PATCH", "/indexes/books/settings", map[string]any{"typoTolerance": map[string]any{"minWordSizeForTypos": map[string]any{"oneTypo": 9, "twoTypos": 5}}})
	if e, _ := task["error"].(map[string]any); task["status"] != "failed" || e["code"] != "invalid_settings_typo_tolerance" {
		t.Fatalf("oneTypo > twoTypos: %v", task)
	}
	status, body = c.do("GET", "/tasks/999", nil)
	wantError(t, "missing task", status, body, 404, "task_not_found")
	status, body = c.do("GET", "/tasks/abc", nil)
	wantError(t, "bad task uid", status, body, 400, "invalid_task_uids")
	status, body = c.do("GET", "/tasks?statuses=done", nil)
	wantError(t, "bad status", status, body, 400, "invalid_task_statuses")
	status, body = c.do("GET", "/tasks?color=red", nil)
	wantError(t, "unknown parameter", status, body, 400, "bad_request")
	status, body = c.do("GET", "/indexes/nope/stats", nil)
	wantError(t, "missing index", status, body, 404, "index_not_found")
	task = c.write("DELETE", "/indexes/nope", nil)
	if e, _ := task["error"].(map[string]any); task["status"] != "failed" || e["code"] != "index_not_found" {
		t.Fatalf("delete missing index: %v", task)
	}
}

// Query words match whole lower-cased words, the last one also as a prefix
// unless the query ends with a separator; typos are not modelled.
func TestWords(t *testing.T) {
	_, c := newFake(t)
	setup(c, nil)
	c.mustSucceed("POST", "/indexes/books/documents", []map[string]any{{"id": 1, "name": "Quokkazed"}, {"id": 2, "name": "cat"}})
	search := func(q string) []string {
		_, body := c.do("POST", "/indexes/books/search", map[string]any{"q": q})
		return ids(t, body)
	}
	for q, want := range map[string]int{
		"quokkazed":  1, // the word, whatever its case
		"quokka":     1, // prefix of the last word
		"quokka.":    0, // a query ending with a separator has no prefix
		"quokkazad.": 0, // a typo: not modelled
		"cat dog.":   1, // "last": the first word alone is enough
	} {
		if got := search(q); len(got) != want {
			t.Errorf("%q found %v; want %d", q, got, want)
		}
	}
	c.mustSucceed("PATCH", "/indexes/books/settings", map[string]any{"typoTolerance": map[string]any{"enabled": false}})
	if got := search("quokkazed"); len(got) != 1 {
		t.Fatalf("typos off: the exact word: %v", got)
	}
}

// The matching strategies keep Meilisearch's semantics.
func TestMatchingStrategies(t *testing.T) {
	_, c := newFake(t)
	setup(c, map[string]any{"searchableAttributes": []string{"name", "content"}, "typoTolerance": map[string]any{"enabled": false}})
	c.mustSucceed("POST", "/indexes/books/documents", []map[string]any{
		{"id": 1, "name": "batman", "content": "dark knight"}, // all three, across attributes
		{"id": 2, "name": "batman dark"},
		{"id": 3, "name": "batman knight"},         // first word only, for "last"
		{"id": 4, "name": "dark knight"},           // misses the first word
		{"id": 5, "content": "batman dark knight"}, // all three
		{"id": 6, "name": "dark"},                  // makes "dark" the most frequent word
	})
	// More words kept first, then insertion order (ranking beyond the
	// words kept belongs to the live tests).
	for strategy, want := range map[string]string{
		"last":      "[1 5 2 3]", // batman dark knight, then batman dark, then batman
		"all":       "[1 5]",
		"frequency": "[1 5 3 2]", // "dark" is dropped first: batman knight before batman
	} {
		_, body := c.do("POST", "/indexes/books/search", map[string]any{"q": "batman dark knight.", "matchingStrategy": strategy})
		if got := fmt.Sprint(ids(t, body)); got != want {
			t.Errorf("%s: %s; want %s", strategy, got, want)
		}
	}
}

func TestTasksAreAsynchronous(t *testing.T) {
	f, c := newFake(t)
	setup(c, nil)
	f.Pause()
	status, sum := c.do("POST", "/indexes/books/documents", []map[string]any{{"id": 1, "name": "x"}})
	if status != 202 || sum["status"] != "enqueued" || sum["type"] != "documentAdditionOrUpdate" {
		t.Fatalf("summary: %d %v", status, sum)
	}
	if _, task := c.do("GET", fmt.Sprintf("/tasks/%v", sum["taskUid"]), nil); task["status"] != "enqueued" {
		t.Fatalf("held task: %v", task)
	}
	if _, body := c.do("POST", "/indexes/books/search", map[string]any{"q": "x"}); len(ids(t, body)) != 0 {
		t.Fatalf("an enqueued write is visible: %v", body)
	}
	_, list := c.do("GET", "/tasks?indexUids=books&statuses=enqueued&limit=1", nil)
	if list["total"] != 1.0 {
		t.Fatalf("tasks list: %v", list)
	}
	f.Resume()
	task := c.wait(sum["taskUid"])
	if task["status"] != "succeeded" || task["details"].(map[string]any)["indexedDocuments"] != 1.0 || task["batchUid"] == nil {
		t.Fatalf("finished task: %v", task)
	}
	del := c.mustSucceed("DELETE", "/indexes/books/documents/404", nil)
	if d := del["details"].(map[string]any); d["deletedDocuments"] != 0.0 || d["providedIds"] != 1.0 {
		t.Fatalf("delete of a missing id: %v (Meilisearch succeeds with deletedDocuments 0)", del)
	}
	del = c.mustSucceed("DELETE", "/indexes/books/documents/1", nil)
	if d := del["details"].(map[string]any); d["deletedDocuments"] != 1.0 {
		t.Fatalf("delete: %v", del)
	}
}

func TestFaults(t *testing.T) {
	f, c := newFake(t)
	f.Inject(meilifake.Fault{Status: 503, Times: 2})
	for range 2 {
		status, body := c.do("GET", "/version", nil)
		wantError(t, "503 fault", status, body, 503, "too_many_search_requests")
	}
	if status, _ := c.do("GET", "/version", nil); status != 200 {
		t.Fatalf("the fault outlived its Times: %d", status)
	}
	f.Inject(meilifake.Fault{Status: 429, Path: "/tasks"})
	if status, _ := c.do("GET", "/version", nil); status != 200 {
		t.Fatalf("a /tasks fault hit /version: %d", status)
	}
	status, body := c.do("GET", "/tasks", nil)
	wantError(t, "429 fault", status, body, 429, "too_many_requests")
	f.ClearFaults()
	f.Inject(meilifake.Fault{Hang: true})
	done := make(chan int)
	go func() {
		s, _ := c.do("GET", "/version", nil)
		done <- s
	}()
	select {
	case s := <-done:
		t.Fatalf("a hung request answered %d", s)
	case <-time.After(20 * time.Millisecond):
	}
	f.ClearFaults()
	<-done // ClearFaults lets it go on
	if f.Calls("GET /version") < 5 {
		t.Fatalf("calls: %d", f.Calls("GET /version"))
	}
}

// GET /indexes/{uid}/documents/{id}: the stored document (every field, or
// those named in fields), and Meilisearch's errors for a missing document,
// a missing index, a bad index uid and bad parameters.
func TestGetDocument(t *testing.T) {
	_, c := newFake(t)
	setup(c, nil)
	c.mustSucceed("POST", "/indexes/books/documents", []map[string]any{
		{"id": "1", "title": "Dune", "year": 1965, "tags": []string{"sf"}},
		{"id": 2, "title": "Emma"},
	})
	status, body := c.do("GET", "/indexes/books/documents/1", nil)
	if status != 200 || body["id"] != "1" || body["title"] != "Dune" || body["year"] != 1965.0 || len(body) != 4 {
		t.Fatalf("GET document 1: %d %v", status, body)
	}
	// An integer id is found by its decimal form and comes back a number.
	if status, body = c.do("GET", "/indexes/books/documents/2", nil); status != 200 || body["id"] != 2.0 || len(body) != 2 {
		t.Fatalf("GET document 2: %d %v", status, body)
	}
	for q, want := range map[string]int{"id,title": 2, "title,nope": 1, "*": 4, "id,*": 4, "": 0} {
		status, body := c.do("GET", "/indexes/books/documents/1?fields="+q, nil)
		if status != 200 || len(body) != want {
			t.Errorf("fields=%s: %d %v; want %d fields", q, status, body, want)
		}
	}
	// The fields come back in the index's field order, whatever fields says.
	resp, err := http.DefaultClient.Do(authorized(t, "/indexes/books/documents/1?fields=year,id", c))
	if err != nil {
		t.Fatal(err)
	}
	raw := new(strings.Builder)
	_, _ = io.Copy(raw, resp.Body)
	resp.Body.Close()
	if raw.String() != `{"id":"1","year":1965}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("raw answer %s (%s)", raw, resp.Header.Get("Content-Type"))
	}

	status, body = c.do("GET", "/indexes/books/documents/3", nil)
	wantError(t, "missing document", status, body, 404, "document_not_found")
	if body["message"] != "Document `3` not found." {
		t.Fatalf("message %q", body["message"])
	}
	status, body = c.do("GET", "/indexes/films/documents/1", nil)
	wantError(t, "missing index", status, body, 404, "index_not_found")
	status, body = c.do("GET", "/indexes/bad.uid/documents/1", nil)
	wantError(t, "bad index uid", status, body, 400, "invalid_index_uid")
	status, body = c.do("GET", "/indexes/books/documents/1?attributesToRetrieve=title", nil)
	wantError(t, "unknown parameter", status, body, 400, "bad_request")
	status, body = c.do("GET", "/indexes/books/documents/1?retrieveVectors=true", nil)
	wantError(t, "retrieveVectors=true", status, body, 501, "meilifake_not_modelled")
	c.key = ""
	status, body = c.do("GET", "/indexes/books/documents/1", nil)
	wantError(t, "no key", status, body, 401, "missing_authorization_header")
}

func authorized(t *testing.T, path string, c client) *http.Request {
	t.Helper()
	req := enginetest.Request(t, "GET", c.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	return req
}

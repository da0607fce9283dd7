package amgixfake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
)

// do sends one request; contentType "" sends none.
func do(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const jsonCT = "application/json"

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// setup starts a fake with collection "c" (full_text over name and content).
func setup(t *testing.T, opts ...amgixfake.Option) *amgixfake.Server {
	t.Helper()
	f := amgixfake.New(opts...)
	t.Cleanup(f.Close)
	code, body := do(t, "POST", f.URL+"/v1/collections/c", jsonCT,
		`{"vectors":[{"name":"ft","type":"full_text","index_fields":["name","content"]}],"store_content":true}`)
	if code != 200 || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("create: %d %s", code, body)
	}
	return f
}

func upsert(t *testing.T, f *amgixfake.Server, id, name string, at time.Time) (int, string) {
	t.Helper()
	return do(t, "POST", f.URL+"/v1/collections/c/documents/sync", jsonCT,
		fmt.Sprintf(`{"id":%q,"timestamp":%q,"name":%q,"content":"text"}`, id, ts(at), name))
}

func search(t *testing.T, f *amgixfake.Server, query string, limit int) []string {
	t.Helper()
	code, body := do(t, "POST", f.URL+"/v1/collections/c/search", jsonCT, fmt.Sprintf(`{"query":%q,"limit":%d}`, query, limit))
	if code != 200 {
		t.Fatalf("search %q: %d %s", query, code, body)
	}
	var r struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, h := range r.Results {
		ids = append(ids, h.ID)
	}
	return ids
}

// Every rejection, with Amgix's status and body shape.
func TestRejections(t *testing.T) {
	f := setup(t, amgixfake.Sync())
	now := time.Now()
	if code, body := upsert(t, f, "1", "one", now); code != 200 {
		t.Fatalf("upsert: %d %s", code, body)
	}
	docs101 := make([]string, 101)
	for i := range docs101 {
		docs101[i] = fmt.Sprintf(`{"id":"b%d","timestamp":%q}`, i, ts(now))
	}
	for _, tc := range []struct {
		what, method, path, ct, body string
		code                         int
		want                         string
	}{
		{"no timestamp", "POST", "/v1/collections/c/documents/sync", jsonCT, `{"id":"2","name":"x"}`, 422, `"loc":["body","timestamp"]`},
		{"timestamp not a string", "POST", "/v1/collections/c/documents/sync", jsonCT, `{"id":"2","timestamp":5}`, 422, "Timestamp must be a datetime object"},
		{"timestamp not UTC", "POST", "/v1/collections/c/documents/sync", jsonCT, `{"id":"2","timestamp":"2026-01-01T00:00:00+02:00"}`, 422, "Timestamp must be in UTC timezone"},
		{"timestamp without zone", "POST", "/v1/collections/c/documents/sync", jsonCT, `{"id":"2","timestamp":"2026-01-01T00:00:00"}`, 422, "must include timezone information"},
		{"no id", "POST", "/v1/collections/c/documents/sync", jsonCT, fmt.Sprintf(`{"timestamp":%q}`, ts(now)), 422, "missing field `id`"},
		{"id a number", "POST", "/v1/collections/c/documents/sync", jsonCT, fmt.Sprintf(`{"id":7,"timestamp":%q}`, ts(now)), 422, "validation_error"},
		{"id with a slash", "POST", "/v1/collections/c/documents/sync", jsonCT, fmt.Sprintf(`{"id":"a/b","timestamp":%q}`, ts(now)), 422, "Document ID can only contain"},
		{"name too long", "POST", "/v1/collections/c/documents", jsonCT, fmt.Sprintf(`{"id":"2","timestamp":%q,"name":%q}`, ts(now), strings.Repeat("x", 1501)), 422, "at most 1500 characters"},
		{"malformed JSON", "POST", "/v1/collections/c/documents/sync", jsonCT, `{"id":`, 400, "validation_error"},
		{"trailing data", "POST", "/v1/collections/c/documents/sync", jsonCT, fmt.Sprintf(`{"id":"2","timestamp":%q} x`, ts(now)), 400, "trailing"},
		{"no content type", "POST", "/v1/collections/c/documents/sync", "", fmt.Sprintf(`{"id":"2","timestamp":%q}`, ts(now)), 415, "Content-Type"},
		{"unknown collection: upsert", "POST", "/v1/collections/nope/documents/sync", jsonCT, fmt.Sprintf(`{"id":"2","timestamp":%q}`, ts(now)), 404, `"detail":"Collection 'nope' not found"`},
		{"unknown collection: search", "POST", "/v1/collections/nope/search", jsonCT, `{"query":"x"}`, 404, "not found"},
		{"unknown collection: stats", "GET", "/v1/collections/nope/stats", "", "", 404, "not found"},
		{"unknown collection: delete", "DELETE", "/v1/collections/nope/documents/1/sync?request_timestamp=" + ts(now), "", "", 404, "not found"},
		{"bad collection name", "POST", "/v1/collections/bad.name/search", jsonCT, `{"query":"x"}`, 422, "does not match regex"},
		{"limit 101", "POST", "/v1/collections/c/search", jsonCT, `{"query":"x","limit":101}`, 422, "less than or equal to 100"},
		{"limit 0", "POST", "/v1/collections/c/search", jsonCT, `{"query":"x","limit":0}`, 422, "greater than or equal to 1"},
		{"limit negative", "POST", "/v1/collections/c/search", jsonCT, `{"query":"x","limit":-1}`, 422, "validation_error"},
		{"limit a string", "POST", "/v1/collections/c/search", jsonCT, `{"query":"x","limit":"10"}`, 422, "validation_error"},
		{"empty query", "POST", "/v1/collections/c/search", jsonCT, `{"query":"  "}`, 422, "cannot be empty"},
		{"no query", "POST", "/v1/collections/c/search", jsonCT, `{"limit":5}`, 422, "missing field `query`"},
		{"bulk of 101", "POST", "/v1/collections/c/documents/bulk", jsonCT, `{"documents":[` + strings.Join(docs101, ",") + `]}`, 422, "at most 100 items"},
		{"bulk without documents", "POST", "/v1/collections/c/documents/bulk", jsonCT, `{}`, 422, "missing field `documents`"},
		{"bulk with a bad document", "POST", "/v1/collections/c/documents/bulk", jsonCT, `{"documents":[{"id":"x"}]}`, 422, `"loc":["body","timestamp"]`},
		{"bulk with a bad ID", "POST", "/v1/collections/c/documents/bulk", jsonCT, fmt.Sprintf(`{"documents":[{"id":"a b","timestamp":%q}]}`, ts(now)), 422, `"loc":["body","documents[0]"],"msg":"id: Document ID can only contain`},
		{"delete without request_timestamp", "DELETE", "/v1/collections/c/documents/1/sync", "", "", 400, "missing field `request_timestamp`"},
		{"delete with a naive timestamp", "DELETE", "/v1/collections/c/documents/1/sync?request_timestamp=2026-01-01T00:00:00", "", "", 422, `"loc":["query","request_timestamp"]`},
		{"create an existing collection", "POST", "/v1/collections/c", jsonCT, `{"vectors":[{"name":"ft","type":"full_text"}]}`, 409, "already exists"},
		{"an unknown vector type", "POST", "/v1/collections/d", jsonCT, `{"vectors":[{"name":"ft","type":"bm99"}]}`, 422, "unknown vector type"},
		{"an unknown index field", "POST", "/v1/collections/d", jsonCT, `{"vectors":[{"name":"ft","type":"full_text","index_fields":["title"]}]}`, 422, "unknown variant"},
		{"top_k 0", "POST", "/v1/collections/d", jsonCT, `{"vectors":[{"name":"ft","type":"full_text","top_k":0}]}`, 422, "top_k must be positive"},
	} {
		code, body := do(t, tc.method, f.URL+tc.path, tc.ct, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s; want %d containing %q", tc.what, code, body, tc.code, tc.want)
		}
	}
	// None of those wrote anything.
	if n := len(f.Writes()); n != 1 {
		t.Errorf("%d writes after one accepted upsert", n)
	}
}

// A write not newer than the stored one is skipped — answered 200 — and the
// stored document stays.
func TestStaleWritesAreSkipped(t *testing.T) {
	f := setup(t, amgixfake.Sync())
	t0 := time.Now()
	upsert(t, f, "1", "quokkazed", t0)
	for _, at := range []time.Time{t0, t0.Add(-time.Second)} {
		code, body := upsert(t, f, "1", "wombatzed", at)
		if code != 200 || !strings.Contains(body, `"skipped":["1"]`) {
			t.Fatalf("stale upsert: %d %s; want 200 with skipped", code, body)
		}
	}
	if got := search(t, f, "wombatzed", 10); len(got) != 0 {
		t.Fatalf("the skipped write is searchable: %v", got)
	}
	code, body := do(t, "DELETE", f.URL+"/v1/collections/c/documents/1/sync?request_timestamp="+ts(t0), "", "")
	if code != 200 || !strings.Contains(body, `"skipped":["1"]`) {
		t.Fatalf("stale delete: %d %s", code, body)
	}
	code, body = do(t, "DELETE", f.URL+"/v1/collections/c/documents/1/sync?request_timestamp="+ts(t0.Add(time.Second)), "", "")
	if code != 200 || strings.Contains(body, "skipped") {
		t.Fatalf("newer delete: %d %s", code, body)
	}
	// A missing document's delete succeeds, as in Amgix.
	code, body = do(t, "DELETE", f.URL+"/v1/collections/c/documents/1/sync?request_timestamp="+ts(t0.Add(2*time.Second)), "", "")
	if code != 200 || body != "{\"ok\":true}\n" {
		t.Fatalf("delete of a missing document: %d %q", code, body)
	}
	// With no tombstone, an old write after the delete comes back.
	if code, body := upsert(t, f, "1", "numbatzed", t0.Add(-time.Hour)); code != 200 || strings.Contains(body, "skipped") {
		t.Fatalf("old upsert after a delete: %d %s", code, body)
	}
	var skipped int
	for _, w := range f.Writes() {
		if w.Skipped {
			skipped++
		}
	}
	if skipped != 3 {
		t.Fatalf("Writes records %d skipped writes, want 3", skipped)
	}
}

// By default a write is acknowledged before it is searchable; Sync makes it
// searchable on return.
func TestVisibility(t *testing.T) {
	slow := setup(t, amgixfake.IndexDelay(time.Second))
	upsert(t, slow, "1", "quokkazed", time.Now())
	if got := search(t, slow, "quokkazed", 10); len(got) != 0 {
		t.Fatalf("searchable right after an acknowledged write: %v", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(search(t, slow, "quokkazed", 10)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the write never became searchable")
		}
		time.Sleep(20 * time.Millisecond)
	}
	fast := setup(t, amgixfake.Sync())
	upsert(t, fast, "1", "quokkazed", time.Now())
	if got := search(t, fast, "quokkazed", 10); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("Sync: %v right after the write, want [1]", got)
	}
}

// The queued routes answer ok at once, never report a stale write, and
// apply later.
func TestQueuedRoutes(t *testing.T) {
	f := setup(t, amgixfake.QueuedRoutes(), amgixfake.IndexDelay(time.Second))
	t0 := time.Now()
	upsert(t, f, "1", "quokkazed", t0) // the /sync route: at once
	code, body := do(t, "POST", f.URL+"/v1/collections/c/documents", jsonCT, fmt.Sprintf(`{"id":"1","timestamp":%q,"name":"stale"}`, ts(t0)))
	if code != 200 || strings.Contains(body, "skipped") {
		t.Fatalf("queued stale upsert: %d %s; want a plain ok", code, body)
	}
	_, stats := do(t, "GET", f.URL+"/v1/collections/c/stats", "", "")
	if !strings.Contains(stats, `"total":1`) {
		t.Fatalf("stats with one queued write: %s", stats)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := f.Writes()
		if len(w) == 2 {
			if !w[1].Skipped {
				t.Fatal("the queued stale write was applied")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the queued write was never processed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Matching is honest: the query's words are OR-ed, a document with more of
// them ranks higher, limit is honoured and defaults to 10.
func TestMatching(t *testing.T) {
	f := setup(t, amgixfake.Sync())
	now := time.Now()
	upsert(t, f, "both", "Red Fox", now)
	upsert(t, f, "red", "Red barn", now)
	upsert(t, f, "none", "Blue whale", now)
	for i := range 12 {
		upsert(t, f, fmt.Sprint("m", i), "many gnus", now)
	}
	if got := search(t, f, "red fox", 10); !slices.Equal(got, []string{"both", "red"}) {
		t.Fatalf(`"red fox": %v, want [both red]`, got)
	}
	if got := search(t, f, "THE fox!", 10); !slices.Equal(got, []string{"both"}) {
		t.Fatalf(`"THE fox!": %v, want [both] (case and punctuation ignored)`, got)
	}
	if got := search(t, f, "gnus", 5); len(got) != 5 {
		t.Fatalf("limit 5: %d hits", len(got))
	}
	_, body := do(t, "POST", f.URL+"/v1/collections/c/search", jsonCT, `{"query":"gnus"}`)
	var r struct{ Results []json.RawMessage }
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Results) != amgixfake.DefaultLimit {
		t.Fatalf("no limit: %d hits, %v; want %d", len(r.Results), err, amgixfake.DefaultLimit)
	}
	if got := search(t, f, "zebra", 10); len(got) != 0 {
		t.Fatalf("a word no document has: %v", got)
	}
}

func TestBareArraySearch(t *testing.T) {
	f := setup(t, amgixfake.Sync(), amgixfake.BareArraySearch())
	upsert(t, f, "1", "quokkazed", time.Now())
	_, body := do(t, "POST", f.URL+"/v1/collections/c/search", jsonCT, `{"query":"quokkazed"}`)
	if !strings.HasPrefix(body, `[{"id":"1"`) {
		t.Fatalf("bare-array search answer: %s", body)
	}
}

func TestHooks(t *testing.T) {
	f := setup(t, amgixfake.Sync())
	f.Inject(amgixfake.Fault{Status: http.StatusTooManyRequests, Times: 2})
	for range 2 {
		if code, body := do(t, "GET", f.URL+"/v1/version", "", ""); code != 429 || !strings.Contains(body, `"detail"`) {
			t.Fatalf("rejected request: %d %s", code, body)
		}
	}
	if code, _ := do(t, "GET", f.URL+"/v1/version", "", ""); code != 200 {
		t.Fatalf("after the rejections: %d", code)
	}
	f.Inject(amgixfake.Fault{Hang: true})
	done := make(chan int)
	go func() {
		code, _ := do(t, "GET", f.URL+"/v1/health/check", "", "")
		done <- code
	}()
	select {
	case code := <-done:
		t.Fatalf("a request passed a hung server: %d", code)
	case <-time.After(100 * time.Millisecond):
	}
	f.ClearFaults()
	if code := <-done; code != 200 {
		t.Fatalf("released request: %d", code)
	}
}

func TestAPIKey(t *testing.T) {
	f := amgixfake.New(amgixfake.APIKey("k"))
	defer f.Close()
	if code, _ := do(t, "GET", f.URL+"/v1/version", "", ""); code != 200 {
		t.Fatalf("public route: %d", code)
	}
	code, body := do(t, "GET", f.URL+"/v1/collections", "", "")
	if code != 401 || !strings.Contains(body, "Authentication failed") {
		t.Fatalf("without a key: %d %s", code, body)
	}
	for _, h := range [][2]string{{"api-key", "k"}, {"Authorization", "Bearer k"}} {
		req, _ := http.NewRequest("GET", f.URL+"/v1/collections", nil)
		req.Header.Set(h[0], h[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("with %s: %d", h[0], resp.StatusCode)
		}
	}
}

// doc_count lags the writes by the stats batcher's delay: a new document
// counts, a replacement does not, a delete counts down.
func TestDocCountLags(t *testing.T) {
	now := time.Now()
	held := setup(t, amgixfake.Sync(), amgixfake.StatsDelay(time.Hour))
	if code, body := upsert(t, held, "1", "one", now); code != 200 {
		t.Fatalf("upsert: %d %s", code, body)
	}
	if n := docCount(t, held); n != 0 {
		t.Fatalf("doc_count = %d right after a write; Amgix's batcher has not flushed yet", n)
	}

	f := setup(t, amgixfake.Sync(), amgixfake.StatsDelay(time.Millisecond))
	for i, w := range []struct {
		id   string
		want int
	}{{"1", 1}, {"2", 2}, {"1", 2}} {
		if code, body := upsert(t, f, w.id, "x", now.Add(time.Duration(i)*time.Second)); code != 200 {
			t.Fatalf("upsert: %d %s", code, body)
		}
		waitCount(t, f, w.want)
	}
	if code, body := do(t, "DELETE", f.URL+"/v1/collections/c/documents/2/sync?request_timestamp="+ts(now.Add(time.Minute)), "", ""); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	waitCount(t, f, 1)
}

func docCount(t *testing.T, f *amgixfake.Server) int {
	t.Helper()
	code, body := do(t, "GET", f.URL+"/v1/collections/c/stats", "", "")
	var s struct {
		DocCount *int `json:"doc_count"`
	}
	if err := json.Unmarshal([]byte(body), &s); code != 200 || err != nil || s.DocCount == nil {
		t.Fatalf("stats: %d %s", code, body)
	}
	return *s.DocCount
}

func waitCount(t *testing.T, f *amgixfake.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n := docCount(t, f); n != want; n = docCount(t, f) {
		if time.Now().After(deadline) {
			t.Fatalf("doc_count = %d; want %d", n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// GET …/documents/{id}: the Document model as serde writes it, what Qdrant
// has applied (so an acknowledged write shows after the index delay), 404
// for a missing document, Qdrant's 500 for a missing collection.
func TestGetDocument(t *testing.T) {
	f := setup(t, amgixfake.IndexDelay(time.Hour))
	at := time.Date(2026, 1, 2, 3, 4, 5, 120_000_000, time.UTC)
	if code, body := upsert(t, f, "d1", "Name one", at); code != 200 {
		t.Fatalf("upsert: %d %s", code, body)
	}
	code, body := do(t, "GET", f.URL+"/v1/collections/c/documents/d1", "", "")
	if code != 404 || body != `{"detail":"Documents not found for document_ids: d1"}`+"\n" {
		t.Fatalf("before the index delay: %d %s; want 404 (not applied yet)", code, body)
	}

	f = setup(t, amgixfake.Sync())
	if code, body := upsert(t, f, "d1", "Name one", at); code != 200 {
		t.Fatalf("upsert: %d %s", code, body)
	}
	code, body = do(t, "GET", f.URL+"/v1/collections/c/documents/d1", "", "")
	want := `{"content":"text","custom_vectors":null,"description":null,"id":"d1","metadata":null,"name":"Name one","tags":null,"timestamp":"2026-01-02T03:04:05.120Z"}` + "\n"
	if code != 200 || body != want {
		t.Fatalf("GET d1: %d %s\nwant %s", code, body, want)
	}
	if code, body = do(t, "GET", f.URL+"/v1/collections/c/documents/d1?with_vectors=false&other=1", "", ""); code != 200 || body != want {
		t.Fatalf("with_vectors=false and an unknown parameter: %d %s", code, body)
	}
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/v1/collections/c/documents/d2", 404, `{"detail":"Documents not found for document_ids: d2"}`},
		{"/v1/collections/nope/documents/d1", 500, `"detail":"Database error: `},
		{"/v1/collections/bad.name/documents/d1", 422, "does not match regex"},
		{"/v1/collections/c/documents/d1?with_vectors=maybe", 400, "Failed to deserialize query string"},
		{"/v1/collections/c/documents/d1?with_vectors=true", 400, "not modelled"},
	} {
		if code, body := do(t, "GET", f.URL+c.path, "", ""); code != c.status || !strings.Contains(body, c.body) {
			t.Errorf("GET %s: %d %s; want %d with %s", c.path, code, body, c.status, c.body)
		}
	}
	// Deleted: gone.
	if code, body := do(t, "DELETE", f.URL+"/v1/collections/c/documents/d1/sync?request_timestamp="+ts(at.Add(time.Second)), "", ""); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, _ := do(t, "GET", f.URL+"/v1/collections/c/documents/d1", "", ""); code != 404 {
		t.Fatalf("GET after delete: %d; want 404", code)
	}
}

// GET /v1/collections/{name} answers the configuration as created, with
// the defaults Amgix fills in (top_k 128, language "en"), and Amgix's 404
// and 422 for a collection that is not there or a name it refuses.
func TestCollectionConfig(t *testing.T) {
	f := setup(t)
	code, body := do(t, "GET", f.URL+"/v1/collections/c", "", "")
	var got struct {
		Vectors []struct {
			Name        string   `json:"name"`
			Type        string   `json:"type"`
			IndexFields []string `json:"index_fields"`
			TopK        int      `json:"top_k"`
			Language    string   `json:"language_default_code"`
		} `json:"vectors"`
		StoreContent bool `json:"store_content"`
	}
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil || len(got.Vectors) != 1 || !got.StoreContent {
		t.Fatalf("GET c: %d %s (%v)", code, body, err)
	}
	v := got.Vectors[0]
	if v.Name != "ft" || v.Type != "full_text" || strings.Join(v.IndexFields, ",") != "name,content" || v.TopK != amgixfake.DefaultTopK || v.Language != "en" {
		t.Fatalf("GET c: vector %+v", v)
	}
	if code, body := do(t, "GET", f.URL+"/v1/collections/nope", "", ""); code != 404 || strings.TrimSpace(body) != `{"detail":"Collection 'nope' not found"}` {
		t.Fatalf("GET missing collection: %d %s", code, body)
	}
	if code, _ := do(t, "GET", f.URL+"/v1/collections/a.b", "", ""); code != 422 {
		t.Fatalf("GET invalid name: %d, want 422", code)
	}
}

package meilisearch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/meilisearch"
)

// A malformed search body is an error, never a panic, and a parsed one
// never has more than k hits.
func FuzzParseSearch(f *testing.F) {
	for _, seed := range []string{
		`{"hits":[{"id":"1"},{"id":2}],"estimatedTotalHits":2,"limit":10,"offset":0,"processingTimeMs":0,"query":"x"}`,
		`{"hits":[],"totalHits":0}`,
		`{"hits":[{"id":1.5}]}`,
		`{"hits":[{"name":"no id"}]}`,
		`{"hits":null}`,
		`{"hits":{"id":"1"}}`,
		`{"hits":[null]}`,
		`{"estimatedTotalHits":"many"}`,
		`[1,2]`,
		`null`,
		``,
		`{"hits":[{"id":"` + strings.Repeat("9", 400) + `"}]}`,
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		h, err := meilisearch.ParseSearch(body, k)
		if err == nil && len(h.IDs) > k {
			t.Fatalf("%d hits for k=%d accepted", len(h.IDs), k)
		}
	})
}

// Whatever a server answers — any status, any body — every call returns
// (an error or a result) without panicking.
func FuzzServerAnswers(f *testing.F) {
	var mu sync.Mutex
	fuzzing, status, body := false, 200, []byte(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		on, s, b := fuzzing, status, body
		mu.Unlock()
		if !on { // Open and Create get well-formed answers
			s, b = goodAnswer(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s)
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	for _, seed := range []struct {
		status int
		body   string
	}{
		{202, `{"taskUid":1,"indexUid":"x","status":"enqueued","type":"indexCreation"}`},
		{200, `{"uid":1,"status":"succeeded","details":{"deletedDocuments":0}}`},
		{200, `{"uid":1,"status":"failed","error":{"message":"m","code":"internal","type":"internal","link":"l"}}`},
		{200, `{"uid":1,"status":"weird"}`},
		{200, `{"uid":1}`},
		{200, `{"results":[{"uid":3,"status":"failed"}],"total":1}`},
		{200, `{"numberOfDocuments":"x"}`},
		{404, `{"message":"Index x not found.","code":"index_not_found","type":"invalid_request","link":"l"}`},
		{503, `not json`},
		{500, ``},
		{202, `{"taskUid":"one"}`},
		{200, `{"hits":[{"id":{}}]}`},
	} {
		f.Add(seed.status, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, s int, b []byte) {
		if s < 200 || s > 599 {
			return // not an HTTP status a server can send
		}
		mu.Lock()
		fuzzing = false
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		e, err := engines.Open(ctx, "meilisearch", engines.Config{URL: srv.URL, WriteMode: engines.Searchable})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer e.Close()
		if err := e.Create(ctx, enginetest.Schema("fuzz")); err != nil {
			t.Fatalf("Create: %v", err)
		}
		mu.Lock()
		fuzzing, status, body = true, s, b
		mu.Unlock()
		d := engines.Document{ID: "1", Fields: []engines.Field{{Name: "name", Text: "x"}}}
		_ = e.Upsert(ctx, d)
		_ = e.Delete(ctx, "1")
		_, _ = e.Search(ctx, engines.Query{Text: "x", K: 10})
		_ = e.(engines.Refresher).Refresh(ctx)
		_, _ = e.(engines.Counter).Count(ctx)
		_, _ = e.(engines.StatsReporter).Stats(ctx)
		_, _ = e.(engines.Versioner).Version(ctx)
	})
}

// goodAnswer is a well-formed Meilisearch answer for the routes Open and
// Create use.
func goodAnswer(r *http.Request) (int, []byte) {
	switch {
	case r.URL.Path == "/version":
		return 200, []byte(`{"pkgVersion":"1.37.0"}`)
	case strings.HasPrefix(r.URL.Path, "/tasks/"):
		return 200, []byte(`{"uid":1,"status":"succeeded"}`)
	}
	return 202, []byte(`{"taskUid":1,"status":"enqueued"}`)
}

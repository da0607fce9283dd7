package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
)

// Answers describes an HTTP engine for FuzzServerAnswers.
type Answers struct {
	Driver string         // the registered driver
	Config engines.Config // URL is set to the fuzzing server's
	// Good is a well-formed answer to each request Open and Create send,
	// so that the fuzzed answers reach every other call.
	Good func(*http.Request) (status int, body []byte)
	// Header is sent with every answer, good or fuzzed (Elasticsearch's
	// product header, without which its client refuses everything).
	Header  http.Header
	Seeds   []Answer
	Timeout time.Duration // of each fuzz input's calls
}

// Answer is one seed: a status and a body.
type Answer struct {
	Status int
	Body   string
}

// FuzzServerAnswers checks that whatever an engine's server answers — any
// status, any body, to every request — each call of the driver returns an
// error or a result and never panics: the driver is opened and its index
// created against good answers, then every call, the optional ones it
// offers included, meets the fuzzed answer.
func FuzzServerAnswers(f *testing.F, a Answers) {
	var mu sync.Mutex
	fuzzing, status, body := false, 200, []byte(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		on, s, b := fuzzing, status, body
		mu.Unlock()
		if !on {
			s, b = a.Good(r)
		}
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s)
		_, _ = w.Write(b)
	}))
	f.Cleanup(srv.Close)
	for _, s := range a.Seeds {
		f.Add(s.Status, []byte(s.Body))
	}
	f.Fuzz(func(t *testing.T, s int, b []byte) {
		if s < 200 || s > 599 {
			return // not an HTTP status a server can send
		}
		mu.Lock()
		fuzzing = false
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
		defer cancel()
		cfg := a.Config
		cfg.URL = srv.URL
		e, err := engines.Open(ctx, a.Driver, cfg)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer e.Close()
		if err := e.Create(ctx, Schema("fuzz")); err != nil {
			t.Fatalf("Create: %v", err)
		}
		mu.Lock()
		fuzzing, status, body = true, s, b
		mu.Unlock()
		d := engines.Document{ID: "1", Fields: []engines.Field{{Name: "name", Text: "x"}}}
		_ = e.Upsert(ctx, d)
		if bu, ok := e.(engines.BulkUpserter); ok {
			_ = bu.UpsertBatch(ctx, []engines.Document{d})
		}
		_ = e.Delete(ctx, "1")
		_, _ = e.Search(ctx, engines.Query{Text: "x", K: 10})
		if g, ok := e.(engines.Getter); ok {
			if got, err := g.Get(ctx, "1"); err == nil && got.ID != "1" {
				t.Fatalf("Get(1) returned document %q", got.ID)
			}
		}
		if r, ok := e.(engines.Refresher); ok {
			_ = r.Refresh(ctx)
		}
		if c, ok := e.(engines.Counter); ok {
			_, _ = c.Count(ctx)
		}
		if sr, ok := e.(engines.StatsReporter); ok {
			_, _ = sr.Stats(ctx)
		}
		if v, ok := e.(engines.Versioner); ok {
			_, _ = v.Version(ctx)
		}
		_ = e.Create(ctx, Schema("fuzz"))
	})
}

// ContextErrors checks how a search against an engine that never answers
// ends: at the caller's deadline as a timeout, and at once as canceled when
// the caller's context is canceled. The engine must be hanging (a fake's
// injected fault) when it is called.
func ContextErrors(t *testing.T, e engines.Engine, q engines.Query) {
	t.Helper()
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Search(short, q); engines.Classify(err) != engines.Timeout {
		t.Errorf("context deadline: %v, class %s; want timeout", err, engines.Classify(err))
	}
	canceled, stop := context.WithCancel(context.Background())
	stop()
	if _, err := e.Search(canceled, q); engines.Classify(err) != engines.Canceled {
		t.Errorf("canceled context: %v, class %s; want canceled", err, engines.Classify(err))
	}
}

// Request is a request to a fake's URL for the fakes' own tests: body nil
// sends none, a string is sent as is (NDJSON, or deliberately malformed
// JSON), anything else as JSON with its Content-Type.
func Request(t testing.TB, method, url string, body any) *http.Request {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

package meilisearch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/meilisearch"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
)

const masterKey = "fake-master-key-0123456789"

func fake(t *testing.T) *meilifake.Server {
	t.Helper()
	f := meilifake.New(meilifake.Options{MasterKey: masterKey})
	t.Cleanup(f.Close)
	return f
}

func open(t *testing.T, cfg engines.Config) *meilisearch.Engine {
	t.Helper()
	e, err := engines.Open(context.Background(), "meilisearch", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e.(*meilisearch.Engine)
}

// conformance runs the suite in both write modes against one server.
func conformance(t *testing.T, url, key string) {
	for _, mode := range []engines.Visibility{engines.Acknowledged, engines.Searchable} {
		t.Run(string(mode), func(t *testing.T) {
			enginetest.Run(t, enginetest.Options{
				Open: func(t *testing.T) engines.Engine {
					e, err := engines.Open(context.Background(), "meilisearch",
						engines.Config{URL: url, APIKey: engines.Secret(key), WriteMode: mode})
					if err != nil {
						t.Fatal(err)
					}
					return e
				},
				Visibility:          mode,
				SilentMissingDelete: mode == engines.Acknowledged,
			})
		})
	}
}

func TestConformanceFake(t *testing.T) {
	f := fake(t)
	conformance(t, f.URL, masterKey)
}

func create(t *testing.T, e *meilisearch.Engine, name string) {
	t.Helper()
	if err := e.Create(context.Background(), enginetest.Schema(name)); err != nil {
		t.Fatal(err)
	}
}

func doc(id, name string) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{{Name: "name", Text: name}, {Name: "content", Text: "body"}}}
}

func TestCreateAppliesTheStudySettings(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, e, "settings")
	s, ok := f.Settings("settings")
	if !ok {
		t.Fatal("index not created")
	}
	if s.PrimaryKey != "id" || !slices.Equal(s.SearchableAttributes, []string{"name", "content"}) || s.TypoTolerance {
		t.Fatalf("settings %+v; want primary key id, searchable [name content], typo tolerance off", s)
	}
	if s.OneTypo != 5 || s.TwoTypos != 9 {
		t.Fatalf("minWordSizeForTypos %d/%d; want the defaults 5/9 kept", s.OneTypo, s.TwoTypos)
	}
}

// A one-letter typo does not match once the driver has created the index
// (the fake matches it on an index with default settings: see the fake's
// tests).
func TestTypoToleranceIsOff(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable})
	create(t, e, "typos")
	if err := e.Upsert(context.Background(), doc("1", "quokkazed")); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{"quokkazed": 1, "quokkazad.": 0, "quakkazed.": 0} {
		h, err := e.Search(context.Background(), engines.Query{Text: q, K: 10})
		if err != nil || len(h.IDs) != want {
			t.Fatalf("Search(%q) = %v, %v; want %d hits", q, h.IDs, err, want)
		}
	}
}

// K is always sent: more than the server's default of 20 comes back.
func TestLimitIsSent(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, e, "limit")
	docs := make([]engines.Document, 30)
	for i := range docs {
		docs[i] = doc(fmt.Sprint(i), "same words")
	}
	ctx := context.Background()
	if err := e.UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{25, 5} {
		h, err := e.Search(ctx, engines.Query{Text: "same", K: k})
		if err != nil || len(h.IDs) != k || h.Total != 30 {
			t.Fatalf("k=%d: %d hits (total %d), %v", k, len(h.IDs), h.Total, err)
		}
	}
	if _, err := e.Search(ctx, engines.Query{Text: "same", K: 0}); err == nil {
		t.Fatal("k=0 accepted: the client would drop the limit and the server answer 20")
	}
	if n := f.Calls("POST /indexes/{uid}/documents"); n != 1 {
		t.Fatalf("a batch of 30 took %d document requests; want 1", n)
	}
}

// Acknowledged returns before the task runs; searchable waits for it.
func TestWriteModes(t *testing.T) {
	f := fake(t)
	ctx := context.Background()
	ack := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, ack, "modes")
	sync := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable})
	create(t, sync, "modes-sync")

	f.Pause()
	if err := ack.Upsert(ctx, doc("1", "quokkazed")); err != nil {
		t.Fatal(err)
	}
	if h, err := ack.Search(ctx, engines.Query{Text: "quokkazed", K: 10}); err != nil || len(h.IDs) != 0 {
		t.Fatalf("acknowledged write visible before its task ran: %v %v", h.IDs, err)
	}
	if err := ack.Delete(ctx, "missing"); err != nil {
		t.Fatalf("acknowledged delete cannot know the ID is missing, yet: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := sync.Upsert(short, doc("2", "x")); engines.Classify(err) != engines.Timeout {
		t.Fatalf("searchable upsert with the queue held = %v; want a timeout while it waits for the task", err)
	}
	f.Resume()

	if err := ack.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err := ack.Search(ctx, engines.Query{Text: "quokkazed", K: 10}); err != nil || !slices.Equal(h.IDs, []string{"1"}) {
		t.Fatalf("after Refresh: %v %v", h.IDs, err)
	}
	if err := sync.Upsert(ctx, doc("3", "wombatzed")); err != nil {
		t.Fatal(err)
	}
	if h, err := sync.Search(ctx, engines.Query{Text: "wombatzed", K: 10}); err != nil || !slices.Equal(h.IDs, []string{"3"}) {
		t.Fatalf("searchable write not visible when Upsert returned: %v %v", h.IDs, err)
	}
}

func TestCreateWaitsThroughPausedQueue(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	f.Pause()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := e.Create(ctx, enginetest.Schema("held")); engines.Classify(err) != engines.Timeout {
		t.Fatalf("Create with the queue held = %v; want a timeout (settings must be applied before writes)", err)
	}
	f.Resume()
}

func TestFailedTasksAreErrors(t *testing.T) {
	f := fake(t)
	ctx := context.Background()
	sync := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable})
	create(t, sync, "fail")
	f.FailTasks(1, "internal", "disk on fire")
	err := sync.Upsert(ctx, doc("1", "x"))
	var te *meilisearch.TaskError
	if !errors.As(err, &te) || te.Code != "internal" || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("searchable upsert of a failing task = %v; want a TaskError with its code and message", err)
	}

	ack := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, ack, "fail-ack")
	f.FailTasks(1, "internal", "disk on fire")
	if err := ack.Upsert(ctx, doc("1", "x")); err != nil {
		t.Fatalf("acknowledged upsert: %v", err)
	}
	if err := ack.Upsert(ctx, doc("2", "x")); err != nil {
		t.Fatalf("acknowledged upsert: %v", err)
	}
	if err := ack.Refresh(ctx); !errors.As(err, &te) || te.Code != "internal" {
		t.Fatalf("Refresh after a failed task = %v; want its TaskError", err)
	}
	if err := ack.Refresh(ctx); err != nil {
		t.Fatalf("a failure is reported once: %v", err)
	}
}

func TestDeleteMissingSearchable(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable})
	create(t, e, "del")
	if err := e.Delete(context.Background(), "nope"); !errors.Is(err, engines.ErrNotFound) {
		t.Fatalf("Delete(missing) = %v; want ErrNotFound", err)
	}
	if err := e.Delete(context.Background(), "a/../b"); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("Delete of an invalid id = %v; want a plain error", err)
	}
}

func TestErrorClasses(t *testing.T) {
	f := fake(t)
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey, Options: map[string]string{"timeout": "200ms"}})
	create(t, e, "classes")
	q := engines.Query{Text: "x", K: 10}
	for _, c := range []struct {
		fault meilifake.Fault
		want  engines.Class
	}{
		{meilifake.Fault{Status: 503, Times: 1}, engines.Overloaded},
		{meilifake.Fault{Status: 429, Times: 1}, engines.Overloaded},
		{meilifake.Fault{Status: 504, Code: "gateway_timeout", Message: "upstream", Times: 1}, engines.Timeout},
		{meilifake.Fault{Status: 500, Times: 1}, engines.Other},
		{meilifake.Fault{Hang: true, Path: "/indexes"}, engines.Timeout},
	} {
		before := f.Calls("POST /indexes/{uid}/search")
		f.Inject(c.fault)
		_, err := e.Search(ctx, q)
		f.ClearFaults()
		if got := engines.Classify(err); got != c.want {
			t.Errorf("fault %+v: %v, class %s; want %s", c.fault, err, got, c.want)
		}
		// Retries are off: one request, and the error is the server's.
		if n := f.Calls("POST /indexes/{uid}/search") - before; n != 1 {
			t.Errorf("fault %+v: %d requests; want 1 (no client retries)", c.fault, n)
		}
	}
	// A caller's deadline is a timeout too, and a cancel is a cancel.
	noTimeout := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, noTimeout, "deadline")
	f.Inject(meilifake.Fault{Hang: true, Path: "/indexes"})
	defer f.ClearFaults()
	enginetest.ContextErrors(t, noTimeout, q)
}

func TestMissingIndexIsABrokenSetup(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	create(t, e, "vanishing")
	// Someone else drops the index under the engine.
	req, _ := http.NewRequest(http.MethodDelete, f.URL+"/indexes/vanishing", nil)
	req.Header.Set("Authorization", "Bearer "+masterKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, ok := f.Settings("vanishing"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index deletion task did not run")
		}
	}
	// A vanished index is a broken setup, never a missing document: as a
	// not-found, a delete or get of it would count as done.
	_, err = e.Search(context.Background(), engines.Query{Text: "x", K: 10})
	if engines.Classify(err) != engines.Other || !strings.Contains(err.Error(), "index_not_found") {
		t.Fatalf("search of a deleted index = %v (class %s); want class other", err, engines.Classify(err))
	}
	if _, err := e.Get(context.Background(), "1"); engines.Classify(err) != engines.Other {
		t.Fatalf("get in a deleted index = %v (class %s); want class other", err, engines.Classify(err))
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	f := fake(t)
	for _, key := range []string{"", "wrong-key-that-must-not-leak"} {
		_, err := engines.Open(context.Background(), "meilisearch", engines.Config{URL: f.URL, APIKey: engines.Secret(key)})
		if err == nil {
			t.Fatalf("key %q accepted", key)
		}
		if key != "" && strings.Contains(err.Error(), key) || strings.Contains(err.Error(), masterKey) {
			t.Fatalf("error shows a key: %v", err)
		}
		want := map[string]string{"": "HTTP 401 missing_authorization_header", "wrong-key-that-must-not-leak": "HTTP 403 invalid_api_key"}[key]
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q; want it to say %q", err, want)
		}
	}
	_, err := engines.Open(context.Background(), "meilisearch", engines.Config{URL: "http://127.0.0.1:1", APIKey: "secret-key-of-a-bad-url"})
	if err == nil || strings.Contains(err.Error(), "secret-key-of-a-bad-url") {
		t.Fatalf("bad URL: %v", err)
	}
}

func TestOpenRejects(t *testing.T) {
	f := fake(t)
	for name, cfg := range map[string]engines.Config{
		"unknown option":     {Options: map[string]string{"shards": "2"}},
		"bad timeout":        {Options: map[string]string{"timeout": "soon"}},
		"bad pool":           {Options: map[string]string{"pool": "0"}},
		"bad strategy":       {Options: map[string]string{"matching_strategy": "any"}},
		"bad poll":           {Options: map[string]string{"task_poll_max": "-1s"}},
		"unknown mode":       {WriteMode: "durable"},
		"not an http URL":    {URL: "postgres://x"},
		"no host in the URL": {URL: "http://"},
	} {
		if cfg.URL == "" {
			cfg.URL = f.URL
		}
		cfg.APIKey = masterKey
		_, err := engines.Open(context.Background(), "meilisearch", cfg)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if name == "unknown option" && (err == nil || !strings.Contains(err.Error(), "exact_fields, fields, matching_strategy, pool, semantic_ratio, task_poll_max, timeout")) {
			t.Errorf("unknown option error %v does not list the valid ones", err)
		}
	}
}

func TestUnsupportedSchemaAndQueries(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	ctx := context.Background()
	err := e.Create(ctx, engines.Schema{Name: "vec", Fields: []engines.FieldSpec{{Name: "v", Type: engines.Vector, Dim: 3}}})
	if !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("a schema without text: %v", err)
	}
	create(t, e, "unsupported")
	for _, q := range []engines.Query{
		{Text: "x", K: 10, Field: "nope"},
		{Text: "x", K: 10, Vector: []float32{1}},
		{Text: "x", K: 10, Filters: []engines.Filter{{Field: "c", Tag: "a"}}},
		{Text: "x", K: 10, Filters: []engines.Filter{{Field: "name", Tag: "a"}}},
	} {
		if _, err := e.Search(ctx, q); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%+v: %v; want ErrUnsupported", q, err)
		}
	}
	if err := e.Upsert(ctx, doc("has space", "x")); err == nil {
		t.Error("an id Meilisearch rejects was sent")
	}
}

func TestMatchingStrategyOption(t *testing.T) {
	f := fake(t)
	ctx := context.Background()
	for strategy, want := range map[string]int{"": 2, "last": 2, "all": 1} {
		opts := map[string]string{}
		if strategy != "" {
			opts["matching_strategy"] = strategy
		}
		e := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable, Options: opts})
		create(t, e, "strategy")
		if err := e.UpsertBatch(ctx, []engines.Document{doc("1", "alpha beta"), doc("2", "alpha gamma")}); err != nil {
			t.Fatal(err)
		}
		h, err := e.Search(ctx, engines.Query{Text: "alpha beta.", K: 10})
		if err != nil || len(h.IDs) != want || h.IDs[0] != "1" {
			t.Errorf("strategy %q: %v %v; want %d hits, document 1 first", strategy, h.IDs, err, want)
		}
	}
}

func TestVersionAndStats(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey})
	ctx := context.Background()
	if v, err := e.Version(ctx); err != nil || v != "Meilisearch "+meilifake.Version {
		t.Fatalf("Version = %q, %v", v, err)
	}
	create(t, e, "stats")
	f.Pause()
	for i := range 3 {
		if err := e.Upsert(ctx, doc(fmt.Sprint(i), "x")); err != nil {
			t.Fatal(err)
		}
	}
	st, err := e.Stats(ctx)
	f.Resume()
	if err != nil || st["tasks_enqueued"] != 3 || st["tasks_processing"] != 0 || st["queue_depth"] != 3 {
		t.Fatalf("Stats with 3 held writes = %v, %v", st, err)
	}
	if err := e.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Count(ctx); err != nil || n != 3 {
		t.Fatalf("Count = %d, %v", n, err)
	}
}

// Get sends only IDs Meilisearch accepts (one with a slash would change the
// path), and reads the document's text fields.
func TestGet(t *testing.T) {
	f := fake(t)
	e := open(t, engines.Config{URL: f.URL, APIKey: masterKey, WriteMode: engines.Searchable})
	ctx := context.Background()
	if _, err := e.Get(ctx, "1"); err == nil || !strings.Contains(err.Error(), "Create was not called") {
		t.Fatalf("Get before Create: %v", err)
	}
	create(t, e, "get")
	for _, id := range []string{"a/b", "../get", "", strings.Repeat("a", 512)} {
		if _, err := e.Get(ctx, id); err == nil || engines.Classify(err) == engines.NotFound {
			t.Errorf("Get(%q) = %v; want an error that is not not_found", id, err)
		}
	}
	if n := f.Calls("GET /indexes/{uid}/documents/{id}"); n != 0 {
		t.Fatalf("%d invalid IDs reached the server", n)
	}
	if err := e.Upsert(ctx, doc("a-1", "name one")); err != nil {
		t.Fatal(err)
	}
	d, err := e.Get(ctx, "a-1")
	if err != nil || d.ID != "a-1" || d.Text("name") != "name one" || d.Text("content") != "body" || len(d.Fields) != 2 {
		t.Fatalf("Get(a-1) = %+v, %v", d, err)
	}
}

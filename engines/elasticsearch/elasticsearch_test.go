package elasticsearch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/enginetest"
)

func fake(t *testing.T, o esfake.Options) *esfake.Server {
	t.Helper()
	f := esfake.New(o)
	t.Cleanup(f.Close)
	return f
}

func open(t *testing.T, cfg engines.Config) *elasticsearch.Engine {
	t.Helper()
	e, err := engines.Open(context.Background(), "elasticsearch", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e.(*elasticsearch.Engine)
}

// conformance runs the suite in both write modes. options apply to the
// searchable mode only: its writes wait for a periodic refresh, so a short
// refresh_interval keeps the suite's 1,200 concurrent calls quick; the
// acknowledged mode keeps the defaults (the suite calls Refresh).
func conformance(t *testing.T, cfg engines.Config, searchableOptions map[string]string) {
	for _, mode := range []engines.Visibility{engines.Acknowledged, engines.Searchable} {
		t.Run(string(mode), func(t *testing.T) {
			c := cfg
			c.WriteMode = mode
			if mode == engines.Searchable {
				c.Options = searchableOptions
			}
			enginetest.Run(t, enginetest.Options{
				Open: func(t *testing.T) engines.Engine {
					e, err := engines.Open(context.Background(), "elasticsearch", c)
					if err != nil {
						t.Fatal(err)
					}
					return e
				},
				Visibility: mode,
			})
		})
	}
}

func TestConformanceFake(t *testing.T) {
	f := fake(t, esfake.Options{})
	conformance(t, engines.Config{URL: f.URL()}, map[string]string{"refresh_interval": "20ms"})
}

func create(t *testing.T, e *elasticsearch.Engine, name string) {
	t.Helper()
	if err := e.Create(context.Background(), enginetest.Schema(name)); err != nil {
		t.Fatal(err)
	}
}

func doc(id, name, content string) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{{Name: "name", Text: name}, {Name: "content", Text: content}}}
}

func mustUpsert(t *testing.T, e *elasticsearch.Engine, docs ...engines.Document) {
	t.Helper()
	for _, d := range docs {
		if err := e.Upsert(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

func search(t *testing.T, e *elasticsearch.Engine, text string, k int) engines.Hits {
	t.Helper()
	h, err := e.Search(context.Background(), engines.Query{Text: text, K: k})
	if err != nil {
		t.Fatalf("Search(%q): %v", text, err)
	}
	return h
}

// body decodes the last request's JSON body with this method and path.
func body(t *testing.T, f *esfake.Server, method, path string) (esfake.Recorded, map[string]any) {
	t.Helper()
	rec, ok := f.LastRequest(method, path)
	if !ok {
		t.Fatalf("no %s %s was sent", method, path)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body, &m); err != nil {
		t.Fatalf("%s %s body %q: %v", method, path, rec.Body, err)
	}
	return rec, m
}

// at walks a decoded JSON value along keys.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func TestCreateSendsTheStudyIndex(t *testing.T) {
	f := fake(t, esfake.Options{})
	e := open(t, engines.Config{URL: f.URL()})
	create(t, e, "study")
	_, b := body(t, f, "PUT", "/study")
	analyzer := fmt.Sprint(at(b, "settings", "analysis", "analyzer", elasticsearch.AnalyzerName))
	for what, got := range map[string]any{
		"shards":           at(b, "settings", "index", "number_of_shards"),
		"replicas":         at(b, "settings", "index", "number_of_replicas"),
		"refresh_interval": at(b, "settings", "index", "refresh_interval"),
		"analyzer":         analyzer,
		"stop filter":      fmt.Sprint(at(b, "settings", "analysis", "filter", "searchbench_stop")),
		"stemmer filter":   fmt.Sprint(at(b, "settings", "analysis", "filter", "searchbench_stemmer")),
		"dynamic":          at(b, "mappings", "dynamic"),
		"name":             fmt.Sprint(at(b, "mappings", "properties", "name")),
		"content":          fmt.Sprint(at(b, "mappings", "properties", "content")),
	} {
		want := map[string]any{
			"shards": 1.0, "replicas": 0.0, "refresh_interval": "1s",
			"analyzer":       "map[filter:[lowercase searchbench_stop searchbench_stemmer] tokenizer:standard type:custom]",
			"stop filter":    "map[stopwords:_english_ type:stop]",
			"stemmer filter": "map[language:english type:stemmer]",
			"dynamic":        "strict",
			"name":           "map[analyzer:searchbench_english type:text]",
			"content":        "map[analyzer:searchbench_english type:text]",
		}[what]
		if got != want {
			t.Errorf("create body: %s = %v; want %v", what, got, want)
		}
	}
	if s, _ := f.Settings("study"); s["index.refresh_interval"] != "1s" {
		t.Fatalf("the server's refresh_interval is %q", s["index.refresh_interval"])
	}
	// The analyzer at work: stems, drops stop words, ignores case.
	mustUpsert(t, e, doc("1", "The Running Dogs", "Jumped over fences."), doc("2", "A cat", "sleeps"))
	if err := e.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{"runs": {"1"}, "DOG fence": {"1"}, "the a": {}, "sleeping cats": {"2"}} {
		if h := search(t, e, q, 10); !slices.Equal(h.IDs, want) && !(len(want) == 0 && len(h.IDs) == 0) {
			t.Errorf("Search(%q) = %v; want %v", q, h.IDs, want)
		}
	}
	// Create replaces: the old index is deleted first (404 the first time).
	if n := f.Requests("DELETE", "/study"); n != 1 {
		t.Fatalf("DELETE /study sent %d times; want 1", n)
	}
	create(t, e, "study")
	if h := search(t, e, "runs", 10); len(h.IDs) != 0 {
		t.Fatalf("the old documents survived a second Create: %v", h.IDs)
	}

	o := open(t, engines.Config{URL: f.URL(), Options: map[string]string{"refresh_interval": "250ms"}})
	create(t, o, "interval")
	if s, _ := f.Settings("interval"); s["index.refresh_interval"] != "250ms" {
		t.Fatalf("option refresh_interval: the server has %q", s["index.refresh_interval"])
	}
}

func TestSearchBody(t *testing.T) {
	f := fake(t, esfake.Options{})
	e := open(t, engines.Config{URL: f.URL(), WriteMode: engines.Searchable, Options: map[string]string{"refresh_interval": "10ms"}})
	create(t, e, "query")
	mustUpsert(t, e, doc("1", "alpha", "beta"), doc("2", "beta", "alpha"), doc("3", "alpha", "alpha"), doc("4", "gamma", "delta"))
	h := search(t, e, "Alpha, beta.", 7)
	_, b := body(t, f, "POST", "/query/_search")
	want := `map[_source:false query:map[multi_match:map[fields:[name content] fuzziness:0 query:Alpha, beta. type:most_fields]] size:7 track_total_hits:10000]`
	if got := fmt.Sprint(b); got != want {
		t.Fatalf("search body\n got %s\nwant %s", got, want)
	}
	if len(h.IDs) != 3 || h.Total != 3 {
		t.Fatalf("hits %v total %d; want 3 of 3", h.IDs, h.Total)
	}
	// most_fields adds the fields' scores: a document matching in both
	// fields ranks first.
	if h := search(t, e, "alpha", 10); h.IDs[0] != "3" || len(h.IDs) != 3 {
		t.Fatalf("most_fields ranking: %v", h.IDs)
	}
	if h := search(t, e, "alpha", 1); len(h.IDs) != 1 {
		t.Fatalf("k=1: %v", h.IDs)
	}

	for opt, want := range map[string]string{"none": "<nil>", "1": "1", "AUTO": "AUTO"} {
		o := open(t, engines.Config{URL: f.URL(), Options: map[string]string{"fuzziness": opt}})
		create(t, o, "fuzzy")
		_, err := o.Search(context.Background(), engines.Query{Text: "x", K: 10})
		_, b := body(t, f, "POST", "/fuzzy/_search")
		if got := fmt.Sprint(at(b, "query", "multi_match", "fuzziness")); got != want {
			t.Errorf("option fuzziness %s: sent %s", opt, got)
		}
		// The fake refuses fuzziness it does not model, and says so.
		if opt != "none" && (err == nil || !strings.Contains(err.Error(), "esfake:")) {
			t.Errorf("fuzziness %s: %v", opt, err)
		}
	}
}

func TestTrackTotalHits(t *testing.T) {
	f := fake(t, esfake.Options{})
	docs := make([]engines.Document, 12)
	for i := range docs {
		docs[i] = doc(fmt.Sprint(i), "same", "words")
	}
	for opt, want := range map[string]int64{"": 12, "5": -1, "true": 12, "false": -1} {
		cfg := engines.Config{URL: f.URL()}
		if opt != "" {
			cfg.Options = map[string]string{"track_total_hits": opt}
		}
		e := open(t, cfg)
		create(t, e, "total")
		if err := e.UpsertBatch(context.Background(), docs); err != nil {
			t.Fatal(err)
		}
		if err := e.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if h := search(t, e, "same", 10); h.Total != want || len(h.IDs) != 10 {
			t.Errorf("track_total_hits %q: total %d (%d hits); want %d", opt, h.Total, len(h.IDs), want)
		}
	}
}

func TestWriteModes(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	ack := open(t, engines.Config{URL: f.URL(), Options: map[string]string{"refresh_interval": "1h"}})
	create(t, ack, "ack")
	mustUpsert(t, ack, doc("1", "quokkazed", "x"))
	if rec, _ := f.LastRequest("PUT", "/ack/_doc/1"); rec.Query.Has("refresh") {
		t.Fatalf("acknowledged upsert sent refresh=%s", rec.Query.Get("refresh"))
	}
	if v, live := f.Visible("ack"); v != 0 || live != 1 {
		t.Fatalf("acknowledged write: visible %d, live %d; want 0, 1", v, live)
	}
	if h := search(t, ack, "quokkazed", 10); len(h.IDs) != 0 {
		t.Fatal("an acknowledged write is searchable before a refresh")
	}
	// Delete is real-time: it finds the unrefreshed document.
	if err := ack.Delete(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, ack, doc("2", "quokkazed", "x"))
	if err := ack.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h := search(t, ack, "quokkazed", 10); !slices.Equal(h.IDs, []string{"2"}) {
		t.Fatalf("after Refresh: %v", h.IDs)
	}

	// Searchable waits for the refresh: with none due for an hour, the
	// write waits until the caller gives up, as a waiting listener.
	held := open(t, engines.Config{URL: f.URL(), WriteMode: engines.Searchable, Options: map[string]string{"refresh_interval": "1h"}})
	create(t, held, "held")
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := held.Upsert(short, doc("1", "x", "y")); engines.Classify(err) != engines.Timeout {
		t.Fatalf("searchable upsert with no refresh due = %v; want a timeout", err)
	}

	sync := open(t, engines.Config{URL: f.URL(), WriteMode: engines.Searchable, Options: map[string]string{"refresh_interval": "20ms"}})
	create(t, sync, "sync")
	mustUpsert(t, sync, doc("1", "wombatzed", "x"))
	if h := search(t, sync, "wombatzed", 10); !slices.Equal(h.IDs, []string{"1"}) {
		t.Fatalf("searchable write not visible when Upsert returned: %v", h.IDs)
	}
	if err := sync.UpsertBatch(ctx, []engines.Document{doc("2", "wombatzed", "x")}); err != nil {
		t.Fatal(err)
	}
	if err := sync.Delete(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if h := search(t, sync, "wombatzed", 10); !slices.Equal(h.IDs, []string{"2"}) {
		t.Fatalf("searchable bulk and delete not visible when they returned: %v", h.IDs)
	}
	for _, p := range [][2]string{{"PUT", "/sync/_doc/1"}, {"POST", "/sync/_bulk"}, {"DELETE", "/sync/_doc/1"}} {
		if rec, _ := f.LastRequest(p[0], p[1]); rec.Query.Get("refresh") != "wait_for" {
			t.Errorf("%s %s: refresh=%q; want wait_for", p[0], p[1], rec.Query.Get("refresh"))
		}
	}
}

// An explicit refresh_interval keeps an index that is written but not
// searched refreshing: without one, Elasticsearch stops refreshing a shard
// that has not been searched for 30 s, and "acknowledged" would change
// meaning in a write-only phase.
func TestIdleIndexKeepsRefreshing(t *testing.T) {
	f := fake(t, esfake.Options{SearchIdleAfter: 20 * time.Millisecond})
	e := open(t, engines.Config{URL: f.URL(), Options: map[string]string{"refresh_interval": "50ms"}})
	create(t, e, "idle")
	time.Sleep(50 * time.Millisecond) // longer than search.idle.after
	mustUpsert(t, e, doc("1", "x", "y"))
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if v, _ := f.Visible("idle"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a write to an unsearched index never became visible: periodic refreshes stopped")
		}
	}
}

func TestBulk(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL()})
	create(t, e, "bulk")
	docs := []engines.Document{doc("1", "a", "b"), doc("2", "c", "d"), doc("3", "e", "f")}
	if err := e.UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	rec, ok := f.LastRequest("POST", "/bulk/_bulk")
	if !ok || f.Requests("POST", "/bulk/_bulk") != 1 {
		t.Fatal("three documents did not go as one _bulk request")
	}
	if ct := rec.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("bulk Content-Type %q", ct)
	}
	want := `{"index":{"_id":"1"}}` + "\n" + `{"content":"b","name":"a"}` + "\n"
	if !bytes.HasPrefix(rec.Body, []byte(want)) || bytes.Count(rec.Body, []byte("\n")) != 6 || !bytes.HasSuffix(rec.Body, []byte("\n")) {
		t.Errorf("bulk body %q", rec.Body)
	}
	if err := e.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Count(ctx); err != nil || n != 3 {
		t.Fatalf("Count = %d, %v", n, err)
	}

	// Items the write queue rejected: overloaded, naming the first.
	f.RejectBulkItems(2)
	err := e.UpsertBatch(ctx, docs)
	if engines.Classify(err) != engines.Overloaded || !strings.Contains(err.Error(), "id 1:") || !strings.Contains(err.Error(), "2 of 3 items") {
		t.Fatalf("bulk with rejected items = %v; want overloaded, naming id 1", err)
	}
	// Items refused for what they are (a mapping someone else changed to
	// lack content): not load, whatever else was rejected.
	if r := rawDo(t, f, "DELETE", "/bulk", nil); r != 200 {
		t.Fatal(r)
	}
	if r := rawDo(t, f, "PUT", "/bulk", map[string]any{"mappings": map[string]any{"dynamic": "strict",
		"properties": map[string]any{"name": map[string]any{"type": "text"}}}}); r != 200 {
		t.Fatal(r)
	}
	f.RejectBulkItems(1)
	err = e.UpsertBatch(ctx, docs)
	if engines.Classify(err) != engines.Other || !strings.Contains(err.Error(), "strict_dynamic_mapping_exception") {
		t.Fatalf("bulk with refused items = %v (class %s); want other, with the refusal's type", err, engines.Classify(err))
	}
}

// rawDo sends a request to the fake as another client would.
func rawDo(t *testing.T, f *esfake.Server, method, path string, body any) int {
	t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, f.URL()+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestDelete(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL()})
	create(t, e, "del")
	err := e.Delete(ctx, "missing")
	if !errors.Is(err, engines.ErrNotFound) {
		t.Fatalf("Delete(missing) = %v; want ErrNotFound", err)
	}
	// A missing index is a broken setup, not a missing document.
	if r := rawDo(t, f, "DELETE", "/del", nil); r != 200 {
		t.Fatal(r)
	}
	err = e.Delete(ctx, "missing")
	if engines.Classify(err) != engines.Other || !strings.Contains(err.Error(), "index_not_found_exception") {
		t.Fatalf("Delete in a deleted index = %v (class %s); want other", err, engines.Classify(err))
	}
	if _, err := e.Search(ctx, engines.Query{Text: "x", K: 10}); engines.Classify(err) != engines.Other {
		t.Fatalf("Search of a deleted index = %v", err)
	}
}

// IDs go escaped in the path and come back as they were.
func TestIDsAreEscaped(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL(), WriteMode: engines.Searchable, Options: map[string]string{"refresh_interval": "10ms"}})
	create(t, e, "ids")
	ids := []string{"a/b", "c d", "e?f", "g%h", "i+j", "k#l", "ü", ".."}
	for _, id := range ids {
		mustUpsert(t, e, doc(id, "quokkazed", id))
	}
	h := search(t, e, "quokkazed", 20)
	got := slices.Clone(h.IDs)
	slices.Sort(got)
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("ids after upsert: %q; want %q", got, want)
	}
	for _, id := range ids {
		if err := e.Delete(ctx, id); err != nil {
			t.Fatalf("Delete(%q): %v", id, err)
		}
	}
	if n, err := e.Count(ctx); err != nil || n != 0 {
		t.Fatalf("after deleting every id: %d, %v", n, err)
	}
}

func TestErrorClasses(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL()})
	create(t, e, "classes")
	q := engines.Query{Text: "x", K: 10}
	for _, c := range []struct {
		fault esfake.Fault
		want  engines.Class
	}{
		{esfake.Fault{Status: 429}, engines.Overloaded},
		{esfake.Fault{Status: 429, Code: "circuit_breaking_exception", Message: "[parent] Data too large"}, engines.Overloaded},
		{esfake.Fault{Status: 503}, engines.Overloaded},
		{esfake.Fault{Status: 500, Code: "es_rejected_execution_exception"}, engines.Overloaded},
		// The flood-stage disk block answers 429 too, but is not load.
		{esfake.Fault{Status: 429, Code: "cluster_block_exception",
			Message: "index [classes] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block]"}, engines.Other},
		{esfake.Fault{Status: 504, Code: "timeout_exception"}, engines.Timeout},
		{esfake.Fault{Status: 408, Code: "timeout_exception"}, engines.Timeout},
		{esfake.Fault{Status: 500}, engines.Other},
		{esfake.Fault{Status: 400, Code: "parsing_exception"}, engines.Other},
	} {
		for _, op := range []struct {
			name, method, path string
			call               func() error
		}{
			{"search", "POST", "/classes/_search", func() error { _, err := e.Search(ctx, q); return err }},
			{"upsert", "PUT", "/classes/_doc/1", func() error { return e.Upsert(ctx, doc("1", "x", "y")) }},
			{"delete", "DELETE", "/classes/_doc/1", func() error { return e.Delete(ctx, "1") }},
			{"bulk", "POST", "/classes/_bulk", func() error { return e.UpsertBatch(ctx, []engines.Document{doc("1", "x", "y")}) }},
		} {
			before := f.Requests(op.method, op.path)
			fault := c.fault
			fault.Method, fault.Path = op.method, op.path
			f.Inject(fault)
			err := op.call()
			f.ClearFaults()
			if got := engines.Classify(err); got != c.want {
				t.Errorf("%s, fault %d %s: %v, class %s; want %s", op.name, c.fault.Status, c.fault.Code, err, got, c.want)
			}
			// Retries are off: one request, whatever the status (the
			// transport would retry 502, 503 and 504 three times).
			if n := f.Requests(op.method, op.path) - before; n != 1 {
				t.Errorf("%s, fault %d: %d requests; want 1", op.name, c.fault.Status, n)
			}
		}
	}
	// A caller's deadline is a timeout, a cancel is a cancel.
	f.Inject(esfake.Fault{Path: "/classes/_search", Hang: true})
	defer f.ClearFaults()
	enginetest.ContextErrors(t, e, q)
}

// The official client refuses a server without X-Elastic-Product:
// Elasticsearch; Open finds it out.
func TestProductHeaderRequired(t *testing.T) {
	f := fake(t, esfake.Options{NoProductHeader: true})
	_, err := engines.Open(context.Background(), "elasticsearch", engines.Config{URL: f.URL()})
	if !errors.Is(err, elasticsearch.ErrNotElasticsearch) {
		t.Fatalf("Open against a server without the product header = %v; want ErrNotElasticsearch", err)
	}
	ok := fake(t, esfake.Options{})
	if _, err := engines.Open(context.Background(), "elasticsearch", engines.Config{URL: ok.URL()}); err != nil {
		t.Fatalf("Open with the header: %v", err)
	}
}

func TestVersionAndClose(t *testing.T) {
	f := fake(t, esfake.Options{})
	e, err := engines.Open(context.Background(), "elasticsearch", engines.Config{URL: f.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.(engines.Versioner).Version(context.Background()); err != nil || v != "Elasticsearch 8.19.6" {
		t.Fatalf("Version = %q, %v", v, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

const (
	password = "pw-that-must-not-leak"
	apiKey   = "a2V5LXRoYXQtbXVzdC1ub3QtbGVhaw=="
)

func TestCredentials(t *testing.T) {
	f := fake(t, esfake.Options{Username: "elastic", Password: password})
	e := open(t, engines.Config{URL: f.URL(), Username: "elastic", Password: password})
	create(t, e, "auth")
	k := fake(t, esfake.Options{APIKey: apiKey})
	open(t, engines.Config{URL: k.URL(), APIKey: apiKey})
	if rec, _ := k.LastRequest("GET", "/"); rec.Header.Get("Authorization") != "APIKey "+apiKey {
		t.Fatalf("API key sent as %q", rec.Header.Get("Authorization"))
	}
	for name, cfg := range map[string]engines.Config{
		"wrong password": {URL: f.URL(), Username: "elastic", Password: password + "x"},
		"wrong key":      {URL: k.URL(), APIKey: apiKey + "x"},
	} {
		_, err := engines.Open(context.Background(), "elasticsearch", cfg)
		if err == nil || !strings.Contains(err.Error(), "HTTP 401 security_exception") {
			t.Fatalf("%s: %v; want a 401", name, err)
		}
		if strings.Contains(err.Error(), password) || strings.Contains(err.Error(), apiKey) {
			t.Fatalf("%s: the error shows the secret: %v", name, err)
		}
	}
}

// Should a server (or a proxy) echo the credentials in an error, the
// driver's message leaves them out and keeps the error's class.
func TestSecretsNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/" {
			_, _ = w.Write([]byte(`{"version":{"number":"8.19.6"}}`))
			return
		}
		user, pass, _ := r.BasicAuth()
		reason := fmt.Sprintf("rejected for %s:%s (header %s)", user, pass, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusTooManyRequests)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "es_rejected_execution_exception", "reason": reason}, "status": 429})
	}))
	defer srv.Close()
	for _, cfg := range []engines.Config{
		{URL: srv.URL, Username: "elastic", Password: password},
		{URL: srv.URL, APIKey: apiKey},
	} {
		e := open(t, cfg)
		err := e.Create(context.Background(), enginetest.Schema("echo"))
		if err == nil || engines.Classify(err) != engines.Overloaded {
			t.Fatalf("echoing server: %v", err)
		}
		msg := err.Error()
		if strings.Contains(msg, password) || strings.Contains(msg, apiKey) || strings.Contains(msg, "ZWxhc3RpYz") || !strings.Contains(msg, "[redacted]") {
			t.Fatalf("the error shows a secret: %s", msg)
		}
	}
	_, err := engines.Open(context.Background(), "elasticsearch", engines.Config{URL: "http://elastic:" + password + "@127.0.0.1:1"})
	if err == nil || strings.Contains(err.Error(), password) {
		t.Fatalf("URL with credentials: %v", err)
	}
}

func TestOpenRejects(t *testing.T) {
	f := fake(t, esfake.Options{})
	for name, cfg := range map[string]engines.Config{
		"unknown option":           {Options: map[string]string{"shards": "2"}},
		"bad pool":                 {Options: map[string]string{"pool": "0"}},
		"refresh without unit":     {Options: map[string]string{"refresh_interval": "5"}},
		"fractional refresh":       {Options: map[string]string{"refresh_interval": "1.5s"}},
		"fuzziness 3":              {Options: map[string]string{"fuzziness": "3"}},
		"bad track_total_hits":     {Options: map[string]string{"track_total_hits": "-2"}},
		"unknown field type":       {Options: map[string]string{"fields": "tag,geo"}},
		"field type twice":         {Options: map[string]string{"fields": "tag,tag"}},
		"empty fields":             {Options: map[string]string{"fields": ""}},
		"exact not a switch":       {Options: map[string]string{"exact": "sku"}},
		"m 0":                      {Options: map[string]string{"m": "0"}},
		"m over Lucene's 512":      {Options: map[string]string{"m": "513"}},
		"ef_construction 3201":     {Options: map[string]string{"ef_construction": "3201"}},
		"num_candidates 10001":     {Options: map[string]string{"num_candidates": "10001"}},
		"unknown mode":             {WriteMode: "durable"},
		"searchable never refresh": {WriteMode: engines.Searchable, Options: map[string]string{"refresh_interval": "-1"}},
		"not an http URL":          {URL: "postgres://x"},
		"URL with a path":          {URL: f.URL() + "/es"},
		"URL with a query":         {URL: f.URL() + "?x=1"},
		"key and password":         {APIKey: "k", Username: "u", Password: "p"},
		"user without password":    {Username: "u"},
	} {
		if cfg.URL == "" {
			cfg.URL = f.URL()
		}
		_, err := engines.Open(context.Background(), "elasticsearch", cfg)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if name == "unknown option" && !strings.Contains(err.Error(), "ef_construction, exact, fields, fuzziness, m, num_candidates, pool, refresh_interval, track_total_hits") {
			t.Errorf("unknown option: %v does not list the valid ones", err)
		}
	}
	if n := f.Requests("", ""); n != 0 {
		t.Fatalf("refused configurations sent %d requests", n)
	}
	// A trailing slash is no path.
	open(t, engines.Config{URL: f.URL() + "/"})
}

func TestUnsupported(t *testing.T) {
	f := fake(t, esfake.Options{})
	ctx := context.Background()
	e := open(t, engines.Config{URL: f.URL()})
	for what, fields := range map[string][]engines.FieldSpec{
		"two vector fields": {{Name: "v", Type: engines.Vector, Dim: 3}, {Name: "w", Type: engines.Vector, Dim: 3}},
		"dimension 0":       {{Name: "v", Type: engines.Vector}},
		"dimension 4097":    {{Name: "v", Type: engines.Vector, Dim: 4097}},
		"unknown type":      {{Name: "v", Type: engines.FieldType(9)}},
	} {
		if err := e.Create(ctx, engines.Schema{Name: "bad", Fields: fields}); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%s: %v; want ErrUnsupported", what, err)
		}
	}
	for _, name := range []string{"Capital", "_under", "a:b", "a/b", ""} {
		if err := e.Create(ctx, enginetest.Schema(name)); err == nil {
			t.Errorf("index name %q accepted", name)
		}
	}
	create(t, e, "unsupported")
	for _, q := range []engines.Query{
		{Text: "x", K: 10, Vector: []float32{1}},
		{Text: "x", K: 10, Filters: []engines.Filter{{Field: "c", Tag: "a"}}},
		{Text: "x", K: 10, Filters: []engines.Filter{{Field: "name", Tag: "a"}}},
		{Text: "x", K: 10, Field: "c"},
	} {
		if _, err := e.Search(ctx, q); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%+v: %v; want ErrUnsupported", q, err)
		}
	}
	before := f.Requests("", "")
	for _, d := range []engines.Document{
		doc("", "x", "y"),
		doc(strings.Repeat("x", 513), "x", "y"),
		{ID: "1", Fields: []engines.Field{{Name: "extra", Text: "x"}}},
	} {
		if err := e.Upsert(ctx, d); err == nil {
			t.Errorf("document %.20q %v accepted", d.ID, d.Fields)
		}
		if err := e.UpsertBatch(ctx, []engines.Document{d}); err == nil {
			t.Errorf("batch of %.20q accepted", d.ID)
		}
	}
	if n := f.Requests("", "") - before; n != 0 {
		t.Fatalf("invalid documents sent %d requests", n)
	}
}

func TestParsers(t *testing.T) {
	for _, c := range []struct {
		body  string
		k     int
		ids   []string
		total int64
		class engines.Class // for errors; OK: no error
	}{
		{`{"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[{"_id":"a","_score":1},{"_id":"b","_score":0.5}]}}`, 10, []string{"a", "b"}, 2, engines.OK},
		{`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":10000,"relation":"gte"},"hits":[]}}`, 10, []string{}, -1, engines.OK},
		{`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[]}}`, 10, []string{}, -1, engines.OK},
		{`{"_shards":{"total":1,"successful":0,"failed":1,"failures":[{"reason":{"type":"es_rejected_execution_exception","reason":"queue full"}}]},"hits":{"hits":[]}}`, 10, nil, 0, engines.Overloaded},
		{`{"_shards":{"total":1,"successful":0,"failed":1,"failures":[{"reason":{"type":"query_shard_exception","reason":"bad"}}]},"hits":{"hits":[]}}`, 10, nil, 0, engines.Other},
		{`{"timed_out":true,"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[]}}`, 10, nil, 0, engines.Timeout},
		{`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[{"_id":"a"},{"_id":"b"}]}}`, 1, nil, 0, engines.Other},
		{`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_id":"a"},{"_id":"b"}]}}`, 10, nil, 0, engines.Other},
		{`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[{"_score":1}]}}`, 10, nil, 0, engines.Other},
		{`{"hits":{"hits":[]}}`, 10, nil, 0, engines.Other},
		{`<html>`, 10, nil, 0, engines.Other},
	} {
		h, err := elasticsearch.ParseSearch([]byte(c.body), c.k)
		if got := engines.Classify(err); got != c.class {
			t.Errorf("ParseSearch(%s): %v, class %s; want %s", c.body, err, got, c.class)
			continue
		}
		if err == nil && (!slices.Equal(h.IDs, c.ids) || h.Total != c.total) {
			t.Errorf("ParseSearch(%s) = %v total %d; want %v total %d", c.body, h.IDs, h.Total, c.ids, c.total)
		}
	}
	for body, want := range map[string]bool{
		`{"errors":false,"items":[{"index":{"_id":"1","status":201}},{"index":{"_id":"2","status":200}}]}`:  true,
		`{"errors":true,"items":[{"index":{"_id":"1","status":201}},{"index":{"_id":"2","status":200}}]}`:   false,
		`{"errors":false,"items":[{"index":{"_id":"1","status":201}}]}`:                                     false,
		`{"errors":false,"items":[{"index":{"_id":"2","status":201}},{"index":{"_id":"1","status":200}}]}`:  false,
		`{"errors":false,"items":[{"create":{"_id":"1","status":201}},{"index":{"_id":"2","status":200}}]}`: false,
		`{"items":[{"index":{"_id":"1","status":201}},{"index":{"_id":"2","status":200}}]}`:                 false,
	} {
		if err := elasticsearch.ParseBulk([]byte(body), []string{"1", "2"}); (err == nil) != want {
			t.Errorf("ParseBulk(%s) = %v", body, err)
		}
	}
	if err := elasticsearch.ResponseError(503, []byte("<html>bad gateway</html>")); engines.Classify(err) != engines.Overloaded || err.Error() != "overloaded or rejected: HTTP 503" {
		t.Errorf("non-JSON 503: %v", err)
	}
	if err := elasticsearch.ResponseError(400, []byte(`{"error":"no handler found for uri [/x] and method [GET]","status":400}`)); !strings.Contains(err.Error(), "no handler found") {
		t.Errorf("plain error: %v", err)
	}
}

package amgixnow_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow"
	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/enginetest"
)

func open(t *testing.T, name string, cfg engines.Config) engines.Engine {
	t.Helper()
	e, err := engines.Open(context.Background(), name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func conformance(t *testing.T, name string, vis engines.Visibility, cfg engines.Config) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			e, err := engines.Open(context.Background(), name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		Visibility: vis,
		// Amgix answers 200 for a missing document's delete.
		SilentMissingDelete: true,
	})
}

// The default driver against the fake in its default mode: acknowledged
// writes, searchable a little later.
func TestConformanceAcknowledged(t *testing.T) {
	f := amgixfake.New()
	defer f.Close()
	conformance(t, amgixnow.Name, engines.Acknowledged, engines.Config{URL: f.URL})
}

func TestConformanceSync(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	conformance(t, amgixnow.SyncName, engines.Searchable, engines.Config{URL: f.URL})
}

// The queued routes of the later source, and the older bare-array search
// answer.
func TestConformanceQueuedRoute(t *testing.T) {
	f := amgixfake.New(amgixfake.QueuedRoutes())
	defer f.Close()
	conformance(t, amgixnow.Name, engines.Acknowledged, engines.Config{URL: f.URL, Options: map[string]string{"route": "queued"}})
}

func TestConformanceBareArraySearch(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync(), amgixfake.BareArraySearch())
	defer f.Close()
	conformance(t, amgixnow.SyncName, engines.Searchable, engines.Config{URL: f.URL})
}

func TestDescribe(t *testing.T) {
	for name, want := range map[string]engines.Visibility{amgixnow.Name: engines.Acknowledged, amgixnow.SyncName: engines.Searchable} {
		d, err := engines.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Describe().Visibility; got != want {
			t.Errorf("%s: Visibility %s, want %s", name, got, want)
		}
	}
}

func doc(id, name string) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{{Name: "name", Text: name}, {Name: "content", Text: "body of " + id}}}
}

func created(t *testing.T, name string, cfg engines.Config, coll string) engines.Engine {
	t.Helper()
	e := open(t, name, cfg)
	if err := e.Create(context.Background(), enginetest.Schema(coll)); err != nil {
		t.Fatal(err)
	}
	return e
}

func stats(t *testing.T, e engines.Engine) map[string]float64 {
	t.Helper()
	m, err := e.(engines.StatsReporter).Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// 16 goroutines upsert the same 8 documents 500 times each. Writes of one
// document overtake each other on the way, and the fake (like Amgix) skips
// the older of two that arrive out of order — but the driver stamped each
// write with its own timestamp and counts every such skip as superseded, not
// lost: no error, no skipped_writes, and each document ends as its newest
// write left it.
func TestConcurrentWritesAreNeverLost(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "concurrent")
	const goroutines, each, ids = 16, 500, 8
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if err := e.Upsert(context.Background(), doc(fmt.Sprint((g+i)%ids), fmt.Sprintf("g%d i%d", g, i))); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	writes := f.Writes()
	if len(writes) != goroutines*each {
		t.Fatalf("the fake saw %d writes, want %d", len(writes), goroutines*each)
	}
	stamps := map[time.Time]bool{}
	newest := map[string]time.Time{}
	fakeSkipped := 0
	for _, w := range writes {
		if stamps[w.Timestamp] {
			t.Fatalf("timestamp %v sent twice", w.Timestamp)
		}
		stamps[w.Timestamp] = true
		if w.Timestamp.After(newest[w.ID]) {
			newest[w.ID] = w.Timestamp
		}
		if w.Skipped {
			fakeSkipped++
		}
	}
	for id, ts := range newest {
		if got, _ := f.Stored("concurrent", id); !got.Equal(ts) {
			t.Errorf("document %s stored at %v, its newest write was %v", id, got, ts)
		}
	}
	st := stats(t, e)
	if st["skipped_writes"] != 0 {
		t.Errorf("skipped_writes = %v, want 0", st["skipped_writes"])
	}
	if int(st["superseded_writes"]) != fakeSkipped {
		t.Errorf("superseded_writes = %v, the fake skipped %d", st["superseded_writes"], fakeSkipped)
	}
	t.Logf("%d of %d writes overtaken by a newer one of the same document", fakeSkipped, len(writes))
}

// rawUpsert writes a document as another client would, with its own
// timestamp.
func rawUpsert(t *testing.T, base, coll, id string, ts time.Time) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"timestamp":%q,"name":"written elsewhere"}`, id, ts.UTC().Format(time.RFC3339Nano))
	resp, err := http.Post(base+"/v1/collections/"+coll+"/documents/sync", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || strings.Contains(string(b), "skipped") {
		t.Fatalf("raw upsert: %d %s", resp.StatusCode, b)
	}
}

// A stored timestamp ahead of the driver's — another writer whose clock is
// an hour ahead — makes Amgix skip the driver's writes. The driver says so:
// an error of class Other per lost write, counted in skipped_writes.
func TestStaleWritesAreDetected(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "stale")
	ahead := time.Now().Add(time.Hour)
	rawUpsert(t, f.URL, "stale", "x", ahead)
	ctx := context.Background()
	check := func(what string, err error, want float64) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "write skipped: timestamp not newer") {
			t.Fatalf("%s: %v, want a skipped-write error", what, err)
		}
		if c := engines.Classify(err); c != engines.Other {
			t.Fatalf("%s: class %s, want other", what, c)
		}
		if got := stats(t, e)["skipped_writes"]; got != want {
			t.Fatalf("%s: skipped_writes = %v, want %v", what, got, want)
		}
	}
	check("upsert", e.Upsert(ctx, doc("x", "mine")), 1)
	check("delete", e.Delete(ctx, "x"), 2)
	err := e.(engines.BulkUpserter).UpsertBatch(ctx, []engines.Document{doc("y", "new"), doc("x", "mine again")})
	check("bulk", err, 3)
	if !strings.Contains(err.Error(), "(x)") {
		t.Fatalf("bulk error %q does not name the lost document", err)
	}
	if got, _ := f.Stored("stale", "x"); !got.Equal(ahead.UTC()) {
		t.Fatalf("x stored at %v; the writer ahead wrote %v", got, ahead)
	}
	if _, ok := f.Stored("stale", "y"); !ok {
		t.Fatal("y, not stale, was not written")
	}
	if got := stats(t, e)["superseded_writes"]; got != 0 {
		t.Fatalf("superseded_writes = %v, want 0", got)
	}
}

// A later run stamps writes newer than an earlier run's: even where a
// collection still holds the earlier run's document (Create replaces the
// collection, so here the document is planted back with the timestamp it
// was stored with), the later run's write is not skipped.
func TestLaterRunWritesNewer(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	first := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "runs")
	if err := first.Upsert(context.Background(), doc("1", "first run")); err != nil {
		t.Fatal(err)
	}
	before, _ := f.Stored("runs", "1")
	first.Close()
	second := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "runs")
	rawUpsert(t, f.URL, "runs", "1", before)
	if err := second.Upsert(context.Background(), doc("1", "second run")); err != nil {
		t.Fatalf("the second run's write: %v", err)
	}
	if after, _ := f.Stored("runs", "1"); !after.After(before) {
		t.Fatalf("second run stored %v, not after the first run's %v", after, before)
	}
}

func TestBulk(t *testing.T) {
	for _, bulk := range []string{"true", "false"} {
		t.Run("bulk="+bulk, func(t *testing.T) {
			f := amgixfake.New(amgixfake.Sync())
			defer f.Close()
			e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL, Options: map[string]string{"bulk": bulk}}, "bulk")
			docs := make([]engines.Document, 250) // three bulk calls: 100, 100, 50
			for i := range docs {
				docs[i] = doc(fmt.Sprint(i), "item")
			}
			if err := e.(engines.BulkUpserter).UpsertBatch(context.Background(), docs); err != nil {
				t.Fatal(err)
			}
			n, err := e.(engines.Counter).Count(context.Background())
			if err != nil || n != 250 {
				t.Fatalf("Count = %d, %v; want 250", n, err)
			}
		})
	}
}

func TestVersionCountStats(t *testing.T) {
	f := amgixfake.New()
	defer f.Close()
	e := created(t, amgixnow.Name, engines.Config{URL: f.URL}, "info")
	// The version names the write routes, so the run records which it used.
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{nil, amgixfake.Version + "; writes via …/documents/sync, bulk via …/documents/bulk"},
		{map[string]string{"route": "queued", "bulk": "false"}, amgixfake.Version + "; writes via …/documents, bulk via single writes"},
	} {
		o := open(t, amgixnow.Name, engines.Config{URL: f.URL, Options: tc.opts})
		if v, err := o.(engines.Versioner).Version(context.Background()); err != nil || v != tc.want {
			t.Fatalf("Version with %v = %q, %v; want %q", tc.opts, v, err, tc.want)
		}
	}
	if err := e.Upsert(context.Background(), doc("1", "one")); err != nil {
		t.Fatal(err)
	}
	// Acknowledged: counted once the fake's index delay has passed.
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := e.(engines.Counter).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Count = %d after 5 s, want 1", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := stats(t, e)
	for _, k := range []string{"skipped_writes", "superseded_writes", "doc_count", "queue_depth"} {
		if _, ok := st[k]; !ok {
			t.Errorf("Stats has no %s: %v", k, st)
		}
	}
	// On the queued route Amgix reports no skipped writes: not measured, so
	// not reported as zero.
	q := created(t, amgixnow.Name, engines.Config{URL: f.URL, Options: map[string]string{"route": "queued"}}, "info2")
	if st := stats(t, q); st["skipped_writes"] != 0 || hasKey(st, "skipped_writes") {
		t.Errorf("queued route reports skipped_writes: %v", st)
	}
}

func hasKey(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

func TestOverloadAndTimeouts(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL, Options: map[string]string{"timeout": "200ms"}}, "faults")
	ctx := context.Background()
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		f.Inject(amgixfake.Fault{Status: status, Times: 2})
		if err := e.Upsert(ctx, doc("1", "a")); engines.Classify(err) != engines.Overloaded {
			t.Errorf("upsert under HTTP %d: %v, class %s; want overloaded", status, err, engines.Classify(err))
		}
		if _, err := e.Search(ctx, engines.Query{Text: "a", K: 10}); engines.Classify(err) != engines.Overloaded {
			t.Errorf("search under HTTP %d: %v, class %s; want overloaded", status, err, engines.Classify(err))
		}
	}
	f.Inject(amgixfake.Fault{Status: http.StatusGatewayTimeout, Times: 1})
	if err := e.Delete(ctx, "1"); engines.Classify(err) != engines.Timeout {
		t.Errorf("delete under HTTP 504: %v; want timeout", err)
	}
	f.Inject(amgixfake.Fault{Hang: true})
	_, err := e.Search(ctx, engines.Query{Text: "a", K: 10})
	if engines.Classify(err) != engines.Timeout {
		t.Errorf("search against a hung server with timeout=200ms: %v, class %s; want timeout", err, engines.Classify(err))
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := e.Upsert(short, doc("2", "b")); engines.Classify(err) != engines.Timeout {
		t.Errorf("upsert past its context deadline: %v, class %s; want timeout", err, engines.Classify(err))
	}
	f.ClearFaults()
	if _, err := e.Search(ctx, engines.Query{Text: "a", K: 10}); err != nil {
		t.Errorf("search after release: %v", err)
	}
}

// A collection dropped behind the driver's back is a 404: an error of class
// Other, not a NotFound the runner would ignore on deletes.
func TestMissingCollectionIsNotNotFound(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "gone")
	req, _ := http.NewRequest(http.MethodDelete, f.URL+"/v1/collections/gone", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx := context.Background()
	for what, err := range map[string]error{
		"upsert": e.Upsert(ctx, doc("1", "a")),
		"delete": e.Delete(ctx, "1"),
		"search": func() error { _, err := e.Search(ctx, engines.Query{Text: "a", K: 10}); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "404") || engines.Classify(err) != engines.Other {
			t.Errorf("%s on a dropped collection: %v, class %s; want a 404 of class other", what, err, engines.Classify(err))
		}
	}
}

func TestAPIKey(t *testing.T) {
	const key = "k3y-sup3r-s3cret"
	f := amgixfake.New(amgixfake.Sync(), amgixfake.APIKey(key))
	defer f.Close()
	ctx := context.Background()
	for _, tc := range []struct{ what, key string }{{"no key", ""}, {"a wrong key", "wrong-" + key}} {
		_, err := engines.Open(ctx, amgixnow.SyncName, engines.Config{URL: f.URL, APIKey: engines.Secret(tc.key)})
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("Open with %s: %v; want a 401", tc.what, err)
		}
		if err != nil && tc.key != "" && strings.Contains(err.Error(), tc.key) {
			t.Errorf("Open with %s: the error shows the key: %v", tc.what, err)
		}
	}
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL, APIKey: key}, "keyed")
	if err := e.Upsert(ctx, doc("1", "a")); err != nil {
		t.Fatal(err)
	}
	f.Inject(amgixfake.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	if err := e.Upsert(ctx, doc("1", "b")); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("error with a key configured: %v", err)
	}
	_, err := engines.Open(ctx, amgixnow.SyncName, engines.Config{URL: "http://127.0.0.1:1", APIKey: key})
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("Open of an unreachable URL: %v; want an error without the key", err)
	}
	_, err = engines.Open(ctx, amgixnow.SyncName, engines.Config{URL: "http://user:" + key + "@127.0.0.1:1"})
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("Open of a URL with a password: %v; want an error without it", err)
	}
}

func TestOpenRejects(t *testing.T) {
	f := amgixfake.New()
	defer f.Close()
	for _, tc := range []struct {
		name, want string
		cfg        engines.Config
	}{
		{amgixnow.Name, "unknown option \"colour\" (known: bulk, exact, fields, pool, route, timeout, top_k)", engines.Config{Options: map[string]string{"colour": "red"}}},
		{amgixnow.Name, "option timeout", engines.Config{Options: map[string]string{"timeout": "-1s"}}},
		{amgixnow.Name, "option pool", engines.Config{Options: map[string]string{"pool": "0"}}},
		{amgixnow.Name, "option route", engines.Config{Options: map[string]string{"route": "fast"}}},
		{amgixnow.Name, "option bulk", engines.Config{Options: map[string]string{"bulk": "maybe"}}},
		{amgixnow.Name, "option top_k", engines.Config{Options: map[string]string{"top_k": "10001"}}},
		{amgixnow.SyncName, "route=queued", engines.Config{Options: map[string]string{"route": "queued"}}},
		{amgixnow.Name, "write mode \"searchable\"", engines.Config{WriteMode: engines.Searchable}},
		{amgixnow.SyncName, "write mode \"acknowledged\"", engines.Config{WriteMode: engines.Acknowledged}},
		{amgixnow.Name, "no user or password", engines.Config{Username: "u"}},
		{amgixnow.Name, "URL must look like", engines.Config{URL: "ftp://x"}},
	} {
		if tc.cfg.URL == "" {
			tc.cfg.URL = f.URL
		}
		_, err := engines.Open(context.Background(), tc.name, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v; want an error containing %q", tc.name, tc.cfg.Options, err, tc.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := open(t, amgixnow.SyncName, engines.Config{URL: f.URL})
	ctx := context.Background()
	for what, s := range map[string]engines.Schema{
		"four text fields":  {Name: "s", Fields: []engines.FieldSpec{{Name: "a", Type: engines.Text}, {Name: "b", Type: engines.Text}, {Name: "c", Type: engines.Text}, {Name: "d", Type: engines.Text}}},
		"two vector fields": {Name: "s", Fields: []engines.FieldSpec{{Name: "a", Type: engines.Vector, Dim: 2}, {Name: "b", Type: engines.Vector, Dim: 2}}},
		"a tag field only":  {Name: "s", Fields: []engines.FieldSpec{{Name: "name", Type: engines.Tag}}},
	} {
		if err := e.Create(ctx, s); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("Create with %s: %v; want ErrUnsupported", what, err)
		}
	}
	if err := e.Create(ctx, enginetest.Schema("bad name!")); err == nil {
		t.Error("Create accepted a collection name Amgix refuses")
	}
	if err := e.Create(ctx, enginetest.Schema("ok")); err != nil {
		t.Fatal(err)
	}
	for _, q := range []engines.Query{
		{Text: "a", K: amgixnow.MaxLimit + 1},
		{Text: "a", K: 10, Field: "title"},
		{Text: "a", K: 10, Vector: []float32{1}},
		{K: 10, Filters: []engines.Filter{{Field: "x", Tag: "y"}}},
		{Text: "a", K: 10, Filters: []engines.Filter{{Field: "x", Tag: "y"}}},
	} {
		if _, err := e.Search(ctx, q); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("Search(%+v): %v; want ErrUnsupported", q, err)
		}
	}
	if _, err := e.Search(ctx, engines.Query{Text: "a", K: 0}); err == nil {
		t.Error("Search with k=0 succeeded")
	}
	if err := e.Upsert(ctx, doc("a/b", "x")); err == nil {
		t.Error("Upsert accepted an ID Amgix refuses")
	}
	if h, err := e.Search(ctx, engines.Query{Text: "a", K: amgixnow.MaxLimit}); err != nil || h.Total != -1 {
		t.Errorf("Search with k=%d: %+v, %v", amgixnow.MaxLimit, h, err)
	}
}

// Create replaces an existing collection, so an old run's documents are gone.
func TestCreateReplaces(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "again")
	if err := e.Upsert(context.Background(), doc("1", "quokkazed")); err != nil {
		t.Fatal(err)
	}
	other := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "again")
	h, err := other.Search(context.Background(), engines.Query{Text: "quokkazed", K: 10})
	if err != nil || len(h.IDs) != 0 {
		t.Fatalf("after Create again: %v, %v; want no hits", h.IDs, err)
	}
}

// Each unexpected status fails in the class it does for every HTTP driver,
// for both drivers. Amgix reports a missing document only to a get (a
// delete of one is answered 200), so there is no Missing answer.
func TestStatusClasses(t *testing.T) {
	good := func(r *http.Request) (int, []byte) {
		switch {
		case r.URL.Path == "/v1/version":
			return 200, []byte(`{"version":"0.1.2 (Amgix-Now)"}`)
		case r.URL.Path == "/v1/collections":
			return 200, []byte(`[]`)
		case strings.HasSuffix(r.URL.Path, "/exists"):
			return 200, []byte(`{"exists":false}`)
		}
		return 200, []byte(`{"ok":true}`)
	}
	for _, name := range []string{amgixnow.Name, amgixnow.SyncName} {
		t.Run(name, func(t *testing.T) {
			enginetest.StatusClasses(t, enginetest.Answers{Driver: name, Good: good,
				GetMissing: &enginetest.Answer{Status: 404, Body: `{"detail":"Documents not found for document_ids: 1"}`}})
		})
	}
}

// Get: a missing document is NotFound (Amgix's own 404); any other 404 (a
// proxy's, a server without the route) and a missing collection (Qdrant's
// 500) are class Other.
func TestGetClasses(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	e := created(t, amgixnow.SyncName, engines.Config{URL: f.URL}, "get")
	g := e.(engines.Getter)
	ctx := context.Background()
	if err := e.Upsert(ctx, doc("1", "a")); err != nil {
		t.Fatal(err)
	}
	if d, err := g.Get(ctx, "1"); err != nil || d.ID != "1" || d.Text("name") != "a" || d.Text("content") != "body of 1" {
		t.Fatalf("Get(1) = %+v, %v", d, err)
	}
	if _, err := g.Get(ctx, "2"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("Get(missing): %v; want not_found", err)
	}
	if _, err := g.Get(ctx, "a/b"); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("Get(a/b): %v; want a refusal before any request", err)
	}
	f.Inject(amgixfake.Fault{Status: http.StatusNotFound, Times: 1})
	if _, err := g.Get(ctx, "1"); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("Get answered a 404 without Amgix's mark: %v, class %s; want other", err, engines.Classify(err))
	}
	req, _ := http.NewRequest(http.MethodDelete, f.URL+"/v1/collections/get", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := g.Get(ctx, "1"); err == nil || engines.Classify(err) != engines.Other {
		t.Fatalf("Get in a dropped collection: %v, class %s; want other", err, engines.Classify(err))
	}
}

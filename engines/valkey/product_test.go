package valkey_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/valkey"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

const dim = 8

func productSchema(name string) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "category", Type: engines.Tag},
		{Name: "price", Type: engines.Numeric},
		{Name: "sku", Type: engines.Text},
		{Name: "title", Type: engines.Text},
		{Name: "description", Type: engines.Text},
		{Name: "embedding", Type: engines.Vector, Dim: dim},
	}}
}

// axis is a unit vector along dimension i, so cosine neighbours are known.
func axis(i int, tilt float32) []float32 {
	v := make([]float32, dim)
	v[i%dim] = 1
	v[(i+1)%dim] = tilt
	return v
}

type product struct {
	id, category, sku, title string
	price                    float64
	vec                      []float32
}

func (p product) doc() engines.Document {
	return engines.Document{ID: p.id, Fields: []engines.Field{
		{Name: "category", Text: p.category},
		{Name: "price", Number: p.price},
		{Name: "sku", Text: p.sku},
		{Name: "title", Text: p.title},
		{Name: "description", Text: "A fine " + p.title + " for every day."},
		{Name: "embedding", Vector: p.vec},
	}}
}

var products = []product{
	{"500", "electronics", "IT-500", "Quiet laptop", 999.5, axis(0, 0)},
	{"501", "toys", "TO-500", "Wooden train", 25, axis(0, 0.1)},
	{"502", "electronics", "IT-501", "Loud speaker", 120, axis(1, 0)},
	{"503", "garden", "GA-503", "Quiet shovel", 9.99, axis(2, 0)},
	{"504", "electronics", "IT-504", "Tablet stand", 30, axis(0, 0.5)},
}

func loadProducts(t *testing.T, e engines.Engine) {
	t.Helper()
	ctx := context.Background()
	if err := e.Create(ctx, productSchema("products")); err != nil {
		t.Fatal(err)
	}
	docs := make([]engines.Document, len(products))
	for i, p := range products {
		docs[i] = p.doc()
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
}

func search(t *testing.T, e engines.Engine, q engines.Query) []string {
	t.Helper()
	h, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return h.IDs
}

func sorted(ids []string) []string {
	ids = slices.Clone(ids)
	sort.Strings(ids)
	return ids
}

// productQueries checks every kind of product query against what the five
// products must answer.
func productQueries(t *testing.T, tg target) {
	e := tg.open(t, nil)
	loadProducts(t, e)

	cases := []struct {
		name string
		q    engines.Query
		want []string
		// ordered: the answer's order is part of the contract (KNN)
		ordered bool
	}{
		{"tag filter", engines.Query{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "electronics"}}}, []string{"500", "502", "504"}, false},
		{"numeric filter", engines.Query{K: 10, Filters: []engines.Filter{{Field: "price", Min: 20, Max: 130}}}, []string{"501", "502", "504"}, false},
		{"tag and numeric", engines.Query{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "electronics"}, {Field: "price", Min: 0, Max: 500}}}, []string{"502", "504"}, false},
		{"open range", engines.Query{K: 10, Filters: []engines.Filter{{Field: "price", Min: 500, Max: math.Inf(1)}}}, []string{"500"}, false},
		{"text OR", engines.Query{K: 10, Text: "quiet train"}, []string{"500", "501", "503"}, false},
		{"text with filter", engines.Query{K: 10, Text: "quiet", Filters: []engines.Filter{{Field: "category", Tag: "garden"}}}, []string{"503"}, false},
		{"knn", engines.Query{K: 3, Vector: axis(0, 0)}, []string{"500", "501", "504"}, true},
		{"knn filtered", engines.Query{K: 2, Vector: axis(0, 0), Filters: []engines.Filter{{Field: "category", Tag: "electronics"}}}, []string{"500", "504"}, true},
		{"tag lookup", engines.Query{K: 10, Field: "category", Text: "garden"}, []string{"503"}, false},
		// The default index drops "it" (a stop word) from every SKU, so the
		// exact phrase "it 500" cannot be found there: Study B's trap.
		{"sku on default index", engines.Query{K: 10, Field: "sku", Text: "IT-500"}, nil, false},
		{"sku without stop word", engines.Query{K: 10, Field: "sku", Text: "GA-503"}, []string{"503"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search(t, e, c.q)
			if !c.ordered {
				got = sorted(got)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// hybridPair checks Study B's pair: which fields each index holds, and the
// SKU lookup that only the exact index (NOSTOPWORDS) answers.
func hybridPair(t *testing.T, tg target) {
	e := tg.open(t, map[string]string{"hybrid": "on"})
	loadProducts(t, e)
	c := tg.raw(t)
	if got := ftAttributes(t, c, "products"); !slices.Equal(got, []string{"category", "embedding", "price"}) {
		t.Fatalf("semantic index holds %v", got)
	}
	if got := ftAttributes(t, c, "products-exact"); !slices.Equal(got, []string{"description", "sku", "title"}) {
		t.Fatalf("exact index holds %v", got)
	}
	names, err := do(t, c, "FT._LIST").AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"products", "products-exact"}; !slices.Equal(sorted(names), want) {
		t.Fatalf("FT._LIST = %v, want %v", names, want)
	}
	// The exact index keeps stop words: SKU IT-500 is found, and only it.
	if got := search(t, e, engines.Query{K: 10, Field: "sku", Text: "IT-500"}); !slices.Equal(got, []string{"500"}) {
		t.Fatalf("SKU lookup on the exact index: %v, want [500]", got)
	}
	if got := search(t, e, engines.Query{K: 2, Vector: axis(1, 0)}); got[0] != "502" {
		t.Fatalf("KNN on the semantic index: %v, want 502 first", got)
	}
	if got := sorted(search(t, e, engines.Query{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}})); !slices.Equal(got, []string{"501"}) {
		t.Fatalf("filter on the semantic index: %v", got)
	}
	// Neither index has both a text field and the category tag.
	_, err = e.Search(context.Background(), engines.Query{K: 10, Text: "quiet", Filters: []engines.Filter{{Field: "category", Tag: "garden"}}})
	if !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("text+tag on the hybrid pair: %v, want ErrUnsupported", err)
	}
	// Both indexes hold every product.
	for _, name := range []string{"products", "products-exact"} {
		if n := ftInfoInt(t, c, name, "num_docs"); n != int64(len(products)) {
			t.Fatalf("%s num_docs = %d, want %d", name, n, len(products))
		}
	}
	// With fields that leave the exact side empty the pair cannot be made.
	e2 := tg.open(t, map[string]string{"hybrid": "on", "fields": "tag,numeric"})
	if err := e2.Create(context.Background(), productSchema("products")); err == nil || !strings.Contains(err.Error(), "hybrid") {
		t.Fatalf("hybrid without text fields: %v", err)
	}
}

func ftInfoInt(t *testing.T, cl rawT, index, field string) int64 {
	t.Helper()
	kv, err := do(t, cl, "FT.INFO", index).ToArray()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, _ := kv[i].ToString(); k == field {
			if n, err := kv[i+1].AsInt64(); err == nil {
				return n
			}
			s, _ := kv[i+1].ToString()
			var n int64
			fmt.Sscan(s, &n)
			return n
		}
	}
	t.Fatalf("FT.INFO %s has no %s", index, field)
	return 0
}

// tieredAllWordsFirst: the default text query puts the documents with
// every word before those with some, and the plain OR finds the same.
func tieredAllWordsFirst(t *testing.T, tg target) {
	e := tg.open(t, nil)
	ctx := context.Background()
	if err := e.Create(ctx, engines.Schema{Name: "t", Fields: []engines.FieldSpec{{Name: "name", Type: engines.Text}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		text := "alpha filler"
		if i == 17 {
			text = "alpha beta gamma"
		}
		if err := e.Upsert(ctx, engines.Document{ID: fmt.Sprint(i), Fields: []engines.Field{{Name: "name", Text: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := e.Search(ctx, engines.Query{Text: "Alpha, beta gamma!", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.IDs) != 3 || h.IDs[0] != "17" || h.Total != 30 {
		t.Fatalf("got %v (total %d); want 17 first of 3, total 30", h.IDs, h.Total)
	}
	// Plain OR: the same matches, one search, no order promised.
	eo := tg.open(t, map[string]string{"text_query": "or"})
	if err := eo.Create(ctx, engines.Schema{Name: "t", Fields: []engines.FieldSpec{{Name: "name", Type: engines.Text}}}); err != nil {
		t.Fatal(err)
	}
	if h, err := eo.Search(ctx, engines.Query{Text: "alpha", K: 3}); err != nil || h.Total != 0 {
		t.Fatalf("after re-Create the old documents must be gone: %v %v", h, err)
	}
	// A query of stop words and punctuation matches nothing (and sends nothing).
	if h, err := e.Search(ctx, engines.Query{Text: "the, and of!", K: 3}); err != nil || len(h.IDs) != 0 {
		t.Fatalf("stop-word query: %v %v", h, err)
	}
}

// presets: Study B's matching and idle indexes. The fake is run with its
// index work slowed (contracts: IndexDelay) so that its queues can be
// watched filling; the module's pass too fast on five-product hashes to be
// caught, so there only what must hold at every sample is asserted.
func presets(t *testing.T, tg target) {
	e := tg.open(t, map[string]string{"matching_indexes": "3", "idle_indexes": "2"})
	loadProducts(t, e)
	c := tg.raw(t)
	names, err := do(t, c, "FT._LIST").AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"products", "products-2", "products-3", "products-idle-1", "products-idle-2"}
	if !slices.Equal(sorted(names), want) {
		t.Fatalf("FT._LIST = %v, want %v", names, want)
	}
	if got := e.(*valkey.Engine).IndexNames(); !slices.Equal(got, want) {
		t.Fatalf("IndexNames = %v", got)
	}
	// Under three matching indexes a returned write may not be in all
	// of them (the driver's writes are acknowledged there): the figures
	// are read once every index has applied what was written.
	refresh := func() {
		if err := e.(engines.Refresher).Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	refresh()
	st := e.(engines.StatsReporter)
	before, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Concurrent writes through a slow two-thread writer pool: the queues
	// of the matching indexes fill, the idle ones' never do.
	const writes = 60
	var wg sync.WaitGroup
	for i := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := products[i%len(products)]
			p.id = fmt.Sprint(1000 + i)
			if err := e.Upsert(context.Background(), p.doc()); err != nil {
				t.Error(err)
			}
		}()
	}
	var sawQueue, sawWriterQueue bool
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
		}
		m, err := st.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if m["mutation_queue_size_idle"] != 0 {
			t.Fatalf("idle indexes queued mutations: %v", m)
		}
		sawQueue = sawQueue || m["mutation_queue_size"] > 0 && m["mutation_queue_size_max"] <= m["mutation_queue_size"]
		sawWriterQueue = sawWriterQueue || m["queue_depth"] > 0
		time.Sleep(time.Millisecond)
	}
	if tg.fake == nil {
		t.Logf("module: during %d concurrent writes the mutation queues were seen non-empty: %v, the writer queue: %v", writes, sawQueue, sawWriterQueue)
	} else if !sawQueue || !sawWriterQueue {
		t.Fatalf("queues never moved during %d concurrent writes (mutation queue %v, writer queue %v)", writes, sawQueue, sawWriterQueue)
	}
	refresh()
	after, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Every write is one indexing job per matching index.
	if got := after["ingest_hash_keys"] - before["ingest_hash_keys"]; got != 3*writes {
		t.Fatalf("ingest_hash_keys grew by %v, want %d (writes × matching indexes)", got, 3*writes)
	}
	if got := after["ingest_field_vector"] - before["ingest_field_vector"]; got != 3*writes {
		t.Fatalf("ingest_field_vector grew by %v, want %d", got, 3*writes)
	}
	if after["mutation_queue_size"] != 0 || after["queue_depth"] != 0 {
		t.Fatalf("queues not drained after Refresh: %v", after)
	}
	for _, idle := range []string{"products-idle-1", "products-idle-2"} {
		if n := ftInfoInt(t, c, idle, "num_docs"); n != 0 {
			t.Fatalf("%s indexed %d documents; its prefix is never written", idle, n)
		}
	}
	if n, err := e.(engines.Counter).Count(context.Background()); err != nil || n != int64(len(products)+writes) {
		t.Fatalf("Count = %d, %v", n, err)
	}

	// A second Create with fewer indexes removes what the first left.
	e2 := tg.open(t, map[string]string{"fields": "text,tag,numeric"})
	if err := e2.Create(context.Background(), productSchema("products")); err != nil {
		t.Fatal(err)
	}
	if names, _ := do(t, c, "FT._LIST").AsStrSlice(); !slices.Equal(names, []string{"products"}) {
		t.Fatalf("after re-Create FT._LIST = %v", names)
	}
	if _, err := e2.Search(context.Background(), engines.Query{K: 1, Vector: axis(0, 0)}); !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("vector search without the vector field indexed: %v", err)
	}
}

func noIndexPreset(t *testing.T, tg target) {
	e := tg.open(t, map[string]string{"matching_indexes": "0"})
	loadProducts(t, e)
	c := tg.raw(t)
	if names, err := do(t, c, "FT._LIST").AsStrSlice(); err != nil || len(names) != 0 {
		t.Fatalf("FT._LIST = %v, %v; want none", names, err)
	}
	if _, err := e.Search(context.Background(), engines.Query{K: 1, Text: "quiet"}); !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("Search without an index: %v", err)
	}
	if n, err := e.(engines.Counter).Count(context.Background()); err != nil || n != int64(len(products)) {
		t.Fatalf("Count by SCAN = %d, %v", n, err)
	}
}

func TestOptionsRejected(t *testing.T) {
	s := startFake(t, valkeyfake.Options{})
	for _, opts := range []map[string]string{
		{"matching": "2"},
		{"matching_indexes": "-1"},
		{"vector": "off"},
		{"fields": ""},
		{"fields": "tag,tag"},
		{"fields": "tag,blob"},
		{"fields": "TAG"},
		{"hybrid": "on", "matching_indexes": "2"},
		{"text_query": "and"},
		{"writer_threads": "0"},
	} {
		_, err := engines.Open(context.Background(), "valkey", engines.Config{URL: s.URL(), Options: opts})
		if err == nil {
			t.Errorf("options %v accepted", opts)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("options %v: error is not one line: %q", opts, err)
		}
	}
	if _, err := engines.Open(context.Background(), "valkey", engines.Config{URL: s.URL(), WriteMode: engines.Acknowledged}); err == nil {
		t.Error("write mode acknowledged accepted")
	}
}

// threadsReachServer: given thread counts reach the server, and Open
// unlocks the developer INFO fields.
func threadsReachServer(t *testing.T, tg target) {
	tg.open(t, map[string]string{"writer_threads": "3", "reader_threads": "4"})
	c := tg.raw(t)
	for name, want := range map[string]string{"search.writer-threads": "3", "search.reader-threads": "4", "search.info-developer-visible": "yes"} {
		kv, err := do(t, c, "CONFIG", "GET", name).AsStrMap()
		if err != nil || kv[name] != want {
			t.Errorf("CONFIG GET %s = %v, %v; want %s", name, kv, err, want)
		}
	}
}

type rawT = vk.Client

// knobContract: the knob is the KNN clause's EF_RUNTIME, from 1 to the
// module's max-vector-ef-runtime; the fake reads each value as sent.
func knobContract(t *testing.T, tg target) {
	e := tg.open(t, nil)
	loadProducts(t, e)
	var seen func() int
	if tg.fake != nil {
		seen = tg.fake.LastEFRuntime
	}
	enginetest.Knob(t, "valkey", e, engines.Query{Vector: axis(0, 0.2), K: 3}, seen)
}

package valkey_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// ftAttributes lists the hash fields an index holds, from FT.INFO.
func ftAttributes(t *testing.T, c rawT, index string) []string {
	t.Helper()
	kv, err := do(t, c, "FT.INFO", index).ToArray()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i+1 < len(kv); i += 2 {
		if k, _ := kv[i].ToString(); k != "attributes" {
			continue
		}
		attrs, _ := kv[i+1].ToArray()
		for _, a := range attrs {
			fields, _ := a.ToArray()
			for j := 0; j+1 < len(fields); j += 2 {
				if k, _ := fields[j].ToString(); k == "identifier" {
					id, _ := fields[j+1].ToString()
					out = append(out, id)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Study B's indexes of experiments 1 and 2 hold the TAG and NUMERIC fields
// only: the writes carry the whole 6-field hash, the indexes ingest two
// fields each, and the counters say so — one indexing job per matching
// index per write, none for the idle indexes.
func fieldsOption(t *testing.T, tg target) {
	e := tg.open(t, map[string]string{"fields": "tag,numeric", "matching_indexes": "2", "idle_indexes": "3"})
	loadProducts(t, e)
	c := tg.raw(t)
	for _, ix := range []string{"products", "products-2", "products-idle-1", "products-idle-3"} {
		if got := ftAttributes(t, c, ix); !slices.Equal(got, []string{"category", "price"}) {
			t.Fatalf("%s holds %v, want [category price]", ix, got)
		}
	}
	ctx := context.Background()
	st := e.(engines.StatsReporter)
	before, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const writes = 20
	for i := range writes {
		p := products[i%len(products)]
		p.id = fmt.Sprint(2000 + i)
		if err := e.Upsert(ctx, p.doc()); err != nil {
			t.Fatal(err)
		}
	}
	after, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for stat, want := range map[string]float64{
		"ingest_hash_keys": 2 * writes, "ingest_field_tag": 2 * writes, "ingest_field_numeric": 2 * writes,
		"ingest_field_vector": 0, "ingest_field_text": 0,
	} {
		if got := after[stat] - before[stat]; got != want {
			t.Errorf("%s grew by %v over %d writes, want %v", stat, got, writes, want)
		}
	}
	if after["mutation_queue_size_idle"] != 0 || after["ingest_hash_blocked"] != 0 {
		t.Errorf("after the writes returned: %v", after)
	}
	// The hash still carries every field.
	if h, _ := do(t, c, "HGETALL", "products:2000").AsStrMap(); len(h) != 6 {
		t.Fatalf("written hash has %d fields, want 6", len(h))
	}
	// Queries need what the index holds.
	if got := sorted(search(t, e, engines.Query{K: 10, Filters: []engines.Filter{{Field: "category", Tag: "garden"}}})); !slices.Contains(got, "503") {
		t.Fatalf("tag filter: %v", got)
	}
	for _, q := range []engines.Query{{K: 3, Vector: axis(0, 0)}, {K: 3, Field: "sku", Text: "GA-503"}, {K: 3, Text: "quiet"}} {
		if _, err := e.Search(ctx, q); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%+v on a TAG+NUMERIC index: %v, want ErrUnsupported", q, err)
		}
	}
}

// CheckConfig refuses bad options before anything connects; what it
// accepts, Open accepts.
func TestCheckConfig(t *testing.T) {
	good := []map[string]string{
		nil,
		{"fields": "tag,numeric", "matching_indexes": "4"},
		{"fields": "tag, numeric, vector", "idle_indexes": "50"},
		{"hybrid": "on", "reader_threads": "8", "writer_threads": "8"},
		{"matching_indexes": "0"},
		{"hybrid": "true"}, {"hybrid": "off"}, // every driver's switch spellings
	}
	for _, opts := range good {
		if err := engines.CheckConfig("valkey", engines.Config{Options: opts}); err != nil {
			t.Errorf("%v: %v", opts, err)
		}
	}
	for _, cfg := range []engines.Config{
		{Options: map[string]string{"fields": "tags"}},
		{Options: map[string]string{"matching_indexes": "x"}},
		{Options: map[string]string{"hybrid": "on", "matching_indexes": "2"}},
		{Options: map[string]string{"nosuch": "1"}},
		{Options: map[string]string{"hybrid": "maybe"}},
		{Options: map[string]string{"prefix": ""}},
		{WriteMode: engines.Acknowledged},
		// Several indexes on the written prefix have the one write mode
		// acknowledged (settings.writeMode).
		{Options: map[string]string{"matching_indexes": "2"}, WriteMode: engines.Searchable},
		{Options: map[string]string{"hybrid": "on"}, WriteMode: engines.Searchable},
		// A port out of range parses, and failed only when dialled.
		{URL: "redis://127.0.0.1:99999"},
		{URL: "redis://127.0.0.1:0"},
	} {
		err := engines.CheckConfig("valkey", cfg)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want a one-line error", cfg, err)
		}
	}
	// What a result records for each layout (engines.WriteMode).
	for _, c := range []struct {
		cfg  engines.Config
		want engines.Visibility
	}{
		{engines.Config{}, engines.Searchable},
		{engines.Config{Options: map[string]string{"idle_indexes": "3"}}, engines.Searchable},
		{engines.Config{Options: map[string]string{"matching_indexes": "2"}}, engines.Acknowledged},
		{engines.Config{Options: map[string]string{"hybrid": "on"}}, engines.Acknowledged},
		{engines.Config{Options: map[string]string{"hybrid": "on"}, WriteMode: engines.Acknowledged}, engines.Acknowledged},
	} {
		if err := engines.CheckConfig("valkey", c.cfg); err != nil {
			t.Errorf("%+v: %v", c.cfg, err)
		}
		if got := engines.WriteMode("valkey", c.cfg); got != c.want {
			t.Errorf("%+v: write mode %s, want %s", c.cfg, got, c.want)
		}
	}
}

// Stats carry the pools the server really runs, whichever way they were
// set (the writer pool by CONFIG SET before Open, the reader pool by the
// option); Version finds the search module (among the bundle's four on the
// fake) and states the two limits at their defaults.
func statsReportThreads(t *testing.T, tg target) {
	if err := do(t, tg.raw(t), "CONFIG", "SET", "search.writer-threads", "3").Error(); err != nil {
		t.Fatal(err)
	}
	e := tg.open(t, map[string]string{"reader_threads": "5"})
	loadProducts(t, e)
	want := regexp.MustCompile(`^Valkey 9\.1\.\d+, valkey-search 1\.2\.\d+ \(max-nonvector-search-results-fetched 100000, max-indexes 1000\)$`)
	if tg.fake != nil {
		want = regexp.MustCompile("^" + regexp.QuoteMeta("Valkey "+valkeyfake.ValkeyVersion+", valkey-search "+valkeyfake.SearchVersion+" (max-nonvector-search-results-fetched 100000, max-indexes 1000)") + "$")
	}
	if v, err := e.(engines.Versioner).Version(context.Background()); err != nil || !want.MatchString(v) {
		t.Fatalf("Version = %q, %v; want %v", v, err, want)
	}
	st, err := e.(engines.StatsReporter).Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st["reader_threads"] != 5 || st["writer_threads"] != 3 {
		t.Fatalf("threads %v/%v, want reader 5, writer 3", st["reader_threads"], st["writer_threads"])
	}
}

// CheckQuery and Search agree on every query shape under each index layout
// the options make: what the layout's indexes cannot answer is
// ErrUnsupported from both, without the driver's name from CheckQuery; what
// they can, both accept (the server answers them without error).
func checkQueryAgreesWithSearch(t *testing.T, tg target) {
	tag := []engines.Filter{{Field: "category", Tag: "electronics"}}
	price := []engines.Filter{{Field: "price", Min: 10, Max: 200}}
	shapes := []engines.Query{
		{K: 3, Text: "quiet laptop"},
		{K: 3, Text: "quiet", Filters: tag},
		{K: 3, Field: "sku", Text: "IT-500"},
		{K: 3, Field: "category", Text: "toys"},
		{K: 3, Vector: axis(0, 0)},
		{K: 3, Vector: axis(0, 0), Filters: tag},
		{K: 3, Vector: axis(0, 0), Filters: price},
		{K: 3, Text: "quiet", Vector: axis(0, 0)},
		{K: 3, Filters: price},
		{K: 3, Vector: axis(0, 0), Filters: []engines.Filter{{Field: "title", Tag: "x"}}},
		{K: 3, Field: "price", Text: "9"},
		{K: 3, Field: "nope", Text: "x"},
	}
	for _, c := range []struct {
		opts map[string]string
		// refused lists the shapes (indexes into shapes) the layout cannot answer.
		refused []int
	}{
		{nil, []int{9, 10, 11}},
		{map[string]string{"fields": "tag,numeric"}, []int{0, 1, 2, 4, 5, 6, 7, 9, 10, 11}},
		{map[string]string{"fields": "text,tag,numeric"}, []int{4, 5, 6, 7, 9, 10, 11}},
		// The pair: text on the exact index, tag/numeric/vector on the
		// semantic one, so nothing that needs both.
		{map[string]string{"hybrid": "on"}, []int{1, 7, 9, 10, 11}},
		{map[string]string{"matching_indexes": "0"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	} {
		tg = tg.again(t)
		cfg := engines.Config{URL: tg.url, Password: engines.Secret(tg.password), Options: c.opts}
		e := open(t, cfg)
		loadProducts(t, e)
		for i, q := range shapes {
			checked := engines.CheckQuery("valkey", cfg, productSchema("products"), q)
			_, searched := e.Search(context.Background(), q)
			want := slices.Contains(c.refused, i)
			for name, err := range map[string]error{"CheckQuery": checked, "Search": searched} {
				if want && !errors.Is(err, engines.ErrUnsupported) || !want && err != nil {
					t.Errorf("%v: %s %+v: %s = %v; want refused: %v", c.opts, q.Shape(), q.Filters, name, err, want)
				}
			}
			if checked != nil && strings.Contains(checked.Error(), "valkey") {
				t.Errorf("%v: CheckQuery's reason names the driver: %v", c.opts, checked)
			}
		}
	}
}

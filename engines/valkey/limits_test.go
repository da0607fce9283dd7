package valkey_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/valkey"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// More indexes than search.max-indexes allows is bad input: against the
// module's default (1,000) before anything connects, and against an
// attached server's own value.
func TestMaxIndexesIsBadInput(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		ok   bool
	}{
		{map[string]string{"matching_indexes": "500", "idle_indexes": "500"}, true},
		{map[string]string{"matching_indexes": "600", "idle_indexes": "600"}, false},
		{map[string]string{"hybrid": "on", "idle_indexes": "998"}, true},
		{map[string]string{"hybrid": "on", "idle_indexes": "999"}, false}, // the pair makes 1,001
	} {
		err := engines.CheckConfig("valkey", engines.Config{Options: c.opts})
		if c.ok != (err == nil) || err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "search.max-indexes allows (1000")) {
			t.Errorf("%v: %v; want ok=%v or a one-line error naming search.max-indexes", c.opts, err, c.ok)
		}
	}
}

// maxIndexesAttached: attached, the server's own search.max-indexes is the
// bound.
func maxIndexesAttached(t *testing.T, tg target) {
	if err := do(t, tg.raw(t), "CONFIG", "SET", "search.max-indexes", "10").Error(); err != nil {
		t.Fatal(err)
	}
	attached := func(matching, idle int) error {
		return engines.CheckConfig("valkey", engines.Config{URL: tg.url, Password: engines.Secret(tg.password), Options: map[string]string{
			"matching_indexes": fmt.Sprint(matching), "idle_indexes": fmt.Sprint(idle)}})
	}
	if err := attached(4, 6); err != nil {
		t.Errorf("10 indexes on a server that allows 10: %v", err)
	}
	if err := attached(4, 7); err == nil || !strings.Contains(err.Error(), "more than search.max-indexes allows (10, the value of the server at redis://") {
		t.Errorf("11 indexes on a server that allows 10: %v; want bad input naming the server's value", err)
	}
	// A server that cannot be reached is Open's to report, not CheckConfig's.
	if err := engines.CheckConfig("valkey", engines.Config{URL: "redis://127.0.0.1:1"}); err != nil {
		t.Errorf("unreachable server: %v", err)
	}
}

// Other indexes on the server count toward search.max-indexes: Create
// refuses before making any index rather than fail halfway.
func createCountsOtherIndexes(t *testing.T, tg target) {
	raw := tg.raw(t)
	do(t, raw, "CONFIG", "SET", "search.max-indexes", "5")
	for i := range 3 {
		if err := do(t, raw, "FT.CREATE", fmt.Sprintf("other-%d", i), "PREFIX", "1", "o:", "SCHEMA", "t", "TAG").Error(); err != nil {
			t.Fatal(err)
		}
	}
	e := tg.open(t, map[string]string{"matching_indexes": "3"})
	err := e.Create(context.Background(), enginetest.Schema("limits"))
	if err == nil || !strings.Contains(err.Error(), "make 6 indexes, more than search.max-indexes allows (5, the server's value, 3 of them held by other indexes)") {
		t.Fatalf("Create: %v; want a refusal that counts the other indexes", err)
	}
	if names, _ := do(t, raw, "FT._LIST").AsStrSlice(); len(names) != 3 {
		t.Fatalf("indexes after the refusal: %v; want the 3 others only", names)
	}
}

// A text search collects every match up to
// max-nonvector-search-results-fetched and reports that count as its
// total: the driver records the setting in its version and counts the
// totals that reached it; a total below the cap is not counted.
func saturatedTotals(t *testing.T, tg target) {
	if err := do(t, tg.raw(t), "CONFIG", "SET", "search.max-nonvector-search-results-fetched", "5").Error(); err != nil {
		t.Fatal(err)
	}
	e := tg.open(t, nil)
	ctx := context.Background()
	if err := e.Create(ctx, enginetest.Schema("sat")); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		word := "common"
		if i < 2 {
			word = "rare"
		}
		if err := e.Upsert(ctx, engines.Document{ID: fmt.Sprint(i), Fields: []engines.Field{{Name: "name", Text: word}, {Name: "content", Text: "filler"}}}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := e.(engines.Versioner).Version(ctx)
	if err != nil || !strings.Contains(v, "max-nonvector-search-results-fetched 5") {
		t.Fatalf("Version = %q, %v; want the cap recorded", v, err)
	}
	saturated := func() float64 {
		st, err := e.(engines.StatsReporter).Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st[valkey.MaxResultsStat] != 5 {
			t.Fatalf("%s = %v; want 5", valkey.MaxResultsStat, st[valkey.MaxResultsStat])
		}
		return st[valkey.SaturatedStat]
	}
	h, err := e.Search(ctx, engines.Query{Text: "common", K: 3})
	if err != nil || h.Total != 5 || len(h.IDs) != 3 {
		t.Fatalf("search of 10 matches under a cap of 5: %v total %d, %v; want 3 hits of a total 5", h.IDs, h.Total, err)
	}
	if n := saturated(); n != 1 {
		t.Fatalf("%s = %v after one capped search; want 1", valkey.SaturatedStat, n)
	}
	if h, err := e.Search(ctx, engines.Query{Text: "rare", K: 3}); err != nil || h.Total != 2 {
		t.Fatalf("search of 2 matches: total %d, %v", h.Total, err)
	}
	if n := saturated(); n != 1 {
		t.Fatalf("%s = %v after an uncapped search; want still 1", valkey.SaturatedStat, n)
	}
}

// TAG fields are created case-sensitive with the separator stated, so a
// tag matches as a keyword does on the other engines.
func tagFieldsExplicit(t *testing.T, tg target) {
	e := tg.open(t, nil)
	ctx := context.Background()
	schema := engines.Schema{Name: "tags", Fields: []engines.FieldSpec{{Name: "title", Type: engines.Text}, {Name: "category", Type: engines.Tag}}}
	if err := e.Create(ctx, schema); err != nil {
		t.Fatal(err)
	}
	info, err := do(t, tg.raw(t), "FT.INFO", "tags").ToAny()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(info); !strings.Contains(got, "SEPARATOR , CASESENSITIVE 1") {
		t.Fatalf("FT.INFO tags: %s; want the TAG field with SEPARATOR , CASESENSITIVE 1", got)
	}
	if err := e.Upsert(ctx, engines.Document{ID: "1", Fields: []engines.Field{{Name: "title", Text: "lamp"}, {Name: "category", Text: "office"}}}); err != nil {
		t.Fatal(err)
	}
	for tag, want := range map[string]int{"office": 1, "Office": 0} {
		h, err := e.Search(ctx, engines.Query{Text: "lamp", K: 10, Filters: []engines.Filter{{Field: "category", Tag: tag}}})
		if err != nil || len(h.IDs) != want {
			t.Errorf("filter category=%q: %v, %v; want %d hits", tag, h.IDs, err, want)
		}
	}
}

// A search reply the driver cannot read — of the wrong shape, not RESP,
// cut off — is an error of class other, quoting what came where the
// reader could see it, never a success with no hits.
func TestUnreadableSearchReply(t *testing.T) {
	s := startFake(t, valkeyfake.Options{})
	e := open(t, engines.Config{URL: s.URL()})
	ctx := context.Background()
	if err := e.Create(ctx, enginetest.Schema("bad")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, raw, quoted string
		close             bool
	}{
		{"a status reply", "+OK\r\n", "OK", false},
		{"a string", "$5\r\nhello\r\n", "hello", false},
		{"a list without a total", "*2\r\n$5\r\nbad:1\r\n$5\r\nbad:2\r\n", "bad:1", false},
		{"not RESP", "HTTP/1.1 200 OK\r\n\r\n", "", true},
		{"cut off", "*3\r\n:2\r\n$5\r\nbad:1\r\n", "", true},
	} {
		s.Inject(valkeyfake.Fault{Command: "FT.SEARCH", Raw: c.raw, Drop: c.close, Times: 2})
		h, err := e.Search(ctx, engines.Query{Text: "word", K: 10})
		switch {
		case err == nil:
			t.Errorf("%s: success with %d hits, total %d; want an error", c.what, len(h.IDs), h.Total)
		case engines.Classify(err) != engines.Other:
			t.Errorf("%s: %v, class %s; want other", c.what, err, engines.Classify(err))
		case !strings.Contains(err.Error(), c.quoted):
			t.Errorf("%s: %q does not quote %q", c.what, err, c.quoted)
		default:
			t.Logf("%s: %v", c.what, err)
		}
		// Whatever of the fault is left (the tiered search sends two
		// commands, one reply may have gone) is used up before the next.
		for range 2 {
			_, _ = e.Search(ctx, engines.Query{Text: "word", K: 10})
		}
	}
}

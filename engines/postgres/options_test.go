package postgres_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/postgres"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// productSchema is Study B's product table, as the runner makes it.
func productSchema() engines.Schema {
	return engines.Schema{Name: "product", Fields: []engines.FieldSpec{
		{Name: product.FieldCategory, Type: engines.Tag},
		{Name: product.FieldPrice, Type: engines.Numeric},
		{Name: product.FieldSKU, Type: engines.Text},
		{Name: product.FieldTitle, Type: engines.Text},
		{Name: product.FieldDescription, Type: engines.Text},
		{Name: product.FieldEmbedding, Type: engines.Vector, Dim: 4},
	}}
}

// CheckConfig refuses bad options with one line; what it accepts, a
// schema check of the product table accepts too.
func TestCheckConfigOptions(t *testing.T) {
	for _, opts := range []map[string]string{
		nil,
		{"fields": "tag,numeric"},
		{"fields": "tag, numeric, vector", "exact": "none"},
		{"fields": "text,tag,numeric,vector", "exact": "sku,title"},
		{"exact": "sku", "pool": "10"},
	} {
		cfg := engines.Config{Options: opts}
		if err := engines.CheckConfig("postgres", cfg); err != nil {
			t.Errorf("%v: %v", opts, err)
		}
		if err := engines.CheckSchema("postgres", cfg, productSchema()); err != nil {
			t.Errorf("%v: schema: %v", opts, err)
		}
	}
	for _, opts := range []map[string]string{
		{"fields": "tags"},
		{"fields": "tag,tag"},
		{"fields": ""},
		{"exact": ""},
		{"exact": "sku,,title"},
		{"exact": "sku,sku"},
		{"pool": "0"},
		{"nosuch": "1"},
	} {
		err := engines.CheckConfig("postgres", engines.Config{Options: opts})
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want a one-line error", opts, err)
		}
	}
	// The exact option's fields are the schema's text fields.
	for _, exact := range []string{"price", "category", "embedding", "nosuch"} {
		err := engines.CheckSchema("postgres", engines.Config{Options: map[string]string{"exact": exact}}, productSchema())
		if err == nil || !strings.Contains(err.Error(), exact) || strings.Contains(err.Error(), "\n") {
			t.Errorf("exact=%s: %v; want a one-line error naming it", exact, err)
		}
	}
}

// The text corpus's table is made as it always was: the options' defaults
// add no index to a text-only schema.
func TestTextCorpusDDLUnchanged(t *testing.T) {
	ddl, err := postgres.DDL(engines.Config{}, text.Text{}.Schema())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`DROP TABLE IF EXISTS "searchbench"`,
		`CREATE TABLE "searchbench" (id text PRIMARY KEY, "name" text NOT NULL, "content" text NOT NULL, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', "name") || to_tsvector('english', "content")) STORED)`,
		`CREATE INDEX ON "searchbench" USING GIN (tsv)`,
	}
	if !slices.Equal(ddl, want) {
		t.Fatalf("DDL:\n%s\nwant:\n%s", strings.Join(ddl, "\n"), strings.Join(want, "\n"))
	}
}

// The options decide which indexes the product table gets; every field
// keeps its column.
func TestProductDDLFollowsOptions(t *testing.T) {
	count := func(ddl []string, sub string) int {
		n := 0
		for _, s := range ddl {
			n += strings.Count(s, sub)
		}
		return n
	}
	for _, c := range []struct {
		opts                               map[string]string
		tsv, btree, hnsw, exact, extension int
	}{
		{nil, 1, 2, 1, 3, 1},
		{map[string]string{"exact": "none"}, 1, 2, 1, 0, 1},
		{map[string]string{"exact": "sku,title"}, 1, 2, 1, 2, 1},
		{map[string]string{"fields": "tag,numeric"}, 0, 2, 0, 0, 1},
		{map[string]string{"fields": "tag,numeric,vector"}, 0, 2, 1, 0, 1},
		{map[string]string{"fields": "tag,numeric,vector", "exact": "sku,title"}, 0, 2, 1, 2, 1},
		{map[string]string{"fields": "vector"}, 0, 0, 1, 0, 1},
	} {
		ddl, err := postgres.DDL(engines.Config{Options: c.opts}, productSchema())
		if err != nil {
			t.Fatal(err)
		}
		got := []int{count(ddl, "USING GIN (tsv)"), count(ddl, `CREATE INDEX ON "product" ("`), count(ddl, "USING hnsw"),
			count(ddl, "_exact\" ON \"product\" USING GIN (to_tsvector('simple'"), count(ddl, "CREATE EXTENSION")}
		if want := []int{c.tsv, c.btree, c.hnsw, c.exact, c.extension}; !slices.Equal(got, want) {
			t.Errorf("%v: tsv GIN, btree, HNSW, exact GIN, extension = %v, want %v:\n%s", c.opts, got, want, strings.Join(ddl, "\n"))
		}
		if !strings.Contains(strings.Join(ddl, "\n"), `"embedding" vector(4)`) {
			t.Errorf("%v: no embedding column:\n%s", c.opts, strings.Join(ddl, "\n"))
		}
	}
}

// The SKU lookup is the exact-lookup index's expression against the
// lookup's words as a phrase of the simple configuration.
func TestLookupSQL(t *testing.T) {
	sql, args, err := postgres.SearchSQL(engines.Config{}, productSchema(), engines.Query{Text: "IT-500", Field: product.FieldSKU, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := `SELECT id FROM "product" WHERE to_tsvector('simple', regexp_replace("sku", '[^[:alnum:]]+', ' ', 'g')) @@ phraseto_tsquery('simple', $1) ORDER BY id LIMIT $2`
	if sql != want || !slices.Equal(args, []any{"IT 500", 10}) {
		t.Fatalf("SQL %s %v\nwant %s [IT 500 10]", sql, args, want)
	}
	ddl, _ := postgres.DDL(engines.Config{}, productSchema())
	if !slices.Contains(ddl, `CREATE INDEX "product_sku_exact" ON "product" USING GIN (to_tsvector('simple', regexp_replace("sku", '[^[:alnum:]]+', ' ', 'g')))`) {
		t.Fatalf("no exact index on sku with the lookup's expression:\n%s", strings.Join(ddl, "\n"))
	}
}

// CheckQuery and Search agree on every query shape under each set of
// options: what the table's indexes cannot answer is ErrUnsupported from
// both — from Search before it connects (the engine's pool has not) —
// without the driver's name from CheckQuery; what they can answer
// CheckQuery accepts, and Search gets past its checks to the connection.
func TestCheckQueryAgreesWithSearch(t *testing.T) {
	vec := []float32{1, 0, 0, 0}
	tag := []engines.Filter{{Field: product.FieldCategory, Tag: "toys"}}
	price := []engines.Filter{{Field: product.FieldPrice, Min: 10, Max: 20}}
	shapes := []engines.Query{
		0:  {K: 3, Text: "quiet laptop"},
		1:  {K: 3, Text: "quiet", Filters: tag},
		2:  {K: 3, Field: product.FieldSKU, Text: "IT-500"},
		3:  {K: 3, Field: product.FieldTitle, Text: "zqxmarker"},
		4:  {K: 3, Field: product.FieldCategory, Text: "toys"},
		5:  {K: 3, Vector: vec},
		6:  {K: 3, Vector: vec, Filters: tag},
		7:  {K: 3, Vector: vec, Filters: price},
		8:  {K: 3, Text: "quiet", Vector: vec},
		9:  {K: 3, Filters: price},
		10: {K: 3, Vector: vec, Filters: []engines.Filter{{Field: product.FieldTitle, Tag: "x"}}},
		11: {K: 3, Field: product.FieldPrice, Text: "9"},
		12: {K: 3, Field: "nope", Text: "x"},
		13: {K: 3, Vector: vec, Filters: []engines.Filter{{Field: "nope", Tag: "x"}}},
	}
	always := []int{10, 11, 12, 13}
	for _, c := range []struct {
		opts    map[string]string
		refused []int // besides always
	}{
		{nil, nil},
		{map[string]string{"exact": "none"}, []int{2, 3}},
		{map[string]string{"exact": "sku"}, []int{3}},
		{map[string]string{"fields": "tag,numeric"}, []int{0, 1, 2, 3, 5, 6, 7, 8}},
		{map[string]string{"fields": "tag,numeric,vector"}, []int{0, 1, 2, 3, 8}},
		{map[string]string{"fields": "tag,numeric,vector", "exact": "sku,title"}, []int{0, 1, 8}},
		{map[string]string{"fields": "text,vector"}, []int{1, 4, 6, 7, 9}},
	} {
		cfg := engines.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", Options: c.opts}
		e, err := postgres.Unconnected(cfg, productSchema())
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range shapes {
			want := slices.Contains(c.refused, i) || slices.Contains(always, i)
			checked := engines.CheckQuery("postgres", cfg, productSchema(), q)
			_, searched := e.Search(context.Background(), q)
			if want != errors.Is(checked, engines.ErrUnsupported) || !want && checked != nil {
				t.Errorf("%v: %d %s: CheckQuery = %v; want refused: %v", c.opts, i, q.Shape(), checked, want)
			}
			if want != errors.Is(searched, engines.ErrUnsupported) || searched == nil {
				t.Errorf("%v: %d %s: Search = %v; want refused: %v (else a connection error)", c.opts, i, q.Shape(), searched, want)
			}
			if checked != nil && (strings.Contains(checked.Error(), "postgres") || strings.Contains(checked.Error(), "\n")) {
				t.Errorf("%v: %d: CheckQuery's reason names the driver or spans lines: %v", c.opts, i, checked)
			}
		}
		e.Close()
	}
}

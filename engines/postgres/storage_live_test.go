package postgres_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/postgres"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

// vectorLiteral is a vector in a plan's text, which EXPLAIN writes out
// in full.
var vectorLiteral = regexp.MustCompile(`'\[[^]]*\]'`)

// inlineIDs and inlineDim are the table of TestKNNPlanFollowsTheKnob: the
// product corpus at the sweep's 1,024 dimensions, where a vector (4,104
// bytes) is past PostgreSQL's 2,032-byte TOAST threshold, and rows enough
// that hnsw.ef_search 10 to 40 are each a small share of the index by
// pgvector's own estimate (src/hnsw.c, hnswcostestimate).
const (
	inlineIDs = 3000
	inlineDim = 1024
)

// The product table keeps its vectors in the row (wire.go, inlineVectors),
// so the planner answers an unfiltered kNN on the HNSW index at every
// hnsw.ef_search the index is cheap at — 10, 20, 40 on 3,000 rows: the
// statement Search sends, as EXPLAIN plans it after ANALYZE (what
// autovacuum does to a loaded table). With pgvector's default, vectors in
// the TOAST table (2,000 pages of it), the heap of 3,000 products was 493
// pages, a sequential scan was priced at those pages alone, and the
// planner chose it and a sort over the index at 10 and 20 — the dip of
// the knob sweep in small. The TOAST table stays empty: nothing of a
// product row is moved out of it.
func TestKNNPlanFollowsTheKnob(t *testing.T) {
	url, secret, _ := server(t, container.Options{CPUs: 2})
	p, err := dataset.NewProducts(dataset.Config{Seed: 7, IDs: inlineIDs, Prepopulate: 1}, inlineDim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	src := product.Products{Products: p}
	ctx := context.Background()
	e, err := engines.Open(ctx, "postgres", engines.Config{URL: url, Password: engines.Secret(secret)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	// The rows are loaded before the HNSW index is built, with the DDL's
	// own statement: a build is far quicker than 3,000 insertions into the
	// graph, and the table and index are the same.
	c := rawConn(t, url, secret)
	ddl, err := postgres.DDL(engines.Config{}, src.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var hnsw string
	for _, s := range ddl {
		if strings.Contains(s, "USING hnsw") {
			hnsw = s
		}
	}
	if _, err := c.Exec(ctx, "DROP INDEX product_embedding_idx"); err != nil {
		t.Fatal(err)
	}
	loadProducts(t, e, src, inlineIDs)
	for _, s := range []string{hnsw, "ANALYZE product"} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var heap, toast int64
	if err := c.QueryRow(ctx, `SELECT pg_relation_size(oid) / 8192, pg_relation_size(reltoastrelid) / 8192 FROM pg_class WHERE relname = 'product'`).Scan(&heap, &toast); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d products of %d dimensions: heap %d pages, TOAST %d pages", inlineIDs, inlineDim, heap, toast)
	if toast != 0 {
		t.Errorf("the TOAST table has %d pages; want none (every vector in its row)", toast)
	}
	sql, args, err := postgres.SearchSQL(engines.Config{}, src.Schema(), engines.Query{Vector: src.Product(1, 0).Embedding, K: productK})
	if err != nil {
		t.Fatal(err)
	}
	for _, ef := range []int{10, 20, 40} {
		if _, err := c.Exec(ctx, fmt.Sprintf("SET hnsw.ef_search = %d", ef)); err != nil {
			t.Fatal(err)
		}
		if plan := explain(t, c, sql, args...); !strings.Contains(plan, "Index Scan using product_embedding_idx") {
			t.Errorf("hnsw.ef_search %d: the kNN does not use the HNSW index:\n%s", ef, vectorLiteral.ReplaceAllString(plan, "'[…]'"))
		}
	}
}

// Only a table with a vector column is made to keep its rows whole
// (inlineVectors); the text corpus's table is unchanged
// (TestTextCorpusDDLUnchanged).
func TestProductDDLKeepsVectorsInline(t *testing.T) {
	ddl, err := postgres.DDL(engines.Config{Options: map[string]string{"fields": "tag,numeric"}}, productSchema())
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(ddl, "\n")
	for _, want := range []string{`) WITH (toast_tuple_target = 8160)`, `ALTER TABLE "product" ALTER COLUMN "embedding" SET STORAGE MAIN`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q (even without the vector index: the same table for every fields option):\n%s", want, all)
		}
	}
}

// loadProducts writes products 1..ids at version 0 into e, in batches of
// 500.
func loadProducts(tb testing.TB, e engines.Engine, src product.Products, ids uint32) {
	tb.Helper()
	docs := make([]engines.Document, 0, 500)
	for id := uint32(1); id <= ids; id++ {
		if docs = append(docs, src.Document(id, 0)); len(docs) == cap(docs) || id == ids {
			if err := e.(engines.BulkUpserter).UpsertBatch(context.Background(), docs); err != nil {
				tb.Fatal(err)
			}
			docs = docs[:0]
		}
	}
}

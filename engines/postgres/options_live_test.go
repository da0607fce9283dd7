package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/engines/postgres"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

// rawConn is a plain connection to the test's server, to look at what the
// driver made.
func rawConn(t *testing.T, url, secret string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = secret
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func explain(t *testing.T, c *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows, err := c.Query(context.Background(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// The SKU lookup, the words as a phrase, is answered by the sku field's
// exact-lookup index: EXPLAIN of the very statement Search sends, with the
// sequential scan priced out, scans product_sku_exact (the planner uses an
// expression index only when the query's expression is the index's), and
// finds what it must: each stop-word category's SKUs, and a SKU by its
// number alone, as Valkey's phrase lookup does.
func TestProductSKUOnTheExactIndex(t *testing.T) {
	e, src, url, secret := productServer(t)
	sku := src.Product(123, 0).SKU
	q := engines.Query{Text: sku, Field: product.FieldSKU, K: productK}
	sql, args, err := postgres.SearchSQL(engines.Config{}, src.Schema(), q)
	if err != nil {
		t.Fatal(err)
	}
	c := rawConn(t, url, secret)
	t.Logf("plan as the planner chooses it:\n%s", explain(t, c, sql, args...))
	if _, err := c.Exec(context.Background(), "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	if plan := explain(t, c, sql, args...); !strings.Contains(plan, "Bitmap Index Scan on "+postgres.ExactIndex("product", product.FieldSKU)) {
		t.Fatalf("the lookup does not use the exact index:\n%s", plan)
	}
	// The rows it finds on that index.
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(ids, []string{dataset.DocID(123)}) {
		t.Fatalf("forced onto the index, lookup of %s: %v, %v; want [%s]", sku, ids, err, dataset.DocID(123))
	}
	// Every category code a stop word of English (IT, TO, BE, OF, AS, ON)
	// is kept by the simple configuration.
	found := map[string]bool{}
	for id := uint32(1); id <= productIDs; id++ {
		p := src.Product(id, 0)
		code, _, _ := strings.Cut(p.SKU, "-")
		if found[code] {
			continue
		}
		found[code] = true
		if got := search(t, e, engines.Query{Text: p.SKU, Field: product.FieldSKU, K: productK}); !slices.Equal(got, []uint32{id}) {
			t.Fatalf("SKU %s: %v, want [%d]", p.SKU, got, id)
		}
	}
	for _, code := range []string{"IT", "TO", "BE", "OF", "AS", "ON"} {
		if !found[code] {
			t.Errorf("no product of code %s among %d: the stop-word SKUs went untested", code, productIDs)
		}
	}
	// A SKU's number alone is a word of it (and of no other SKU).
	_, num, _ := strings.Cut(sku, "-")
	if got := search(t, e, engines.Query{Text: num, Field: product.FieldSKU, K: productK}); !slices.Equal(got, []uint32{123}) {
		t.Fatalf("lookup of %s: %v, want [123]", num, got)
	}
}

// Study B's vector-field write experiment, small: the same upserts into a
// table whose embedding has its HNSW index (fields tag,numeric,vector) and
// into one whose embedding is a plain column (fields tag,numeric). The
// write cost of each is logged; what is asserted is what cannot be
// timing-flaky: both finish, the HNSW index is there or not as the option
// says, and both tables hold the same rows. BenchmarkProductUpsertVectorIndex
// measures the cost.
func TestProductVectorIndexWriteCost(t *testing.T) {
	const ids, dim = 600, 256
	url, secret, _ := server(t, container.Options{CPUs: 2})
	p, err := dataset.NewProducts(dataset.Config{Seed: 11, IDs: ids, Prepopulate: 1}, dim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	src := product.Products{Products: p}
	c := rawConn(t, url, secret)
	ctx := context.Background()
	var tables []string
	for _, setup := range []struct {
		fields string
		hnsw   int
	}{{"tag,numeric", 0}, {"tag,numeric,vector", 1}} {
		schema := src.Schema()
		schema.Name = "product_" + strings.ReplaceAll(setup.fields, ",", "_")
		tables = append(tables, schema.Name)
		e, err := engines.Open(ctx, "postgres", engines.Config{URL: url, Password: engines.Secret(secret), Options: map[string]string{"fields": setup.fields, "exact": "none"}})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Create(ctx, schema); err != nil {
			t.Fatal(err)
		}
		// Inserts, then an update of every row: one statement and one
		// commit each, as the runner's upsert mix writes.
		start := time.Now()
		for version := uint32(0); version < 2; version++ {
			for id := uint32(1); id <= ids; id++ {
				if err := e.Upsert(ctx, src.Document(id, version)); err != nil {
					t.Fatal(err)
				}
			}
		}
		took := time.Since(start)
		t.Logf("fields %s: %d upserts of %d-dimension products in %v (%v each)", setup.fields, 2*ids, dim, took.Round(time.Millisecond), (took / (2 * ids)).Round(time.Microsecond))
		var hnsw, n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%USING hnsw%'", schema.Name).Scan(&hnsw); err != nil {
			t.Fatal(err)
		}
		if hnsw != setup.hnsw {
			t.Errorf("fields %s: %d HNSW indexes on %s, want %d", setup.fields, hnsw, schema.Name, setup.hnsw)
		}
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{schema.Name}.Sanitize()).Scan(&n); err != nil || n != ids {
			t.Fatalf("%s holds %d rows, %v; want %d", schema.Name, n, err, ids)
		}
		// The kNN needs the index the option left out.
		_, err = e.Search(ctx, engines.Query{Vector: src.Product(1, 0).Embedding, K: productK})
		if refused := setup.hnsw == 0; refused != errors.Is(err, engines.ErrUnsupported) || !refused && err != nil {
			t.Errorf("fields %s: kNN: %v; want refused: %v", setup.fields, err, refused)
		}
	}
	// The same rows, field for field (the vector in pgvector's text form).
	var differ int
	q := fmt.Sprintf(`SELECT count(*) FROM %[1]s a FULL JOIN %[2]s b USING (id)
		WHERE a.id IS NULL OR b.id IS NULL OR (a.category, a.price, a.sku, a.title, a.description, a.embedding::text)
		IS DISTINCT FROM (b.category, b.price, b.sku, b.title, b.description, b.embedding::text)`,
		pgx.Identifier{tables[0]}.Sanitize(), pgx.Identifier{tables[1]}.Sanitize())
	if err := c.QueryRow(ctx, q).Scan(&differ); err != nil || differ != 0 {
		t.Fatalf("%d rows differ between %s and %s (%v)", differ, tables[0], tables[1], err)
	}
}

// BenchmarkProductUpsertVectorIndex is the write cost of an upsert of a
// 1,024-dimension product (Study B's) into a table of 5,000 with and
// without the embedding's HNSW index: one statement and commit per op, the
// IDs in turn, each op a new version (an update). Against
// SEARCHBENCH_POSTGRES_URL, or the launcher's container limited to 2 CPUs.
func BenchmarkProductUpsertVectorIndex(b *testing.B) {
	const ids, dim = 5000, 1024
	url, secret := benchServer(b)
	p, err := dataset.NewProducts(dataset.Config{Seed: 13, IDs: ids, Prepopulate: 1}, dim, dataset.QueryMix{})
	if err != nil {
		b.Fatal(err)
	}
	src := product.Products{Products: p}
	ctx := context.Background()
	for _, fields := range []string{"tag,numeric", "tag,numeric,vector"} {
		// Made and loaded once: b.Run calls its function again for each
		// b.N it tries.
		e, err := engines.Open(ctx, "postgres", engines.Config{URL: url, Password: engines.Secret(secret), Options: map[string]string{"fields": fields, "exact": "none"}})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		schema := src.Schema()
		schema.Name = "bench_" + strings.ReplaceAll(fields, ",", "_")
		if err := e.Create(ctx, schema); err != nil {
			b.Fatal(err)
		}
		loadProducts(b, e, src, ids)
		var op uint32 // every op, over every call, writes a new version
		b.Run("fields="+fields, func(b *testing.B) {
			for range b.N {
				if err := e.Upsert(ctx, src.Document(op%ids+1, op/ids+1)); err != nil {
					b.Fatal(err)
				}
				op++
			}
		})
	}
}

// benchServer is a PostgreSQL for a benchmark: SEARCHBENCH_POSTGRES_URL, or
// the launcher's container (the official image or the local build), as the
// live tests start it; it skips where neither can run.
func benchServer(b *testing.B) (url, secret string) {
	b.Helper()
	if u := os.Getenv("SEARCHBENCH_POSTGRES_URL"); u != "" {
		return u, os.Getenv("SEARCHBENCH_POSTGRES_PASSWORD")
	}
	if _, err := container.Pool(); err != nil {
		b.Skipf("postgres: %v", err)
	}
	spec, ok := launch.Lookup("postgres")
	if !ok {
		b.Fatal("no launcher definition for postgres")
	}
	c, err := container.Start(context.Background(), spec, container.Options{CPUs: 2, ReadyTimeout: 3 * time.Minute, Run: "bench-postgres-upsert"})
	if err != nil && strings.Contains(err.Error(), "cannot be pulled") {
		b.Skipf("%s", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Error(err)
		}
	})
	return c.URL, c.Secret
}

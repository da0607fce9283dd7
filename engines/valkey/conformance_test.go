package valkey_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

func conformance(t *testing.T, url, password string, opts map[string]string) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			return open(t, engines.Config{URL: url, Password: engines.Secret(password), Options: opts})
		},
		Visibility: engines.Searchable,
	})
}

func TestConformanceFake(t *testing.T) {
	s := startFake(t, valkeyfake.Options{})
	conformance(t, s.URL(), "", nil)
}

// The same suite with the index work slowed down: a write must still be
// searchable when it returns, because the fake (like valkey-search) holds
// the reply until every matching index has applied it.
func TestConformanceFakeSlowIndexing(t *testing.T) {
	s := startFake(t, valkeyfake.Options{IndexDelay: 200 * time.Microsecond, WriterThreads: 1})
	conformance(t, s.URL(), "", map[string]string{"matching_indexes": "2"})
}

// The suite against the official bundle (Valkey 9.1.0 + valkey-search
// 1.2), wherever Docker can pull it; then what the fake assumes about
// valkey-search and Study B depends on, checked on the real module: the
// product queries and the SKU trap, the hybrid pair's fields, one indexing
// job per matching index in search_ingest_hash_keys, the developer INFO
// fields, and the thread pools following the CPU limit.
func TestConformanceBundle(t *testing.T) {
	c := containertest.Start(t, "valkey", container.Options{CPUs: 2})
	conformance(t, c.URL, c.Secret, map[string]string{"reader_threads": "2", "writer_threads": "2"})
	tg := target{url: c.URL, addr: strings.TrimPrefix(c.URL, "redis://"), password: c.Secret}
	t.Run("ProductQueries", func(t *testing.T) { productQueries(t, tg) })
	t.Run("HybridPair", func(t *testing.T) { hybridPair(t, tg) })
	t.Run("FieldsOption", func(t *testing.T) { fieldsOption(t, tg) })
	t.Run("VersionAndPools", func(t *testing.T) {
		e := tg.open(t, nil)
		loadProducts(t, e)
		v, err := e.(engines.Versioner).Version(context.Background())
		if err != nil || !strings.Contains(v, "valkey-search 1.2.") {
			t.Fatalf("Version = %q, %v", v, err)
		}
		st, err := e.(engines.StatsReporter).Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The launcher passes the CPU limit (2) to both pools.
		if st["reader_threads"] != 2 || st["writer_threads"] != 2 {
			t.Fatalf("pools %v/%v under a 2-CPU limit", st["reader_threads"], st["writer_threads"])
		}
		for _, k := range []string{"queue_depth", "ingest_hash_keys", "ingest_field_vector", "ingest_field_text", "ingest_hash_blocked"} {
			if _, ok := st[k]; !ok {
				t.Errorf("INFO search lacks %s", k)
			}
		}
	})
}

package valkey_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	productcorpus "github.com/searchbench/searchbench/workload/corpus/product"
)

// Study B's product hashes, as the runner sends them, written through the
// driver to a real Valkey (without the search module: matching_indexes=0)
// and read back byte for byte: the embedding as valkey-search reads it
// (little-endian float32), the price as a decimal, the SKU with its
// stop-word code. The server's own MEMORY USAGE of a hash is logged.
// realProducts starts a real Valkey and opens the driver on it with no
// index, created for the product corpus of ids IDs and dim dimensions.
func realProducts(t *testing.T, seed uint64, ids, dim int) (addr string, e engines.Engine, src productcorpus.Products) {
	t.Helper()
	addr = realServer(t)
	p, err := dataset.NewProducts(dataset.Config{Seed: seed, IDs: ids, Prepopulate: 1}, dim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	src = productcorpus.Products{Products: p}
	e = open(t, engines.Config{URL: "redis://" + addr, Options: map[string]string{"matching_indexes": "0"}})
	if err := e.Create(context.Background(), src.Schema()); err != nil {
		t.Fatal(err)
	}
	return addr, e, src
}

func TestRealServerProductBytes(t *testing.T) {
	addr, e, src := realProducts(t, 1, 400, dataset.ProductDim)
	p, ctx := src.Products, context.Background()
	docs := make([]engines.Document, 0, src.IDs())
	for id := uint32(1); id <= uint32(src.IDs()); id++ {
		docs = append(docs, src.Document(id, 0))
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if n, err := e.(engines.Counter).Count(ctx); err != nil || n != int64(src.IDs()) {
		t.Fatalf("Count = %d, %v", n, err)
	}
	c := rawClient(t, addr, "")
	var memory, size int64
	for id := uint32(1); id <= 400; id += 7 {
		pr := p.Product(id, 0)
		key := "product:" + dataset.DocID(id)
		h, err := do(t, c, "HGETALL", key).AsStrMap()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"category": pr.Category, "price": strconv.FormatFloat(pr.Price, 'f', -1, 64), "sku": pr.SKU,
			"title": pr.Title, "description": pr.Description, "embedding": string(dataset.VectorBytes(pr.Embedding)),
		}
		if len(h) != len(want) {
			t.Fatalf("%s has %d fields, want %d", key, len(h), len(want))
		}
		for f, v := range want {
			if h[f] != v {
				t.Fatalf("%s: field %s = %.40q, want %.40q", key, f, h[f], v)
			}
		}
		n, err := do(t, c, "MEMORY", "USAGE", key, "SAMPLES", "0").AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		memory += n
		size += int64(pr.Size())
	}
	t.Logf("product hash: %d bytes of fields and values, %d bytes in Valkey's memory (MEMORY USAGE … SAMPLES 0, mean of 58)", size/58, memory/58)
}

// Many concurrent writers: each call takes its own pooled connection (no
// auto-pipelining, see the package comment), so the server sees at most as
// many clients as there are calls in flight, and every write lands.
func TestRealServerConcurrentWriters(t *testing.T) {
	addr, e, src := realProducts(t, 2, 1152, 64)
	p, ctx := src.Products, context.Background()
	const writers = 384
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				id := uint32(w*3 + i + 1)
				if err := e.Upsert(ctx, src.Document(id, 2)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := rawClient(t, addr, "")
	info, err := do(t, c, "INFO", "clients").ToString()
	if err != nil {
		t.Fatal(err)
	}
	var clients int
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "connected_clients:"); ok {
			clients, _ = strconv.Atoi(v)
		}
	}
	if clients < 2 || clients > writers+2 {
		t.Fatalf("connected_clients = %d with %d concurrent writers", clients, writers)
	}
	if n, _ := do(t, c, "DBSIZE").AsInt64(); n != writers*3 {
		t.Fatalf("DBSIZE = %d, want %d", n, writers*3)
	}
	for _, id := range []uint32{1, 577, 1152} {
		title, _ := do(t, c, "HGET", "product:"+dataset.DocID(id), "title").ToString()
		if want := p.Product(id, 2).Title; title != want {
			t.Fatalf("product %d title %q, want version 2's %q", id, title, want)
		}
	}
}

package valkey_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/valkey"
	productcorpus "github.com/searchbench/searchbench/workload/corpus/product"
)

// Study B's claims about valkey-search, and the driver's answers on the
// product corpus, checked on the module itself (valkey-search 1.2.1 on
// Valkey 9.1, the launcher's image with 2 CPUs): every query kind against
// a truth the driver did not compute (brute force over the documents
// written, the product a SKU names, the module's own text matches), the
// stop-word trap and the exact index that avoids it, one indexing job per
// matching index per write and none for indexes on other prefixes,
// FT.INFO's queue, backfill and failure figures as Stats reports them, a
// write searchable when it returns under one index, and under three only
// after Refresh.
func TestStudyBModule(t *testing.T) {
	tg := moduleTarget(t)
	lc := newLiveCorpus(t)
	for _, c := range []struct {
		name string
		run  func(*testing.T, target, liveCorpus)
	}{
		{"Version", moduleVersion},
		{"QueryKinds", moduleQueryKinds},
		{"StopWordTrap", moduleStopWordTrap},
		{"IngestJobsPerWrite", moduleIngestJobs},
		{"IdleIndexes", moduleIdleIndexes},
		{"FTInfoStats", moduleFTInfoStats},
		{"ReadAfterWrite", moduleReadAfterWrite},
		{"SeveralIndexes", moduleSeveralIndexes},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			c.run(t, tg.again(t), lc)
			t.Logf("%s took %v", c.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// The live product corpus: small enough to load in seconds on 2 CPUs,
// wide enough that HNSW at EF_RUNTIME 10 is approximate.
const (
	liveIDs     = 2000
	liveDim     = 64
	liveK       = 10
	liveQueries = 40 // per kind
)

// liveCorpus is the product corpus every ID of which is written, and one
// source per query kind (a mix of that kind alone), whose queries are the
// runner's own.
type liveCorpus struct {
	src   productcorpus.Products
	kinds map[dataset.ProductQueryKind]productcorpus.Products
}

func newLiveCorpus(t *testing.T) liveCorpus {
	t.Helper()
	cfg := dataset.Config{Seed: 11, IDs: liveIDs, Prepopulate: 1}
	src, err := productcorpus.New(cfg, liveDim, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	lc := liveCorpus{src: src, kinds: map[dataset.ProductQueryKind]productcorpus.Products{}}
	for k := range dataset.ProductQueryKind(dataset.NumProductQueryKinds) {
		var mix dataset.QueryMix
		mix[k] = 1
		if lc.kinds[k], err = productcorpus.New(cfg, liveDim, mix); err != nil {
			t.Fatal(err)
		}
	}
	return lc
}

// load creates the schema on e, writes every product, version 0, and
// waits until every index has them.
func (lc liveCorpus) load(t *testing.T, e engines.Engine) {
	t.Helper()
	ctx := context.Background()
	if err := e.Create(ctx, lc.src.Schema()); err != nil {
		t.Fatal(err)
	}
	docs := make([]engines.Document, 0, liveIDs)
	for id := uint32(1); id <= liveIDs; id++ {
		docs = append(docs, lc.src.Document(id, 0))
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// As pre-population does: under several indexes (hybrid=on's pair) a
	// returned write may not be in every index yet.
	if err := e.(engines.Refresher).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

// query is query i of kind k, as the runner sends it.
func (lc liveCorpus) query(k dataset.ProductQueryKind, i uint64) engines.Query {
	q, _ := lc.kinds[k].Query(i)
	q.K = liveK
	return q
}

// ids reads hit IDs back as the corpus's numbers.
func ids(t *testing.T, hits []string) []uint32 {
	t.Helper()
	out := make([]uint32, len(hits))
	for i, h := range hits {
		n, err := strconv.ParseUint(h, 10, 32)
		if err != nil || n < 1 || n > liveIDs {
			t.Fatalf("hit %q is no product of the corpus", h)
		}
		out[i] = uint32(n)
	}
	return out
}

// passes says whether product id passes q's filters, read from the
// product itself.
func (lc liveCorpus) passes(q engines.Query, id uint32) bool {
	pr := lc.src.Product(id, 0)
	for _, f := range q.Filters {
		switch f.Field {
		case productcorpus.FieldCategory:
			if pr.Category != f.Tag {
				return false
			}
		case productcorpus.FieldPrice:
			if pr.Price < f.Min || pr.Price > f.Max {
				return false
			}
		}
	}
	return true
}

// exact is the brute-force k nearest of each query among the products
// keep accepts for it.
func (lc liveCorpus) exact(t *testing.T, qs []engines.Query, keep func(i int, id uint32) bool) [][]neighbours.Neighbour {
	t.Helper()
	nq := make([]neighbours.Query, len(qs))
	for i, q := range qs {
		nq[i] = neighbours.Query{Vector: q.Vector, Keep: func(id uint32) bool { return keep(i, id) }}
	}
	truth, err := neighbours.Exact(context.Background(), nq, liveK, func(yield func(neighbours.Doc) bool) {
		for id := uint32(1); id <= liveIDs; id++ {
			if !yield(neighbours.Doc{ID: id, Vector: lc.src.Product(id, 0).Embedding}) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return truth
}

// moduleVersion: Version names the module's release and the server's.
func moduleVersion(t *testing.T, tg target, _ liveCorpus) {
	e := tg.open(t, nil)
	v, err := e.(engines.Versioner).Version(context.Background())
	want := regexp.MustCompile(`^Valkey 9\.1\.\d+, valkey-search 1\.2\.1 \(max-nonvector-search-results-fetched 100000, max-indexes 1000\)$`)
	if err != nil || !want.MatchString(v) {
		t.Fatalf("Version = %q, %v; want %v", v, err, want)
	}
	t.Logf("Version: %s", v)
}

// kindRecallBound is the least mean recall@10 accepted for the kNN kinds
// at the module's default EF_RUNTIME 10 on this corpus: HNSW is
// approximate, and an ef equal to k leaves it well short of 1.
// UNCONFIRMED until measured; see the report.
const kindRecallBound = 0.7

// moduleQueryKinds: every product query kind on the default index (one
// index, every field), against brute force. The filters are exact: every
// hit passes its filter. kNN recall is bounded below; a SKU whose code is
// no stop word finds its product and nothing else; a hybrid search answers
// the K nearest among the documents the module's own text search matches,
// and those hold every document that has one of the words as written.
func moduleQueryKinds(t *testing.T, tg target, lc liveCorpus) {
	e := tg.open(t, nil)
	lc.load(t, e)
	for _, k := range []dataset.ProductQueryKind{dataset.KNN, dataset.KNNCategory, dataset.KNNPrice} {
		qs := make([]engines.Query, liveQueries)
		for i := range qs {
			qs[i] = lc.query(k, uint64(i))
		}
		truth := lc.exact(t, qs, func(i int, id uint32) bool { return lc.passes(qs[i], id) })
		var sum float64
		for i, q := range qs {
			got := ids(t, search(t, e, q))
			for _, id := range got {
				if !lc.passes(q, id) {
					t.Fatalf("%s query %d: product %d does not pass the filter %+v", k, i, id, q.Filters)
				}
			}
			sum += neighbours.Recall(got, truth[i], func(id uint32) (float64, bool) {
				return neighbours.Distance(q.Vector, lc.src.Product(id, 0).Embedding), true
			})
		}
		recall := sum / float64(len(qs))
		t.Logf("%s: recall@%d %.3f over %d queries (EF_RUNTIME 10)", k, liveK, recall, len(qs))
		if recall < kindRecallBound {
			t.Errorf("%s: recall@%d %.3f, below %.2f", k, liveK, recall, kindRecallBound)
		}
	}

	stop := moduleStopWords(t, tg, "product")
	for i := range uint64(liveQueries) {
		q := lc.query(dataset.SKULookup, i)
		id, trapped := skuProduct(t, q.Text, stop)
		got := ids(t, search(t, e, q))
		if want := []uint32{id}; trapped && len(got) != 0 || !trapped && !slices.Equal(got, want) {
			t.Errorf("SKU %s (code a stop word: %v): %v", q.Text, trapped, got)
		}
	}

	raw := tg.raw(t)
	var hybridRecall float64
	var hybridQueries, hybridMatched int
	for i := range uint64(liveQueries) {
		q := lc.query(dataset.Hybrid, i)
		var words []string
		for _, w := range strings.Fields(q.Text) {
			if !stop[w] && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			continue
		}
		// The module's own text matches, LIMIT above the corpus.
		reply, err := do(t, raw, "FT.SEARCH", "product", strings.Join(words, " | "), "NOCONTENT", "LIMIT", "0", strconv.Itoa(liveIDs+1), "DIALECT", "2").ToAny()
		if err != nil {
			t.Fatal(err)
		}
		_, keys, err := valkey.ParseSearchKeys(reply)
		if err != nil {
			t.Fatal(err)
		}
		matched := map[uint32]bool{}
		for _, k := range keys {
			matched[ids(t, []string{strings.TrimPrefix(k, "product:")})[0]] = true
		}
		for id := uint32(1); id <= liveIDs; id++ {
			if hasWord(lc.src.Product(id, 0), words) && !matched[id] {
				t.Fatalf("hybrid %q: product %d has one of the words as written, and the module's text search misses it", q.Text, id)
			}
		}
		got := ids(t, search(t, e, q))
		for _, id := range got {
			if !matched[id] {
				t.Fatalf("hybrid %q: product %d does not match the text", q.Text, id)
			}
		}
		truth := lc.exact(t, []engines.Query{q}, func(_ int, id uint32) bool { return matched[id] })[0]
		hybridRecall += neighbours.Recall(got, truth, func(id uint32) (float64, bool) {
			return neighbours.Distance(q.Vector, lc.src.Product(id, 0).Embedding), true
		})
		hybridQueries++
		hybridMatched += len(matched)
		for j := 1; j < len(got); j++ {
			a := neighbours.Distance(q.Vector, lc.src.Product(got[j-1], 0).Embedding)
			b := neighbours.Distance(q.Vector, lc.src.Product(got[j], 0).Embedding)
			if a > b+neighbours.Tolerance {
				t.Fatalf("hybrid %q: hits %v are not in distance order", q.Text, got)
			}
		}
	}
	if hybridQueries == 0 {
		t.Fatal("no hybrid query had a word that is no stop word")
	}
	recall := hybridRecall / float64(hybridQueries)
	t.Logf("hybrid: recall@%d %.3f of the nearest among the text's matches (%d on average) over %d queries", liveK, recall, hybridMatched/hybridQueries, hybridQueries)
	if recall < kindRecallBound {
		t.Errorf("hybrid: recall@%d %.3f, below %.2f", liveK, recall, kindRecallBound)
	}
}

// hasWord says whether one of words is a token of the product's text
// fields as written (lowercased, cut at what is not a letter or digit).
func hasWord(pr dataset.Product, words []string) bool {
	notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
	for _, f := range []string{pr.SKU, pr.Title, pr.Description} {
		for _, tok := range strings.FieldsFunc(strings.ToLower(f), notWord) {
			if slices.Contains(words, tok) {
				return true
			}
		}
	}
	return false
}

// moduleStopWords is the stop list an index holds, from FT.INFO.
func moduleStopWords(t *testing.T, tg target, index string) map[string]bool {
	t.Helper()
	kv, err := do(t, tg.raw(t), "FT.INFO", index).ToArray()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, _ := kv[i].ToString(); k == "stop_words" {
			words, err := kv[i+1].AsStrSlice()
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, w := range words {
				out[w] = true
			}
			return out
		}
	}
	t.Fatalf("FT.INFO %s has no stop_words", index)
	return nil
}

// skuProduct is the product a SKU names, and whether its category code is
// in the stop list.
func skuProduct(t *testing.T, sku string, stop map[string]bool) (uint32, bool) {
	t.Helper()
	code, num, ok := strings.Cut(sku, "-")
	n, err := strconv.ParseUint(num, 10, 32)
	if !ok || err != nil {
		t.Fatalf("SKU %q is not CODE-ID", sku)
	}
	return uint32(n), stop[strings.ToLower(code)]
}

// moduleStopWordTrap: Study B's trap, over every product. The default
// index, whose stop list drops a category code such as "it" from the SKU
// when it indexes, misses exactly the SKUs whose code is a stop word; the
// exact index of the hybrid pair (NOSTOPWORDS: its stop list is empty)
// finds every SKU, and only its product.
func moduleStopWordTrap(t *testing.T, tg target, lc liveCorpus) {
	ctx := context.Background()
	def := tg.open(t, nil)
	lc.load(t, def)
	stop := moduleStopWords(t, tg, "product")
	var trapped, missedDefault int
	for id := uint32(1); id <= liveIDs; id++ {
		sku := lc.src.Product(id, 0).SKU
		_, isStop := skuProduct(t, sku, stop)
		got := ids(t, search(t, def, engines.Query{K: liveK, Field: productcorpus.FieldSKU, Text: sku}))
		if isStop {
			trapped++
		}
		switch {
		case len(got) == 0:
			missedDefault++
			if !isStop {
				t.Errorf("default index: SKU %s (no stop word) not found", sku)
			}
		case isStop || !slices.Equal(got, []uint32{id}):
			t.Errorf("default index: SKU %s (code a stop word: %v) answered %v", sku, isStop, got)
		}
	}
	if trapped == 0 {
		t.Fatal("no SKU of the corpus has a stop-word code: the trap is not tested")
	}
	t.Logf("default index: %d of %d SKUs missed, the %d whose code is a stop word", missedDefault, liveIDs, trapped)

	tg = tg.again(t)
	pair := tg.open(t, map[string]string{"hybrid": "on"})
	lc.load(t, pair)
	if stop := moduleStopWords(t, tg, "product-exact"); len(stop) != 0 {
		t.Fatalf("the exact index's stop list is %v; NOSTOPWORDS should empty it", stop)
	}
	for id := uint32(1); id <= liveIDs; id++ {
		sku := lc.src.Product(id, 0).SKU
		if got := ids(t, search(t, pair, engines.Query{K: liveK, Field: productcorpus.FieldSKU, Text: sku})); !slices.Equal(got, []uint32{id}) {
			t.Errorf("exact index: SKU %s answered %v", sku, got)
		}
	}
	// The semantic index answers the kNN kinds; the pair has no index
	// with both the text and the vector, so hybrid is refused.
	q := lc.query(dataset.KNNCategory, 0)
	for _, id := range ids(t, search(t, pair, q)) {
		if !lc.passes(q, id) {
			t.Fatalf("kNN+category on the semantic index: product %d is not in %s", id, q.Filters[0].Tag)
		}
	}
	if _, err := pair.Search(ctx, lc.query(dataset.Hybrid, 0)); !errors.Is(err, engines.ErrUnsupported) {
		t.Fatalf("hybrid on the pair: %v, want ErrUnsupported", err)
	}
}

// ingestWrites is how many writes each ingest measurement makes.
const ingestWrites = 200

// writeAndCount upserts products 1…n at version v one at a time (each
// blocks until indexed) and returns how much each of stats grew.
func writeAndCount(t *testing.T, e engines.Engine, lc liveCorpus, n int, v uint32, stats ...string) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	st := e.(engines.StatsReporter)
	before, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id := uint32(1); id <= uint32(n); id++ {
		if err := e.Upsert(ctx, lc.src.Document(id, v)); err != nil {
			t.Fatal(err)
		}
	}
	after, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, s := range stats {
		if _, ok := after[s]; !ok {
			t.Fatalf("Stats lacks %s: %v", s, after)
		}
		out[s] = after[s] - before[s]
	}
	return out
}

// moduleIngestJobs: experiment 2's indexes (TAG + NUMERIC) on the written
// prefix: search_ingest_hash_keys counts one job per matching index per
// write, and each job ingests the index's two fields, no vector, no text.
func moduleIngestJobs(t *testing.T, tg target, lc liveCorpus) {
	for _, m := range []int{1, 2, 4} {
		tg = tg.again(t)
		e := tg.open(t, map[string]string{"fields": "tag,numeric", "matching_indexes": strconv.Itoa(m)})
		if err := e.Create(context.Background(), lc.src.Schema()); err != nil {
			t.Fatal(err)
		}
		grew := writeAndCount(t, e, lc, ingestWrites, 0, engines.StatIndexingJobs, "ingest_field_tag", "ingest_field_numeric", "ingest_field_vector", "ingest_field_text")
		jobs := grew[engines.StatIndexingJobs] / ingestWrites
		t.Logf("matching_indexes=%d: %.2f indexing jobs per write (%v over %d writes)", m, jobs, grew[engines.StatIndexingJobs], ingestWrites)
		for s, want := range map[string]float64{
			engines.StatIndexingJobs: float64(m * ingestWrites), "ingest_field_tag": float64(m * ingestWrites),
			"ingest_field_numeric": float64(m * ingestWrites), "ingest_field_vector": 0, "ingest_field_text": 0,
		} {
			if grew[s] != want {
				t.Errorf("matching_indexes=%d: %s grew by %v over %d writes, want %v", m, s, grew[s], ingestWrites, want)
			}
		}
	}
}

// moduleIdleIndexes: experiment 1's indexes on prefixes no write touches
// see none of the writes: no job, no document, and their mutation queues
// stay empty at every sample while writers run.
func moduleIdleIndexes(t *testing.T, tg target, lc liveCorpus) {
	const idle = 8
	e := tg.open(t, map[string]string{"fields": "tag,numeric", "idle_indexes": strconv.Itoa(idle)})
	if err := e.Create(context.Background(), lc.src.Schema()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var samples int
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for ctx.Err() == nil {
			st, err := e.(engines.StatsReporter).Stats(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			samples++
			if st[engines.StatMutationQueueIdle] != 0 {
				t.Errorf("the idle indexes' mutation queues hold %v", st[engines.StatMutationQueueIdle])
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	grew := writeAndCount(t, e, lc, ingestWrites, 0, engines.StatIndexingJobs)
	cancel()
	sampler.Wait()
	if grew[engines.StatIndexingJobs] != ingestWrites {
		t.Errorf("with %d idle indexes, %v jobs for %d writes; want one each", idle, grew[engines.StatIndexingJobs], ingestWrites)
	}
	c := tg.raw(t)
	for i := 1; i <= idle; i++ {
		if n := ftInfoInt(t, c, fmt.Sprintf("product-idle-%d", i), "num_docs"); n != 0 {
			t.Errorf("product-idle-%d holds %d documents", i, n)
		}
	}
	t.Logf("%d idle indexes: %v jobs for %d writes; idle mutation queues 0 in %d samples", idle, grew[engines.StatIndexingJobs], ingestWrites, samples)
}

// moduleFTInfoStats: what Stats reads from FT.INFO, on an index made over
// keys already written (its backfill) and after a hash it cannot take.
// The module backfills every new index on its server cron, scanning the
// keyspace as it is then: the index Create made on an empty keyspace is
// still "backfilling" while the load's first writes are there, and its
// scan queues them again (mutation_queue_size) after their writes have
// returned. Both must settle.
func moduleFTInfoStats(t *testing.T, tg target, lc liveCorpus) {
	ctx := context.Background()
	first := tg.open(t, nil)
	lc.load(t, first)
	settled := func(e engines.Engine, want map[string]float64) (samples, busy int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			st, err := e.(engines.StatsReporter).Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			samples++
			b, done := st[valkey.BackfillStat], st[valkey.BackfillDoneStat]
			if b < 0 || b > 2 || done < 0 || done > 1 || b == 0 && done != 1 {
				t.Fatalf("sample %d: %v indexes backfilling, %v done", samples, b, done)
			}
			ok := true
			for s, w := range want {
				ok = ok && st[s] == w
			}
			if ok {
				return samples, busy
			}
			busy++
			if time.Now().After(deadline) {
				t.Fatalf("not settled after 2 minutes: %v", st)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	samples, busy := settled(first, map[string]float64{valkey.BackfillStat: 0, valkey.BackfillDoneStat: 1, valkey.IndexingFailuresStat: 0, engines.StatMutationQueue: 0})
	t.Logf("after the load returned, the index Create made was backfilling or queueing in %d of %d samples 10 ms apart", busy, samples)
	// A second index over the 2,000 products already written: FT.CREATE
	// returns at once and the index backfills. The driver attaches to the
	// pair as matching_indexes=2 makes it, touching no key.
	c := tg.raw(t)
	create := []string{"FT.CREATE", "product-2", "ON", "HASH", "PREFIX", "1", "product:", "SCHEMA",
		"category", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "price", "NUMERIC", "sku", "TEXT", "title", "TEXT", "description", "TEXT",
		"embedding", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", strconv.Itoa(liveDim), "DISTANCE_METRIC", "COSINE"}
	if err := do(t, c, create...).Error(); err != nil {
		t.Fatal(err)
	}
	second := tg.open(t, map[string]string{"matching_indexes": "2"})
	if err := second.(engines.Attacher).Attach(ctx, lc.src.Schema()); err != nil {
		t.Fatal(err)
	}
	samples, busy = settled(second, map[string]float64{valkey.BackfillStat: 0, valkey.BackfillDoneStat: 1, engines.StatMutationQueue: 0})
	if n := ftInfoInt(t, c, "product-2", "num_docs"); n != liveIDs {
		t.Fatalf("after the backfill product-2 holds %d documents, want %d", n, liveIDs)
	}
	if busy == 0 {
		t.Logf("the backfill of %d products had finished by the first sample", liveIDs)
	}
	t.Logf("backfill of %d products: in progress in %d of %d samples 10 ms apart", liveIDs, busy, samples)

	// A hash whose price is no number: each index on the prefix counts it.
	if err := do(t, c, "HSET", "product:bad", "category", "toys", "price", "cheap").Error(); err != nil {
		t.Fatal(err)
	}
	st, err := second.(engines.StatsReporter).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st[valkey.IndexingFailuresStat] != 2 {
		t.Errorf("after one hash with a bad price, %s = %v over the 2 indexes; want 2", valkey.IndexingFailuresStat, st[valkey.IndexingFailuresStat])
	}
}

// moduleReadAfterWrite: the module holds the reply to a write until every
// matching index has applied it, so the first search sent after the reply
// finds it. Measured as searchbench's freshness probe measures (runner's
// Mark and MarkQuery: a word no other document has, looked up in the
// title; the lag is from the write's reply to the start of the search that
// saw it), while four writers rewrite other products.
func moduleReadAfterWrite(t *testing.T, tg target, lc liveCorpus) {
	e := tg.open(t, nil)
	lc.load(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	var written int64
	var mu sync.Mutex
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := uint32(0); ctx.Err() == nil; i++ {
				// Products 1…1000 only: the probes write the others.
				id := 1 + (uint32(w)*250+i)%1000
				if err := e.Upsert(ctx, lc.src.Document(id, 1+i)); err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written++
				mu.Unlock()
			}
		}()
	}
	const probes = 50
	lags := make([]time.Duration, 0, probes)
	for n := range probes {
		id := uint32(1001 + n*19%1000)
		doc := lc.src.Document(id, 1)
		word := fmt.Sprintf("zqxprobe%c%c", 'a'+n/26, 'a'+n%26)
		lc.src.Mark(&doc, word)
		if err := e.Upsert(ctx, doc); err != nil {
			t.Fatal(err)
		}
		acked := time.Now()
		q := lc.src.MarkQuery(word)
		q.K = liveK
		start := time.Now()
		h, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.IDs, []string{dataset.DocID(id)}) {
			t.Errorf("probe %d: the first search after the write of product %d answered %v", n, id, h.IDs)
		}
		lags = append(lags, start.Sub(acked))
	}
	cancel()
	writers.Wait()
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	t.Logf("read after write: %d probes, each visible at the first search; lag p50 %v, p99 %v (reply to search start), %d other writes meanwhile",
		probes, lags[len(lags)/2], lags[len(lags)*99/100], written)
}

// moduleSeveralIndexes: with three indexes on the written prefix the
// module may reply to a write before every index has it (settings.writeMode),
// so the driver calls such writes acknowledged; its Refresh waits for them.
// Probes write one product each and search for it at once: without
// Refresh some first search misses the write (this fails, and the driver's
// claim should change, once valkey-search holds the reply for every
// index); with Refresh before each search, none does.
func moduleSeveralIndexes(t *testing.T, tg target, lc liveCorpus) {
	opts := map[string]string{"matching_indexes": "3"}
	if got := engines.WriteMode("valkey", engines.Config{Options: opts}); got != engines.Acknowledged {
		t.Fatalf("write mode under three indexes: %s, want acknowledged", got)
	}
	e := tg.open(t, opts)
	ctx := context.Background()
	if err := e.Create(ctx, lc.src.Schema()); err != nil {
		t.Fatal(err)
	}
	probe := func(n int, refresh bool) bool {
		id := uint32(1 + n%liveIDs)
		doc := lc.src.Document(id, uint32(n))
		word := fmt.Sprintf("zqxsev%d", n)
		lc.src.Mark(&doc, word)
		if err := e.Upsert(ctx, doc); err != nil {
			t.Fatal(err)
		}
		if refresh {
			if err := e.(engines.Refresher).Refresh(ctx); err != nil {
				t.Fatal(err)
			}
		}
		q := lc.src.MarkQuery(word)
		q.K = liveK
		h, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Equal(h.IDs, []string{dataset.DocID(id)})
	}
	const most = 5000
	missed := -1
	for n := range most {
		if !probe(n, false) {
			missed = n
			break
		}
	}
	if missed < 0 {
		t.Fatalf("%d writes under three indexes, each found by the first search after its reply: the module now holds the reply for every index, and the driver's acknowledged write mode under several (settings.writeMode) is too cautious", most)
	}
	t.Logf("without Refresh: probe %d's first search missed its write", missed)
	const refreshed = 300
	for n := range refreshed {
		if !probe(most+n, true) {
			t.Fatalf("probe %d: missed after Refresh", n)
		}
	}
	t.Logf("with Refresh: %d probes, each found", refreshed)
}

package dataset

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
)

func productCorpus(t testing.TB, seed uint64, ids, dim int) *Products {
	t.Helper()
	p, err := NewProducts(Config{Seed: seed, IDs: ids, Prepopulate: DefaultPrepopulate}, dim, QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestProductsSameSeedSameBytes(t *testing.T) {
	a, b := productCorpus(t, 7, 300, 32), productCorpus(t, 7, 300, 32)
	for id := uint32(1); id <= 300; id += 13 {
		for v := uint32(0); v < 3; v++ {
			pa, pb := a.Product(id, v), b.Product(id, v)
			if pa.Title != pb.Title || pa.Description != pb.Description || pa.Price != pb.Price ||
				string(VectorBytes(pa.Embedding)) != string(VectorBytes(pb.Embedding)) {
				t.Fatalf("product %d v%d differs between two corpora with one seed", id, v)
			}
		}
	}
	if a.Hash() != b.Hash() {
		t.Fatal("hashes differ for one seed")
	}
	if c := productCorpus(t, 8, 300, 32); c.Hash() == a.Hash() {
		t.Fatal("seeds 7 and 8 give the same hash")
	}
	if c := productCorpus(t, 7, 300, 33); c.Hash() == a.Hash() {
		t.Fatal("dimensions 32 and 33 give the same hash")
	}
}

// The product corpus's bytes are pinned like the text corpus's: a change to
// any rule must change ProductGenerator and these values deliberately.
func TestProductGoldenBytes(t *testing.T) {
	p := productCorpus(t, 1, 200, 16)
	pr := p.Product(5, 0)
	got := []string{pr.Category, strconv.FormatFloat(pr.Price, 'f', 2, 64), pr.SKU, pr.Title,
		strconv.FormatUint(uint64(math.Float32bits(pr.Embedding[0])), 16), p.Hash()}
	want := goldenProduct
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// Study B's hash: ~4.6 KB, a unit-length 1,024-dimension embedding, a SKU
// made of the category's code and the ID, a category that an upsert never
// changes.
func TestProductShape(t *testing.T) {
	p := productCorpus(t, 1, 3000, ProductDim)
	codes := map[string]string{}
	for _, c := range Categories {
		codes[c.Name] = c.Code
	}
	total, stopCodes := 0, 0
	for id := uint32(1); id <= 3000; id++ {
		pr := p.Product(id, 0)
		total += pr.Size()
		if len(pr.Embedding) != ProductDim || math.Abs(norm(pr.Embedding)-1) > 1e-5 {
			t.Fatalf("product %d: embedding of %d dimensions, norm %v", id, len(pr.Embedding), norm(pr.Embedding))
		}
		if want := codes[pr.Category] + "-" + strconv.Itoa(int(id)); pr.SKU != want {
			t.Fatalf("product %d: SKU %q, want %q", id, pr.SKU, want)
		}
		if pr.Price < 1 || pr.Price > 999.99 || math.Abs(math.Round(pr.Price*100)-pr.Price*100) > 1e-6 {
			t.Fatalf("product %d: price %v", id, pr.Price)
		}
		if pr.Title == "" || !strings.HasSuffix(pr.Description, ".") {
			t.Fatalf("product %d: title %q, description %q", id, pr.Title, pr.Description)
		}
		next := p.Product(id, 1)
		if next.Category != pr.Category || next.SKU != pr.SKU {
			t.Fatalf("product %d: an upsert changed category or SKU (%s %s → %s %s)", id, pr.Category, pr.SKU, next.Category, next.SKU)
		}
		if next.Title == pr.Title && next.Price == pr.Price {
			t.Fatalf("product %d: version 1 equals version 0", id)
		}
		switch codes[pr.Category] {
		case "IT", "TO", "BE", "OF", "AS", "ON":
			stopCodes++
		}
	}
	if mean := total / 3000; mean < 4500 || mean > 4700 {
		t.Fatalf("mean hash size %d bytes, want about 4,600", mean)
	}
	// Six of the sixteen codes are English stop words: the SKU trap is real
	// for about 3 products in 8.
	if f := float64(stopCodes) / 3000; f < 0.3 || f > 0.45 {
		t.Fatalf("%.2f of SKUs start with a stop word, want about 6/16", f)
	}
}

// VectorBytes is little-endian IEEE 754 float32, valkey-search's blob.
func TestVectorBytes(t *testing.T) {
	b := VectorBytes([]float32{1, -2.5, float32(math.Inf(1))})
	want := []uint32{0x3f800000, 0xc0200000, 0x7f800000}
	if len(b) != 12 {
		t.Fatalf("%d bytes", len(b))
	}
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != w {
			t.Fatalf("float %d = %#x, want %#x", i, got, w)
		}
	}
}

// Queries come in Study B's proportions, and a KNN query's true nearest
// neighbours are mostly in the category whose centroid it was drawn near:
// results can be checked, they are not noise.
func TestProductQueries(t *testing.T) {
	p := productCorpus(t, 3, 2000, 64)
	kinds := map[ProductQueryKind]int{}
	const n = 4000
	for i := range uint64(n) {
		q := p.ProductQuery(i)
		kinds[q.Kind]++
		switch q.Kind {
		case SKULookup:
			if q.Vector != nil || !strings.Contains(q.SKU, "-") {
				t.Fatalf("query %d: %+v", i, q)
			}
			id, err := strconv.Atoi(q.SKU[strings.IndexByte(q.SKU, '-')+1:])
			if err != nil || id < 1 || id > 2000 || p.Product(uint32(id), 0).SKU != q.SKU {
				t.Fatalf("query %d: SKU %q is not product %d's", i, q.SKU, id)
			}
		default:
			if math.Abs(norm(q.Vector)-1) > 1e-5 || len(q.Vector) != 64 {
				t.Fatalf("query %d: vector norm %v", i, norm(q.Vector))
			}
		}
		if q.Kind == KNNPrice && !(q.MinPrice >= 1 && q.MaxPrice > q.MinPrice) {
			t.Fatalf("query %d: price range %v–%v", i, q.MinPrice, q.MaxPrice)
		}
	}
	for kind, want := range map[ProductQueryKind]float64{KNNCategory: 0.4, KNNPrice: 0.2, KNN: 0.2, SKULookup: 0.2} {
		if got := float64(kinds[kind]) / n; math.Abs(got-want) > 0.03 {
			t.Errorf("%s: %.3f of queries, want %.2f", kind, got, want)
		}
	}
	same, checked := 0, 0
	for i := uint64(0); checked < 100; i++ {
		q := p.ProductQuery(i)
		if q.Kind != KNNCategory {
			continue
		}
		checked++
		best, bestID := -2.0, uint32(0)
		for id := uint32(1); id <= 2000; id++ {
			if d := dot(q.Vector, p.Product(id, 0).Embedding); d > best {
				best, bestID = d, id
			}
		}
		if p.Product(bestID, 0).Category == q.Category {
			same++
		}
	}
	if same < 90 {
		t.Fatalf("the nearest product is in the query's category for %d of 100 queries", same)
	}
}

// BenchmarkProduct is the generation rate of Study B's hashes (1,024
// dimensions): what bounds a load generator that builds each write's bytes.
func BenchmarkProduct(b *testing.B) {
	p := productCorpus(b, 1, DefaultIDs, ProductDim)
	b.ReportAllocs()
	var size int
	for i := range b.N {
		pr := p.Product(uint32(i%DefaultIDs)+1, uint32(i/DefaultIDs))
		size += pr.Size()
	}
	b.ReportMetric(float64(size)/float64(b.N), "bytes/hash")
}

// Title is the product's title, made without the rest of the product; a
// hybrid query's words are three of a pre-populated product's title.
func TestTitleAndHybridQueries(t *testing.T) {
	p := productCorpus(t, 4, 500, 16)
	for id := uint32(1); id <= 50; id++ {
		for v := range uint32(3) {
			if got, want := p.Title(id, v), p.Product(id, v).Title; got != want {
				t.Fatalf("product %d v%d: title %q, want %q", id, v, got, want)
			}
		}
	}
	titles := map[string]bool{}
	for id := uint32(1); id <= 500; id++ {
		titles[strings.ToLower(p.Title(id, 0))] = true
	}
	for i := range uint64(100) {
		q := p.ProductQueryOfKind(i, Hybrid)
		words := strings.Fields(q.Text)
		if q.Kind != Hybrid || len(words) != 3 || len(q.Vector) != 16 {
			t.Fatalf("hybrid query %d: %+v; want three words and a vector", i, q)
		}
		found := false
		for title := range titles {
			all := true
			for _, w := range words {
				all = all && strings.Contains(title, w)
			}
			found = found || all
		}
		if !found {
			t.Fatalf("hybrid query %d: %q is in no product's title", i, q.Text)
		}
	}
}

// A mix's proportions are those asked, and its grammar refuses what it
// cannot read.
func TestQueryMix(t *testing.T) {
	m, err := ParseQueryMix("knn=40, knn-category=20,knn-price=20,sku=10,hybrid=10")
	if err != nil || m.String() != "knn=40,knn-category=20,knn-price=20,sku=10,hybrid=10" || len(m.Kinds()) != 5 {
		t.Fatalf("%v %v", m, err)
	}
	p, err := NewProducts(Config{Seed: 2, IDs: 1000, Prepopulate: 1}, 8, m)
	if err != nil {
		t.Fatal(err)
	}
	n := map[ProductQueryKind]int{}
	for i := range uint64(20_000) {
		n[p.ProductQuery(i).Kind]++
	}
	for k, w := range m {
		if got := float64(n[ProductQueryKind(k)]) / 20_000; math.Abs(got-float64(w)/100) > 0.015 {
			t.Errorf("%s: %.3f of the queries; want %.2f", ProductQueryKind(k), got, float64(w)/100)
		}
	}
	if d, _ := ParseQueryMix(""); d != DefaultQueryMix || (QueryMix{}).String() != DefaultQueryMix.String() {
		t.Error("the empty mix is not the default")
	}
	for _, bad := range []string{"knn", "knn=1,knn=2", "knn=-1", "knn=1.5", "vector=1", "knn=0", "sku=2000000"} {
		if _, err := ParseQueryMix(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

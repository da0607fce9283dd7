package vectorfile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
)

// everything is the configuration that takes every train vector, all
// pre-populated.
var everything = dataset.Config{Seed: 1, Prepopulate: 1}

func withIDs(n int) dataset.Config {
	c := everything
	c.IDs = n
	return c
}

func mustProducts(t testing.TB, path string, opts Options, cfg dataset.Config) (*File, *dataset.Products) {
	t.Helper()
	f := mustOpen(t, path, opts)
	p, err := Products(f, path, cfg, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

var productFixtures = []struct {
	path, format string
	opts         Options
}{
	{"testdata/angular.hdf5", "hdf5", Options{}},
	{"testdata/base.fvecs", "fvecs", fvecsOpts},
	{"testdata", "parquet", Options{Distance: "cosine"}},
}

// A corpus built from each format holds numpy's vectors: the products'
// embeddings are the train set in id order, at every version, and the kNN
// kinds' query vectors, gathered by the test vector they name, are the
// test set; the other kinds keep their generated draws.
func TestProductsFromEachFormat(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	for _, c := range productFixtures {
		t.Run(c.format, func(t *testing.T) {
			t.Parallel()
			_, p := mustProducts(t, c.path, c.opts, everything)
			if p.IDs() != m.Train.Rows || p.PrepopulatedCount() != p.IDs() || p.Dim() != m.Train.Cols {
				t.Fatalf("%d ids (%d pre-populated) of %d dimensions; want %d, all, %d", p.IDs(), p.PrepopulatedCount(), p.Dim(), m.Train.Rows, m.Train.Cols)
			}
			emb := Vectors{Dim: p.Dim()}
			for id := uint32(1); id <= uint32(p.IDs()); id++ {
				pr := p.Product(id, 0)
				emb.Data = append(emb.Data, pr.Embedding...)
				if re := p.Product(id, 3); !slices.Equal(re.Embedding, pr.Embedding) || re.Title == pr.Title || re.Category != pr.Category {
					t.Fatalf("product %d rewritten: same embedding %v, new title %v, same category %v",
						id, slices.Equal(re.Embedding, pr.Embedding), re.Title != pr.Title, re.Category == pr.Category)
				}
			}
			sameVectors(t, "embeddings", emb, m.Train)
			sameVectors(t, "query vectors", queryVectors(t, p, m.Test.Rows), m.Test)
		})
	}
}

// queryVectors draws queries of each kNN kind until every one of the q
// test vectors has been named, checks that each query holds the vector it
// names and the filter its kind asks, and returns the vectors in test
// order. The kinds without a kNN vector name none.
func queryVectors(t *testing.T, p *dataset.Products, q int) Vectors {
	t.Helper()
	rows := make([][]float32, q)
	seen := 0
	for i := uint64(0); i < 2000 && seen < q; i++ {
		for _, k := range []dataset.ProductQueryKind{dataset.KNN, dataset.KNNCategory, dataset.KNNPrice} {
			pq := p.ProductQueryOfKind(i, k)
			j, ok := pq.TestVector()
			if !ok || j < 0 || j >= q {
				t.Fatalf("%s query %d names test vector %d (%v)", k, i, j, ok)
			}
			if (k == dataset.KNNCategory) != (pq.Category != "") || (k == dataset.KNNPrice) != (pq.MaxPrice > 0) {
				t.Fatalf("%s query %d has filters %v", k, i, pq.Query().Filters)
			}
			if rows[j] == nil {
				rows[j], seen = pq.Vector, seen+1
			} else if !slices.Equal(rows[j], pq.Vector) {
				t.Fatalf("two queries name test vector %d with different vectors", j)
			}
		}
		for _, k := range []dataset.ProductQueryKind{dataset.SKULookup, dataset.Hybrid} {
			if j, ok := p.ProductQueryOfKind(i, k).TestVector(); ok {
				t.Fatalf("%s query %d names test vector %d", k, i, j)
			}
		}
	}
	if seen < q {
		t.Fatalf("2000 draws of each kind named %d of the %d test vectors", seen, q)
	}
	v := Vectors{Dim: p.Dim()}
	for _, r := range rows {
		v.Data = append(v.Data, r...)
	}
	return v
}

// The generator, hence the hash, names the file: the same file read twice
// gives the same corpus, and files that differ only in their stated
// neighbours, or only in format, give different ones.
func TestProductsNameTheFile(t *testing.T) {
	t.Parallel()
	hash := func(path string, opts Options) (string, string) {
		f, p := mustProducts(t, path, opts, everything)
		g := p.Generator()
		for _, part := range []string{"/dim=32/", strings.TrimPrefix(path, "testdata/"), " " + f.Format + " angular train=1000 test=20 k=10 ", f.Digest()} {
			if !strings.Contains(g, part) {
				t.Errorf("generator %q does not name %q", g, part)
			}
		}
		return g, p.Hash()
	}
	g1, h1 := hash("testdata/angular.hdf5", Options{})
	g2, h2 := hash("testdata/angular.hdf5", Options{})
	if g1 != g2 || h1 != h2 {
		t.Errorf("one file, two corpora: %s %s, %s %s", g1, h1, g2, h2)
	}
	seen := map[string]string{h1: "angular.hdf5"}
	for _, c := range []struct {
		path string
		opts Options
	}{{"testdata/wrong.hdf5", Options{}}, {"testdata/base.fvecs", fvecsOpts}} {
		_, h := hash(c.path, c.opts)
		if other, dup := seen[h]; dup {
			t.Errorf("%s has the hash of %s", c.path, other)
		}
		seen[h] = c.path
	}
	gen, err := dataset.NewProducts(withIDs(1000), 32, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	if _, dup := seen[gen.Hash()]; dup {
		t.Error("a generated corpus has a file's hash")
	}
}

// What cannot hold is refused in one line: a file that names no metric,
// more IDs than train vectors. Fewer IDs take the first
// train vectors.
func TestProductsRefuse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path string
		opts Options
		cfg  dataset.Config
		want string
	}{
		{"testdata/base.fvecs", Options{Queries: fvecsOpts.Queries, Truth: fvecsOpts.Truth}, everything, "the file names no distance"},
		{"testdata/angular.hdf5", Options{}, withIDs(1001), "ids: 1001 is more than the 1000 train vectors"},
	} {
		_, err := Products(mustOpen(t, c.path, c.opts), c.path, c.cfg, dataset.QueryMix{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s with %d ids: %v, want one line with %q", c.path, c.cfg.IDs, err, c.want)
		}
	}
	f, p := mustProducts(t, "testdata/angular.hdf5", Options{}, withIDs(500))
	if p.IDs() != 500 || !slices.Equal(p.Product(500, 0).Embedding, f.Train.Row(499)) || p.Product(501, 0).Embedding != nil {
		t.Errorf("500 of 1000: %d ids, product 500 is train vector 499: %v, product 501 has none: %v",
			p.IDs(), slices.Equal(p.Product(500, 0).Embedding, f.Train.Row(499)), p.Product(501, 0).Embedding == nil)
	}
}

// exactAnswers are the exact answers as the harness computes them
// (runner/exact.go: neighbours.Exact over the pre-populated products at
// version 0, 4k+20 deep for k = 10) to n sample queries of kind KNN and n
// of KNNCategory.
func exactAnswers(t *testing.T, p *dataset.Products, n int) []Answer {
	t.Helper()
	var qs []neighbours.Query
	var answers []Answer
	for i := range uint64(n) {
		for _, k := range []dataset.ProductQueryKind{dataset.KNN, dataset.KNNCategory} {
			pq := p.ProductQueryOfKind(i, k)
			cat := pq.Category
			keep := func(id uint32) bool { return cat == "" || p.Product(id, 0).Category == cat }
			qs = append(qs, neighbours.Query{Vector: pq.Vector, Keep: keep})
			answers = append(answers, Answer{Query: pq})
		}
	}
	found, err := neighbours.Exact(context.Background(), qs, 60, func(yield func(neighbours.Doc) bool) {
		for id := uint32(1); id <= uint32(p.IDs()); id++ {
			if p.Prepopulated(id) && !yield(neighbours.Doc{ID: id, Vector: p.Product(id, 0).Embedding}) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range answers {
		answers[i].Exact = found[i]
	}
	return answers
}

// The harness's exact answers to the unfiltered kNN queries are numpy's
// neighbours, and CheckAnswers finds them so; the filtered ones are passed
// over. A file whose stated neighbours are wrong (wrong.hdf5: test vectors
// 3 and 7 swapped lists) is reported at exactly those test vectors, with
// both lists.
func TestCheckAnswers(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	f, p := mustProducts(t, "testdata/angular.hdf5", Options{}, everything)
	answers := exactAnswers(t, p, 100)
	unfiltered, bad := 0, 0
	for _, a := range answers {
		j, _ := a.Query.TestVector()
		if a.Query.Category != "" {
			continue
		}
		unfiltered++
		if j == 3 || j == 7 {
			bad++
		}
		ids := make([]int, f.K())
		for i, n := range a.Exact[:f.K()] {
			ids[i] = int(n.ID) - 1
		}
		if !slices.Equal(ids, m.Angular.Neighbors[j]) {
			t.Errorf("test vector %d: exact %v, numpy %v", j, ids, m.Angular.Neighbors[j])
		}
	}
	if bad == 0 {
		t.Fatal("no sample query names test vector 3 or 7")
	}
	r, err := f.CheckAnswers(p, answers)
	if err != nil || r.Queries != unfiltered || r.K != 10 || r.Disagree != 0 {
		t.Errorf("angular.hdf5: %v (%v); want %d queries at k=10, none disagreeing", r, err, unfiltered)
	}

	if _, err := mustOpen(t, "testdata/angular.hdf5", Options{}).CheckAnswers(p, answers); err == nil {
		t.Error("answers over one File's corpus checked against another File: no error")
	}
	if _, half := mustProducts(t, "testdata/angular.hdf5", Options{}, withIDs(500)); true {
		if _, err := f.CheckAnswers(half, nil); err == nil {
			t.Error("a corpus of 500 of the 1000 train vectors checked against the file's neighbours: no error")
		}
	}

	wrong, wp := mustProducts(t, "testdata/wrong.hdf5", Options{}, everything)
	r, err = wrong.CheckAnswers(wp, exactAnswers(t, wp, 100))
	if err != nil || r.Queries != unfiltered || r.Disagree != bad || len(r.First) != min(bad, MaxShown) {
		t.Fatalf("wrong.hdf5: %v (%v); want %d queries, %d disagreeing (those of test vectors 3 and 7)", r, err, unfiltered, bad)
	}
	for _, d := range r.First {
		other := 10 - d.Query // 3 holds 7's list, 7 holds 3's
		if (d.Query != 3 && d.Query != 7) || !slices.Equal(d.File, m.Angular.Neighbors[other]) || !slices.Equal(d.Exact, m.Angular.Neighbors[d.Query]) {
			t.Errorf("disagreement %+v; want test vector 3 or 7, file list numpy's of the other, exact list numpy's own", d)
		}
	}
	if !strings.Contains(r.String(), "disagree") {
		t.Errorf("report %q", r)
	}
}

// BenchmarkDigest is the digest's cost per byte of vectors, which names
// the file in the corpus's identity once per run: 10,000 × 960 float32
// (GIST's width), 100 queries of 100 neighbours.
func BenchmarkDigest(b *testing.B) {
	const n, q, d, k = 10_000, 100, 960, 100
	f := &File{Format: "hdf5", Distance: Angular,
		Train: Vectors{Dim: d, Data: make([]float32, n*d)}, Test: Vectors{Dim: d, Data: make([]float32, q*d)}}
	for i := range f.Train.Data {
		f.Train.Data[i] = float32(i % 977)
	}
	for range q {
		f.Neighbors = append(f.Neighbors, make([]int, k))
	}
	b.SetBytes(int64(4 * (n + q) * d))
	for b.Loop() {
		f.Digest()
	}
}

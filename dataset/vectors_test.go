package dataset

import (
	"slices"
	"strings"
	"testing"
)

// A generated corpus keeps its generator name (the one every earlier
// result recorded) and names no test vector; NewProductsFromVectors
// refuses, in one line, vectors it cannot number and an ID space larger
// than the file, and takes the file's train count for IDs 0.
func TestProductsFromVectors(t *testing.T) {
	t.Parallel()
	gen, err := NewProducts(Config{Seed: 1, IDs: 200, Prepopulate: 1}, 16, QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	if gen.Generator() != "product-hash/2/dim=16" || gen.Vectors() != nil {
		t.Errorf("generated corpus: generator %q, vectors %v", gen.Generator(), gen.Vectors())
	}
	for i := range uint64(50) {
		if j, ok := gen.ProductQueryOfKind(i, KNN).TestVector(); ok {
			t.Fatalf("generated query %d names test vector %d", i, j)
		}
	}

	train := []float32{1, 0, 0, 1, 1, 1} // 3 vectors of 2
	test := []float32{0.5, 0.5, -1, 0}   // 2 vectors of 2
	v := Vectors{Name: "tiny", Dim: 2, Train: train, Test: test}
	for _, c := range []struct {
		v    Vectors
		ids  int
		want string
	}{
		{Vectors{Name: "tiny", Dim: 0, Train: train, Test: test}, 0, "dim: 0 is out of range"},
		{Vectors{Dim: 2, Train: train, Test: test}, 0, "no name"},
		{Vectors{Name: "tiny", Dim: 4, Train: train, Test: test}, 0, "not whole rows of 4"},
		{Vectors{Name: "tiny", Dim: 2, Train: train}, 0, "no train or no test"},
		{v, 4, "ids: 4 is more than the 3 train vectors of tiny"},
	} {
		_, err := NewProductsFromVectors(Config{Seed: 1, IDs: c.ids, Prepopulate: 1}, c.v, QueryMix{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v, %d ids: %v, want one line with %q", c.v, c.ids, err, c.want)
		}
	}
	p, err := NewProductsFromVectors(Config{Seed: 1, Prepopulate: 1}, v, QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	if p.IDs() != 3 || p.Dim() != 2 || p.Generator() != "product-hash/2/dim=2/vectors=tiny" {
		t.Errorf("%d ids of %d dimensions, generator %q", p.IDs(), p.Dim(), p.Generator())
	}
	for id := uint32(1); id <= 3; id++ {
		if got := p.Product(id, 2).Embedding; !slices.Equal(got, train[2*id-2:2*id]) {
			t.Errorf("product %d version 2: embedding %v, want train vector %d", id, got, id-1)
		}
	}
}

package product

import (
	"runtime"
	"testing"

	"github.com/searchbench/searchbench/dataset"
)

func testProducts(t testing.TB, ids int, mix string) Products {
	t.Helper()
	m, err := dataset.ParseQueryMix(mix)
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(dataset.Config{Seed: 3, IDs: ids, Prepopulate: 0.9}, 8, m)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// Products.prepopulated stops handing blocks of IDs to its workers once its
// reader says stop: an interrupted computation does not go on generating
// the rest of the corpus.
func TestPrepopulatedStopsGenerating(t *testing.T) {
	src := testProducts(t, 200_000, "knn=1")
	cat, price := make([]uint8, src.IDs()+1), make([]float64, src.IDs()+1)
	read := 0
	for range src.prepopulated(cat, price) {
		if read++; read == 10 {
			break
		}
	}
	// Generated: what the workers filled in. Each worker finishes the block
	// it holds and at most one more was handed out per worker.
	generated := 0
	for _, p := range price[1:] {
		if p != 0 {
			generated++
		}
	}
	if limit := 256 * 4 * max(2, runtime.GOMAXPROCS(0)); generated > limit {
		t.Errorf("generated %d of %d products after the reader stopped at 10; want at most %d", generated, src.PrepopulatedCount(), limit)
	}
}

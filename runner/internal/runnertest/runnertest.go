// Package runnertest holds the corpora and exact answers the runner's rooms'
// tests share (the runner's top, runner/checks): one copy, imported by
// each room's tests.
package runnertest

import (
	"context"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// Text is Study A's corpus of ids IDs, seed 1, prepop of them pre-populated.
func Text(t testing.TB, ids int, prepop float64) text.Text {
	t.Helper()
	c, err := dataset.New(dataset.Config{Seed: 1, IDs: ids, Prepopulate: prepop})
	if err != nil {
		t.Fatal(err)
	}
	return text.Text{Corpus: c}
}

// Products is Study B's corpus of ids IDs, seed 3, 8 dimensions, 90%
// pre-populated, drawing the query mix ("knn=1,sku=1"; empty: the default).
func Products(t testing.TB, ids int, mix string) product.Products {
	t.Helper()
	m, err := dataset.ParseQueryMix(mix)
	if err != nil {
		t.Fatal(err)
	}
	src, err := product.New(dataset.Config{Seed: 3, IDs: ids, Prepopulate: 0.9}, 8, m)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// Truth is src's sample of n exact answers, k deep.
func Truth(t testing.TB, src corpus.Source, n, k int) *corpus.Truth {
	t.Helper()
	tr, err := corpus.NewTruth(context.Background(), src, n, k)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Nearest is an exact answer of the given IDs, at distances 0.1 apart in
// their order.
func Nearest(ids ...uint32) []neighbours.Neighbour {
	out := make([]neighbours.Neighbour, len(ids))
	for i, id := range ids {
		out[i] = neighbours.Neighbour{ID: id, Distance: float64(i+1) / 10}
	}
	return out
}

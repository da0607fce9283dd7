package product

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
)

// A refill reads every product as the acknowledged writes left it: the
// pre-populated ones untouched at version 0, a rewritten one at its new
// version with its new category and price, not a deleted one nor one
// another shard may have written; and the truth it refills agrees with a
// brute force over exactly those.
func TestFollowerReadsTheCurrentProducts(t *testing.T) {
	t.Parallel()
	src := testProducts(t, 300, "knn=1,knn-category=1")
	tr, err := src.ExactTruth(context.Background(), 8, 5)
	if err != nil || tr == nil || tr.Follow == nil {
		t.Fatalf("truth %v, %v; want one that can follow writes", tr, err)
	}
	fo, err := tr.Follow()
	if err != nil {
		t.Fatal(err)
	}
	f := fo.(*follower)
	absent := uint32(1)
	for src.Prepopulated(absent) {
		absent++
	}
	want := map[uint32]uint32{} // ID → version expected
	for id := uint32(1); id <= uint32(src.IDs()); id++ {
		if src.Prepopulated(id) {
			want[id] = 0
		}
	}
	at := time.Now()
	for _, w := range []struct{ id, version uint32 }{{2, 3}, {absent, 1}, {7, 1}, {7, 2}} {
		doc := src.Document(w.id, w.version)
		f.Begin(w.id)
		f.Upserted(w.id, w.version, &doc, at)
		want[w.id] = w.version
	}
	for _, id := range []uint32{3, 7} {
		f.Begin(id)
		f.Deleted(id, at)
		delete(want, id)
	}
	f.Foreign(4)
	delete(want, 4)
	got := map[uint32]uint32{}
	var docs []neighbours.Doc
	for d := range f.docs {
		v, ok := want[d.ID]
		pr := src.Product(d.ID, v)
		if !ok || !slices.Equal(d.Vector, pr.Embedding) || dataset.Categories[d.Fields.cat].Name != pr.Category || d.Fields.price != pr.Price {
			t.Fatalf("refill read %d (%v, %+v); want it at version %d (listed %v)", d.ID, d.Vector[:2], d.Fields, v, ok)
		}
		got[d.ID] = v
		docs = append(docs, neighbours.Doc{ID: d.ID, Vector: d.Vector})
	}
	if len(got) != len(want) {
		t.Fatalf("refill read %d products; want %d", len(got), len(want))
	}
	// The unfiltered queries' exact answers over what the refill read.
	checked := 0
	for i, q := range tr.Queries {
		if len(q.Query.Filters) > 0 || q.Live < 0 {
			continue
		}
		exact, err := neighbours.Exact(context.Background(), []neighbours.Query{{Vector: q.Query.Vector}}, 5,
			func(yield func(neighbours.Doc) bool) {
				for _, d := range docs {
					if !yield(d) {
						return
					}
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, 5)
		for j, n := range exact[0] {
			ids[j] = dataset.DocID(n.ID)
		}
		var out [1]neighbours.Score
		f.Score(q.Live, ids, 5, at.Add(time.Second), []time.Duration{0}, out[:])
		if s := out[0]; s.Expected != 5 || s.Found != 5 {
			t.Errorf("query %d: the brute force over the current products scores %+v; want 5 of 5", i, s)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no unfiltered query in the sample")
	}
}

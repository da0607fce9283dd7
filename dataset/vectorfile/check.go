package vectorfile

import (
	"context"
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/dataset/neighbours"
)

// Report is what Check found.
type Report struct {
	Queries  int // queries checked: all of the file's
	K        int // neighbours per query
	Disagree int // queries whose file truth is not the exact top k
	// First are the first disagreements, at most MaxShown, in query order.
	First []Disagreement
}

// Disagreement is one query whose stated neighbours are not its exact
// ones: both lists, as train indexes, nearest first.
type Disagreement struct {
	Query int
	File  []int
	Exact []int
}

// MaxShown is how many disagreements a Report lists.
const MaxShown = 5

// Check recomputes each test vector's exact top k over the train vectors
// with the harness's own search (neighbours.Exact) under the file's
// metric — angular as cosine distance, euclidean as squared L2 (the same
// order), dot as the negative inner product — and compares it with the
// file's neighbours by the harness's one tie rule (neighbours.Hits): a
// stated neighbour that is not in the exact list still agrees when it is
// no farther than the exact k-th within neighbours.Tolerance, since a tie
// at the k-th place can be broken either way. A file whose metric nothing
// names is refused rather than checked against a guessed one.
func (f *File) Check(ctx context.Context) (Report, error) {
	m, err := f.Metric()
	if err != nil {
		return Report{}, fmt.Errorf("vectorfile: %w", err)
	}
	k := f.K()
	queries := make([]neighbours.Query, f.Test.Len())
	for i := range queries {
		queries[i] = neighbours.Query{Vector: f.Test.Row(i), Metric: m}
	}
	n := f.Train.Len()
	exact, err := neighbours.Exact(ctx, queries, k, func(yield func(neighbours.Doc) bool) {
		for i := range n {
			if !yield(neighbours.Doc{ID: uint32(i), Vector: f.Train.Row(i)}) {
				return
			}
		}
	})
	if err != nil {
		return Report{}, fmt.Errorf("vectorfile: exact neighbours: %w", err)
	}
	r := Report{Queries: len(queries), K: k}
	for q, want := range exact {
		r.add(q, f.Neighbors[q], want, f.agrees(m, q, f.Neighbors[q], want))
	}
	return r, nil
}

// Metric is the harness's metric for the file's distance: angular as
// cosine distance, euclidean as squared L2 (the same order), dot as the
// negative inner product; an error when the file names none.
func (f *File) Metric() (neighbours.Metric, error) {
	switch f.Distance {
	case Angular:
		return neighbours.Cosine, nil
	case Euclidean:
		return neighbours.L2, nil
	case Dot:
		return neighbours.Dot, nil
	case "":
		return 0, errors.New("the file names no distance: give one (angular, euclidean or dot)")
	default:
		return 0, fmt.Errorf("vectorfile: the truth check knows no distance %q", f.Distance)
	}
}

// add counts test vector j's comparison: a disagreement is listed, with
// both lists, while fewer than MaxShown are.
func (r *Report) add(j int, stated []int, exact []neighbours.Neighbour, agree bool) {
	if agree {
		return
	}
	r.Disagree++
	if len(r.First) < MaxShown {
		d := Disagreement{Query: j, File: stated, Exact: make([]int, len(exact))}
		for i, n := range exact {
			d.Exact[i] = int(n.ID)
		}
		r.First = append(r.First, d)
	}
}

// agrees says whether stated, train indexes, are test vector j's exact
// neighbours exact (train indexes too) under m by neighbours.Hits: a
// stated neighbour missing from exact still agrees when it ties with the
// last.
func (f *File) agrees(m neighbours.Metric, j int, stated []int, exact []neighbours.Neighbour) bool {
	got := make([]uint32, len(stated))
	for i, s := range stated {
		got[i] = uint32(s)
	}
	q := f.Test.Row(j)
	dist := func(id uint32) (float64, bool) {
		if int(id) >= f.Train.Len() {
			return 0, false
		}
		return m.Distance(q, f.Train.Row(int(id))), true
	}
	return neighbours.Hits(got, exact, dist) == len(exact)
}

// String is the report in a few lines: the counts, then each shown
// disagreement with both lists.
func (r Report) String() string {
	s := fmt.Sprintf("%d queries checked at k=%d, %d disagree with the exact neighbours", r.Queries, r.K, r.Disagree)
	for _, d := range r.First {
		s += fmt.Sprintf("\nquery %d: file %v, exact %v", d.Query, d.File, d.Exact)
	}
	return s
}

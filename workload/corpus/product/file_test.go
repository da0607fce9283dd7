package product

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/vectorfile"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/workload/corpus"
)

// fixture is one of dataset/vectorfile's files, made by numpy and h5py
// with a brute-force truth (testdata/make.py there).
func fixture(name string) string { return "../../../dataset/vectorfile/testdata/" + name }

func fileTruth(t *testing.T, name string, prepopulate float64) (Products, *corpus.Truth) {
	t.Helper()
	mix, err := dataset.ParseQueryMix("knn=3,knn-category=1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromFile(fixture(name), vectorfile.Options{}, dataset.Config{Seed: 7, Prepopulate: prepopulate}, mix)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := corpus.NewTruth(context.Background(), p, 60, 10)
	if err != nil || tr == nil {
		t.Fatalf("truth: %v %v", tr, err)
	}
	return p, tr
}

// Built from an embedding file, the corpus's exact answers are compared
// with the file's own neighbours (a truth numpy computed): the right file
// agrees on every unfiltered kNN answer, the file with two queries'
// neighbours swapped is reported at exactly those queries, and a corpus
// that does not load every train vector says why it cannot compare.
func TestFileNeighboursCheckTheExactAnswers(t *testing.T) {
	t.Parallel()
	p, tr := fileTruth(t, "angular.hdf5", 1)
	if p.IDs() != 1000 || p.Dim() != 32 {
		t.Fatalf("corpus of %d IDs, %d dimensions; want the file's 1,000 × 32", p.IDs(), p.Dim())
	}
	s := tr.Stated
	if s == nil || s.Skipped != "" || s.Compared == 0 || s.Disagree != 0 {
		t.Fatalf("the right file: %+v; want every compared answer to agree", s)
	}
	// The knn-category answers have a filter: the file's neighbours are
	// not their truth, so fewer than the sample are compared.
	if s.Compared >= len(tr.Queries) {
		t.Errorf("%d of %d answers compared; filtered ones must be passed over", s.Compared, len(tr.Queries))
	}
	_, wrong := fileTruth(t, "wrong.hdf5", 1)
	w := wrong.Stated
	if w == nil || w.Disagree == 0 || w.Compared != s.Compared {
		t.Fatalf("the file with queries 3 and 7 swapped: %+v; want disagreements among %d", w, s.Compared)
	}
	for _, line := range strings.Split(w.Detail, "\n")[1:] {
		if !strings.HasPrefix(line, "query 3:") && !strings.HasPrefix(line, "query 7:") {
			t.Errorf("reported %q; only queries 3 and 7 are wrong", line)
		}
	}
	_, part := fileTruth(t, "angular.hdf5", 0.9)
	if part.Stated == nil || part.Stated.Skipped == "" || part.Stated.Compared != 0 {
		t.Errorf("a corpus that loads 90%% of the train vectors: %+v; want the comparison skipped, with why", part.Stated)
	}
}

// The file names the corpus: its provenance differs from a generated
// corpus's and from another file's, so their results never merge.
func TestFileNamesTheCorpus(t *testing.T) {
	t.Parallel()
	a, _ := fileTruth(t, "angular.hdf5", 1)
	b, _ := fileTruth(t, "wrong.hdf5", 1)
	g, err := New(dataset.Config{Seed: 7, IDs: 1000, Prepopulate: 1}, 32, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	ga, gb, gg := a.Identity().Generator, b.Identity().Generator, g.Identity().Generator
	if ga == gb || ga == gg || !strings.Contains(ga, "angular.hdf5") || gg != dataset.ProductGenerator+"/dim=32" {
		t.Errorf("generators %q, %q, %q; want each file named, and the generated corpus's unchanged", ga, gb, gg)
	}
}

// The file's distance is the corpus's: its schema asks the engines for an
// index of that metric, and its exact answers, ranked by it, agree with
// the file's neighbours (numpy's, by L2 for the euclidean file, whose
// neighbours differ from the cosine ones: vectorfile's TestCheckEuclidean).
func TestFileMetricIsTheIndexAndTheTruth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file string
		want engines.Metric
	}{{"angular.hdf5", engines.Cosine}, {"euclidean.hdf5", engines.L2}} {
		p, tr := fileTruth(t, c.file, 1)
		var got []engines.Metric
		for _, f := range p.Schema().Fields {
			if f.Type == engines.Vector {
				got = append(got, f.Metric)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: the schema's vector metrics %v, want [%v]", c.file, got, c.want)
		}
		if s := tr.Stated; s == nil || s.Skipped != "" || s.Compared == 0 || s.Disagree != 0 {
			t.Errorf("%s: %+v; want every compared answer to agree with the file's neighbours", c.file, s)
		}
	}
	g, err := New(dataset.Config{Seed: 7, IDs: 100, Prepopulate: 1}, 8, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	if f := g.Schema().Fields; f[len(f)-1].Type != engines.Vector || f[len(f)-1].Metric != engines.Cosine {
		t.Errorf("the generated corpus's vector field %+v, want cosine", f[len(f)-1])
	}
}

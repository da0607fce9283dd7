package vectorfile

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// sums is what make.py printed for one set of vectors, from numpy.
type sums struct {
	Rows, Cols  int
	Weighted    float64
	First, Last []float64
}

type manifest struct {
	Train, Test, Btrain, Btest sums
	Angular                    struct {
		Neighbors [][]int
		Distances [][]float64
	}
	Euclidean  struct{ Neighbors [][]int }
	Wrong      struct{ Queries []int }
	Bneighbors [][]int
}

func readManifest(t testing.TB) manifest {
	t.Helper()
	b, err := os.ReadFile("testdata/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sameVectors checks v against numpy's sums: shape, the first and last
// vectors bit for bit, and the position-weighted sum of all values (to
// the rounding of a different summation order).
func sameVectors(t *testing.T, name string, v Vectors, want sums) {
	t.Helper()
	if v.Len() != want.Rows || v.Dim != want.Cols {
		t.Fatalf("%s: %d×%d, numpy wrote %d×%d", name, v.Len(), v.Dim, want.Rows, want.Cols)
	}
	for _, row := range []struct {
		i    int
		want []float64
	}{{0, want.First}, {v.Len() - 1, want.Last}} {
		for j, x := range v.Row(row.i) {
			if float64(x) != row.want[j] {
				t.Fatalf("%s: vector %d [%d] = %v, numpy wrote %v", name, row.i, j, x, row.want[j])
			}
		}
	}
	var w float64
	for i, x := range v.Data {
		w += float64(x) * float64(i%97+1)
	}
	if math.Abs(w-want.Weighted) > 1e-9*math.Abs(want.Weighted)+1e-9 {
		t.Errorf("%s: weighted sum %v, numpy's %v", name, w, want.Weighted)
	}
}

func sameNeighbours(t *testing.T, name string, got, want [][]int) {
	t.Helper()
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%s: neighbours differ from numpy's\n got %v\nwant %v", name, got, want)
	}
}

func mustOpen(t testing.TB, path string, opts Options) *File {
	t.Helper()
	f, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var fvecsOpts = Options{Queries: "testdata/query.fvecs", Truth: "testdata/groundtruth.ivecs", Distance: "angular"}

// Each format reads back what numpy wrote: the same vectors and the same
// neighbours, as train positions.
func TestOpenEachFormat(t *testing.T) {
	m := readManifest(t)
	for _, c := range []struct {
		path, format string
		opts         Options
		ids          bool
	}{
		{"testdata/angular.hdf5", "hdf5", Options{}, false},
		{"testdata/base.fvecs", "fvecs", fvecsOpts, false},
		{"testdata", "parquet", Options{Distance: "cosine"}, true},
		{"testdata/train.parquet", "parquet", Options{Distance: "cosine"}, true},
	} {
		t.Run(c.path, func(t *testing.T) {
			f := mustOpen(t, c.path, c.opts)
			if f.Format != c.format || f.Distance != Angular || f.K() != 10 {
				t.Errorf("format %q, distance %q, k %d; want %q, angular, 10", f.Format, f.Distance, f.K(), c.format)
			}
			sameVectors(t, "train", f.Train, m.Train)
			sameVectors(t, "test", f.Test, m.Test)
			sameNeighbours(t, "neighbors", f.Neighbors, m.Angular.Neighbors)
			if (f.IDs != nil) != c.ids {
				t.Errorf("ids %v, want some: %v", f.IDs != nil, c.ids)
			}
		})
	}
}

func TestOpenHDF5Distances(t *testing.T) {
	m := readManifest(t)
	f := mustOpen(t, "testdata/angular.hdf5", Options{Distance: "cosine"})
	for q, row := range f.Distances {
		for j, d := range row {
			if math.Abs(float64(d)-m.Angular.Distances[q][j]) > 1e-6 {
				t.Fatalf("query %d, neighbour %d: distance %v, numpy's %v", q, j, d, m.Angular.Distances[q][j])
			}
		}
	}
	if len(f.Distances) != 20 {
		t.Errorf("%d distance lists, want 20", len(f.Distances))
	}
}

func TestOpenBvecs(t *testing.T) {
	m := readManifest(t)
	f := mustOpen(t, "testdata/base.bvecs", Options{Queries: "testdata/query.bvecs", Truth: "testdata/groundtruth_b.ivecs", Distance: "l2"})
	if f.Format != "bvecs" || f.Distance != Euclidean {
		t.Errorf("format %q, distance %q; want bvecs, euclidean", f.Format, f.Distance)
	}
	sameVectors(t, "train", f.Train, m.Btrain)
	sameVectors(t, "test", f.Test, m.Btest)
	sameNeighbours(t, "neighbors", f.Neighbors, m.Bneighbors)
}

// The harness's exact answers are each angular file's own neighbours.
func TestCheckAgrees(t *testing.T) {
	for _, c := range []struct {
		path string
		opts Options
	}{
		{"testdata/angular.hdf5", Options{}},
		{"testdata/base.fvecs", fvecsOpts},
		{"testdata", Options{Distance: "angular"}},
	} {
		r, err := mustOpen(t, c.path, c.opts).Check(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if r.Queries != 20 || r.K != 10 || r.Disagree != 0 || len(r.First) != 0 {
			t.Errorf("%s: %s; want 20 queries at k=10, none disagreeing", c.path, r)
		}
	}
}

// wrong.hdf5 swaps queries 3's and 7's lists: both are reported, each
// with the file's list and the exact one.
func TestCheckReportsWrongNeighbours(t *testing.T) {
	m := readManifest(t)
	r, err := mustOpen(t, "testdata/wrong.hdf5", Options{}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Queries != 20 || r.Disagree != 2 || len(r.First) != 2 {
		t.Fatalf("%s; want 2 of 20 disagreeing", r)
	}
	for i, q := range m.Wrong.Queries {
		d := r.First[i]
		other := m.Wrong.Queries[1-i]
		if d.Query != q || !slices.Equal(d.File, m.Angular.Neighbors[other]) || !slices.Equal(d.Exact, m.Angular.Neighbors[q]) {
			t.Errorf("disagreement %d: %+v; want query %d with file %v and exact %v", i, d, q, m.Angular.Neighbors[other], m.Angular.Neighbors[q])
		}
	}
	if s := r.String(); !strings.Contains(s, "2 disagree") || strings.Count(s, "\n") != 2 {
		t.Errorf("report %q: want the counts and two disagreements", s)
	}
}

// The Euclidean files — the float HDF5 set and the uint8 bvecs set,
// whose neighbours numpy computed — agree with the harness's exact
// answers under L2; a file that names no distance is refused rather than
// checked against a guessed one.
func TestCheckEuclidean(t *testing.T) {
	m := readManifest(t)
	f := mustOpen(t, "testdata/euclidean.hdf5", Options{})
	if f.Distance != Euclidean {
		t.Errorf("distance %q, want euclidean", f.Distance)
	}
	sameNeighbours(t, "neighbors", f.Neighbors, m.Euclidean.Neighbors)
	if slices.Equal(m.Euclidean.Neighbors[0], m.Angular.Neighbors[0]) {
		t.Fatal("query 0's euclidean and angular neighbours are the same: the fixture cannot tell the metrics apart")
	}
	for _, c := range []struct {
		f       *File
		queries int
	}{
		{f, 20},
		{mustOpen(t, "testdata/base.bvecs", Options{Queries: "testdata/query.bvecs", Truth: "testdata/groundtruth_b.ivecs", Distance: "l2"}), 5},
	} {
		r, err := c.f.Check(context.Background())
		if err != nil || r.Queries != c.queries || r.K != 10 || r.Disagree != 0 {
			t.Errorf("%s check: %s, %v; want %d queries at k=10, none disagreeing", c.f.Format, r, err, c.queries)
		}
	}
	// The euclidean file's truth is not the angular one: scored as
	// angular, it disagrees.
	f.Distance = Angular
	if r, err := f.Check(context.Background()); err != nil || r.Disagree == 0 {
		t.Errorf("the euclidean file checked as angular: %s, %v; want disagreements", r, err)
	}
	unnamed := mustOpen(t, "testdata/base.fvecs", Options{Queries: fvecsOpts.Queries, Truth: fvecsOpts.Truth})
	if _, err := unnamed.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "names no distance") {
		t.Errorf("check of a file with no distance: %v, want refused", err)
	}
}

// A dot-product file whose truth is plain by construction: train vector i
// is i+1 times a unit vector along the first axis, i in 0..9, or along
// the second for i in 10..19; a query along the first axis has the
// largest inner products at the longest first-axis vectors, 9 down to 0,
// though cosine ties all ten and L2 prefers the nearest in length.
func TestCheckDot(t *testing.T) {
	train := Vectors{Dim: 2, Data: make([]float32, 40)}
	for i := range 20 {
		train.Data[2*i+i/10] = float32(i%10 + 1)
	}
	f := &File{Format: "hdf5", Distance: Dot, Train: train, Test: Vectors{Dim: 2, Data: []float32{3, 0}},
		Neighbors: [][]int{{9, 8, 7, 6, 5}}}
	if r, err := f.Check(context.Background()); err != nil || r.Disagree != 0 {
		t.Errorf("dot: %s, %v; want agreement", r, err)
	}
	f.Distance = Euclidean // nearest in L2 to (3, 0): 2, then 1 and 3, ...
	if r, err := f.Check(context.Background()); err != nil || r.Disagree != 1 {
		t.Errorf("the dot truth checked as euclidean: %s, %v; want it to disagree", r, err)
	}
}

func TestCheckStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustOpen(t, "testdata/angular.hdf5", Options{}).Check(ctx); err == nil {
		t.Error("check after cancel: no error")
	}
}

// Malformed inputs are refused with one line that says what is wrong.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, err := os.ReadFile("testdata/base.fvecs")
	if err != nil {
		t.Fatal(err)
	}
	train, err := decodeFvecs(base)
	if err != nil {
		t.Fatal(err)
	}
	ragged := split(slices.Clone(train.Data), train.Dim)
	ragged[3] = ragged[3][:31]
	nan := slices.Clone(train.Data)
	nan[5*32+2] = float32(math.NaN())
	truth := func(name string, rows ...[]int) string { return write(name+".ivecs", encodeXvecs(rows, 4, putInt)) }
	q, gt := fvecsOpts.Queries, fvecsOpts.Truth
	for _, c := range []struct {
		name, path string
		opts       Options
		want       string
	}{
		{"truncated record", write("trunc.fvecs", base[:len(base)-3]), Options{Queries: q, Truth: gt}, "record 999 is truncated"},
		{"truncated dimension", write("trunc4.fvecs", base[:132*2+2]), Options{Queries: q, Truth: gt}, "record 2 is truncated"},
		{"dimensions differ between records", write("ragged.fvecs", encodeXvecs(ragged, 4, putFloat)), Options{Queries: q, Truth: gt}, "record 3 has dimension 31, record 0 has 32"},
		{"empty file", write("empty.fvecs", nil), Options{Queries: q, Truth: gt}, "no records"},
		{"dimension zero", write("zero.fvecs", []byte{0, 0, 0, 0}), Options{Queries: q, Truth: gt}, "dimension 0"},
		{"train and test dimensions differ", "testdata/base.fvecs", Options{Queries: write("q16.fvecs", encodeXvecs([][]float32{make([]float32, 16)}, 4, putFloat)), Truth: truth("one", []int{1})}, "test vectors have dimension 16, train vectors 32"},
		{"fewer neighbour lists than queries", "testdata/base.fvecs", Options{Queries: q, Truth: truth("short", slices.Repeat([][]int{{1, 2}}, 19)...)}, "19 neighbour lists for 20 test vectors"},
		{"neighbour outside train", "testdata/base.fvecs", Options{Queries: q, Truth: truth("past", slices.Repeat([][]int{{1000}}, 20)...)}, "query 0 names neighbour 1000, outside the 1000 train vectors"},
		{"negative neighbour", "testdata/base.fvecs", Options{Queries: q, Truth: truth("negative", slices.Repeat([][]int{{-1}}, 20)...)}, "neighbour -1, outside"},
		{"NaN in a vector", write("nan.fvecs", fvecs(Vectors{Dim: 32, Data: nan})), Options{Queries: q, Truth: gt}, "train vector 5 has NaN at 2"},
		{"no queries named", "testdata/base.fvecs", Options{Truth: gt}, "Options.Queries"},
		{"truth not ivecs", "testdata/base.fvecs", Options{Queries: q, Truth: q}, "must be an .ivecs"},
		{"distance against the file's", "testdata/angular.hdf5", Options{Distance: "euclidean"}, "the file's distance is angular, not euclidean"},
		{"unknown distance", "testdata/angular.hdf5", Options{Distance: "hamming"}, `unknown distance "hamming"`},
		{"unknown extension", write("x.npy", []byte{1}), Options{}, `unknown format ".npy"`},
		{"not an HDF5 file", write("x.hdf5", base[:512]), Options{}, "x.hdf5"},
		{"missing file", filepath.Join(dir, "none.h5"), Options{}, "none.h5"},
		{"Parquet file without emb", "testdata/neighbors.parquet", Options{}, `no column "emb"`},
		{"Parquet set without its truth", write("train.parquet", mustRead(t, "testdata/train.parquet")), Options{Queries: "testdata/test.parquet"}, "neighbors.parquet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(c.path, c.opts)
			if err == nil {
				t.Fatalf("opened: %d train vectors", f.Train.Len())
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line containing %q", msg, c.want)
			}
		})
	}
}

// Files written from pandas may hold doubles and int32 ids: the library
// converts them to the float32 vectors and int64 ids that are read.
func TestParquetConvertsDoubles(t *testing.T) {
	type row struct {
		ID  int32     `parquet:"id"`
		Emb []float64 `parquet:"emb,list"`
	}
	p := filepath.Join(t.TempDir(), "train.parquet")
	if err := parquet.WriteFile(p, []row{{7, []float64{1.5, -2}}, {3, []float64{0.25, 4}}}); err != nil {
		t.Fatal(err)
	}
	v, ids, err := readEmb(p)
	if err != nil {
		t.Fatal(err)
	}
	if v.Dim != 2 || !slices.Equal(v.Data, []float32{1.5, -2, 0.25, 4}) || !slices.Equal(ids, []int64{7, 3}) {
		t.Errorf("read %v, ids %v; want 2-D [1.5 -2 0.25 4], ids [7 3]", v, ids)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func BenchmarkOpenHDF5(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustOpen(b, "testdata/angular.hdf5", Options{})
	}
}

func BenchmarkOpenFvecs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustOpen(b, "testdata/base.fvecs", fvecsOpts)
	}
}

func BenchmarkOpenParquet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustOpen(b, "testdata", Options{Distance: "angular"})
	}
}

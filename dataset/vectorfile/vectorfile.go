// Package vectorfile reads the embedding files that users already hold, as
// the vector part of a corpus: ann-benchmarks HDF5 (train, test,
// neighbors, distances and a distance attribute), TEXMEX fvecs/bvecs with
// an ivecs ground truth, and VectorDBBench's Parquet set (train.parquet,
// test.parquet, neighbors.parquet). Whatever the format, Open returns one
// File of train vectors, test vectors and each test vector's nearest train
// vectors as the file states them, after refusing, with one line, what a
// benchmark must not run on: differing dimensions, empty sets, NaN or Inf,
// neighbour indexes outside train, truncated records. Check then recomputes
// the truth with the harness's own exact search and reports where the file
// disagrees.
package vectorfile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Metric names, as File.Distance holds them.
const (
	Angular   = "angular"   // cosine distance, 1 − cos
	Euclidean = "euclidean" // L2
	Dot       = "dot"       // inner product
)

// Options names what the path alone does not.
type Options struct {
	// Queries is the query vector file of an fvecs/bvecs base (.fvecs or
	// .bvecs), required there; for Parquet it replaces test.parquet beside
	// the train file.
	Queries string
	// Truth is the ground truth: an .ivecs file of 0-based train indexes,
	// required for fvecs/bvecs; for Parquet it replaces neighbors.parquet.
	Truth string
	// Distance names the metric where the format does not carry one
	// (fvecs, Parquet): angular or cosine, euclidean or l2, dot or ip.
	// For HDF5 it may be left empty; when set it must agree with the file.
	Distance string
}

// Vectors is a set of vectors of one dimension, row after row.
type Vectors struct {
	Dim  int
	Data []float32
}

// Len is the number of vectors.
func (v Vectors) Len() int {
	if v.Dim == 0 {
		return 0
	}
	return len(v.Data) / v.Dim
}

// Row is vector i, sharing Data's memory.
func (v Vectors) Row(i int) []float32 { return v.Data[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim] }

// File is one vector corpus with its queries and their stated truth.
type File struct {
	Format   string // "hdf5", "fvecs", "bvecs" or "parquet"
	Distance string // Angular, Euclidean, Dot, or "" when nothing names it
	Train    Vectors
	Test     Vectors
	// Neighbors is, for each test vector, the file's nearest train vectors
	// as indexes into Train, nearest first; every row has the same length.
	Neighbors [][]int
	// Distances are the file's distances to those neighbours, nil when the
	// format stores none.
	Distances [][]float32
	// IDs are the train vectors' ids in a format that names them
	// (Parquet's id column), nil where a vector's id is its position.
	IDs []int64
}

// K is how many neighbours each query's truth lists.
func (f *File) K() int {
	if len(f.Neighbors) == 0 {
		return 0
	}
	return len(f.Neighbors[0])
}

// Open reads the corpus at path, choosing the format by its extension:
// .hdf5 or .h5 is ann-benchmarks HDF5; .fvecs or .bvecs is a TEXMEX base,
// with opts.Queries and opts.Truth; .parquet, or a directory, is a
// VectorDBBench set (train.parquet, test.parquet and neighbors.parquet in
// one directory, path naming the directory or its train file). The error
// is one line naming the file and what is wrong with it.
func Open(path string, opts Options) (*File, error) {
	distance, err := metric(opts.Distance)
	if err != nil {
		return nil, err
	}
	f, err := open(path, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Distance == "":
		f.Distance = distance
	case distance != "" && distance != f.Distance:
		return nil, fmt.Errorf("vectorfile: %s: the file's distance is %s, not %s", path, f.Distance, distance)
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	return f, nil
}

func open(path string, opts Options) (*File, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("vectorfile: %w", err)
	} else if st.IsDir() {
		return openParquet(filepath.Join(path, "train.parquet"), opts)
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".hdf5", ".h5":
		return openHDF5(path)
	case ".fvecs", ".bvecs":
		return openXvecs(path, opts)
	case ".parquet":
		return openParquet(path, opts)
	default:
		return nil, fmt.Errorf("vectorfile: %s: unknown format %q (want .hdf5, .h5, .fvecs, .bvecs, .parquet or a directory of Parquet files)", path, ext)
	}
}

// metric is the Distance constant that name stands for; "" for "".
func metric(name string) (string, error) {
	switch strings.ToLower(name) {
	case "":
		return "", nil
	case "angular", "cosine":
		return Angular, nil
	case "euclidean", "l2":
		return Euclidean, nil
	case "dot", "ip":
		return Dot, nil
	default:
		return "", fmt.Errorf("vectorfile: unknown distance %q (want angular, euclidean or dot)", name)
	}
}

// validate refuses a corpus that no benchmark should run on.
func (f *File) validate() error {
	n, q := f.Train.Len(), f.Test.Len()
	switch {
	case n == 0:
		return errors.New("the train set is empty")
	case q == 0:
		return errors.New("the test set is empty")
	case f.Test.Dim != f.Train.Dim:
		return fmt.Errorf("test vectors have dimension %d, train vectors %d", f.Test.Dim, f.Train.Dim)
	case uint64(n) > math.MaxUint32:
		return fmt.Errorf("%d train vectors: more than the harness's 32-bit document ids", n)
	case len(f.Neighbors) != q:
		return fmt.Errorf("%d neighbour lists for %d test vectors", len(f.Neighbors), q)
	case f.K() == 0:
		return errors.New("the neighbour lists are empty")
	case f.Distances != nil && len(f.Distances) != q:
		return fmt.Errorf("%d distance lists for %d test vectors", len(f.Distances), q)
	}
	for _, s := range []struct {
		name string
		v    Vectors
	}{{"train", f.Train}, {"test", f.Test}} {
		for i, x := range s.v.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%s vector %d has %v at %d", s.name, i/s.v.Dim, x, i%s.v.Dim)
			}
		}
	}
	k := f.K()
	for i, row := range f.Neighbors {
		if len(row) != k {
			return fmt.Errorf("query %d has %d neighbours, query 0 has %d", i, len(row), k)
		}
		if f.Distances != nil && len(f.Distances[i]) != k {
			return fmt.Errorf("query %d has %d distances for %d neighbours", i, len(f.Distances[i]), k)
		}
		for _, j := range row {
			if j < 0 || j >= n {
				return fmt.Errorf("query %d names neighbour %d, outside the %d train vectors", i, j, n)
			}
		}
	}
	return nil
}

package vectorfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// VectorDBBench's column names (its BaseDataset: train_id_field,
// train_vector_field, gt_neighbors_field): vectors in id and emb, truth in
// id (the test vector's) and neighbors_id (train ids, not positions).
type embRow struct {
	ID  int64     `parquet:"id"`
	Emb []float32 `parquet:"emb,list"`
}

type truthRow struct {
	ID          int64   `parquet:"id"`
	NeighborsID []int64 `parquet:"neighbors_id,list"`
}

// openParquet reads a VectorDBBench set: train at path, test and truth
// beside it unless opts names them.
func openParquet(path string, opts Options) (*File, error) {
	dir := filepath.Dir(path)
	testPath, truthPath := opts.Queries, opts.Truth
	if testPath == "" {
		testPath = filepath.Join(dir, "test.parquet")
	}
	if truthPath == "" {
		truthPath = filepath.Join(dir, "neighbors.parquet")
	}
	train, trainIDs, err := readEmb(path)
	if err != nil {
		return nil, err
	}
	test, testIDs, err := readEmb(testPath)
	if err != nil {
		return nil, err
	}
	truth, err := readRows[truthRow](truthPath, "id", "neighbors_id")
	if err != nil {
		return nil, err
	}
	neighbors, err := positions(trainIDs, testIDs, truth)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", truthPath, err)
	}
	return &File{Format: "parquet", Train: train, Test: test, Neighbors: neighbors, IDs: trainIDs}, nil
}

// readRows reads every row of the Parquet file at path, after checking
// that it has the columns named: the library leaves a field that the file
// lacks at its zero value, which would read as empty vectors.
func readRows[T any](path string, columns ...string) ([]T, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %w", err)
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %w", err)
	}
	f, err := parquet.OpenFile(r, st.Size())
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	for _, c := range columns {
		if f.Root().Column(c) == nil {
			return nil, fmt.Errorf("vectorfile: %s: no column %q", path, c)
		}
	}
	rows := make([]T, f.NumRows())
	reader := parquet.NewGenericReader[T](f)
	defer reader.Close()
	n, err := reader.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	return rows[:n], nil
}

// readEmb reads a file of id and emb, refusing vectors of differing
// dimension and repeated ids.
func readEmb(path string) (Vectors, []int64, error) {
	rows, err := readRows[embRow](path, "id", "emb")
	if err != nil {
		return Vectors{}, nil, err
	}
	if len(rows) == 0 {
		return Vectors{}, nil, fmt.Errorf("vectorfile: %s: no rows", path)
	}
	v := Vectors{Dim: len(rows[0].Emb)}
	v.Data = make([]float32, 0, len(rows)*v.Dim)
	ids := make([]int64, len(rows))
	seen := make(map[int64]int, len(rows))
	for i, r := range rows {
		if len(r.Emb) != v.Dim || v.Dim == 0 {
			return Vectors{}, nil, fmt.Errorf("vectorfile: %s: row %d (id %d) has dimension %d, row 0 has %d", path, i, r.ID, len(r.Emb), v.Dim)
		}
		if j, dup := seen[r.ID]; dup {
			return Vectors{}, nil, fmt.Errorf("vectorfile: %s: rows %d and %d have the same id %d", path, j, i, r.ID)
		}
		seen[r.ID] = i
		ids[i] = r.ID
		v.Data = append(v.Data, r.Emb...)
	}
	return v, ids, nil
}

// positions turns the truth's rows, keyed by test id and naming train
// ids, into neighbour lists in test order naming train positions.
func positions(trainIDs, testIDs []int64, truth []truthRow) ([][]int, error) {
	train := make(map[int64]int, len(trainIDs))
	for i, id := range trainIDs {
		train[id] = i
	}
	byTest := make(map[int64][]int64, len(truth))
	for _, r := range truth {
		if _, dup := byTest[r.ID]; dup {
			return nil, fmt.Errorf("two neighbour lists for test id %d", r.ID)
		}
		byTest[r.ID] = r.NeighborsID
	}
	if len(byTest) != len(testIDs) {
		return nil, fmt.Errorf("%d neighbour lists for %d test vectors", len(byTest), len(testIDs))
	}
	out := make([][]int, len(testIDs))
	for q, id := range testIDs {
		ids, ok := byTest[id]
		if !ok {
			return nil, fmt.Errorf("no neighbour list for test id %d", id)
		}
		out[q] = make([]int, len(ids))
		for j, n := range ids {
			i, ok := train[n]
			if !ok {
				return nil, fmt.Errorf("test id %d names neighbour id %d, which is not in train", id, n)
			}
			out[q][j] = i
		}
	}
	return out, nil
}

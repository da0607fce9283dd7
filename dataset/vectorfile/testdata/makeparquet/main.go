// Command makeparquet writes the Parquet fixture, VectorDBBench's set of
// train.parquet, test.parquet and neighbors.parquet, from the fvecs set
// that make.py wrote with numpy (Debian ships no pyarrow to write it
// there). Ids are not positions, and the rows are not in id order, so
// that a reader that confuses the two fails. Run from this folder:
// go run ./makeparquet.
package main

import (
	"log"

	"github.com/parquet-go/parquet-go"

	"github.com/searchbench/searchbench/dataset/vectorfile"
)

type embRow struct {
	ID  int64     `parquet:"id"`
	Emb []float32 `parquet:"emb,list"`
}

type truthRow struct {
	ID          int64   `parquet:"id"`
	NeighborsID []int64 `parquet:"neighbors_id,list"`
}

// id is vector i's id: sparse, and decreasing, unlike its position.
func id(i int) int64 { return int64(100000 - 7*i) }

func main() {
	f, err := vectorfile.Open("base.fvecs", vectorfile.Options{Queries: "query.fvecs", Truth: "groundtruth.ivecs"})
	if err != nil {
		log.Fatal(err)
	}
	rows := func(v vectorfile.Vectors) []embRow {
		out := make([]embRow, v.Len())
		for i := range out {
			out[i] = embRow{ID: id(i), Emb: v.Row(i)}
		}
		return out
	}
	// Test ids are numbered on their own, apart from train's.
	test := rows(f.Test)
	for i := range test {
		test[i].ID = int64(i) + 1
	}
	truth := make([]truthRow, len(f.Neighbors))
	for q, ns := range f.Neighbors {
		truth[q].ID = int64(q) + 1
		for _, n := range ns {
			truth[q].NeighborsID = append(truth[q].NeighborsID, id(n))
		}
	}
	// The truth in reverse order: a reader must match it by test id.
	for i, j := 0, len(truth)-1; i < j; i, j = i+1, j-1 {
		truth[i], truth[j] = truth[j], truth[i]
	}
	for name, err := range map[string]error{
		"train.parquet":     parquet.WriteFile("train.parquet", rows(f.Train)),
		"test.parquet":      parquet.WriteFile("test.parquet", test),
		"neighbors.parquet": parquet.WriteFile("neighbors.parquet", truth),
	} {
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
	}
}

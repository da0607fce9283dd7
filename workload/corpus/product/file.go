package product

import (
	"fmt"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/vectorfile"
	"github.com/searchbench/searchbench/workload/corpus"
)

// FromFile is the product corpus whose embeddings are the train vectors
// of the embedding file at path and whose kNN queries are its test
// vectors (vectorfile.Products says how IDs map to vectors; cfg.IDs 0 is
// the file's train count; opts names what the path alone does not). Its
// exact answers are also compared with the file's own neighbours
// (Truth.Stated).
func FromFile(path string, opts vectorfile.Options, cfg dataset.Config, queries dataset.QueryMix) (Products, error) {
	f, err := vectorfile.Open(path, opts)
	if err != nil {
		return Products{}, err
	}
	p, err := vectorfile.Products(f, path, cfg, queries)
	if err != nil {
		return Products{}, err
	}
	return Products{Products: p, file: f, path: path}, nil
}

// stated compares the sample's exact kNN answers with the file's
// neighbours: the queries whose vector is a test vector and that have no
// filter, when every train vector is pre-populated (otherwise the file's
// neighbours are not the truth of what was loaded, and Skipped says so).
func (p Products) stated(t *corpus.Truth, asked []dataset.ProductQuery, at []int) *corpus.Stated {
	answers := make([]vectorfile.Answer, len(asked))
	for j, pq := range asked {
		answers[j] = vectorfile.Answer{Query: pq, Exact: t.Queries[at[j]].Want}
	}
	s := &corpus.Stated{Source: p.path}
	r, err := p.file.CheckAnswers(p.Products, answers)
	if err != nil {
		s.Skipped = err.Error()
		return s
	}
	s.Compared, s.Disagree = r.Queries, r.Disagree
	if r.Disagree > 0 {
		s.Detail = r.String()
	}
	if r.Queries == 0 {
		s.Skipped = fmt.Sprintf("no sample query is an unfiltered kNN search of a test vector (the mix: %s)", p.Mix())
	}
	return s
}

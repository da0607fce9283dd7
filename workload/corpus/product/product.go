// Package product is Study B's corpus as a workload: ~4.6 KB product
// hashes with a TAG, a NUMERIC, three TEXT fields and a float32 embedding
// (dataset.Products), searched by the kinds of dataset's table (kNN with
// and without filters, SKU lookups, hybrid); its known-item checks look a
// product up by SKU and by its own embedding, its freshness probe marks
// the title, and it computes the exact answers its kinds have (truth.go).
// Registered as "product".
package product

import (
	"context"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/dataset/vectorfile"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload/corpus"
)

// Name is the corpus's name in the registry and the --corpus flag.
const Name = "product"

func init() {
	corpus.Register(Name, func(cfg corpus.Config) (corpus.Source, error) {
		if cfg.Vectors != "" {
			return FromFile(cfg.Vectors, cfg.VectorFiles, cfg.Config, cfg.Queries)
		}
		return New(cfg.Config, cfg.Dim, cfg.Queries)
	})
}

// Products is Study B's corpus.
type Products struct {
	*dataset.Products
	// file is the embedding file the vectors come from (FromFile), read
	// from path; nil when they are generated.
	file *vectorfile.File
	path string
}

// New builds the product corpus with dim-dimensional embeddings, its
// searches drawn by queries (the zero mix: dataset.DefaultQueryMix).
func New(cfg dataset.Config, dim int, queries dataset.QueryMix) (Products, error) {
	p, err := dataset.NewProducts(cfg, dim, queries)
	if err != nil {
		return Products{}, err
	}
	return Products{Products: p}, nil
}

// Product field names, as the engines see them: the names the kinds'
// queries use (dataset's).
const (
	FieldCategory    = dataset.FieldCategory
	FieldPrice       = dataset.FieldPrice
	FieldSKU         = dataset.FieldSKU
	FieldTitle       = dataset.FieldTitle
	FieldDescription = dataset.FieldDescription
	FieldEmbedding   = dataset.FieldEmbedding
)

// Schema is the product index: every field of the hash. Which of them an
// engine indexes is the driver's configuration (Study B varies it).
func (p Products) Schema() engines.Schema {
	return engines.Schema{Name: "product", Fields: []engines.FieldSpec{
		{Name: FieldCategory, Type: engines.Tag},
		{Name: FieldPrice, Type: engines.Numeric},
		{Name: FieldSKU, Type: engines.Text},
		{Name: FieldTitle, Type: engines.Text},
		{Name: FieldDescription, Type: engines.Text},
		{Name: FieldEmbedding, Type: engines.Vector, Dim: p.Dim(), Metric: p.metric().Index()},
	}}
}

// metric is the distance the corpus's nearest neighbours are by: its
// file's (vectorfile.Products refuses a file that names none), or cosine
// for generated embeddings.
func (p Products) metric() neighbours.Metric {
	if p.file == nil {
		return neighbours.Cosine
	}
	m, _ := p.file.Metric()
	return m
}

// Document converts a product for the engines.
func (p Products) Document(id, version uint32) engines.Document {
	pr := p.Product(id, version)
	return engines.Document{ID: dataset.DocID(pr.ID), Fields: []engines.Field{
		{Name: FieldCategory, Text: pr.Category},
		{Name: FieldPrice, Number: pr.Price},
		{Name: FieldSKU, Text: pr.SKU},
		{Name: FieldTitle, Text: pr.Title},
		{Name: FieldDescription, Text: pr.Description},
		{Name: FieldEmbedding, Vector: pr.Embedding},
	}}
}

// Query is product query i and its kind, as its kind's entry makes it
// (dataset's table of kinds).
func (p Products) Query(i uint64) (engines.Query, int) {
	pq := p.ProductQuery(i)
	return pq.Query(), int(pq.Kind)
}

// QueryKinds is every product query kind, in dataset.ProductQueryKind
// order.
func (Products) QueryKinds() []string { return dataset.ProductQueryKinds() }

// KindSamples is one query of each kind the mix draws, for the check that
// every setup's engine can answer them (engines.CheckQuery).
func (p Products) KindSamples() map[string]engines.Query {
	out := map[string]engines.Query{}
	for _, k := range p.Mix().Kinds() {
		out[k.String()] = p.ProductQueryOfKind(0, k).Query()
	}
	return out
}

// Provenance names the generator (with the dimension), seed, mix of query
// kinds and hash.
func (p Products) Provenance(ctx context.Context) (result.Corpus, error) {
	return corpus.WithHash(ctx, p.Identity(), p.HashContext)
}

// Identity is Provenance without the hash, which is a function of it.
func (p Products) Identity() result.Corpus {
	c := corpus.Provenance(p.Generator(), p.Config(), p.PrepopulatedCount())
	c.Queries = p.Mix().String()
	return c
}

// KnownQuery alternates an exact SKU lookup and a KNN search with the
// product's own embedding, which must find the product itself: the sku and
// knn kinds' own queries (and names), of the product's own values.
func (p Products) KnownQuery(i uint64, id uint32) (string, engines.Query) {
	pr := p.Product(id, 0)
	if i%2 == 0 {
		return dataset.SKULookup.String(), dataset.ProductQuery{Kind: dataset.SKULookup, ID: id, SKU: pr.SKU}.Query()
	}
	return dataset.KNN.String() + " self", dataset.ProductQuery{Kind: dataset.KNN, Vector: pr.Embedding}.Query()
}

// Mark adds word to the title.
func (Products) Mark(doc *engines.Document, word string) { corpus.MarkField(doc, FieldTitle, word) }

// MarkQuery looks word up in the title, the one text field every product
// index with text has.
func (Products) MarkQuery(word string) engines.Query {
	return engines.Query{Text: word, Field: FieldTitle}
}

package runner

import (
	"context"
	"fmt"
	"strconv"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Source is a workload's data as the engines see it: the index's schema, the
// document every write sends and the query every search sends. Each is a
// pure function of its arguments, so the same seed sends the same bytes, and
// the runner can build a call before its clock starts.
type Source interface {
	// Schema is the index the run creates.
	Schema() engines.Schema
	// IDs is the size of the ID space (IDs are 1…IDs).
	IDs() int
	// Prepopulated says whether id is loaded before the run;
	// PrepopulatedCount is how many are.
	Prepopulated(id uint32) bool
	PrepopulatedCount() int
	// Document is version v of id (0 is the pre-populated version).
	Document(id, version uint32) engines.Document
	// Query is search i, without K (the runner sets it), and its kind, an
	// index into QueryKinds.
	Query(i uint64) (q engines.Query, kind int)
	// QueryKinds names the kinds of query the source can make (every kind,
	// whether its mix draws it or not): the search figures are split by
	// kind when there is more than one.
	QueryKinds() []string
	// Provenance identifies the exact bytes: generator, seed, hash. The
	// hash reads every pre-populated document (a minute at 20 million
	// IDs): it ends with ctx's error when ctx ends first.
	Provenance(ctx context.Context) (result.Corpus, error)
}

// Text is Study A's corpus: documents with a name and a content, searched
// by 5-word free-text queries.
type Text struct{ *dataset.Corpus }

// Schema is the mixed workload's index.
func (Text) Schema() engines.Schema {
	return engines.Schema{Name: "searchbench", Fields: []engines.FieldSpec{
		{Name: "name", Type: engines.Text},
		{Name: "content", Type: engines.Text},
	}}
}

// Document converts a corpus document for the engines.
func (t Text) Document(id, version uint32) engines.Document {
	d := t.Corpus.Document(id, version)
	return engines.Document{ID: dataset.DocID(d.ID), Fields: []engines.Field{
		{Name: "name", Text: d.Name},
		{Name: "content", Text: d.Content},
	}}
}

// Query is a free-text search over every text field.
func (t Text) Query(i uint64) (engines.Query, int) { return engines.Query{Text: t.Corpus.Query(i)}, 0 }

// QueryKinds is the text corpus's one kind.
func (Text) QueryKinds() []string { return []string{"text"} }

// Provenance names the generator, seed and hash.
func (t Text) Provenance(ctx context.Context) (result.Corpus, error) {
	return withHash(ctx, t.identity(), t.HashContext)
}

// identity is Provenance without the hash, which is a function of it.
func (t Text) identity() result.Corpus {
	return provenance(dataset.Generator, t.Config(), t.PrepopulatedCount())
}

// Products is Study B's corpus: ~4.6 KB product hashes with a TAG, a
// NUMERIC, three TEXT fields and a float32 embedding, searched by KNN with
// and without filters and by exact SKU lookups.
type Products struct{ *dataset.Products }

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
		{Name: FieldEmbedding, Type: engines.Vector, Dim: p.Dim()},
	}}
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
	return withHash(ctx, p.identity(), p.HashContext)
}

// identity is Provenance without the hash, which is a function of it.
func (p Products) identity() result.Corpus {
	c := provenance(dataset.ProductGenerator+"/dim="+strconv.Itoa(p.Dim()), p.Config(), p.PrepopulatedCount())
	c.Queries = p.Mix().String()
	return c
}

// withHash is a corpus's identity with its hash, which reads every
// pre-populated document: it ends with ctx's error when ctx ends first.
func withHash(ctx context.Context, c result.Corpus, hash func(context.Context) (string, error)) (result.Corpus, error) {
	h, err := hash(ctx)
	c.Hash = h
	return c, err
}

func provenance(generator string, cfg dataset.Config, prepopulated int) result.Corpus {
	return result.Corpus{Generator: generator, Seed: cfg.Seed, IDs: cfg.IDs, Prepopulate: cfg.Prepopulate,
		Prepopulated: prepopulated}
}

// identified is a source whose provenance, all but the hash, is known
// without reading the corpus: the hash follows from it (Text, Products).
type identified interface{ identity() result.Corpus }

// corpusIdentity is what identifies src's bytes, as merge compares them
// (the result's corpus: generator, seed, IDs, pre-populated fraction, query
// mix), without hashing the corpus when src is one of this package's.
func corpusIdentity(src Source) result.Corpus {
	if s, ok := src.(identified); ok {
		return s.identity()
	}
	// Another Source's provenance is all there is to go by; a digest is
	// taken before the run, so there is no run to cancel yet.
	c, _ := src.Provenance(context.Background())
	return c
}

// Corpus kinds, as the --corpus flag names them.
const (
	CorpusText    = "text"
	CorpusProduct = "product"
)

// NewSource builds the named corpus: text (Study A) or product (Study B,
// with dim-dimensional embeddings and the default mix of query kinds; dim
// is ignored for text). NewProductSource gives the product corpus another
// mix.
func NewSource(kind string, cfg dataset.Config, dim int) (Source, error) {
	switch kind {
	case CorpusText:
		c, err := dataset.New(cfg)
		if err != nil {
			return nil, err
		}
		return Text{c}, nil
	case CorpusProduct:
		return NewProductSource(cfg, dim, dataset.QueryMix{})
	}
	return nil, fmt.Errorf("corpus: %q is neither %s nor %s", kind, CorpusText, CorpusProduct)
}

// NewProductSource builds the product corpus with dim-dimensional
// embeddings, its searches drawn by queries (the zero mix:
// dataset.DefaultQueryMix).
func NewProductSource(cfg dataset.Config, dim int, queries dataset.QueryMix) (Products, error) {
	p, err := dataset.NewProducts(cfg, dim, queries)
	if err != nil {
		return Products{}, err
	}
	return Products{p}, nil
}

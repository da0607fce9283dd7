package dataset

import (
	"errors"
	"fmt"
	"strconv"
)

// Vectors is the vector part of a product corpus read from a file, as
// dataset/vectorfile hands it over (vectorfile.Products): the file's train
// vectors are the products' embeddings, its test vectors the kNN queries'.
// dataset does not read files itself, so that it keeps no dependency on
// the readers (which import the exact search, whose tests import dataset).
type Vectors struct {
	// Name identifies the file's bytes in the generator name, hence in
	// the corpus hash and the result's provenance: two runs on different
	// files must never merge, so it holds a digest of the vectors and the
	// stated truth as well as the file's name, format and counts.
	Name string
	Dim  int
	// Train and Test are the vectors, row after row. The corpus shares
	// their memory with every Product and ProductQuery it returns.
	Train, Test []float32
}

func (v *Vectors) rows(data []float32) int { return len(data) / v.Dim }

func (v *Vectors) row(data []float32, i int) []float32 {
	return data[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim]
}

// NewProductsFromVectors returns the product corpus for cfg whose
// embeddings and kNN query vectors are v's (see Products). Product id i
// (1…IDs) has train vector i−1 as its embedding at every version: a file
// has one vector per id, and keeping it means an upsert changes a
// product's price and text but not its place among the vectors, so the
// file's stated neighbours stay the truth whatever the run rewrote. The
// ID space is the file's train count when cfg.IDs is 0, else cfg.IDs,
// which may be fewer (the first cfg.IDs train vectors) but not more.
// Categories, prices, SKUs and texts are generated as for NewProducts, so
// the filters still work; the dimension is v's.
func NewProductsFromVectors(cfg Config, v Vectors, mix QueryMix) (*Products, error) {
	if v.Dim < 1 || v.Dim > 1<<16 {
		return nil, errDim(v.Dim)
	}
	if v.Name == "" {
		return nil, errors.New("vectors: the file has no name to record")
	}
	if len(v.Train)%v.Dim != 0 || len(v.Test)%v.Dim != 0 {
		return nil, fmt.Errorf("vectors: %s: the vectors are not whole rows of %d", v.Name, v.Dim)
	}
	n := v.rows(v.Train)
	switch {
	case n == 0 || len(v.Test) == 0:
		return nil, fmt.Errorf("vectors: %s: no train or no test vectors", v.Name)
	case cfg.IDs == 0:
		cfg.IDs = n
	case cfg.IDs > n:
		return nil, fmt.Errorf("ids: %d is more than the %d train vectors of %s", cfg.IDs, n, v.Name)
	}
	p, err := NewProducts(cfg, v.Dim, mix)
	if err != nil {
		return nil, err
	}
	p.vectors = &v
	return p, nil
}

// Vectors is the file the corpus's vectors come from, nil when they are
// generated.
func (p *Products) Vectors() *Vectors { return p.vectors }

// Generator names the rules the corpus follows, as the result's
// provenance records them: ProductGenerator, the dimension and, for a
// corpus of file vectors, the file (Vectors.Name).
func (p *Products) Generator() string {
	g := ProductGenerator + "/dim=" + strconv.Itoa(p.dim)
	if p.vectors != nil {
		g += "/vectors=" + p.vectors.Name
	}
	return g
}

// TestVector is the index of the file's test vector that q's vector is,
// false when the vector was generated (a corpus without a file, a kind
// that is not kNN).
func (q ProductQuery) TestVector() (int, bool) { return q.test - 1, q.test > 0 }

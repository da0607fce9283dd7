package dataset

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
)

// The product corpus's kinds of query, each one entry of productKinds:
// everything the harness knows about a kind lives in its entry, and every
// other part of the harness reads it from there — the --queries grammar
// and its help, the draw and the corpus hash, the engines.Query a search
// sends, the filter's meaning that the exact answers use, whether the kind
// has an exact answer and how its recall is scored, the names under which
// result.json and the reports split the searches. The table is here, in
// the package that draws the queries, because a kind's draw reads the
// corpus's own streams and centroids, and because the corpus hash names
// the kinds: a table anywhere else would make dataset import it back.
//
// A new kind is a constant before NumProductQueryKinds and its entry in
// productKinds; an entry without a constant does not compile, a constant
// without an entry (or an entry missing a part) fails TestKindTable. The
// drivers that answer its engines.Query are the only other code to look
// at: if its query has a shape the contract does not describe yet
// (engines.Query), that shape is added there first.

// ProductQueryKind is what a product query asks: an index into
// productKinds, in the order the result and the reports list the kinds.
type ProductQueryKind uint8

const (
	KNN         ProductQueryKind = iota // nearest neighbours of a query vector
	KNNCategory                         // … within one category (TAG filter)
	KNNPrice                            // … within a price range (NUMERIC filter)
	SKULookup                           // the product with an exact SKU (lexical)
	Hybrid                              // a product's title words and a vector near its category
	NumProductQueryKinds
)

// kindSpec is one kind of query: every part of it.
type kindSpec struct {
	// name is the kind's name in --queries, result.json and the reports.
	name string
	// hashName is the name the corpus hash writes: the first version's
	// (knn+category where name says knn-category), so that a default
	// mix's hash is every earlier result's.
	hashName string
	// weight is the kind's weight in DefaultQueryMix (0: drawn only when a
	// mix names it).
	weight int
	// drawRank is the kind's place in a draw's walk over the kinds
	// (QueryMix.draw): the first version's order for its kinds, so that a
	// mix draws from the same stream the queries it always drew; a new
	// kind takes the next rank.
	drawRank int
	// draw sets q's values for the kind from r: it is the kind's stream,
	// so it must read r in the same order forever (the corpus hash pins
	// it).
	draw func(p *Products, r *Rand, q *ProductQuery)
	// query is q as the engines see it (its shape, its filter values).
	query func(q ProductQuery) engines.Query
	// truth is whether and how the kind has an exact answer.
	truth Truth
}

// productKinds is the table of kinds, indexed by ProductQueryKind.
var productKinds = [NumProductQueryKinds]kindSpec{
	KNN: {name: "knn", hashName: "knn", weight: 2, drawRank: 2,
		draw:  func(p *Products, r *Rand, q *ProductQuery) { p.nearCategory(r, q) },
		query: filteredKNN, truth: Nearest},
	KNNCategory: {name: "knn-category", hashName: "knn+category", weight: 4, drawRank: 0,
		draw: func(p *Products, r *Rand, q *ProductQuery) {
			q.Category = Categories[p.nearCategory(r, q)].Name
		},
		query: filteredKNN, truth: Nearest},
	KNNPrice: {name: "knn-price", hashName: "knn+price", weight: 2, drawRank: 1,
		draw: func(p *Products, r *Rand, q *ProductQuery) {
			p.nearCategory(r, q)
			priceRange(r, q)
		},
		query: filteredKNN, truth: Nearest},
	SKULookup: {name: "sku", hashName: "sku", weight: 2, drawRank: 3,
		// A SKU names a random ID of the space, missing IDs included, as
		// users look up products that were deleted.
		draw: func(p *Products, r *Rand, q *ProductQuery) {
			q.ID = uint32(1 + r.Intn(p.cfg.IDs))
			q.SKU = Categories[categoryOf(p.cfg.Seed, q.ID)].Code + "-" + strconv.FormatUint(uint64(q.ID), 10)
		},
		query: func(q ProductQuery) engines.Query { return engines.Query{Text: q.SKU, Field: FieldSKU} },
		truth: Named},
	Hybrid: {name: "hybrid", hashName: "hybrid", weight: 0, drawRank: 4,
		draw: (*Products).drawHybrid,
		// The words and the vector, fused by the engine's own ranking:
		// there is no exact answer to hold it to.
		query: func(q ProductQuery) engines.Query { return engines.Query{Text: q.Text, Vector: q.Vector} },
		truth: NoTruth},
}

// Product field names, as the engines see them (product.Products' schema)
// and as the kinds' filters name them.
const (
	FieldCategory    = "category"
	FieldPrice       = "price"
	FieldSKU         = "sku"
	FieldTitle       = "title"
	FieldDescription = "description"
	FieldEmbedding   = "embedding"
)

// Truth is whether and how a kind of query has an exact answer, which the
// run checks engines against (runner/exact.go) and scores with Recall.
type Truth uint8

const (
	// NoTruth: the answer is the engine's own (a hybrid search's fusion).
	NoTruth Truth = iota
	// Nearest: the exact k nearest products by cosine distance
	// (neighbours.Exact) among those that pass the query's filters
	// (Matches); ties with the k-th count (neighbours.Hits).
	Nearest
	// Named: the one product the query names (ProductQuery.ID), which the
	// exact sample draws among the pre-populated ones.
	Named
)

// nearCategory sets q's vector near a random category's centroid and
// returns the category: a kNN query's true neighbours lie mostly in it.
// In a corpus of file vectors it draws the category the same way (the
// filter the kind asks for), then one of the file's test vectors, whose
// neighbours lie wherever the file puts them.
func (p *Products) nearCategory(r *Rand, q *ProductQuery) int {
	ci := r.Intn(len(Categories))
	if v := p.vectors; v != nil {
		j := r.Intn(v.rows(v.Test))
		q.Vector, q.test = v.row(v.Test, j), j+1
		return ci
	}
	q.Vector = unitVector(r, p.centroids[ci], p.dim, spread)
	return ci
}

// priceRange sets a price filter of 50 to 200 from a random start in 1
// to 800.
func priceRange(r *Rand, q *ProductQuery) {
	lo := float64(r.IntRange(1, 800))
	q.MinPrice, q.MaxPrice = lo, lo+float64(r.IntRange(50, 200))
}

// hybridWords is how many of a product's title words a hybrid query
// takes: what a shopper types.
const hybridWords = 3

// drawHybrid takes three words of a random product's pre-populated title
// and a vector near that product's category.
func (p *Products) drawHybrid(r *Rand, q *ProductQuery) {
	q.ID = uint32(1 + r.Intn(p.cfg.IDs))
	ci := categoryOf(p.cfg.Seed, q.ID)
	words := strings.Fields(strings.TrimSuffix(p.Title(q.ID, 0), "."))
	for j := range min(hybridWords, len(words)) {
		k := j + r.Intn(len(words)-j)
		words[j], words[k] = words[k], words[j]
	}
	q.Text = strings.ToLower(strings.Join(words[:min(hybridWords, len(words))], " "))
	q.Vector = unitVector(r, p.centroids[ci], p.dim, spread)
}

// filteredKNN is a kNN search for q's vector with q's filters.
func filteredKNN(q ProductQuery) engines.Query {
	return engines.Query{Vector: q.Vector, Filters: q.filters()}
}

// filters are the filters q's values ask for: a category, a price range.
func (q ProductQuery) filters() []engines.Filter {
	var fs []engines.Filter
	if q.Category != "" {
		fs = append(fs, engines.Filter{Field: FieldCategory, Tag: q.Category})
	}
	if q.MaxPrice != 0 {
		fs = append(fs, engines.Filter{Field: FieldPrice, Min: q.MinPrice, Max: q.MaxPrice})
	}
	return fs
}

// Query is q as the engines see it, without K (the runner sets it).
func (q ProductQuery) Query() engines.Query { return productKinds[q.Kind].query(q) }

// Matches says whether pr passes every one of filters: the filters' one
// meaning, as engines.Filter defines it (a Tag field equals, a Numeric
// field lies in [Min, Max]), over the product's fields that can be
// filtered — category (TAG) and price (NUMERIC). A filter on any other
// field is never passed: no product holds a value for it. The exact
// answers use it, so the truth is computed with the filter the engines
// were sent.
func Matches(filters []engines.Filter, pr Product) bool {
	for _, f := range filters {
		switch f.Field {
		case FieldCategory:
			if pr.Category != f.Tag {
				return false
			}
		case FieldPrice:
			if pr.Price < f.Min || pr.Price > f.Max {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// drawOrder is the kinds by drawRank.
var drawOrder = func() (o [NumProductQueryKinds]ProductQueryKind) {
	for k, s := range productKinds {
		o[s.drawRank] = ProductQueryKind(k)
	}
	return o
}()

// DefaultQueryMix is Study B's hybrid search: 40% category-filtered kNN,
// 20% price-filtered kNN, 20% plain kNN, 20% SKU lookups — semantic
// queries with filters beside exact lookups (each kind's weight).
var DefaultQueryMix = func() (m QueryMix) {
	for k, s := range productKinds {
		m[k] = s.weight
	}
	return m
}()

// QueryMix is the share of each query kind, as weights: kind k is drawn
// with probability QueryMix[k] / the sum. The zero mix is
// DefaultQueryMix.
type QueryMix [NumProductQueryKinds]int

func (k ProductQueryKind) String() string {
	if k < NumProductQueryKinds {
		return productKinds[k].name
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Truth is whether and how k has an exact answer.
func (k ProductQueryKind) Truth() Truth { return productKinds[k].truth }

// IsKNN says whether k asks for nearest neighbours alone (with or without
// a filter): the kinds whose answers are scored against exact neighbours.
func (k ProductQueryKind) IsKNN() bool { return k.Truth() == Nearest }

// ProductQueryKinds is every kind's name, in ProductQueryKind order: the
// --queries flag's help and the result's list of kinds.
func ProductQueryKinds() []string {
	names := make([]string, NumProductQueryKinds)
	for k, s := range productKinds {
		names[k] = s.name
	}
	return names
}

// ParseProductQueryKind is the inverse of String.
func ParseProductQueryKind(s string) (ProductQueryKind, error) {
	for k, spec := range productKinds {
		if spec.name == s {
			return ProductQueryKind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown query kind %q (want one of %s)", s, strings.Join(ProductQueryKinds(), ", "))
}

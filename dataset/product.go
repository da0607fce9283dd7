package dataset

import (
	"encoding/binary"
	"io"
	"math"
	"strconv"
	"sync"
)

// ProductGenerator names the product-hash rules (Study B), as Generator does
// for the text corpus. Version 2: an 8-word title and a 4-paragraph
// description, which bring the hash to Study B's ~4.6 KB.
const ProductGenerator = "product-hash/2"

// ProductDim is the embedding's dimension in Study B.
const ProductDim = 1024

// Category is one product category: the TAG value and the two-letter code
// that starts its SKUs.
type Category struct {
	Name string
	Code string
}

// Categories of the product corpus. Several codes are English stop words
// (IT, TO, BE, OF, AS, ON), so a SKU such as "IT-500" loses its first token to
// a default stop list — the trap Study B's exact index (NOSTOPWORDS) avoids.
var Categories = []Category{
	{"electronics", "IT"}, {"toys", "TO"}, {"beauty", "BE"}, {"office", "OF"},
	{"accessories", "AS"}, {"outdoor", "ON"}, {"garden", "GA"}, {"kitchen", "KI"},
	{"sports", "SP"}, {"books", "BO"}, {"automotive", "AU"}, {"health", "HE"},
	{"grocery", "GR"}, {"furniture", "FU"}, {"music", "MU"}, {"pets", "PE"},
}

// Stream tags of the product corpus, after the text corpus's.
const (
	tagProduct uint64 = iota + 16
	tagProductQuery
	tagCentroid
)

// Products generates Study B's product hashes: category (TAG), price
// (NUMERIC), sku, title, description (TEXT) and a unit-length float32
// embedding: 4,576 bytes of field names and values a hash on average with
// 1,024 dimensions (4,096 of them the embedding), Study B's ~4.6 KB. Like Corpus, every
// product is a pure function of (seed, id, version) and every query of
// (seed, index); the pre-populated IDs are the text corpus's for the same
// Config.
//
// Embeddings are drawn around one centroid per category, so a query vector
// near a centroid has true neighbours mostly in that category: KNN results
// are not uniform noise, and recall can be checked against brute force.
type Products struct {
	idSet
	dim       int
	centroids [][]float32

	hashOnce sync.Once
	hash     string
}

// Product is one generated product.
type Product struct {
	ID          uint32
	Version     uint32
	Category    string
	Price       float64 // cents precision, 1.00 to 999.99
	SKU         string  // category code, "-", the ID: unique, e.g. "IT-500"
	Title       string  // sentence(8)
	Description string  // 4 paragraphs
	Embedding   []float32
}

// NewProducts returns the product corpus for cfg with dim-dimensional
// embeddings (ProductDim in Study B).
func NewProducts(cfg Config, dim int) (*Products, error) {
	ids, err := newIDSet(cfg)
	if err != nil {
		return nil, err
	}
	if dim < 1 || dim > 1<<16 {
		return nil, errDim(dim)
	}
	p := &Products{idSet: ids, dim: dim, centroids: make([][]float32, len(Categories))}
	for i := range Categories {
		r := NewRand(cfg.Seed, tagCentroid, uint64(i))
		p.centroids[i] = unitVector(&r, nil, dim, 0)
	}
	return p, nil
}

type errDim int

func (e errDim) Error() string {
	return "dim: " + strconv.Itoa(int(e)) + " is out of range (1 to 65536)"
}

// Dim is the embedding's dimension.
func (p *Products) Dim() int { return p.dim }

// spread is how far an embedding strays from its category's centroid,
// relative to the centroid's unit length.
const spread = 0.8

// Product returns version v of product id.
func (p *Products) Product(id, version uint32) Product {
	r := NewRand(p.cfg.Seed, tagProduct, uint64(id), uint64(version))
	// The category and SKU follow the ID alone: an upsert changes a
	// product's price, text and embedding, never which product it is.
	cr := NewRand(p.cfg.Seed, tagProduct, uint64(id))
	ci := cr.Intn(len(Categories))
	c := Categories[ci]
	pr := Product{
		ID: id, Version: version, Category: c.Name,
		Price: float64(r.IntRange(100, 99_999)) / 100,
		SKU:   c.Code + "-" + strconv.FormatUint(uint64(id), 10),
	}
	b := appendSentence(make([]byte, 0, 512), &r, 8)
	pr.Title = string(b)
	b = b[:0]
	for i := range 4 {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendParagraph(b, &r)
	}
	pr.Description = string(b)
	pr.Embedding = unitVector(&r, p.centroids[ci], p.dim, spread)
	return pr
}

// unitVector returns a unit-length vector: centre plus noise of the given
// relative size (centre nil: pure noise). Noise is uniform per component,
// scaled so its expected length is 1 before the spread factor. Every product
// is converted explicitly before it is added: Go may fuse a multiply and an
// add into one instruction on some architectures (arm64, ppc64, s390x),
// which rounds differently, and the conversion forbids it, so the bytes are
// the same on every machine.
func unitVector(r *Rand, centre []float32, dim int, scale float64) []float32 {
	v := make([]float32, dim)
	k := math.Sqrt(3 / float64(dim)) // uniform[-1,1] has variance 1/3
	if centre == nil {
		scale = 1
	}
	var norm float64
	for i := range v {
		x := float64((2*r.Float64() - 1) * k * scale)
		if centre != nil {
			x += float64(centre[i])
		}
		v[i] = float32(x)
		norm += float64(x * x)
	}
	inv := 1 / math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}

// VectorBytes is v as little-endian float32 bytes, the form valkey-search
// stores in a hash field and takes as a KNN parameter.
func VectorBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// ProductQueryKind is what a product query asks.
type ProductQueryKind uint8

const (
	KNN         ProductQueryKind = iota // nearest neighbours of a query vector
	KNNCategory                         // … within one category (TAG filter)
	KNNPrice                            // … within a price range (NUMERIC filter)
	SKULookup                           // the product with an exact SKU (lexical)
)

func (k ProductQueryKind) String() string {
	return [...]string{"knn", "knn+category", "knn+price", "sku"}[k]
}

// ProductQuery is one product query. Vector is set for the KNN kinds,
// Category for KNNCategory, MinPrice/MaxPrice for KNNPrice, SKU for
// SKULookup.
type ProductQuery struct {
	Kind               ProductQueryKind
	Vector             []float32
	Category           string
	MinPrice, MaxPrice float64
	SKU                string
}

// ProductQuery returns query i. The kinds come in fixed proportions — 40%
// category-filtered KNN, 20% price-filtered KNN, 20% plain KNN, 20% SKU
// lookups — the hybrid search of Study B: semantic queries with filters
// beside exact lookups. A query vector lies near a random category's
// centroid; a SKU names a random ID of the space (missing IDs included, as
// users look up products that were deleted).
func (p *Products) ProductQuery(i uint64) ProductQuery {
	r := NewRand(p.cfg.Seed, tagProductQuery, i)
	var q ProductQuery
	switch u := r.Intn(10); {
	case u < 4:
		q.Kind = KNNCategory
	case u < 6:
		q.Kind = KNNPrice
	case u < 8:
		q.Kind = KNN
	default:
		q.Kind = SKULookup
	}
	if q.Kind == SKULookup {
		id := uint32(1 + r.Intn(p.cfg.IDs))
		cr := NewRand(p.cfg.Seed, tagProduct, uint64(id))
		q.SKU = Categories[cr.Intn(len(Categories))].Code + "-" + strconv.FormatUint(uint64(id), 10)
		return q
	}
	ci := r.Intn(len(Categories))
	q.Vector = unitVector(&r, p.centroids[ci], p.dim, spread)
	switch q.Kind {
	case KNNCategory:
		q.Category = Categories[ci].Name
	case KNNPrice:
		lo := float64(r.IntRange(1, 800))
		q.MinPrice, q.MaxPrice = lo, lo+float64(r.IntRange(50, 200))
	}
	return q
}

// Hash is the product corpus's hash, as Corpus.Hash is the text corpus's.
func (p *Products) Hash() string {
	p.hashOnce.Do(func() {
		p.hash = p.idSet.hash(ProductGenerator+"/dim="+strconv.Itoa(p.dim),
			func(h io.Writer, id uint32) { p.Product(id, 0).write(h) },
			func(h io.Writer, i uint64) {
				q := p.ProductQuery(i)
				io.WriteString(h, q.Kind.String()+"\x00"+q.Category+"\x00"+q.SKU+"\x00")
				io.WriteString(h, strconv.FormatFloat(q.MinPrice, 'g', -1, 64)+"\x00"+strconv.FormatFloat(q.MaxPrice, 'g', -1, 64)+"\x00")
				h.Write(VectorBytes(q.Vector))
			})
	})
	return p.hash
}

// write writes every field of pr, zero-separated, for the hash.
func (pr Product) write(h io.Writer) {
	io.WriteString(h, pr.Category+"\x00"+strconv.FormatFloat(pr.Price, 'f', 2, 64)+"\x00"+pr.SKU+"\x00"+pr.Title+"\x00"+pr.Description+"\x00")
	h.Write(VectorBytes(pr.Embedding))
}

// Size is the product's size as a hash: field names plus values, the
// embedding as its bytes.
func (pr Product) Size() int {
	return len("category") + len(pr.Category) + len("price") + len(strconv.FormatFloat(pr.Price, 'f', 2, 64)) +
		len("sku") + len(pr.SKU) + len("title") + len(pr.Title) + len("description") + len(pr.Description) +
		len("embedding") + 4*len(pr.Embedding)
}

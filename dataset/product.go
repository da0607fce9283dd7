package dataset

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
// A corpus built by NewProductsFromVectors takes its embeddings and its
// kNN query vectors from a file instead, as they are (not normalised).
type Products struct {
	idSet
	dim       int
	mix       QueryMix
	centroids [][]float32
	// vectors is the file whose vectors the embeddings and kNN queries
	// are (NewProductsFromVectors), nil when they are generated.
	vectors *Vectors

	hash lazyHash
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
// embeddings (ProductDim in Study B), its queries drawn by mix (the zero
// mix: DefaultQueryMix).
func NewProducts(cfg Config, dim int, mix QueryMix) (*Products, error) {
	ids, err := newIDSet(cfg)
	if err != nil {
		return nil, err
	}
	if dim < 1 || dim > 1<<16 {
		return nil, errDim(dim)
	}
	for _, w := range mix {
		if w < 0 || w > maxMixWeight {
			return nil, fmt.Errorf("queries: a weight of %d is out of range (0 to %d)", w, maxMixWeight)
		}
	}
	p := &Products{idSet: ids, dim: dim, mix: mix.orDefault(), centroids: make([][]float32, len(Categories))}
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
	r, price := p.start(id, version)
	// The category and SKU follow the ID alone: an upsert changes a
	// product's price, text and embedding, never which product it is.
	ci := categoryOf(p.cfg.Seed, id)
	c := Categories[ci]
	pr := Product{
		ID: id, Version: version, Category: c.Name, Price: price,
		SKU: c.Code + "-" + strconv.FormatUint(uint64(id), 10),
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
	pr.Embedding = p.embedding(&r, id, ci)
	return pr
}

// embedding is product id's embedding, drawn from r near category ci's
// centroid, or the file's train vector id−1 whatever the version (nil for
// an ID outside 1…IDs, which is no product of the corpus even where the
// file has a vector for it).
func (p *Products) embedding(r *Rand, id uint32, ci int) []float32 {
	if p.vectors == nil {
		return unitVector(r, p.centroids[ci], p.dim, spread)
	}
	if id < 1 || int(id) > p.cfg.IDs {
		return nil
	}
	return p.vectors.row(p.vectors.Train, int(id)-1)
}

// start is version v of product id's stream, past its price, which it
// returns: the title comes next.
func (p *Products) start(id, version uint32) (Rand, float64) {
	r := NewRand(p.cfg.Seed, tagProduct, uint64(id), uint64(version))
	return r, float64(r.IntRange(100, 99_999)) / 100
}

// Title is version v of product id's title, without the rest of it.
func (p *Products) Title(id, version uint32) string {
	r, _ := p.start(id, version)
	return string(appendSentence(make([]byte, 0, 128), &r, 8))
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

// maxMixWeight bounds a weight, so that the sum stays far from overflow.
const maxMixWeight = 1_000_000

// ParseQueryMix reads "kind=weight,…" (weights are whole numbers, as in
// knn=40,knn-category=20,knn-price=20,sku=10,hybrid=10); kinds it does not
// name weigh 0, and "" is the default mix.
func ParseQueryMix(s string) (QueryMix, error) {
	var m QueryMix
	if s == "" {
		return DefaultQueryMix, nil
	}
	seen := [NumProductQueryKinds]bool{}
	for part := range strings.SplitSeq(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return m, fmt.Errorf("%q is not kind=weight", part)
		}
		k, err := ParseProductQueryKind(strings.TrimSpace(name))
		if err != nil {
			return m, err
		}
		if seen[k] {
			return m, fmt.Errorf("%s is named twice", k)
		}
		seen[k] = true
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 0 || n > maxMixWeight {
			return m, fmt.Errorf("%s=%s: the weight must be a whole number from 0 to %d", k, w, maxMixWeight)
		}
		m[k] = n
	}
	if m.sum() == 0 {
		return m, fmt.Errorf("%q gives every kind weight 0", s)
	}
	return m, nil
}

func (m QueryMix) sum() int {
	t := 0
	for _, w := range m {
		t += w
	}
	return t
}

// orDefault is m, or the default mix for the zero mix.
func (m QueryMix) orDefault() QueryMix {
	if m.sum() == 0 {
		return DefaultQueryMix
	}
	return m
}

// String is the mix as ParseQueryMix reads it, kinds in String order,
// weight-0 kinds left out.
func (m QueryMix) String() string {
	m = m.orDefault()
	var parts []string
	for k, w := range m {
		if w > 0 {
			parts = append(parts, productKinds[k].name+"="+strconv.Itoa(w))
		}
	}
	return strings.Join(parts, ",")
}

// Kinds is the kinds of weight above 0, in String order.
func (m QueryMix) Kinds() []ProductQueryKind {
	m = m.orDefault()
	var ks []ProductQueryKind
	for k, w := range m {
		if w > 0 {
			ks = append(ks, ProductQueryKind(k))
		}
	}
	return ks
}

// draw picks a kind from r.
func (m QueryMix) draw(r *Rand) ProductQueryKind {
	u := r.Intn(m.sum())
	for _, k := range drawOrder {
		if u < m[k] {
			return k
		}
		u -= m[k]
	}
	panic("unreachable: a draw below the sum falls in a kind")
}

// ProductQuery is one product query: what its kind's draw set (kinds.go).
// Vector is set for the kNN kinds and Hybrid, Category for a category
// filter, MinPrice/MaxPrice for a price filter, SKU for SKULookup, Text
// for Hybrid; ID, for SKULookup and Hybrid, is the product the SKU or the
// title words are of.
type ProductQuery struct {
	Kind               ProductQueryKind
	Vector             []float32
	Category           string
	MinPrice, MaxPrice float64
	SKU                string
	Text               string
	ID                 uint32
	// test is 1 + the index of the file's test vector that Vector is, 0
	// when Vector was generated (TestVector).
	test int
}

// ProductQuery returns query i, its kind drawn from the corpus's query mix
// and its values by the kind's draw (kinds.go).
func (p *Products) ProductQuery(i uint64) ProductQuery {
	r := NewRand(p.cfg.Seed, tagProductQuery, i)
	return p.queryOfKind(&r, p.mix.draw(&r))
}

// ProductQueryOfKind is a query of kind k, drawn from stream i of the
// kind's own (a sample of the kind whatever the mix, for checks).
func (p *Products) ProductQueryOfKind(i uint64, k ProductQueryKind) ProductQuery {
	r := NewRand(p.cfg.Seed, tagProductQuery, uint64(k)+1<<56, i)
	return p.queryOfKind(&r, k)
}

func (p *Products) queryOfKind(r *Rand, kind ProductQueryKind) ProductQuery {
	q := ProductQuery{Kind: kind}
	productKinds[kind].draw(p, r, &q)
	return q
}

// categoryOf is product id's category index: it follows the ID alone.
func categoryOf(seed uint64, id uint32) int {
	cr := NewRand(seed, tagProduct, uint64(id))
	return cr.Intn(len(Categories))
}

// Mix is the corpus's query mix.
func (p *Products) Mix() QueryMix { return p.mix }

// Hash is the product corpus's hash, as Corpus.Hash is the text corpus's.
func (p *Products) Hash() string {
	h, _ := p.HashContext(context.Background())
	return h
}

// HashContext is Hash, given up with ctx's error when ctx ends first.
func (p *Products) HashContext(ctx context.Context) (string, error) {
	return p.hash.get(func() (string, error) {
		return p.idSet.hash(ctx, p.Generator(),
			func(h io.Writer, id uint32) { p.Product(id, 0).write(h) },
			func(h io.Writer, i uint64) {
				q := p.ProductQuery(i)
				io.WriteString(h, productKinds[q.Kind].hashName+"\x00"+q.Category+"\x00"+q.SKU+"\x00")
				if q.Text != "" { // a hybrid query's words, the one kind with Text
					io.WriteString(h, q.Text+"\x00")
				}
				io.WriteString(h, strconv.FormatFloat(q.MinPrice, 'g', -1, 64)+"\x00"+strconv.FormatFloat(q.MaxPrice, 'g', -1, 64)+"\x00")
				h.Write(VectorBytes(q.Vector))
			})
	})
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

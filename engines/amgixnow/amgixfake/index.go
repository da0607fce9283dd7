package amgixfake

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

type vector struct {
	name   string
	typ    string // full_text, whitespace or dense_custom
	topK   int
	fields []string
	lang   string
	dims   int // dense_custom
	// distance is a dense_custom vector's dense_distance: cosine, dot or
	// euclid.
	distance string
	// normalization is the config's flag, as the server keeps and reports
	// it: Amgix reads it only for the embeddings it computes (dense_model,
	// not modelled), never for a client's dense_custom vector, so it
	// changes no ranking here.
	normalization bool
}

type doc struct {
	id      string
	ts      time.Time
	text    map[string]string
	deleted bool
	// terms[arm] is the set of a sparse arm's tokens (arm: vector/field).
	terms map[string]map[string]bool
	// meta is the metadata: string, float64 or bool values.
	meta map[string]any
	// dense[vector name] is the document's custom dense vector.
	dense map[string][]float32
	// custom is what the write carried, until vectorize reads it.
	custom []wireCustomVector
}

type collection struct {
	vectors      []vector
	metaIndexes  map[string]string // metadata key → index type
	storeContent bool
	stored       map[string]*doc // newest write per document: the stale check
	visible      map[string]*doc // what a search sees
	// queued writes not yet applied (QueuedRoutes)
	pendingUpserts, pendingDeletes int
	// counted is doc_count: Amgix's statistic, which lags the writes.
	counted int
}

func (c *collection) pend(d *doc, n int) {
	if d.deleted {
		c.pendingDeletes += n
	} else {
		c.pendingUpserts += n
	}
}

// publish makes the stored state of ids searchable.
func (c *collection) publish(ids []string) {
	for _, id := range ids {
		if d := c.stored[id]; d != nil {
			c.visible[id] = d
		} else {
			delete(c.visible, id)
		}
	}
}

// tokens lowercases (keep_case false) and splits on anything but letters
// and digits. Amgix's full_text vector also stems, drops stop words and
// keeps a document's top_k most frequent terms; the fake finds documents by
// their words only, since ranking is the live tests' business.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// whitespaceTokens is the whitespace vector's tokenizer: lowercased
// (keep_case false), split on whitespace only (tokenize_whitespace in
// src/amgix.rs), so "IT-500" stays one token.
func whitespaceTokens(s string) []string { return strings.Fields(strings.ToLower(s)) }

// tokenize is a sparse vector type's tokenizer.
func (v vector) tokenize(s string) []string {
	if v.typ == "whitespace" {
		return whitespaceTokens(s)
	}
	return tokens(s)
}

func armKey(vector, field string) string { return vector + "/" + field }

// index computes d's terms per sparse arm.
func (c *collection) index(d *doc) {
	d.terms = map[string]map[string]bool{}
	for _, v := range c.vectors {
		if v.typ == "dense_custom" {
			continue
		}
		for _, f := range v.fields {
			terms := map[string]bool{}
			for _, t := range v.tokenize(d.text[f]) {
				terms[t] = true
			}
			d.terms[armKey(v.name, f)] = terms
		}
	}
}

type ranked struct {
	id    string
	score float64
}

// fieldRanking is every visible document passing keep and holding a
// query word in the sparse arm key, scored by how many of the words it
// holds, best first (ties by ID): the query's words are OR-ed, as a sparse
// dot product does.
func (c *collection) fieldRanking(key string, query []string, keep func(*doc) bool) []ranked {
	var out []ranked
	for id, d := range c.visible {
		if !keep(d) {
			continue
		}
		n := 0
		for _, q := range query {
			if d.terms[key][q] {
				n++
			}
		}
		if n > 0 {
			out = append(out, ranked{id, float64(n)})
		}
	}
	sortRanked(out)
	return out
}

func sortRanked(r []ranked) {
	slices.SortFunc(r, func(a, b ranked) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return strings.Compare(a.id, b.id)
	})
}

// search ranks the documents holding any query word in an indexed field by
// how many of the words they hold in any of them, best first (ties by ID),
// with each field's own ranking as vector_scores.
func (c *collection) search(q string, limit int) []searchResult {
	query := unique(tokens(q))
	scores := map[string][]vectorScore{}
	for _, v := range c.vectors {
		for _, f := range v.fields {
			for i, r := range c.fieldRanking(armKey(v.name, f), query, func(*doc) bool { return true }) {
				scores[r.id] = append(scores[r.id], vectorScore{Field: f, Vector: v.name, Score: r.score, Rank: i + 1})
			}
		}
	}
	order := make([]ranked, 0, len(scores))
	for id := range scores {
		order = append(order, ranked{id, float64(holds(c.visible[id], query))})
	}
	sortRanked(order)
	out := []searchResult{}
	for _, r := range order[:min(limit, len(order))] {
		out = append(out, c.result(c.visible[r.id], r.score, scores[r.id]))
	}
	return out
}

func (c *collection) result(d *doc, score float64, vs []vectorScore) searchResult {
	res := searchResult{ID: d.id, Timestamp: d.ts, Score: score, VectorScores: vs, Metadata: d.meta}
	res.Name, res.Description = text(d, "name"), text(d, "description")
	if c.storeContent {
		res.Content = text(d, "content")
	}
	return res
}

// searchArm is one arm of an arm-wise search: a sparse arm's query tokens
// or a dense arm's query vector, and its weight in the fusion.
type searchArm struct {
	vector vector
	field  string
	words  []string
	dense  []float32
	weight float64
}

// rrfK is the reciprocal-rank constant of the fake's fusion (Amgix's own
// rrf_fuse in src/functions.rs was not read; the fake's ranks matter only
// in that both kinds of match reach the answer).
const rrfK = 60

// armSearch is search by arms, as src/qdrant.rs search does: each arm
// ranks the documents passing keep (a filter inside the arm's own search:
// Qdrant's filtered search, not a filter of its answer), keeping
// limit*1.5 (SEARCH_PREFETCH_MULTIPLIER); the rankings are fused by
// weighted reciprocal rank, best first, ties by ID.
func (c *collection) armSearch(arms []searchArm, limit int, keep func(*doc) bool) []searchResult {
	prefetch := int(float64(limit) * 1.5)
	fused := map[string]float64{}
	scores := map[string][]vectorScore{}
	for _, a := range arms {
		var ranking []ranked
		if a.dense != nil {
			ranking = c.denseRanking(a.vector, a.dense, keep)
		} else {
			ranking = c.fieldRanking(armKey(a.vector.name, a.field), unique(a.words), keep)
		}
		for i, r := range ranking[:min(prefetch, len(ranking))] {
			fused[r.id] += a.weight / float64(rrfK+i+1)
			scores[r.id] = append(scores[r.id], vectorScore{Field: a.field, Vector: a.vector.name, Score: r.score, Rank: i + 1})
		}
	}
	order := make([]ranked, 0, len(fused))
	for id, s := range fused {
		order = append(order, ranked{id, s})
	}
	sortRanked(order)
	out := []searchResult{}
	for _, r := range order[:min(limit, len(order))] {
		out = append(out, c.result(c.visible[r.id], r.score, scores[r.id]))
	}
	return out
}

// denseRanking is every visible document passing keep with a vector in
// the dense vector v, nearest to q first by v's distance, with the score
// Qdrant gives it (qdrant/qdrant lib/segment/src/spaces/simple.rs, read
// at f2c2686; Amgix Now embeds v1.17.1), which vector_scores carries:
// cosine the cosine
// similarity (CosineMetric normalises both vectors, then takes their dot
// product), largest first; dot the raw inner product (DotProductMetric,
// no normalisation), largest first; euclid the Euclidean distance itself
// (EuclidMetric's postprocess: the square root of the squared distance),
// smallest first. Ties by ID. Exact, where Qdrant's HNSW is approximate.
// Amgix's rrf fuses the arms by rank alone, so the score's direction
// matters only to this order.
func (c *collection) denseRanking(v vector, q []float32, keep func(*doc) bool) []ranked {
	var out []ranked
	for id, d := range c.visible {
		dv, ok := d.dense[v.name]
		if !ok || !keep(d) {
			continue
		}
		switch v.distance {
		case "dot":
			out = append(out, ranked{id, fakekit.Dot(q, dv)})
		case "euclid":
			out = append(out, ranked{id, math.Sqrt(fakekit.L2Squared(q, dv))})
		default:
			out = append(out, ranked{id, fakekit.Cosine(q, dv)})
		}
	}
	if v.distance == "euclid" {
		slices.SortFunc(out, func(a, b ranked) int {
			return cmp.Or(cmp.Compare(a.score, b.score), strings.Compare(a.id, b.id))
		})
		return out
	}
	sortRanked(out)
	return out
}

// holds is how many of the words d holds in any indexed field.
func holds(d *doc, words []string) int {
	n := 0
	for _, w := range words {
		for _, terms := range d.terms {
			if terms[w] {
				n++
				break
			}
		}
	}
	return n
}

func text(d *doc, field string) *string {
	if v, ok := d.text[field]; ok {
		return &v
	}
	return nil
}

func unique(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

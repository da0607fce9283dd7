package amgixfake

import (
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
)

type vector struct {
	name   string
	topK   int
	fields []string
	lang   string
}

type doc struct {
	id      string
	ts      time.Time
	text    map[string]string
	deleted bool
	// terms[field] is the field's kept terms with their counts (the top_k
	// most frequent, as Amgix keeps a sparse vector's top_k terms), and
	// length its token count.
	terms  map[string]map[string]int
	length map[string]int
}

type collection struct {
	vectors      []vector
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

// stopWords is a short English list standing in for the stopwords crate the
// full_text tokenizer uses.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"for": true, "from": true, "in": true, "is": true, "it": true, "of": true, "on": true, "or": true,
	"that": true, "the": true, "this": true, "to": true, "was": true, "with": true,
}

// tokens lowercases (keep_case false) and splits on anything but letters and
// digits, dropping stop words. Unlike Amgix it does not stem.
func tokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[t] {
			out = append(out, t)
		}
	}
	return out
}

// index computes d's kept terms per field.
func (c *collection) index(d *doc) {
	d.terms, d.length = map[string]map[string]int{}, map[string]int{}
	topK := 0
	for _, v := range c.vectors {
		topK = max(topK, v.topK)
	}
	for _, v := range c.vectors {
		for _, f := range v.fields {
			if _, done := d.terms[f]; done {
				continue
			}
			toks := tokens(d.text[f])
			counts := map[string]int{}
			for _, t := range toks {
				counts[t]++
			}
			d.terms[f], d.length[f] = keepTop(counts, topK), len(toks)
		}
	}
}

// keepTop keeps the k most frequent terms (ties: alphabetical).
func keepTop(counts map[string]int, k int) map[string]int {
	if len(counts) <= k {
		return counts
	}
	terms := make([]string, 0, len(counts))
	for t := range counts {
		terms = append(terms, t)
	}
	sort.Slice(terms, func(i, j int) bool {
		if counts[terms[i]] != counts[terms[j]] {
			return counts[terms[i]] > counts[terms[j]]
		}
		return terms[i] < terms[j]
	})
	kept := make(map[string]int, k)
	for _, t := range terms[:k] {
		kept[t] = counts[t]
	}
	return kept
}

// BM25 parameters and the reciprocal-rank constant.
const (
	k1   = 1.2
	b    = 0.75
	rrfK = 60
)

type ranked struct {
	id    string
	score float64
}

// fieldRanking scores every visible document on one field (BM25 with
// Qdrant's IDF), best first; documents sharing no term are left out: the
// query's words are OR-ed, as a sparse dot product does.
func (c *collection) fieldRanking(field string, query []string) []ranked {
	n := float64(len(c.visible))
	var total float64
	df := map[string]int{}
	for _, d := range c.visible {
		total += float64(d.length[field])
		for _, q := range query {
			if d.terms[field][q] > 0 {
				df[q]++
			}
		}
	}
	if n == 0 {
		return nil
	}
	avgdl := max(total/n, 1)
	var out []ranked
	for id, d := range c.visible {
		var score float64
		for _, q := range query {
			tf := float64(d.terms[field][q])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.length[field])/avgdl))
		}
		if score > 0 {
			out = append(out, ranked{id, score})
		}
	}
	sortRanked(out)
	return out
}

func sortRanked(r []ranked) {
	sort.Slice(r, func(i, j int) bool {
		if r[i].score != r[j].score {
			return r[i].score > r[j].score
		}
		return r[i].id < r[j].id
	})
}

// search fuses the per-(vector, field) rankings by reciprocal rank.
func (c *collection) search(q string, limit int) []searchResult {
	query := unique(tokens(q))
	fused := map[string]float64{}
	scores := map[string][]vectorScore{}
	for _, v := range c.vectors {
		for _, f := range v.fields {
			for i, r := range c.fieldRanking(f, query) {
				fused[r.id] += 1 / float64(rrfK+i+1)
				scores[r.id] = append(scores[r.id], vectorScore{Field: f, Vector: v.name, Score: r.score, Rank: i + 1})
			}
		}
	}
	order := make([]ranked, 0, len(fused))
	for id, s := range fused {
		order = append(order, ranked{id, s})
	}
	sortRanked(order)
	out := []searchResult{}
	for _, r := range order[:min(limit, len(order))] {
		d := c.visible[r.id]
		res := searchResult{ID: d.id, Timestamp: d.ts, Score: r.score, VectorScores: scores[r.id]}
		res.Name, res.Description = text(d, "name"), text(d, "description")
		if c.storeContent {
			res.Content = text(d, "content")
		}
		out = append(out, res)
	}
	return out
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

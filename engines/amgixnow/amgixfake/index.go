package amgixfake

import (
	"cmp"
	"slices"
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
	// terms[field] is the set of the field's words (tokens).
	terms map[string]map[string]bool
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

// tokens lowercases (keep_case false) and splits on anything but letters
// and digits. Amgix's full_text vector also stems, drops stop words and
// keeps a document's top_k most frequent terms; the fake finds documents by
// their words only, since ranking is the live tests' business.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// index computes d's terms per indexed field.
func (c *collection) index(d *doc) {
	d.terms = map[string]map[string]bool{}
	for _, v := range c.vectors {
		for _, f := range v.fields {
			if _, done := d.terms[f]; done {
				continue
			}
			d.terms[f] = map[string]bool{}
			for _, t := range tokens(d.text[f]) {
				d.terms[f][t] = true
			}
		}
	}
}

type ranked struct {
	id    string
	score float64
}

// fieldRanking is every visible document holding a query word in field,
// scored by how many of the words it holds, best first (ties by ID): the
// query's words are OR-ed, as a sparse dot product does.
func (c *collection) fieldRanking(field string, query []string) []ranked {
	var out []ranked
	for id, d := range c.visible {
		n := 0
		for _, q := range query {
			if d.terms[field][q] {
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
			for i, r := range c.fieldRanking(f, query) {
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

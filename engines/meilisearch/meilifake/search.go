package meilifake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	defaultLimit  = 20   // Meilisearch's DEFAULT_SEARCH_LIMIT
	maxQueryWords = 10   // "Meilisearch only considers the first ten words"
	maxTotalHits  = 1000 // the pagination.maxTotalHits default
)

// searchKnown are Meilisearch 1.37's search parameters; searchModelled the
// ones the fake answers. Any other known parameter with a non-null value is
// answered 501, an unknown one 400 bad_request.
var (
	searchModelled = []string{"q", "offset", "limit", "attributesToRetrieve", "attributesToSearchOn", "matchingStrategy"}
	searchKnown    = append(slices.Clone(searchModelled), "page", "hitsPerPage", "attributesToCrop", "cropLength",
		"cropMarker", "attributesToHighlight", "highlightPreTag", "highlightPostTag", "showMatchesPosition",
		"filter", "sort", "distinct", "facets", "rankingScoreThreshold", "locales", "hybrid", "vector",
		"retrieveVectors", "media", "personalize", "useNetwork", "showRankingScore", "showRankingScoreDetails",
		"showPerformanceDetails")
	strategies = []string{"last", "all", "frequency"}
)

// searchRequest is a validated search body.
type searchRequest struct {
	q             string
	offset, limit int
	retrieve      []string // nil: every attribute
	searchOn      []string // nil: every searchable attribute
	strategy      string
}

func parseSearch(m map[string]json.RawMessage) (searchRequest, *apiError) {
	req := searchRequest{limit: defaultLimit, strategy: "last"}
	for k, v := range m {
		if !contains(searchModelled, k) && !isNull(v) {
			e := notModelled("the search parameter `" + k + "`")
			return req, &e
		}
	}
	if v := m["q"]; !isNull(v) {
		if e := decodeField(v, "q", "invalid_search_q", "a string", &req.q); e != nil {
			return req, e
		}
	}
	for _, p := range []struct {
		name, code string
		dst        *int
	}{{"limit", "invalid_search_limit", &req.limit}, {"offset", "invalid_search_offset", &req.offset}} {
		if v, ok := m[p.name]; ok {
			n, e := uintField(v, p.name, p.code, 1<<32)
			if e != nil {
				return req, e
			}
			*p.dst = int(n)
		}
	}
	for _, p := range []struct {
		name, code string
		dst        *[]string
	}{
		{"attributesToRetrieve", "invalid_search_attributes_to_retrieve", &req.retrieve},
		{"attributesToSearchOn", "invalid_search_attributes_to_search_on", &req.searchOn},
	} {
		if v := m[p.name]; !isNull(v) {
			if e := decodeField(v, p.name, p.code, "an array of strings", p.dst); e != nil {
				return req, e
			}
			if *p.dst == nil {
				*p.dst = []string{}
			}
		}
	}
	if slices.Contains(req.retrieve, "*") {
		req.retrieve = nil
	}
	if v := m["matchingStrategy"]; !isNull(v) {
		var s string
		err := json.Unmarshal(v, &s)
		if err != nil || !contains(strategies, s) {
			e := newError("invalid_search_matching_strategy", fmt.Sprintf("Unknown value `%s` at `.matchingStrategy`: expected one of %s", strings.Trim(string(v), `"`), quoteList(strategies)))
			return req, &e
		}
		req.strategy = s
	}
	return req, nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	m, e := object(r, "bad_request", searchKnown)
	if e != nil {
		writeError(w, *e)
		return
	}
	req, e := parseSearch(m)
	if e != nil {
		writeError(w, *e)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.lookup(w, uid)
	if ix == nil {
		return
	}
	attrs, e := ix.attributesFor(req.searchOn)
	if e != nil {
		writeError(w, *e)
		return
	}
	ranked := ix.match(req, attrs)
	total := len(ranked)
	end := min(req.offset+req.limit, total, maxTotalHits)
	hits := []json.RawMessage{}
	for i := req.offset; i < end; i++ {
		hits = append(hits, ranked[i].hit(req.retrieve))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"hits": hits, "query": req.q, "processingTimeMs": 0,
		"limit": req.limit, "offset": req.offset, "estimatedTotalHits": total,
	})
}

// attributesFor checks attributesToSearchOn against the searchable
// attributes and returns the attributes to search, in ranking order.
func (ix *index) attributesFor(on []string) ([]string, *apiError) {
	all := ix.searchableFields()
	if on == nil {
		return all, nil
	}
	for _, a := range on {
		if ix.searchable != nil && !slices.Contains(ix.searchable, a) {
			e := newError("invalid_search_attributes_to_search_on", fmt.Sprintf("Attribute `%s` is not searchable. Available searchable attributes are: `%s`.", a, strings.Join(ix.searchable, ", ")))
			return nil, &e
		}
	}
	var out []string
	for _, a := range all {
		if slices.Contains(on, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// hit renders a document with the attributes asked for, in document order.
func (d *document) hit(retrieve []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, k := range d.order {
		if retrieve != nil && !slices.Contains(retrieve, k) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(d.raw[k])
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

// ---- matching -----------------------------------------------------------

// separator reports whether r splits words.
func separator(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// words splits text into lowercase words.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), separator)
}

// valueWords returns the words of a field value: strings, numbers and
// booleans, and arrays of them (nested objects are not modelled).
func valueWords(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, words(x)...)
		case float64, bool:
			out = append(out, words(fmt.Sprint(x))...)
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// term is one query word.
type term struct {
	word   string
	prefix bool // the last word of a query that does not end with a separator
}

func queryTerms(q string) []term {
	ws := words(q)
	if len(ws) > maxQueryWords {
		ws = ws[:maxQueryWords]
	}
	terms := make([]term, len(ws))
	for i, w := range ws {
		terms[i] = term{word: w}
	}
	last, _ := utf8.DecodeLastRuneInString(q)
	if n := len(terms); n > 0 && n == len(words(q)) && !separator(last) {
		terms[n-1].prefix = true
	}
	return terms
}

// termMatch is how a document matched one term.
type termMatch struct {
	ok    bool
	typos int
	attr  int // index of the best attribute in ranking order
	exact bool
	pos   map[int][]int // attribute index → word positions of every acceptable match
}

// allowedTypos is Meilisearch's typo budget for a word.
func (t typoSettings) allowedTypos(word string) int {
	n := utf8.RuneCountInString(word)
	switch {
	case !t.enabled || slices.Contains(t.disableOnWords, word) || n < t.oneTypo:
		return 0
	case n < t.twoTypos:
		return 1
	}
	return 2
}

// matchTerm finds the best occurrence of t in a document's attributes.
func (ix *index) matchTerm(d *document, t term, attrs []string) termMatch {
	best := termMatch{}
	pos := map[int][]int{}
	budget := ix.typo.allowedTypos(t.word)
	for ai, a := range attrs {
		attrBudget := budget
		if slices.Contains(ix.typo.disableOnAttributes, a) {
			attrBudget = 0
		}
		for p, w := range d.words[a] {
			m := termMatch{ok: true, attr: ai}
			switch {
			case w == t.word:
				m.exact = true
			case t.prefix && strings.HasPrefix(w, t.word):
			default:
				m.typos = typoCost(t.word, w, attrBudget)
				m.ok = m.typos <= attrBudget
			}
			if m.ok {
				pos[ai] = append(pos[ai], p)
			}
			if m.ok && better(m, best) {
				best = m
			}
		}
	}
	best.pos = pos
	return best
}

// maxProximity is Meilisearch's cost of two words that are not near each
// other (or not in the same attribute).
const maxProximity = 8

// proximity is the distance between two query words in a document: the
// closest pair in one attribute, one more when they appear in reverse order,
// capped at maxProximity.
func proximity(a, b termMatch) int {
	best := maxProximity
	for attr, pa := range a.pos {
		for _, i := range pa {
			for _, j := range b.pos[attr] {
				d := j - i
				if d <= 0 {
					d = i - j + 1
				}
				best = min(best, d)
			}
		}
	}
	return best
}

func better(a, b termMatch) bool {
	switch {
	case !b.ok:
		return true
	case a.typos != b.typos:
		return a.typos < b.typos
	case a.attr != b.attr:
		return a.attr < b.attr
	}
	return a.exact && !b.exact
}

// typoCost is the edit distance between query word q and word w, with a
// wrong first letter counting one more, as Meilisearch counts it; anything
// above budget is returned as budget+1 without computing further.
func typoCost(q, w string, budget int) int {
	if budget == 0 {
		return 1
	}
	a, b := []rune(q), []rune(w)
	if d := len(a) - len(b); d > budget || -d > budget {
		return budget + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	d := prev[len(b)]
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		d++
	}
	return min(d, budget+1)
}

// ranked is a matching document and its ranking key.
type ranked struct {
	doc       *document
	words     int // terms matched, in the strategy's order
	typos     int
	proximity int
	attr      int
	exact     int
}

func (r ranked) hit(retrieve []string) json.RawMessage { return r.doc.hit(retrieve) }

// match returns the documents the query matches, best first.
func (ix *index) match(req searchRequest, attrs []string) []ranked {
	terms := queryTerms(req.q)
	var out []ranked
	if len(terms) == 0 { // placeholder search: every document
		for _, d := range ix.docs {
			out = append(out, ranked{doc: d})
		}
		slices.SortFunc(out, func(a, b ranked) int { return compareUint(a.doc.internal, b.doc.internal) })
		return out
	}
	matches := map[*document][]termMatch{}
	for _, d := range ix.docs {
		ms := make([]termMatch, len(terms))
		for i, t := range terms {
			ms[i] = ix.matchTerm(d, t, attrs)
		}
		matches[d] = ms
	}
	order := ix.termOrder(req.strategy, terms, matches)
	for d, ms := range matches {
		r := ranked{doc: d, attr: len(attrs)}
		var kept []int
		for _, i := range order {
			if !ms[i].ok {
				break
			}
			kept = append(kept, i)
			r.words++
			r.typos += ms[i].typos
			r.attr = min(r.attr, ms[i].attr)
			if ms[i].exact {
				r.exact++
			}
		}
		if r.words == 0 || req.strategy == "all" && r.words < len(terms) {
			continue
		}
		slices.Sort(kept) // proximity follows the query's word order
		for k := 1; k < len(kept); k++ {
			r.proximity += proximity(ms[kept[k-1]], ms[kept[k]])
		}
		out = append(out, r)
	}
	slices.SortFunc(out, compareRanked)
	return out
}

// termOrder is the order in which the strategy keeps terms: "last" drops
// words from the end of the query, "frequency" drops the most frequent
// words first; "all" needs every word, in any order.
func (ix *index) termOrder(strategy string, terms []term, matches map[*document][]termMatch) []int {
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	if strategy == "frequency" {
		freq := make([]int, len(terms))
		for _, ms := range matches {
			for i, m := range ms {
				if m.ok {
					freq[i]++
				}
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return freq[a] - freq[b] })
	}
	return order
}

func compareRanked(a, b ranked) int {
	switch {
	case a.words != b.words:
		return b.words - a.words
	case a.typos != b.typos:
		return a.typos - b.typos
	case a.proximity != b.proximity:
		return a.proximity - b.proximity
	case a.attr != b.attr:
		return a.attr - b.attr
	case a.exact != b.exact:
		return b.exact - a.exact
	}
	return compareUint(a.doc.internal, b.doc.internal)
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package meilifake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
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
	searchModelled = []string{"q", "offset", "limit", "attributesToRetrieve", "attributesToSearchOn", "matchingStrategy",
		"filter", "vector", "hybrid"}
	searchKnown = append(slices.Clone(searchModelled), "page", "hitsPerPage", "attributesToCrop", "cropLength",
		"cropMarker", "attributesToHighlight", "highlightPreTag", "highlightPostTag", "showMatchesPosition",
		"sort", "distinct", "facets", "rankingScoreThreshold", "locales", "retrieveVectors", "media", "personalize", "useNetwork", "showRankingScore", "showRankingScoreDetails",
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
	filter        []condition
	vector        []float64
	hybrid        *hybridQuery
}

func parseSearch(m map[string]json.RawMessage) (searchRequest, *apiError) {
	req := searchRequest{limit: defaultLimit, strategy: "last"}
	for k, v := range m {
		if !slices.Contains(searchModelled, k) && !isNull(v) {
			return req, notModelled("the search parameter `" + k + "`")
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
	// A list given, even empty, is decoded non-nil: nil means not given.
	for _, p := range []struct {
		name, code, want string
		dst              any
	}{
		{"q", "invalid_search_q", "a string", &req.q},
		{"attributesToRetrieve", "invalid_search_attributes_to_retrieve", "an array of strings", &req.retrieve},
		{"attributesToSearchOn", "invalid_search_attributes_to_search_on", "an array of strings", &req.searchOn},
		{"vector", "invalid_search_vector", "an array of numbers", &req.vector},
	} {
		if v := m[p.name]; !isNull(v) {
			if e := decodeField(v, p.name, p.code, p.want, p.dst); e != nil {
				return req, e
			}
		}
	}
	if v := m["filter"]; !isNull(v) {
		var e *apiError
		if req.filter, e = parseFilter(v); e != nil {
			return req, e
		}
	}
	if v := m["hybrid"]; !isNull(v) {
		var e *apiError
		if req.hybrid, e = parseHybrid(v); e != nil {
			return req, e
		}
	}
	if slices.Contains(req.retrieve, "*") {
		req.retrieve = nil
	}
	if v := m["matchingStrategy"]; !isNull(v) {
		var s string
		err := json.Unmarshal(v, &s)
		if err != nil || !slices.Contains(strategies, s) {
			return req, newError("invalid_search_matching_strategy", fmt.Sprintf("Unknown value `%s` at `.matchingStrategy`: expected one of %s", strings.Trim(string(v), `"`), quoteList(strategies)))
		}
		req.strategy = s
	}
	return req, nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	m, e := object(r, "bad_request", searchKnown)
	if failed(w, e) {
		return
	}
	req, e := parseSearch(m)
	if failed(w, e) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.lookup(w, uid)
	if ix == nil {
		return
	}
	attrs, e := ix.attributesFor(req.searchOn)
	if e == nil {
		e = ix.checkFilter(req.filter)
	}
	if e == nil {
		e = ix.checkSemantic(req)
	}
	if failed(w, e) {
		return
	}
	found := ix.rank(req, attrs)
	total := len(found)
	end := min(req.offset+req.limit, total, maxTotalHits)
	hits := []json.RawMessage{}
	semanticHits := 0
	for i := req.offset; i < end; i++ {
		hits = append(hits, found[i].doc.render(found[i].doc.order, req.retrieve))
		if found[i].semantic {
			semanticHits++
		}
	}
	answer := map[string]any{
		"hits": hits, "query": req.q, "processingTimeMs": 0,
		"limit": req.limit, "offset": req.offset, "estimatedTotalHits": total,
	}
	if req.hybrid != nil {
		answer["semanticHitCount"] = semanticHits
	}
	fakekit.WriteJSON(w, http.StatusOK, answer)
}

// rank is the documents a search finds, best first: by keyword, by vector
// or both.
func (ix *index) rank(req searchRequest, attrs []string) []scored {
	terms := queryTerms(req.q)
	switch {
	case req.hybrid != nil && req.vector != nil && (req.hybrid.ratio == 1 || len(terms) == 0):
		// Semantic only: a ratio of 1, or no query words to match.
		return ix.semantic(req.hybrid.embedder, req.vector, req.filter)
	case req.hybrid != nil && req.vector != nil && req.hybrid.ratio > 0:
		return fuse(ix.match(req, attrs), len(terms), ix.semantic(req.hybrid.embedder, req.vector, req.filter), req.hybrid.ratio)
	}
	var found []scored
	for _, r := range ix.match(req, attrs) {
		found = append(found, scored{doc: r.doc})
	}
	return found
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
			return nil, newError("invalid_search_attributes_to_search_on", fmt.Sprintf("Attribute `%s` is not searchable. Available searchable attributes are: `%s`.", a, strings.Join(ix.searchable, ", ")))
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

// render writes the document's fields named in keys, in that order, that
// it has and that are selected (nil: every one): a hit's fields in
// document order, or GET document's in the index's field order.
func (d *document) render(keys, selected []string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		v, has := d.raw[k]
		if !has || selected != nil && !slices.Contains(selected, k) {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
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

// term is one query word, or a phrase.
type term struct {
	word   string
	prefix bool     // the last word of a query that does not end with a separator
	phrase []string // a quoted phrase: these words in a row, whole
}

// queryTerms cuts a query into terms: the words outside double quotes one
// by one, each quoted run of words as one phrase (an unclosed quote runs
// to the end of the query), the first 10 terms.
func queryTerms(q string) []term {
	var terms []term
	for i, part := range strings.Split(q, `"`) {
		ws := words(part)
		switch {
		case i%2 == 1 && len(ws) > 0:
			terms = append(terms, term{phrase: ws})
		case i%2 == 0:
			for _, w := range ws {
				terms = append(terms, term{word: w})
			}
		}
	}
	whole := len(terms) <= maxQueryWords
	if !whole {
		terms = terms[:maxQueryWords]
	}
	last, _ := utf8.DecodeLastRuneInString(q)
	if n := len(terms); n > 0 && whole && terms[n-1].phrase == nil && !separator(last) {
		terms[n-1].prefix = true
	}
	return terms
}

// found says whether a document has t in one of attrs: the word itself, or
// a word it begins when t is a prefix; a phrase's words in a row within
// one attribute.
func (d *document) found(t term, attrs []string) bool {
	for _, a := range attrs {
		ws := d.words[a]
		if t.phrase != nil {
			for i := 0; i+len(t.phrase) <= len(ws); i++ {
				if slices.Equal(ws[i:i+len(t.phrase)], t.phrase) {
					return true
				}
			}
			continue
		}
		for _, w := range ws {
			if w == t.word || t.prefix && strings.HasPrefix(w, t.word) {
				return true
			}
		}
	}
	return false
}

// ranked is a matching document and the number of query words it kept, in
// the strategy's order.
type ranked struct {
	doc   *document
	words int
}

// match returns the documents the query matches, best first: more query
// words kept first, then insertion order.
func (ix *index) match(req searchRequest, attrs []string) []ranked {
	terms := queryTerms(req.q)
	var out []ranked
	if len(terms) == 0 { // placeholder search: every document that passes the filter
		for _, d := range ix.docs {
			if d.passes(req.filter) {
				out = append(out, ranked{doc: d})
			}
		}
		slices.SortFunc(out, func(a, b ranked) int { return cmp.Compare(a.doc.internal, b.doc.internal) })
		return out
	}
	found := map[*document][]bool{}
	for _, d := range ix.docs {
		if !d.passes(req.filter) {
			continue
		}
		f := make([]bool, len(terms))
		for i, t := range terms {
			f[i] = d.found(t, attrs)
		}
		found[d] = f
	}
	order := termOrder(req.strategy, found, len(terms))
	for d, f := range found {
		r := ranked{doc: d}
		for _, i := range order {
			if !f[i] {
				break
			}
			r.words++
		}
		if r.words == 0 || req.strategy == "all" && r.words < len(terms) {
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ranked) int {
		return cmp.Or(b.words-a.words, cmp.Compare(a.doc.internal, b.doc.internal))
	})
	return out
}

// termOrder is the order in which the strategy keeps terms: "last" drops
// words from the end of the query, "frequency" drops the most frequent
// words first; "all" needs every word, in any order.
func termOrder(strategy string, found map[*document][]bool, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if strategy == "frequency" {
		freq := make([]int, n)
		for _, f := range found {
			for i, ok := range f {
				if ok {
					freq[i]++
				}
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return freq[a] - freq[b] })
	}
	return order
}

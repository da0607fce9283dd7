package typesensefake

import (
	"cmp"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// MaxPerPage is Typesense's limit on hits per page.
const MaxPerPage = 250

// notModelledParams are Typesense search parameters that change the answer
// and that the fake does not model: asking for one is answered 501.
var notModelledParams = []string{
	"sort_by", "facet_by", "facet_query", "group_by", "infix", "exhaustive_search",
	"pinned_hits", "hidden_hits", "query_by_weights", "text_match_type", "max_candidates", "preset",
	"stopwords", "synonym_prefix", "synonym_num_typos", "pre_segmented_query", "offset", "limit_hits",
	"voice_query", "conversation", "nl_query", "prioritize_exact_match", "prioritize_token_position",
	"prioritize_num_matching_fields", "enable_typos_for_numerical_tokens",
	"enable_typos_for_alpha_numerical_tokens", "split_join_tokens", "drop_tokens_mode",
}

// searchParams is a parsed search request.
type searchParams struct {
	q                string
	queryBy          []fieldDef
	dropThreshold    int
	perPage, page    int
	include, exclude []string
	filters          []filter
	wildcard         bool
	tokens           []string
	vq               *vectorQuery // nil without vector_query
}

func (s *Server) search(r *http.Request, _ []byte) reply {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.searchIn(r.PathValue("c"), r.URL.Query())
}

// searchIn is a search of the named collection, as one search or one of a
// multi_search; callers hold s.mu for reading.
func (s *Server) searchIn(name string, q url.Values) reply {
	c, ok := s.collections[name]
	if !ok {
		return errorf(http.StatusNotFound, "Not found.")
	}
	p, rep, ok := parseSearch(c, q)
	if !ok {
		return rep
	}
	if p.vq != nil && p.vq.ef > 0 {
		s.knob.Saw(p.vq.ef)
	}
	return c.answer(p)
}

func parseSearch(c *collection, q url.Values) (*searchParams, reply, bool) {
	for _, name := range notModelledParams {
		if q.Has(name) {
			return nil, errorf(http.StatusNotImplemented, "typesensefake: search parameter %s is not modelled", name), false
		}
	}
	if !q.Has("q") {
		return nil, errorf(http.StatusBadRequest, "Parameter `q` is required."), false
	}
	p := &searchParams{q: q.Get("q")}
	p.wildcard = p.q == "*"
	if strings.Contains(p.q, `"`) || slices.ContainsFunc(strings.Fields(p.q), func(w string) bool { return strings.HasPrefix(w, "-") }) {
		return nil, errorf(http.StatusNotImplemented, "typesensefake: phrase and exclusion queries are not modelled"), false
	}
	rep, ok := reply{}, false
	if p.queryBy, rep, ok = parseQueryBy(c, q.Get("query_by")); !ok {
		return nil, rep, false
	}
	if !p.wildcard && len(p.queryBy) == 0 {
		return nil, errorf(http.StatusBadRequest, "No search fields specified for the query."), false
	}
	if rep, ok = p.parseNumbers(q); !ok {
		return nil, rep, false
	}
	if rep, ok = checkTypos(q, len(p.queryBy)); !ok {
		return nil, rep, false
	}
	p.include, p.exclude = fieldList(q.Get("include_fields")), fieldList(q.Get("exclude_fields"))
	if p.filters, rep, ok = parseFilter(c, q.Get("filter_by")); !ok {
		return nil, rep, false
	}
	if v := q.Get("vector_query"); v != "" {
		if p.vq, rep, ok = parseVectorQuery(c, v); !ok {
			return nil, rep, false
		}
	}
	p.tokens = tokenize(p.q)
	return p, reply{}, true
}

// parseQueryBy reads query_by: text fields of the schema.
func parseQueryBy(c *collection, v string) ([]fieldDef, reply, bool) {
	var out []fieldDef
	for _, name := range fieldList(v) {
		f, ok := c.field(name)
		if !ok {
			return nil, errorf(http.StatusNotFound, "Could not find a field named `%s` in the schema.", name), false
		}
		if !f.text() {
			return nil, errorf(http.StatusBadRequest, "Field `%s` should be a string or a string array.", name), false
		}
		out = append(out, f)
	}
	return out, reply{}, true
}

// parseNumbers reads the unsigned parameters: the page, and the thresholds
// Typesense checks whether or not the fake models them.
func (p *searchParams) parseNumbers(q url.Values) (reply, bool) {
	var unused int
	p.perPage, p.page, p.dropThreshold = 10, 1, 1
	// limit is per_page's other name, and wins over it.
	for _, u := range []struct {
		name string
		dst  *int
	}{
		{"per_page", &p.perPage}, {"limit", &p.perPage}, {"page", &p.page}, {"typo_tokens_threshold", &unused},
		{"drop_tokens_threshold", &p.dropThreshold}, {"min_len_1typo", &unused}, {"min_len_2typo", &unused},
	} {
		if v := q.Get(u.name); v != "" {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return errorf(http.StatusBadRequest, "Parameter `%s` must be an unsigned integer.", u.name), false
			}
			*u.dst = int(n)
		}
	}
	if p.perPage > MaxPerPage {
		return errorf(http.StatusUnprocessableEntity, "Only upto %d hits can be fetched per page.", MaxPerPage), false
	}
	p.page = max(p.page, 1) // page 0 means the first page
	return reply{}, true
}

// checkTypos checks num_typos and prefix as Typesense does: one value for
// every query_by field or one each, num_typos unsigned. Their effect (typo
// tolerance, prefix matching of the last word) is not modelled: words
// match exactly, as with num_typos=0 and prefix=false, what the driver
// sends.
func checkTypos(q url.Values, fields int) (reply, bool) {
	for _, p := range []struct{ name, def string }{{"num_typos", "2"}, {"prefix", "true"}} {
		vals := strings.Split(cmp.Or(q.Get(p.name), p.def), ",")
		if len(vals) != 1 && len(vals) != fields {
			return errorf(http.StatusBadRequest, "Number of values in `%s` does not match number of `query_by` fields.", p.name), false
		}
		for _, v := range vals {
			if _, err := strconv.ParseUint(strings.TrimSpace(v), 10, 8); err != nil && p.name == "num_typos" {
				return errorf(http.StatusBadRequest, "Parameter `num_typos` must be an unsigned integer."), false
			}
		}
	}
	return reply{}, true
}

func fieldList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// tokenize splits on whitespace, drops every other character that is not a
// letter or digit, and lowercases.
func tokenize(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, unicode.IsSpace) {
		t := strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, w)
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func tokenSet(v any) map[string]struct{} {
	set := map[string]struct{}{}
	vals, ok := v.([]any)
	if !ok {
		vals = []any{v}
	}
	for _, e := range vals {
		if s, ok := e.(string); ok {
			for _, t := range tokenize(s) {
				set[t] = struct{}{}
			}
		}
	}
	return set
}

// candidate is a matching document with what ranks it.
type candidate struct {
	d       *document
	round   int      // tokens dropped
	inField int      // index of the earliest query_by field holding every token
	matched int      // query_by fields holding at least one token
	dist    *float64 // vector distance to the vector query (vectorDistance), nil without one
}

func (c *collection) answer(p *searchParams) reply {
	var ranked []candidate
	switch {
	case p.wildcard:
		ranked = c.collect(p, nil, 0, nil)
	case len(p.tokens) > 0:
		seen := map[string]bool{}
		for round := 0; round < len(p.tokens); round++ {
			if round > 0 && len(ranked) >= p.dropThreshold {
				break
			}
			cands := c.collect(p, p.tokens[:len(p.tokens)-round], round, seen)
			for _, cd := range cands {
				seen[cd.d.fields["id"].(string)] = true
			}
			ranked = append(ranked, cands...)
		}
	}
	switch {
	case p.vq != nil && p.wildcard:
		ranked = c.nearest(p)
	case p.vq != nil:
		ranked = fuse(ranked, c.nearest(p), p.vq.alpha)
	}
	start := min((p.page-1)*p.perPage, len(ranked))
	page := ranked[start:min(start+p.perPage, len(ranked))]
	hits := make([]map[string]any, 0, len(page))
	for _, cd := range page {
		hits = append(hits, hit(cd, p))
	}
	return jsonReply(http.StatusOK, map[string]any{
		"facet_counts": []any{}, "found": len(ranked), "hits": hits, "out_of": len(c.docs), "page": p.page,
		"request_params": map[string]any{"collection_name": c.name, "first_q": p.q, "per_page": p.perPage, "q": p.q},
		"search_cutoff":  false, "search_time_ms": 0,
	})
}

// collect returns the documents that pass the filters and hold every token
// of ts, skipping seen, ranked. A nil ts (wildcard) matches every document.
func (c *collection) collect(p *searchParams, ts []string, round int, seen map[string]bool) []candidate {
	var out []candidate
	for id, d := range c.docs {
		if seen[id] || !passes(d, p.filters) {
			continue
		}
		cd := candidate{d: d, round: round, inField: len(p.queryBy)}
		if ts != nil && !matchDoc(d, ts, p, &cd) {
			continue
		}
		out = append(out, cd)
	}
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Or(cmp.Compare(a.inField, b.inField), newestFirst(a, b)) })
	return out
}

// matchDoc reports whether every token is held by some query_by field of
// d, filling cd's ranking members.
func matchDoc(d *document, ts []string, p *searchParams, cd *candidate) bool {
	held := make([]int, len(p.queryBy)) // how many of ts each field holds
	for _, t := range ts {
		found := false
		for i, f := range p.queryBy {
			if _, ok := d.tokens[f.Name][t]; ok {
				held[i]++
				found = true
			}
		}
		if !found {
			return false
		}
	}
	for i, n := range held {
		if n == len(ts) {
			cd.inField = min(cd.inField, i)
		}
		if n > 0 {
			cd.matched++
		}
	}
	return true
}

func hit(cd candidate, p *searchParams) map[string]any {
	doc := maps.Clone(cd.d.fields)
	maps.DeleteFunc(doc, func(k string, _ any) bool {
		return len(p.include) > 0 && !slices.Contains(p.include, k) || slices.Contains(p.exclude, k)
	})
	tokens := len(p.tokens) - cd.round
	score := uint64(tokens)<<48 | uint64(255)<<40 | uint64(255-min(cd.inField, 255))<<32
	h := map[string]any{
		"document": doc, "highlight": map[string]any{}, "highlights": []any{}, "text_match": score,
		"text_match_info": map[string]any{
			"best_field_score": strconv.FormatUint(score>>32, 10), "best_field_weight": 15,
			"fields_matched": cd.matched, "num_tokens_dropped": cd.round, "score": strconv.FormatUint(score, 10),
			"tokens_matched": tokens, "typo_prefix_score": 0,
		},
	}
	if cd.dist != nil {
		h["vector_distance"] = *cd.dist
	}
	return h
}

// filter is one clause of filter_by.
type filter struct {
	field    fieldDef
	equals   *string  // string fields: exact value
	min, max *float64 // numeric fields, inclusive
}

func parseFilter(c *collection, expr string) ([]filter, reply, bool) {
	if strings.TrimSpace(expr) == "" {
		return nil, reply{}, true
	}
	if strings.Contains(expr, "||") || strings.ContainsAny(expr, "()") {
		return nil, errorf(http.StatusNotImplemented, "typesensefake: filter_by with || or parentheses is not modelled"), false
	}
	var out []filter
	for _, clause := range strings.Split(expr, "&&") {
		name, cond, ok := strings.Cut(strings.TrimSpace(clause), ":")
		if !ok {
			return nil, errorf(http.StatusBadRequest, "Could not parse the filter query."), false
		}
		f, ok := c.field(strings.TrimSpace(name))
		if !ok {
			return nil, errorf(http.StatusNotFound, "Could not find a filter field named `%s` in the schema.", strings.TrimSpace(name)), false
		}
		fl, rep, ok := parseCondition(f, strings.TrimSpace(cond))
		if !ok {
			return nil, rep, false
		}
		out = append(out, fl)
	}
	return out, reply{}, true
}

func parseCondition(f fieldDef, cond string) (filter, reply, bool) {
	fl := filter{field: f}
	if f.Type == "string" {
		v, ok := strings.CutPrefix(cond, "=")
		if !ok {
			return fl, errorf(http.StatusNotImplemented, "typesensefake: token filters on string fields are not modelled (use :=)"), false
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "`") && strings.HasSuffix(v, "`") && len(v) >= 2 {
			v = v[1 : len(v)-1]
		}
		fl.equals = &v
		return fl, reply{}, true
	}
	if f.Type != "float" && f.Type != "int32" && f.Type != "int64" {
		return fl, errorf(http.StatusNotImplemented, "typesensefake: filters on %s fields are not modelled", f.Type), false
	}
	num := func(s string) *float64 {
		if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return &x
		}
		return nil
	}
	var ok bool
	switch {
	case strings.HasPrefix(cond, "[") && strings.HasSuffix(cond, "]"):
		lo, hi, found := strings.Cut(cond[1:len(cond)-1], "..")
		fl.min, fl.max = num(lo), num(hi)
		ok = found && fl.min != nil && fl.max != nil
	case strings.HasPrefix(cond, ">="):
		fl.min = num(cond[2:])
		ok = fl.min != nil
	case strings.HasPrefix(cond, "<="):
		fl.max = num(cond[2:])
		ok = fl.max != nil
	case strings.HasPrefix(cond, "="):
		fl.min = num(cond[1:])
		fl.max, ok = fl.min, fl.min != nil
	default:
		return fl, errorf(http.StatusNotImplemented, "typesensefake: numeric filter %q is not modelled", cond), false
	}
	if !ok {
		return fl, errorf(http.StatusBadRequest, "Error with filter field `%s`: could not parse `%s`.", f.Name, cond), false
	}
	return fl, reply{}, true
}

func passes(d *document, filters []filter) bool {
	for _, fl := range filters {
		v, present := d.fields[fl.field.Name]
		if !present {
			return false
		}
		if fl.equals != nil {
			if s, _ := v.(string); s != *fl.equals {
				return false
			}
			continue
		}
		x, isFloat := v.(float64)
		if n, isInt := v.(int64); isInt {
			x, isFloat = float64(n), true
		}
		if !isFloat || fl.min != nil && x < *fl.min || fl.max != nil && x > *fl.max {
			return false
		}
	}
	return true
}

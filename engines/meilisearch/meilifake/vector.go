package meilifake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// This file models the product workload's part of Meilisearch 1.37 in the
// forms the driver sends: filterableAttributes and filters, userProvided
// embedders and documents' _vectors, and searches with vector and hybrid.
// The errors are Meilisearch's (meilisearch-types error.rs, routes
// search.rs search_kind): missing_search_hybrid, invalid_search_embedder,
// invalid_vector_dimensions (a search: 400; a document: the task fails),
// invalid_search_filter.

// ---- settings -----------------------------------------------------------

// embedderKnown are an embedder's settings; the fake models userProvided
// with its dimensions.
var embedderKnown = []string{"source", "model", "revision", "apiKey", "dimensions", "documentTemplate",
	"documentTemplateMaxBytes", "url", "request", "response", "headers", "distribution", "binaryQuantized",
	"pooling", "indexingEmbedder", "searchEmbedder", "indexingFragments", "searchFragments"}

// embedderSources are the embedder sources Meilisearch knows.
var embedderSources = []string{"openAi", "huggingFace", "ollama", "userProvided", "rest", "composite"}

// parseFilterable reads filterableAttributes, an array of names; the
// granular object form is not modelled.
func parseFilterable(raw json.RawMessage) (*[]string, *apiError) {
	list := []string{}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, newError("invalid_settings_filterable_attributes", fmt.Sprintf("Invalid value type at `.filterableAttributes`: expected an array, but found `%.60s`", raw))
	}
	for _, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return nil, notModelled("a filterableAttributes entry that is not a string")
		}
		list = append(list, s)
	}
	return &list, nil
}

// parseEmbedders reads embedders: each name maps to a userProvided
// embedder with its dimensions (removing one, null, is not modelled).
func parseEmbedders(raw json.RawMessage) (map[string]int, *apiError) {
	m, e := fields(raw, ".embedders", "invalid_settings_embedders", nil)
	if e != nil {
		return nil, e
	}
	out := map[string]int{}
	for name, v := range m {
		if isNull(v) {
			return nil, notModelled("removing an embedder")
		}
		cfg, e := fields(v, ".embedders."+name, "invalid_settings_embedders", embedderKnown)
		if e != nil {
			return nil, e
		}
		for k, fv := range cfg {
			if k != "source" && k != "dimensions" && !isNull(fv) {
				return nil, notModelled("the embedder setting `" + k + "`")
			}
		}
		var source string
		if err := json.Unmarshal(cfg["source"], &source); err != nil || !slices.Contains(embedderSources, source) {
			return nil, newError("invalid_settings_embedders", fmt.Sprintf("Unknown value `%s` at `.embedders.%s.source`: expected one of %s", strings.Trim(string(cfg["source"]), `"`), name, quoteList(embedderSources)))
		}
		if source != "userProvided" {
			return nil, notModelled("the embedder source `" + source + "`")
		}
		if isNull(cfg["dimensions"]) {
			return nil, newError("invalid_settings_embedders", fmt.Sprintf("`.embedders.%s`: Missing field `dimensions` (mandatory for source `userProvided`)", name))
		}
		d, e := uintField(cfg["dimensions"], "embedders."+name+".dimensions", "invalid_settings_embedders", 1<<16)
		if e != nil {
			return nil, e
		}
		if d == 0 {
			return nil, newError("invalid_settings_embedders", fmt.Sprintf("`.embedders.%s.dimensions`: `dimensions` cannot be zero", name))
		}
		out[name] = int(d)
	}
	return out, nil
}

// ---- documents ----------------------------------------------------------

// vectorsKey is the reserved attribute of a document's embeddings.
const vectorsKey = "_vectors"

// vectorsOf reads a document's _vectors: an object of embedder name → one
// embedding (an array of numbers) or null. Each name must be an embedder
// of the index (what Meilisearch does with others is not modelled) and
// each embedding of its dimensions (invalid_vector_dimensions).
func (ix *index) vectorsOf(d orderedObject) (map[string][]float64, *apiError) {
	raw, ok := d.values[vectorsKey]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, notModelled("a `_vectors` that is not an object")
	}
	out := map[string][]float64{}
	for name, v := range m {
		dim, ok := ix.embedders[name]
		if !ok {
			return nil, notModelled("`_vectors` for `" + name + "`, which is not an embedder of the index")
		}
		if isNull(v) {
			continue
		}
		var vec []float64
		if err := json.Unmarshal(v, &vec); err != nil {
			return nil, notModelled("`_vectors." + name + "` other than an array of numbers")
		}
		if len(vec) != dim {
			return nil, dimensionError(ix.uid, dim, len(vec))
		}
		out[name] = vec
	}
	return out, nil
}

func dimensionError(uid string, want, got int) *apiError {
	return newError("invalid_vector_dimensions", fmt.Sprintf("Index `%s`: Invalid vector dimensions: expected: `%d`, found: `%d`.", uid, want, got))
}

// ---- filters ------------------------------------------------------------

// condition is one filter condition: attribute = value, or a numeric
// range (min and max inclusive; an open side is ±Inf).
type condition struct {
	attr     string
	equals   *string
	min, max float64
}

var (
	equalsRe = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s"']+)\s*$`)
	toRe     = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s+(-?[0-9.]+)\s+TO\s+(-?[0-9.]+)\s*$`)
)

// parseFilter reads a filter: a string of conditions `a = "v"` or
// `a x TO y` joined by AND, or an array of such strings (ANDed). Other
// operators, nested arrays and parentheses are not modelled.
func parseFilter(raw json.RawMessage) ([]condition, *apiError) {
	var exprs []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		exprs = []string{one}
	} else if err := json.Unmarshal(raw, &exprs); err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			return nil, notModelled("a filter array other than an array of strings")
		}
		return nil, newError("invalid_search_filter", fmt.Sprintf("Invalid value type at `.filter`: expected a string or an array, but found `%.60s`", raw))
	}
	var out []condition
	for _, expr := range exprs {
		for _, part := range strings.Split(expr, " AND ") {
			c, ok := parseCondition(part)
			if !ok {
				return nil, notModelled("the filter expression `" + part + "`")
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func parseCondition(s string) (condition, bool) {
	if m := equalsRe.FindStringSubmatch(s); m != nil {
		v := m[2]
		if q := v[0]; q == '"' || q == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], `\`+string(q), string(q))
		}
		return condition{attr: m[1], equals: &v}, true
	}
	if m := toRe.FindStringSubmatch(s); m != nil {
		lo, err1 := strconv.ParseFloat(m[2], 64)
		hi, err2 := strconv.ParseFloat(m[3], 64)
		return condition{attr: m[1], min: lo, max: hi}, err1 == nil && err2 == nil
	}
	return condition{}, false
}

// checkFilter refuses a condition on an attribute that is not filterable,
// as Meilisearch does (400 invalid_search_filter).
func (ix *index) checkFilter(conds []condition) *apiError {
	for _, c := range conds {
		if !slices.Contains(ix.filterable, c.attr) {
			return newError("invalid_search_filter", fmt.Sprintf("Index `%s`: Attribute `%s` is not filterable. Available filterable attribute patterns are: `%s`.", ix.uid, c.attr, strings.Join(ix.filterable, ", ")))
		}
	}
	return nil
}

// passes says whether a document meets every condition. Strings compare
// without regard to case (Meilisearch normalizes facet values); ranges take
// numbers only.
func (d *document) passes(conds []condition) bool {
	for _, c := range conds {
		var v any
		if json.Unmarshal(d.raw[c.attr], &v) != nil {
			return false
		}
		if !c.meets(v) {
			return false
		}
	}
	return true
}

func (c condition) meets(v any) bool {
	switch x := v.(type) {
	case []any:
		return slices.ContainsFunc(x, c.meets)
	case string:
		return c.equals != nil && strings.EqualFold(x, *c.equals)
	case float64:
		return c.equals == nil && c.min <= x && x <= c.max
	}
	return false
}

// ---- vector and hybrid searches -----------------------------------------

// hybridQuery is a search's hybrid parameter.
type hybridQuery struct {
	embedder string
	ratio    float64
}

// parseHybrid reads hybrid: an object with embedder (mandatory) and
// semanticRatio (0 to 1, default 0.5).
func parseHybrid(raw json.RawMessage) (*hybridQuery, *apiError) {
	m, e := fields(raw, ".hybrid", "invalid_search_hybrid_query", []string{"semanticRatio", "embedder"})
	if e != nil {
		return nil, e
	}
	h := &hybridQuery{ratio: 0.5}
	if v, ok := m["embedder"]; ok && json.Unmarshal(v, &h.embedder) != nil {
		return nil, newError("invalid_search_embedder", fmt.Sprintf("Invalid value type at `.hybrid.embedder`: expected a string, but found `%.60s`", v))
	}
	if v, ok := m["semanticRatio"]; ok && (json.Unmarshal(v, &h.ratio) != nil || h.ratio < 0 || h.ratio > 1) {
		return nil, newError("invalid_search_semantic_ratio", "Invalid value at `.hybrid.semanticRatio`: the value of `semanticRatio` is invalid, expected a float between `0.0` and `1.0`.")
	}
	if _, ok := m["embedder"]; !ok {
		return nil, newError("invalid_search_embedder", "Missing field `embedder` inside `.hybrid`")
	}
	return h, nil
}

// checkSemantic checks a search's vector and hybrid against the index:
// the embedder exists and the vector has its dimensions.
func (ix *index) checkSemantic(req searchRequest) *apiError {
	switch {
	case req.vector != nil && req.hybrid == nil:
		return newError("missing_search_hybrid", "Invalid request: missing `hybrid` parameter when `vector` is present.")
	case req.hybrid == nil:
		return nil
	}
	dim, ok := ix.embedders[req.hybrid.embedder]
	if !ok {
		return newError("invalid_search_embedder", fmt.Sprintf("Cannot find embedder with name `%s`.", req.hybrid.embedder))
	}
	switch {
	case req.vector == nil && req.hybrid.ratio > 0:
		// A userProvided embedder cannot embed the query text.
		return notModelled("a semantic search without `vector`")
	case req.vector != nil && len(req.vector) != dim:
		return dimensionError(ix.uid, dim, len(req.vector))
	}
	return nil
}

// semantic ranks the documents that pass the filter and have an embedding
// for the embedder by cosine similarity to the vector, exactly, best
// first (ties in insertion order); each hit's score is (1 + cosine) / 2,
// in 0…1 as Meilisearch's semantic ranking score.
func (ix *index) semantic(embedder string, vector []float64, conds []condition) []scored {
	var out []scored
	for _, d := range ix.docs {
		v, ok := d.vectors[embedder]
		if !ok || !d.passes(conds) {
			continue
		}
		out = append(out, scored{doc: d, score: (1 + fakekit.Cosine(vector, v)) / 2, semantic: true})
	}
	sortScored(out)
	return out
}

// scored is a hit, its ranking score, and whether the score is a
// semantic one.
type scored struct {
	doc      *document
	score    float64
	semantic bool
}

func sortScored(s []scored) {
	slices.SortFunc(s, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.doc.internal, b.doc.internal))
	})
}

// fuse merges a keyword ranking and a semantic one as Meilisearch's hybrid
// search does in outline: each hit's ranking score is weighted — the
// keyword score by 1 − ratio, the semantic score by ratio — and a hit in
// both lists keeps its better weighted score; the merged list is sorted by
// it. The keyword score here is the share of query words the document
// kept, a stand-in for Meilisearch's ranking-rule score.
func fuse(keyword []ranked, terms int, semantic []scored, ratio float64) []scored {
	best := map[*document]scored{}
	for _, r := range keyword {
		best[r.doc] = scored{doc: r.doc, score: (1 - ratio) * float64(r.words) / float64(max(terms, 1))}
	}
	for _, s := range semantic {
		w := scored{doc: s.doc, score: ratio * s.score, semantic: true}
		if old, ok := best[s.doc]; !ok || w.score > old.score {
			best[s.doc] = w
		}
	}
	hits := make([]scored, 0, len(best))
	for _, s := range best {
		hits = append(hits, s)
	}
	sortScored(hits)
	return hits
}

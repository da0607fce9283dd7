package meilisearch

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
)

// layout is what an index of a schema holds under the options: which
// fields are searchable, filterable and embedded, and how each query shape
// is sent. Create, Attach, CheckSchema and CheckQuery build it the same
// way (layoutOf).
type layout struct {
	text       []string // searchable attributes, in schema order
	kinds      map[string]engines.FieldType
	filterable []string // indexed tag and numeric fields, then exact_fields
	exact      []string // text fields looked up by a filter on their value
	vector     string   // the vector field ("" when the schema has none)
	dim        int
	embed      bool                // the vector field is an embedder (fields has vector)
	stored     []engines.FieldSpec // the text, tag and numeric fields, as Get returns them
}

// validAttribute is the rule for the fields the driver names in filters
// and settings beyond searchableAttributes: a plain word that needs no
// quoting in a filter expression and is not one of Meilisearch's reserved
// attributes (_geo, _vectors, … all begin with an underscore).
var validAttribute = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_]*$`)

// layoutOf is the index an engine configured by o makes of schema: text
// fields searchable (always), tag and numeric fields filterable when the
// fields option has their type, the vector field a userProvided embedder
// of its dimension when fields has vector, and exact_fields' text fields
// filterable too. A schema Meilisearch cannot hold as configured is
// refused with a SchemaError.
func layoutOf(schema engines.Schema, o options) (layout, error) {
	l := layout{kinds: map[string]engines.FieldType{}}
	for _, f := range schema.Fields {
		if _, dup := l.kinds[f.Name]; dup {
			return l, engines.RefuseSchema("meilisearch", "field %q twice", f.Name)
		}
		l.kinds[f.Name] = f.Type
		switch {
		case f.Name == PrimaryKey:
			return l, engines.RefuseSchema("meilisearch", "field %q is the primary key's name", f.Name)
		case f.Type != engines.Text && !validAttribute.MatchString(f.Name):
			return l, engines.RefuseSchema("meilisearch", "%s field %q: not a plain attribute name (a-z A-Z 0-9 _, not starting with _)", f.Type, f.Name)
		}
		switch f.Type {
		case engines.Text:
			l.text = append(l.text, f.Name)
			l.stored = append(l.stored, f)
		case engines.Tag, engines.Numeric:
			if o.types[f.Type] {
				l.filterable = append(l.filterable, f.Name)
			}
			l.stored = append(l.stored, f)
		case engines.Vector:
			if l.vector != "" {
				return l, engines.RefuseSchema("meilisearch", "vector fields %q and %q: %w (one embedder per index here)", l.vector, f.Name, engines.ErrUnsupported)
			}
			if f.Dim < 1 {
				return l, engines.RefuseSchema("meilisearch", "vector field %q: dimension %d", f.Name, f.Dim)
			}
			// An embedder has no distance to choose: its settings
			// (source, dimensions, binaryQuantized, distribution, …:
			// SubEmbeddingSettings in the 1.37.0 OpenAPI document,
			// https://www.meilisearch.com/docs/reference/api/settings)
			// name none, and the vector store compares by cosine
			// (hannoy's Cosine; Hamming over bits when binary-quantized:
			// crates/milli/src/vector/store.rs). Without the embedder
			// (fields without vector) the vector is only stored, so no
			// metric is relied on.
			if o.types[engines.Vector] && f.Metric != engines.Cosine {
				return l, engines.RefuseSchema("meilisearch", "vector field %q: metric %s: %w (Meilisearch's embedders rank by cosine only)", f.Name, f.Metric, engines.ErrUnsupported)
			}
			l.vector, l.dim, l.embed = f.Name, f.Dim, o.types[engines.Vector]
		default:
			return l, engines.RefuseSchema("meilisearch", "field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
	}
	if len(l.text) == 0 {
		return l, engines.RefuseSchema("meilisearch", "no text field: %w (the index searches its text fields)", engines.ErrUnsupported)
	}
	for _, name := range o.exact {
		if l.kinds[name] != engines.Text || !slices.Contains(l.text, name) {
			return l, engines.RefuseSchema("meilisearch", "option exact_fields: %q is not a text field of the schema", name)
		}
		l.exact = append(l.exact, name)
		l.filterable = append(l.filterable, name)
	}
	return l, nil
}

// settings is the one settings update Create applies: the study's
// searchable attributes and typo tolerance, plus, for a schema with more
// than text, the filterable attributes and the vector field's embedder.
// For a text-only schema it is what it always was (the new members are
// empty and omitted).
func (l layout) settings() *meilisearch.Settings {
	s := settings(l.text)
	s.FilterableAttributes = l.filterable
	if l.embed {
		s.Embedders = map[string]meilisearch.Embedder{
			l.vector: {Source: meilisearch.UserProvidedEmbedderSource, Dimensions: l.dim},
		}
	}
	return s
}

// checkShape refuses, with an error wrapping engines.ErrUnsupported, a
// query shape the index cannot answer: CheckQuery's answer, and the first
// thing Search checks (through request).
func (l layout) checkShape(q engines.Query) error {
	for _, f := range q.Filters {
		if err := l.checkFilterable(f.Field); err != nil {
			return err
		}
	}
	if q.Vector != nil {
		switch {
		case l.vector == "":
			return fmt.Errorf("vector search: the schema has no vector field: %w", engines.ErrUnsupported)
		case !l.embed:
			return fmt.Errorf("vector search: field %q has no embedder (option fields without vector): %w", l.vector, engines.ErrUnsupported)
		case q.Field != "":
			return fmt.Errorf("vector search restricted to field %q: %w", q.Field, engines.ErrUnsupported)
		}
	}
	if q.Field != "" {
		switch kind, ok := l.kinds[q.Field]; {
		case !ok:
			return fmt.Errorf("search in field %q: the schema has no such field: %w", q.Field, engines.ErrUnsupported)
		case kind == engines.Tag:
			return l.checkFilterable(q.Field)
		case kind != engines.Text:
			return fmt.Errorf("search in %s field %q: %w", kind, q.Field, engines.ErrUnsupported)
		}
	}
	return nil
}

// checkFilterable refuses a filter on a field that is not a filterable tag
// or numeric field: Meilisearch answers 400 invalid_search_filter.
func (l layout) checkFilterable(name string) error {
	switch kind, ok := l.kinds[name]; {
	case !ok:
		return fmt.Errorf("filter on %q: the schema has no such field: %w", name, engines.ErrUnsupported)
	case kind != engines.Tag && kind != engines.Numeric:
		return fmt.Errorf("filter on %s field %q: %w", kind, name, engines.ErrUnsupported)
	case !slices.Contains(l.filterable, name):
		return fmt.Errorf("filter on %s field %q: not filterable (option fields without %s): %w", kind, name, kind, engines.ErrUnsupported)
	}
	return nil
}

// plainText says whether q is the mixed workload's free-text search, which
// searchBody writes without the client's struct.
func plainText(q engines.Query) bool {
	return q.Vector == nil && q.Field == "" && len(q.Filters) == 0
}

// request is the SearchRequest the client would be given for q (any shape
// but the fast one), after checkShape:
//   - Vector alone (kNN): q "", vector, hybrid {embedder: the vector
//     field, semanticRatio: 1.0} — a purely semantic search — with the
//     filters as filter: Meilisearch computes the filter's candidates
//     first and searches the vector store among them (pre-filtering);
//   - Text and Vector (hybrid): q, vector, hybrid {embedder,
//     semanticRatio: the semantic_ratio option, 0.5 by default}:
//     Meilisearch runs the keyword and the semantic search and merges
//     them by ranking score weighted by the ratio, its own fusion;
//   - Field (a lookup): in an exact_fields text field or a tag field, q ""
//     and the filter `field = "text"`; in another text field, the words
//     of Text as one phrase (q "\"w1 w2\""), attributesToSearchOn [field]:
//     the words adjacent and whole (no prefix, no typo), in that field
//     only — "IT-500" finds the product whose sku reads IT-500 and not
//     IT-5000, and Meilisearch has no stop words unless set;
//   - Text (with Filters): q and the matching strategy, filter;
//   - Filters alone: q "" (a placeholder search) and filter.
//
// Every request asks for K hits (limit) and only the id attribute.
func (l layout) request(q engines.Query, o options) (*meilisearch.SearchRequest, error) {
	if err := l.checkShape(q); err != nil {
		return nil, err
	}
	req := &meilisearch.SearchRequest{Limit: int64(q.K), AttributesToRetrieve: []string{PrimaryKey}}
	filter := make([]string, 0, len(q.Filters)+1)
	for _, f := range q.Filters {
		c, err := l.condition(f)
		if err != nil {
			return nil, err
		}
		filter = append(filter, c)
	}
	switch {
	case q.Field != "" && (l.kinds[q.Field] == engines.Tag || slices.Contains(l.exact, q.Field)):
		c, err := equals(q.Field, q.Text)
		if err != nil {
			return nil, err
		}
		filter = append(filter, c)
	case q.Field != "":
		words := lookupWords(q.Text)
		if words == "" {
			return nil, errNoWords
		}
		req.Query = `"` + words + `"`
		req.AttributesToSearchOn = []string{q.Field}
	case q.Vector != nil:
		if len(q.Vector) != l.dim {
			return nil, fmt.Errorf("query vector has %d dimensions, field %s %d", len(q.Vector), l.vector, l.dim)
		}
		req.Query, req.Vector = q.Text, q.Vector
		ratio := 1.0
		if q.Text != "" {
			ratio, req.MatchingStrategy = o.ratio, o.strategy
		}
		req.Hybrid = &meilisearch.SearchRequestHybrid{SemanticRatio: ratio, Embedder: l.vector}
	default:
		req.Query, req.MatchingStrategy = q.Text, o.strategy
	}
	if len(filter) > 0 {
		// An array of conditions: Meilisearch ANDs them.
		req.Filter = filter
	}
	return req, nil
}

// condition is one filter's expression: `tag = "value"`, or `number min
// TO max` (TO is inclusive: min <= value <= max, the filter expression
// reference).
func (l layout) condition(f engines.Filter) (string, error) {
	if l.kinds[f.Field] == engines.Tag {
		return equals(f.Field, f.Tag)
	}
	if math.IsNaN(f.Min) || math.IsNaN(f.Max) || math.IsInf(f.Min, 0) || math.IsInf(f.Max, 0) || f.Min > f.Max {
		return "", fmt.Errorf("filter on %q: range [%v, %v] is empty or not finite", f.Field, f.Min, f.Max)
	}
	return f.Field + " " + number(f.Min) + " TO " + number(f.Max), nil
}

// number writes a filter bound in plain decimal: no exponent for the
// filter parser to read.
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// equals is `field = "value"`, the value double-quoted with its quotes
// escaped (\"), as Meilisearch's filter parser reads a quoted value. A
// backslash is refused: the parser unescapes only a backslash before the
// quote, so a value ending in one could not be written.
func equals(field, value string) (string, error) {
	if strings.Contains(value, `\`) {
		return "", fmt.Errorf("filter on %q: a value with a backslash is not sent", field)
	}
	return field + ` = "` + strings.ReplaceAll(value, `"`, `\"`) + `"`, nil
}

// errNoWords is a phrase lookup of text without a letter or digit: an
// empty phrase would be a placeholder search that matches every document.
var errNoWords = errors.New("the lookup has no word")

// lookupWords is text's words of letters and digits, space-separated:
// Meilisearch's tokenizer splits "IT-500" at the hyphen as the query's
// phrase splits at the space, so both read the words it, 500 in a row,
// and no quote of the text can end the phrase early.
func lookupWords(text string) string {
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

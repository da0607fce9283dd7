package typesense

import (
	"errors"
	"fmt"
	"slices"

	"github.com/searchbench/searchbench/engines"
	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"
)

// layout is the collection Create makes of a schema under the options, and
// what a search can ask of it: the one place both Search and CheckQuery
// read a query's shape from.
type layout struct {
	fields  []api.Field                  // declared, in schema order
	text    []string                     // declared text fields, schema order: query_by
	exact   []string                     // text fields also declared facet: looked up by value
	filters map[string]engines.FieldType // declared tag and numeric fields
	vector  string                       // the declared vector field, "" when none
}

// newLayout maps the schema onto Typesense fields: Text → "string", Tag →
// "string" with facet, Numeric → "float", Vector → "float[]" with num_dim
// (an HNSW index) and the vec_dist of its metric (vecDist). A field whose type the
// fields option leaves out is not declared: Typesense stores it with the
// document and indexes nothing of it.
func newLayout(o options, schema engines.Schema) (layout, error) {
	l := layout{filters: map[string]engines.FieldType{}}
	hasText, vectors := false, 0
	for _, f := range schema.Fields {
		tf := api.Field{Name: f.Name}
		switch f.Type {
		case engines.Text:
			hasText = true
			tf.Type = "string"
			if slices.Contains(o.exact, f.Name) {
				tf.Facet = pointer.True()
				l.exact = append(l.exact, f.Name)
			}
		case engines.Tag:
			tf.Type, tf.Facet = "string", pointer.True()
		case engines.Numeric:
			tf.Type = "float"
		case engines.Vector:
			if vectors++; vectors > 1 {
				return layout{}, engines.RefuseSchema("typesense", "field %s: a second vector field: %w", f.Name, engines.ErrUnsupported)
			}
			if f.Dim < 1 {
				return layout{}, engines.RefuseSchema("typesense", "field %s: a vector of %d dimensions", f.Name, f.Dim)
			}
			dist, err := vecDist(f.Metric)
			if err != nil {
				return layout{}, engines.RefuseSchema("typesense", "field %s: %w", f.Name, err)
			}
			tf.Type, tf.NumDim, tf.VecDist = "float[]", pointer.Int(f.Dim), dist
		default:
			return layout{}, engines.RefuseSchema("typesense", "field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
		if f.Name == "id" {
			return layout{}, engines.RefuseSchema("typesense", `field "id" is the document ID, not a schema field`)
		}
		if !o.types[f.Type] {
			continue
		}
		switch f.Type {
		case engines.Text:
			l.text = append(l.text, f.Name)
		case engines.Tag, engines.Numeric:
			l.filters[f.Name] = f.Type
		case engines.Vector:
			l.vector = f.Name
		}
		l.fields = append(l.fields, tf)
	}
	if !hasText {
		return layout{}, engines.RefuseSchema("typesense", "schema has no text field to search")
	}
	for _, name := range o.exact {
		if !slices.Contains(l.exact, name) {
			return layout{}, engines.RefuseSchema("typesense", "option exact_fields: %s is not a text field of the schema", name)
		}
	}
	return l, nil
}

// vecDist is the vec_dist of a vector field ranked by metric. Typesense
// 29.0 has two distances, cosine (the default) and ip, inner product
// (collections.md at docs-site/content/29.0/api in
// typesense/typesense-website, the vec_dist field parameter;
// vector_distance_type_t {ip, cosine} in include/field.h at v29.0, where a
// name that is neither is refused, src/field.cpp). Cosine leaves vec_dist
// out, as before metrics were asked for: the default is cosine (field.cpp,
// DEFAULT_VEC_DIST_METRIC). Dot is "ip": the HNSW index stores ip vectors
// as given (only cosine's are normalised, Index::index_field_in_memory in
// src/index.cpp) and ranks by hnswlib's InnerProductDistance, 1 − dot, so
// the largest inner product comes first whatever the vectors' lengths. L2
// has no vec_dist: refused, rather than answered by another distance.
func vecDist(metric engines.Metric) (*string, error) {
	switch metric {
	case engines.Cosine:
		return nil, nil
	case engines.Dot:
		return pointer.String("ip"), nil
	case engines.L2:
		return nil, fmt.Errorf("vector metric l2: Typesense 29.0 has no Euclidean distance (vec_dist is cosine or ip): %w", engines.ErrUnsupported)
	}
	return nil, fmt.Errorf("vector metric %s: %w", metric, engines.ErrUnsupported)
}

// distName is a field's vec_dist as Typesense reads it: cosine when it is
// not given (src/field.cpp, DEFAULT_VEC_DIST_METRIC at v29.0).
func distName(f api.Field) string {
	if f.VecDist == nil {
		return "cosine"
	}
	return *f.VecDist
}

// checkQuery says whether the collection can answer q's shape: nil, or an
// error wrapping engines.ErrUnsupported without the driver's name. Search
// makes this check first; CheckQuery answers with it.
func (l layout) checkQuery(q engines.Query) error {
	switch {
	case q.Vector != nil && l.vector == "":
		return fmt.Errorf("vector search: the collection indexes no vector field (option fields): %w", engines.ErrUnsupported)
	case q.Vector != nil && q.Field != "":
		return fmt.Errorf("a lookup in field %q with a vector: %w", q.Field, engines.ErrUnsupported)
	case q.Field != "" && !slices.Contains(l.text, q.Field):
		return fmt.Errorf("search restricted to %q, which is not an indexed text field: %w", q.Field, engines.ErrUnsupported)
	case q.Text != "" && len(l.text) == 0:
		return fmt.Errorf("text search: the collection indexes no text field (option fields): %w", engines.ErrUnsupported)
	}
	for _, f := range q.Filters {
		if _, ok := l.filters[f.Field]; !ok {
			return fmt.Errorf("filter on %q, which is not an indexed tag or numeric field: %w", f.Field, engines.ErrUnsupported)
		}
	}
	return nil
}

// CheckQuery refuses a query shape Search would (engines.QueryChecker).
func (driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	o, err := check(cfg)
	if err != nil {
		return err
	}
	l, err := newLayout(o, schema)
	if err != nil {
		return err
	}
	return l.checkQuery(q)
}

var _ engines.QueryChecker = driver{}

// errNoCollection is a call before Create or Attach.
var errNoCollection = errors.New("typesense: no collection: Create was not called")

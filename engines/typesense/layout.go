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
// (an HNSW index, cosine distance by default). A field whose type the
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
			tf.Type, tf.NumDim = "float[]", pointer.Int(f.Dim)
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

package bleve

import (
	"errors"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/searchbench/searchbench/engines"
)

// indexMapping is the index of a schema: each text field analysed with
// Bleve's English analyzer and stored (for Get), the schema's text fields
// in order.
func indexMapping(schema engines.Schema) (*mapping.IndexMappingImpl, []string, error) {
	if schema.Name == "" {
		return nil, nil, engines.RefuseSchema("bleve", "schema has no name")
	}
	doc := blevesearch.NewDocumentStaticMapping()
	var fields []string
	for _, f := range schema.Fields {
		if f.Type != engines.Text {
			return nil, nil, engines.RefuseSchema("bleve", "field %s: type %s is not supported (text only)", f.Name, f.Type)
		}
		fm := blevesearch.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = true               // Get reads the stored text back (see Get for the cost)
		fm.IncludeInAll = false       // searches name their fields
		fm.IncludeTermVectors = false // no highlighting
		doc.AddFieldMappingsAt(f.Name, fm)
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return nil, nil, errors.New("bleve: schema has no text field")
	}
	im := blevesearch.NewIndexMapping()
	im.DefaultMapping = doc
	im.DefaultAnalyzer = en.AnalyzerName
	return im, fields, nil
}

// body is a document as Bleve indexes it: its fields' text by name.
func body(doc engines.Document) map[string]any {
	b := make(map[string]any, len(doc.Fields))
	for _, f := range doc.Fields {
		b[f.Name] = f.Text
	}
	return b
}

// searchRequest is a search for text: one match query per text field,
// combined with OR, the top k.
func searchRequest(text string, k int, fields []string) *blevesearch.SearchRequest {
	parts := make([]query.Query, len(fields))
	for i, f := range fields {
		m := blevesearch.NewMatchQuery(text)
		m.SetField(f)
		parts[i] = m
	}
	return blevesearch.NewSearchRequestOptions(blevesearch.NewDisjunctionQuery(parts...), k, 0, false)
}

// checkQuery is the one shape Bleve answers here, free text over every text
// field: the index holds text fields only (indexMapping), so a lookup in
// one field, a filter or a vector is engines.ErrUnsupported with a line
// saying why. Vectors would need Bleve's FAISS build (see the package doc).
func checkQuery(q engines.Query) error {
	switch {
	case q.Vector != nil:
		return fmt.Errorf("%s search: vectors need Bleve's FAISS build (cgo, build tag vectors), which this embedded engine does not use: %w", q.Shape(), engines.ErrUnsupported)
	case q.Field != "":
		return fmt.Errorf("lookup in field %q: the index answers free text over every text field only: %w", q.Field, engines.ErrUnsupported)
	case len(q.Filters) > 0:
		return fmt.Errorf("%s search: the index holds text fields only, none to filter on: %w", q.Shape(), engines.ErrUnsupported)
	}
	return nil
}

package httpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/engines"
)

// DecodeDocument reads the document a JSON engine returned for a get of
// id: one JSON object holding the document's fields under their names, as
// Meilisearch, Typesense and Amgix Now answer a document-by-ID call. Every
// such driver reads its answer the same way, so the rules live here once:
//
//   - idKey names the member that holds the document's ID ("" when the
//     engine keeps the ID outside the object); it must be the JSON string id,
//     so that an answer for another document is an error, not a result.
//   - Each schema field becomes a Field, in schema order: Text and Tag from a
//     JSON string, Numeric from a number, Vector from an array of numbers. A
//     member that is absent or null is left out (the engine stores no value
//     for it); a value of another JSON type is an error.
//   - Members outside the schema (an engine's own, such as Amgix's
//     "timestamp") are ignored.
func DecodeDocument(body []byte, idKey, id string, fields []engines.FieldSpec) (engines.Document, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return engines.Document{}, fmt.Errorf("document is not a JSON object: %w", err)
	}
	if members == nil {
		return engines.Document{}, errors.New("document is null, not a JSON object")
	}
	if idKey != "" {
		var got string
		raw, ok := members[idKey]
		if !ok || json.Unmarshal(raw, &got) != nil {
			return engines.Document{}, fmt.Errorf("document has no string %q", idKey)
		}
		if got != id {
			return engines.Document{}, fmt.Errorf("asked for document %q, the engine answered with %q", id, got)
		}
	}
	doc := engines.Document{ID: id, Fields: make([]engines.Field, 0, len(fields))}
	for _, spec := range fields {
		raw, ok := members[spec.Name]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		f := engines.Field{Name: spec.Name}
		var err error
		switch spec.Type {
		case engines.Text, engines.Tag:
			err = json.Unmarshal(raw, &f.Text)
		case engines.Numeric:
			err = json.Unmarshal(raw, &f.Number)
		case engines.Vector:
			err = json.Unmarshal(raw, &f.Vector)
		default:
			err = fmt.Errorf("type %s is not known", spec.Type)
		}
		if err != nil {
			return engines.Document{}, fmt.Errorf("document field %s is not a %s value: %w", spec.Name, spec.Type, err)
		}
		doc.Fields = append(doc.Fields, f)
	}
	return doc, nil
}

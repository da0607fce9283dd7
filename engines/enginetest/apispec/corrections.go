package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// correctElasticsearch mends two errors of Elasticsearch's generated
// document, each of which refuses every request or answer it touches, so
// that checking against it finds the engine's rules and not the
// generator's:
//
//   - Unions are written as oneOf, which requires exactly one branch to
//     match, where the specification's TypeScript union (A | B) means any:
//     _types.FieldValue is oneOf [number, number, string, boolean, nullable
//     string, object], so no number and no string can ever match exactly
//     one branch, and _global.bulk.ResponseItem's _id (oneOf [string,
//     nullable string]) refuses every item of every _bulk answer. Every
//     oneOf becomes anyOf.
//   - _bulk's body is newline-delimited JSON (Elasticsearch reads it as
//     application/x-ndjson: RestBulkAction in server/.../rest/action/document,
//     and the clients send that type), but the document can only say
//     application/json with the lines as an array. The bulk request body
//     also takes application/x-ndjson, with the same schema; the lines are
//     decoded as that array (decodeNDJSON).
func correctElasticsearch(doc map[string]any) {
	oneOfToAnyOf(doc)
	if rb, ok := dig(doc, "components", "requestBodies", "bulk", "content").(map[string]any); ok {
		rb["application/x-ndjson"] = rb["application/json"]
	}
}

func oneOfToAnyOf(v any) {
	switch v := v.(type) {
	case map[string]any:
		if o, ok := v["oneOf"]; ok {
			if _, clash := v["anyOf"]; !clash {
				delete(v, "oneOf")
				v["anyOf"] = o
			}
		}
		for _, x := range v {
			oneOfToAnyOf(x)
		}
	case []any:
		for _, x := range v {
			oneOfToAnyOf(x)
		}
	}
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func init() {
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", decodeNDJSON)
}

// decodeNDJSON reads newline-delimited JSON as the array of its lines.
func decodeNDJSON(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	lines := []any{}
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var x any
		if err := json.Unmarshal(line, &x); err != nil {
			return nil, fmt.Errorf("line %d: %w", len(lines)+1, err)
		}
		lines = append(lines, x)
	}
	return lines, nil
}

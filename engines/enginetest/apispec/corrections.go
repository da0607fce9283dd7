package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

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
//   - PUT /{index}/_doc/{id} (operation index) describes only 200, where
//     Elasticsearch answers 201 Created, with the same body, when the
//     document was new (result "created": IndexResponse.status()); its 201
//     is described as its 200.
func correctElasticsearch(doc map[string]any) {
	oneOfToAnyOf(doc)
	if r, ok := dig(doc, "paths", "/{index}/_doc/{id}", "put", "responses").(map[string]any); ok && r["201"] == nil {
		r["201"] = r["200"]
	}
	if rb, ok := dig(doc, "components", "requestBodies", "bulk", "content").(map[string]any); ok {
		rb["application/x-ndjson"] = rb["application/json"]
	}
}

// correctTypesense mends two errors of the Typesense document:
//
//   - SearchResultHit.document, described as "Can be any key-value pair",
//     is written additionalProperties: {type: object}, which refuses every
//     hit whose document has a string or number field — every hit, since a
//     document's id is a string. Its values take any type.
//   - POST /multi_search's multiSearchParameters query object is marked
//     required, yet every one of its properties is optional and Typesense
//     reads the searches from the body: a multi_search with no query
//     parameter (what typesense-go sends, and the driver) would fail. It is
//     not required.
func correctTypesense(doc map[string]any) {
	if d, ok := dig(doc, "components", "schemas", "SearchResultHit", "properties", "document").(map[string]any); ok {
		d["additionalProperties"] = map[string]any{}
	}
	params, _ := dig(doc, "paths", "/multi_search", "post", "parameters").([]any)
	for _, p := range params {
		if p, ok := p.(map[string]any); ok && p["name"] == "multiSearchParameters" {
			p["required"] = false
		}
	}
}

// correctMeilisearch mends three errors of the 1.37.0 document (utoipa's
// output, which does not see deserr's attributes), each of which the later
// documents fix (meilisearch/documentation at 5b07948ca, Meilisearch
// 1.53.0):
//
//   - SearchQuery, SimilarQuery, FacetSearchQuery, ListFieldsFilter and
//     Personalize name their properties in snake_case (attributes_to_retrieve),
//     where Meilisearch reads camelCase (deserr rename_all = camelCase on
//     the types in crates/meilisearch/src/search/mod.rs): every search
//     Meilisearch takes would fail, every misnamed one pass. They are
//     renamed to camelCase, as 1.53.0's document names them.
//   - SettingEmbeddingSettings is described as an object with one property,
//     inner (its own description: a "technical" type required by utoipa),
//     where the wire carries inner's value itself (serde transparent):
//     it becomes inner's schema, as in 1.53.0's document.
//   - The embedder settings' dimensions is typed string (or null), where
//     Meilisearch reads and answers a number (usize); 1.53.0's document
//     types it integer.
//
// and two it keeps:
//
//   - TaskView's startedAt and finishedAt are typed string, where their
//     descriptions say they are null until the task starts or finishes, as
//     Meilisearch sends them: they take null too.
//   - Array query parameters (GET /tasks' statuses, indexUids, types) are
//     described as "separating them with the , character", which OpenAPI
//     writes explode: false; the document leaves explode at form's default,
//     true (statuses=a&statuses=b). They are explode: false.
func correctMeilisearch(doc map[string]any) {
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	for _, name := range []string{"SearchQuery", "SimilarQuery", "FacetSearchQuery", "ListFieldsFilter", "Personalize"} {
		s, _ := schemas[name].(map[string]any)
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			if c := camel(k); c != k {
				delete(props, k)
				props[c] = v
			}
		}
		if req, ok := s["required"].([]any); ok {
			for i, r := range req {
				if name, ok := r.(string); ok {
					req[i] = camel(name)
				}
			}
		}
	}
	if inner, ok := dig(schemas, "SettingEmbeddingSettings", "properties", "inner").(map[string]any); ok {
		schemas["SettingEmbeddingSettings"] = inner
		if branches, ok := inner["oneOf"].([]any); ok {
			for _, b := range branches {
				if d, ok := dig(b, "properties", "dimensions").(map[string]any); ok {
					d["type"] = []any{"integer", "null"}
				}
			}
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		for _, op := range ops {
			params, _ := dig(op, "parameters").([]any)
			for _, p := range params {
				if p, ok := p.(map[string]any); ok && p["in"] == "query" && dig(p, "schema", "type") == "array" {
					p["explode"] = false
				}
			}
		}
	}
	for _, p := range []string{"startedAt", "finishedAt"} {
		if s, ok := dig(schemas, "TaskView", "properties", p).(map[string]any); ok {
			s["type"] = []any{"string", "null"}
		}
	}
}

// camel is a snake_case name in camelCase.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
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

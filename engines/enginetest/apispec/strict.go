package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// The strict rules. JSON Schema lets an object have any property its schema
// does not declare unless the schema says additionalProperties: false, and
// none of the three documents says it on the request objects we send
// (Elasticsearch's generator, Typesense's hand-written YAML and
// Meilisearch's utoipa output alike), so a misnamed field — knn's
// "num_candidate", "per_pagee", "semanticRatioo" — would pass. To the
// engine it is an error: Elasticsearch's parsers refuse an unknown field
// (x_content_parse_exception "[knn] unknown field [num_candidate]") and
// Meilisearch's deserr types deny unknown fields (bad_request "Unknown
// field"); where an engine reads only the names it knows and drops the rest,
// a misnamed option is silently not applied, the worse failure for a
// benchmark. So a request body property is refused when an object schema
// that declares properties and sets no additionalProperties does not
// declare it. This is sound for these documents because their generators
// write every field the engine reads into properties, and write
// additionalProperties (or no properties at all) where an object is open —
// Elasticsearch's dictionaries (a query's field name, _source), Typesense's
// and Meilisearch's documents — which the rule leaves open, as it does a
// oneOf/anyOf branch that takes any object. The rule applies to requests
// only: an engine's answer may carry fields a client must ignore.
//
// The same holds for query parameters (Elasticsearch: "request [...]
// contains unrecognized parameter"), so a parameter the operation does not
// declare is refused.

// undeclaredQuery refuses the query parameters neither the operation nor its
// path declares.
func (d *Doc) undeclaredQuery(route *routers.Route, query map[string][]string) []error {
	declared := map[string]bool{}
	for _, params := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range params {
			if p.Value == nil || p.Value.In != openapi3.ParameterInQuery {
				continue
			}
			// An object parameter of style form, exploded (the default),
			// is sent as one query parameter per property (Typesense's
			// searchParameters).
			if o := p.Value.Schema; o != nil && o.Value != nil && len(o.Value.Properties) > 0 &&
				(p.Value.Style == "" || p.Value.Style == openapi3.SerializationForm) &&
				(p.Value.Explode == nil || *p.Value.Explode) {
				for name := range o.Value.Properties {
					declared[name] = true
				}
				continue
			}
			declared[p.Value.Name] = true
		}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(query)) {
		if !declared[name] {
			errs = append(errs, fmt.Errorf("query parameter %s: not declared by the operation (declared: %s)",
				name, strings.Join(slices.Sorted(maps.Keys(declared)), ", ")))
		}
	}
	return errs
}

// strictBody applies the strict rule to a request body of JSON, or of
// newline-delimited JSON (Elasticsearch's _bulk), whose schema is an array
// of its lines.
func (d *Doc) strictBody(rb *openapi3.RequestBody, header http.Header, body []byte) []error {
	ct := header.Get("Content-Type")
	mt := rb.GetMediaType(ct)
	if mt == nil {
		if base, _, err := mime.ParseMediaType(ct); err == nil {
			mt = rb.GetMediaType(base)
		}
	}
	if mt == nil || mt.Schema == nil {
		return nil // openapi3filter has refused a content type the operation does not take
	}
	var v any
	base, _, _ := mime.ParseMediaType(ct)
	switch {
	case strings.HasSuffix(base, "ndjson"):
		var lines []any
		for line := range bytes.Lines(body) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var x any
			if err := json.Unmarshal(line, &x); err != nil {
				return nil // openapi3filter has refused the body
			}
			lines = append(lines, x)
		}
		v = lines
	case base == "application/json" || strings.HasSuffix(base, "+json"):
		if err := json.Unmarshal(body, &v); err != nil {
			return nil
		}
	default:
		return nil // not JSON (Typesense's import is JSON lines sent as octet-stream, described as a string)
	}
	return d.strict(mt.Schema, v, "")
}

// strict walks v beside the schema and reports the properties no applicable
// object schema declares.
func (d *Doc) strict(ref *openapi3.SchemaRef, v any, at string) []error {
	if ref == nil || ref.Value == nil {
		return nil
	}
	schemas := d.applicable(ref, v, nil)
	var errs []error
	switch v := v.(type) {
	case map[string]any:
		declared := map[string][]*openapi3.SchemaRef{}
		var extra []*openapi3.SchemaRef
		open, names := false, []string{}
		for _, s := range schemas {
			ap := s.Value.AdditionalProperties
			switch {
			case ap.Schema != nil:
				extra, open = append(extra, ap.Schema), true
			case ap.Has != nil && *ap.Has, len(s.Value.PatternProperties) > 0:
				open = true
			}
			if freeForm(s.Value) {
				open = true // a branch that takes any object: a document, _source
			}
			for name, p := range s.Value.Properties {
				declared[name] = append(declared[name], p)
				names = append(names, name)
			}
		}
		if len(declared) == 0 {
			open = true // nothing declared: nothing to be refused as undeclared
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			ps, ok := declared[k]
			switch {
			case ok:
			case open:
				ps = extra
			default:
				slices.Sort(names)
				errs = append(errs, fmt.Errorf("at %s/%s: property %q is not declared by %s (declared: %s)",
					at, k, k, describe(schemas), strings.Join(slices.Compact(names), ", ")))
			}
			for _, p := range ps {
				errs = append(errs, d.strict(p, v[k], at+"/"+k)...)
			}
		}
	case []any:
		for _, s := range schemas {
			if s.Value.Items == nil {
				continue
			}
			for i, x := range v {
				errs = append(errs, d.strict(s.Value.Items, x, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	}
	return errs
}

// applicable is ref and the schemas that apply to v with it: its allOf
// members, and those of its oneOf and anyOf branches v validates against
// (when none does, openapi3filter has reported it).
func (d *Doc) applicable(ref *openapi3.SchemaRef, v any, into []*openapi3.SchemaRef) []*openapi3.SchemaRef {
	if ref == nil || ref.Value == nil || slices.Contains(into, ref) {
		return into
	}
	into = append(into, ref)
	s := ref.Value
	for _, m := range s.AllOf {
		into = d.applicable(m, v, into)
	}
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, m := range group {
			if m.Value != nil && m.Value.VisitJSON(v, d.schemaOpts...) == nil {
				into = d.applicable(m, v, into)
			}
		}
	}
	return into
}

// freeForm reports whether s takes any object: it declares no property and
// composes no other schema (an allOf of one $ref is the generators' way of
// naming a type, not a free-form object).
func freeForm(s *openapi3.Schema) bool {
	return len(s.Properties) == 0 && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 &&
		(s.Type == nil || s.Type.Includes(openapi3.TypeObject))
}

// describe names the schemas by their components' names where they have
// one.
func describe(schemas []*openapi3.SchemaRef) string {
	var names []string
	for _, s := range schemas {
		if s.Ref != "" {
			names = append(names, s.Ref[strings.LastIndex(s.Ref, "/")+1:])
		}
	}
	if len(names) == 0 {
		return "the schema"
	}
	return strings.Join(names, " + ")
}

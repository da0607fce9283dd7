package typesensefake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// fieldDef is one declared field, with the properties Typesense reports.
type fieldDef struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Facet    bool   `json:"facet"`
	Optional bool   `json:"optional"`
	Index    bool   `json:"index"`
	Sort     bool   `json:"sort"`
	Infix    bool   `json:"infix"`
	Locale   string `json:"locale"`
	Stem     bool   `json:"stem"`
	Store    bool   `json:"store"`
	NumDim   int    `json:"num_dim,omitempty"`  // float[] vectors
	VecDist  string `json:"vec_dist,omitempty"` // float[] vectors: cosine or ip
}

func (f fieldDef) text() bool { return f.Type == "string" || f.Type == "string[]" }

type collection struct {
	name      string
	fields    []fieldDef
	createdAt int64
	docs      map[string]*document
	nextSeq   uint64
}

func (c *collection) field(name string) (fieldDef, bool) {
	i := slices.IndexFunc(c.fields, func(f fieldDef) bool { return f.Name == name })
	if i < 0 {
		return fieldDef{}, false
	}
	return c.fields[i], true
}

func (c *collection) summary() map[string]any {
	return map[string]any{
		"created_at": c.createdAt, "default_sorting_field": "", "enable_nested_fields": false,
		"fields": c.fields, "name": c.name, "num_documents": len(c.docs),
		"symbols_to_index": []string{}, "token_separators": []string{},
	}
}

// document is a stored document and its tokens per text field.
type document struct {
	seq     uint64
	fields  map[string]any
	tokens  map[string]map[string]struct{}
	vectors map[string][]float64 // float[] fields
}

// Field types Typesense 29.0 knows, and the ones the fake models.
var (
	knownTypes    = []string{"string", "int32", "int64", "float", "bool", "geopoint", "geopolygon", "string[]", "int32[]", "int64[]", "float[]", "bool[]", "geopoint[]", "object", "object[]", "auto", "string*", "image"}
	modelledTypes = []string{"string", "string[]", "int32", "int64", "float", "bool", "float[]"}
)

func (s *Server) createCollection(r *http.Request, body []byte) reply {
	var req struct {
		Name                *string           `json:"name"`
		Fields              *[]map[string]any `json:"fields"`
		DefaultSortingField string            `json:"default_sorting_field"`
		TokenSeparators     []string          `json:"token_separators"`
		SymbolsToIndex      []string          `json:"symbols_to_index"`
		EnableNestedFields  bool              `json:"enable_nested_fields"`
	}
	if err := fakekit.DecodeJSON(body, &req); err != nil {
		return errorf(http.StatusBadRequest, "Bad JSON.")
	}
	switch {
	case req.Name == nil:
		return errorf(http.StatusBadRequest, "Parameter `name` is required.")
	case req.Fields == nil:
		return errorf(http.StatusBadRequest, "Parameter `fields` is required.")
	case req.DefaultSortingField != "" || len(req.TokenSeparators) > 0 || len(req.SymbolsToIndex) > 0 || req.EnableNestedFields:
		return errorf(http.StatusNotImplemented, "typesensefake: default_sorting_field, token_separators, symbols_to_index and nested fields are not modelled")
	}
	fields, rep, ok := parseFields(*req.Fields)
	if !ok {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.collections[*req.Name]; exists {
		return errorf(http.StatusConflict, "A collection with name `%s` already exists.", *req.Name)
	}
	c := &collection{name: *req.Name, fields: fields, createdAt: time.Now().Unix(), docs: map[string]*document{}}
	s.collections[c.name] = c
	return jsonReply(http.StatusCreated, c.summary())
}

func parseFields(raw []map[string]any) ([]fieldDef, reply, bool) {
	var fields []fieldDef
	for _, m := range raw {
		name, _ := m["name"].(string)
		typ, _ := m["type"].(string)
		if name == "" || typ == "" {
			return nil, errorf(http.StatusBadRequest, "Wrong format for `fields`. It should be an array of objects containing `name`, `type`, `optional` and `facet` properties."), false
		}
		switch {
		case !slices.Contains(knownTypes, typ):
			return nil, errorf(http.StatusBadRequest, "Field `%s` has an invalid data type `%s`, see docs for supported data types.", name, typ), false
		case !slices.Contains(modelledTypes, typ):
			return nil, errorf(http.StatusNotImplemented, "typesensefake: field type %s is not modelled", typ), false
		case slices.ContainsFunc(fields, func(f fieldDef) bool { return f.Name == name }):
			return nil, errorf(http.StatusBadRequest, "There are duplicate field names in the schema."), false
		}
		f := fieldDef{Name: name, Type: typ, Index: true, Store: true, Sort: typ != "string" && typ != "string[]"}
		for k, v := range m {
			if k == "vec_dist" {
				continue // read once num_dim is known, below
			}
			if rep, ok := f.set(k, v); !ok {
				return nil, rep, false
			}
		}
		dist, hasDist := m["vec_dist"]
		switch {
		case typ == "float[]" && f.NumDim == 0:
			return nil, errorf(http.StatusNotImplemented, "typesensefake: a float[] field without num_dim is not modelled"), false
		case typ == "float[]":
			if rep, ok := f.setVecDist(dist, hasDist); !ok {
				return nil, rep, false
			}
			f.Sort = false
		case hasDist:
			return nil, errorf(http.StatusNotImplemented, "typesensefake: vec_dist on a field without num_dim is not modelled"), false
		}
		fields = append(fields, f)
	}
	return fields, reply{}, true
}

// onlyDefault are the field properties of which only the default is
// modelled: the others change what is searchable or how it is tokenized.
var onlyDefault = map[string]any{"index": true, "store": true, "stem": false, "infix": false, "locale": ""}

// set reads one property of a field's definition.
func (f *fieldDef) set(k string, v any) (reply, bool) {
	flag := map[string]*bool{"facet": &f.Facet, "optional": &f.Optional, "sort": &f.Sort}[k]
	def, known := onlyDefault[k]
	switch {
	case k == "name" || k == "type":
	case flag != nil:
		b, ok := v.(bool)
		if !ok {
			return errorf(http.StatusBadRequest, "The `%s` property of the field `%s` should be a boolean.", k, f.Name), false
		}
		*flag = b
	case k == "num_dim":
		n, isNum := v.(json.Number)
		d, err := strconv.ParseUint(n.String(), 10, 31)
		if !isNum || err != nil || d == 0 {
			return errorf(http.StatusBadRequest, "Property `num_dim` must be a positive integer."), false
		}
		if f.Type != "float[]" {
			return errorf(http.StatusBadRequest, "Property `num_dim` is only allowed on a float array field."), false
		}
		f.NumDim = int(d)
	case known && v != def:
		return errorf(http.StatusNotImplemented, "typesensefake: field property %s=%v is not modelled", k, v), false
	case !known:
		return errorf(http.StatusNotImplemented, "typesensefake: field property %s is not modelled", k), false
	}
	return reply{}, true
}

// setVecDist reads a vector field's vec_dist as Typesense 29.0 does
// (field::validate_and_init_field in src/field.cpp, for a field with
// num_dim): absent, cosine (DEFAULT_VEC_DIST_METRIC); otherwise a string
// that names a vector_distance_type_t — "ip" or "cosine", matched exactly
// (magic_enum::enum_cast, case-sensitive; include/field.h).
func (f *fieldDef) setVecDist(v any, given bool) (reply, bool) {
	s, isString := v.(string)
	switch {
	case !given:
		f.VecDist = "cosine"
	case !isString:
		return errorf(http.StatusBadRequest, "Property `vec_dist` must be a string."), false
	case s != "ip" && s != "cosine":
		return errorf(http.StatusBadRequest, "Property `vec_dist` is invalid."), false
	default:
		f.VecDist = s
	}
	return reply{}, true
}

func (s *Server) getCollection(r *http.Request, _ []byte) reply {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.collections[r.PathValue("c")]
	if !ok {
		return errorf(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, c.summary())
}

func (s *Server) dropCollection(r *http.Request, _ []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collections[r.PathValue("c")]
	if !ok {
		return errorf(http.StatusNotFound, "No collection with name `%s` found.", r.PathValue("c"))
	}
	delete(s.collections, c.name)
	return jsonReply(http.StatusOK, c.summary())
}

// writeAction reads the query parameters of the single and bulk write
// routes: the action, and dirty_values, of which the default is modelled.
func writeAction(q url.Values) (string, reply, bool) {
	action := cmp.Or(q.Get("action"), "create")
	switch action {
	case "create", "upsert":
	case "update", "emplace":
		return "", errorf(http.StatusNotImplemented, "typesensefake: action=%s is not modelled", action), false
	default:
		return "", errorf(http.StatusBadRequest, "Parameter `action` must be a create|update|upsert."), false
	}
	if dv := q.Get("dirty_values"); dv != "" && dv != "coerce_or_reject" {
		return "", errorf(http.StatusNotImplemented, "typesensefake: dirty_values=%s is not modelled", dv), false
	}
	return action, reply{}, true
}

func (s *Server) addDocument(r *http.Request, body []byte) reply {
	action, rep, ok := writeAction(r.URL.Query())
	if !ok {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collections[r.PathValue("c")]
	if !ok {
		return errorf(http.StatusNotFound, "Not Found")
	}
	d, status, msg := c.write(body, action)
	if status != 0 {
		return errorf(status, "%s", msg)
	}
	return jsonReply(http.StatusCreated, d.fields)
}

func (s *Server) importDocuments(r *http.Request, body []byte) reply {
	action, rep, ok := writeAction(r.URL.Query())
	if !ok {
		return rep
	}
	q := r.URL.Query()
	if bs := q.Get("batch_size"); bs != "" {
		if n, err := strconv.ParseUint(bs, 10, 32); err != nil || n == 0 {
			return errorf(http.StatusBadRequest, "Parameter `batch_size` must be a positive integer.")
		}
	}
	for _, name := range []string{"return_id", "return_doc"} {
		if v := q.Get(name); v != "" && v != "true" && v != "false" {
			return errorf(http.StatusBadRequest, "Parameter `%s` must be a true|false.", name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collections[r.PathValue("c")]
	if !ok {
		return errorf(http.StatusNotFound, "Not Found")
	}
	var out [][]byte
	for _, line := range strings.Split(string(body), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		res := map[string]any{"success": true}
		if d, status, msg := c.write([]byte(line), action); status != 0 {
			res = map[string]any{"success": false, "error": msg, "code": status, "document": line}
		} else {
			if q.Get("return_id") == "true" {
				res["id"] = d.fields["id"]
			}
			if q.Get("return_doc") == "true" {
				res["document"] = d.fields
			}
		}
		b, _ := json.Marshal(res)
		out = append(out, b)
	}
	return reply{status: http.StatusOK, body: bytes.Join(out, []byte("\n")), ctype: "text/plain; charset=utf-8"}
}

// write validates and stores one document; a non-zero status is the error
// Typesense answers.
func (c *collection) write(raw []byte, action string) (*document, int, string) {
	var m map[string]any
	if err := fakekit.DecodeJSON(raw, &m); err != nil || m == nil {
		return nil, http.StatusBadRequest, "Bad JSON."
	}
	id, seq := strconv.FormatUint(c.nextSeq, 10), c.nextSeq // Typesense numbers documents without an id
	if idv, present := m["id"]; present {
		s, ok := idv.(string)
		if !ok {
			return nil, http.StatusBadRequest, "Document's `id` field should be a string."
		}
		id = s
	}
	old, exists := c.docs[id]
	if exists && action == "create" {
		return nil, http.StatusConflict, fmt.Sprintf("A document with id %s already exists.", id)
	}
	d := &document{fields: maps.Clone(m), tokens: map[string]map[string]struct{}{}, vectors: map[string][]float64{}}
	d.fields["id"] = id
	if status, msg := c.index(d); status != 0 {
		return nil, status, msg
	}
	if exists {
		d.seq = old.seq // an upsert keeps the document's place
	} else {
		d.seq = seq
		c.nextSeq++
	}
	c.docs[id] = d
	return d, 0, ""
}

// index checks d's declared fields against the schema, coerces them in
// place and fills d's tokens and vectors.
func (c *collection) index(d *document) (int, string) {
	for _, f := range c.fields {
		val, present := d.fields[f.Name]
		switch {
		case (!present || val == nil) && f.Optional:
			continue
		case !present || val == nil:
			return http.StatusBadRequest, fmt.Sprintf("Field `%s` has been declared in the schema, but is not found in the document.", f.Name)
		case f.Type == "float[]":
			vec, status, msg := coerceVector(f, val)
			if status != 0 {
				return status, msg
			}
			d.fields[f.Name], d.vectors[f.Name] = vec, vec
			continue
		}
		coerced, ok := coerce(f.Type, val)
		if !ok {
			return http.StatusBadRequest, fmt.Sprintf("Field `%s` must be %s.", f.Name, typeNoun(f.Type))
		}
		d.fields[f.Name] = coerced
		if f.text() {
			d.tokens[f.Name] = tokenSet(coerced)
		}
	}
	return 0, ""
}

func typeNoun(t string) string {
	return cmp.Or(map[string]string{"string[]": "an array of strings", "int32": "an int32", "int64": "an int64"}[t], "a "+t)
}

// coerce applies dirty_values=coerce_or_reject, Typesense's default for a
// collection with a schema.
func coerce(typ string, v any) (any, bool) {
	if typ == "string[]" {
		arr, ok := v.([]any)
		out := make([]any, len(arr))
		for i, e := range arr {
			if out[i], ok = coerce("string", e); !ok {
				return nil, false
			}
		}
		return out, ok
	}
	s, ok := fakekit.Scalar(v)
	if _, isBool := v.(bool); !ok || isBool && typ != "string" && typ != "bool" {
		return nil, false
	}
	switch typ {
	case "string":
		return s, true
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case "int32", "int64":
		n, err := strconv.ParseInt(s, 10, map[string]int{"int32": 32, "int64": 64}[typ])
		return n, err == nil
	case "bool": // true and false, as booleans or strings
		return s == "true", s == "true" || s == "false"
	}
	return nil, false
}

// getDocument is get_fetch_document (core_api.cpp): the stored document,
// every field as Typesense keeps it (the id a string, a declared field's
// value after coercion). include_fields and exclude_fields, which later
// versions read there, would narrow the answer and are not modelled.
func (s *Server) getDocument(r *http.Request, _ []byte) reply {
	for _, p := range []string{"include_fields", "exclude_fields"} {
		if r.URL.Query().Has(p) {
			return errorf(http.StatusNotImplemented, "typesensefake: the parameter %s of GET /collections/{c}/documents/{id} is not modelled", p)
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.findDocument(r, false)
}

func (s *Server) deleteDocument(r *http.Request, _ []byte) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.findDocument(r, true)
}

// findDocument answers with the document, deleting it if remove; callers
// hold s.mu (for writing when remove).
func (s *Server) findDocument(r *http.Request, remove bool) reply {
	c, ok := s.collections[r.PathValue("c")]
	if !ok {
		return errorf(http.StatusNotFound, "Not Found")
	}
	id := r.PathValue("id")
	d, ok := c.docs[id]
	if !ok {
		return errorf(http.StatusNotFound, "Could not find a document with id: %s", id)
	}
	if remove {
		delete(c.docs, id)
	}
	return jsonReply(http.StatusOK, d.fields)
}

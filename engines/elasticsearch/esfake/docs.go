package esfake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// writeTarget returns the index a write names, or the error: an index that
// does not exist would be created by Elasticsearch (with dynamic mapping),
// which this fake does not do.
func (s *Server) writeTarget(name string) (*index, *esError) {
	if ix, _ := s.lookup(name); ix != nil {
		return ix, nil
	}
	return nil, cmp.Or(checkIndexName(name), notImplemented("index auto-creation on a write to the missing index [%s]", name))
}

func checkID(id string) *esError {
	if len(id) > 512 {
		return badRequest("action_request_validation_exception",
			"Validation Failed: 1: id [%s] is too long, must be no longer than 512 bytes but was: %d;", id, len(id))
	}
	return nil
}

// indexDoc is PUT|POST /{index}/_doc/{id}: index or replace.
func (s *Server) indexDoc(w http.ResponseWriter, r *request) *esError {
	mode, e := r.writeMode(false, "refresh", "timeout", "wait_for_active_shards", "op_type")
	if e != nil {
		return e
	}
	create := false
	switch op := r.URL.Query().Get("op_type"); op {
	case "", "index":
	case "create":
		create = true
	default:
		return badRequest("illegal_argument_exception", "opType must be 'create' or 'index', found: [%s]", op)
	}
	if len(r.body) == 0 {
		return badRequest("action_request_validation_exception", "Validation Failed: 1: source is missing;")
	}
	id := r.segs[2]
	if e := checkID(id); e != nil {
		return e
	}
	ix, e := s.writeTarget(r.segs[0])
	if e != nil {
		return e
	}
	status, res, e := ix.write(id, r.body, create)
	if e != nil {
		return e
	}
	if ix.afterWrite(r, mode) {
		res["forced_refresh"] = true
	}
	return ok(w, status, res)
}

// deleteDoc is DELETE /{index}/_doc/{id}; a missing document answers 404
// with result not_found (a write result, not an error body).
func (s *Server) deleteDoc(w http.ResponseWriter, r *request) *esError {
	mode, e := r.writeMode(true, "refresh", "timeout", "wait_for_active_shards")
	if e != nil {
		return e
	}
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	status, res := ix.remove(r.segs[2])
	if ix.afterWrite(r, mode) {
		res["forced_refresh"] = true
	}
	return ok(w, status, res)
}

// write indexes one document in the live view.
func (ix *index) write(id string, src []byte, create bool) (int, map[string]any, *esError) {
	d, e := ix.parseDoc(id, src)
	if e != nil {
		return 0, nil, e
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.live[id]
	if create && old != nil && old.doc != nil {
		e := newError(http.StatusConflict, "version_conflict_engine_exception",
			"[%s]: version conflict, document already exists (current version [%d])", id, old.version)
		e.extra = map[string]any{"index_uuid": ix.uuid, "shard": "0", "index": ix.name}
		return 0, nil, e
	}
	version, result, status := int64(1), "created", http.StatusCreated
	if old != nil {
		version = old.version + 1
		if old.doc != nil {
			result, status = "updated", http.StatusOK
		}
	}
	ix.live[id] = &entry{version: version, seqNo: ix.seqNo, doc: d}
	ix.pending = append(ix.pending, change{id: id, doc: d})
	ix.dirty = true
	return status, ix.writeResult(id, version, result), nil
}

// remove deletes one document in the live view.
func (ix *index) remove(id string) (int, map[string]any) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.live[id]
	if old == nil || old.doc == nil {
		version := int64(1)
		if old != nil {
			version = old.version + 1
			old.version = version
		}
		ix.dirty = true // a delete is an operation even when nothing was found
		return http.StatusNotFound, ix.writeResult(id, version, "not_found")
	}
	old.version++
	old.seqNo = ix.seqNo
	old.doc = nil
	ix.pending = append(ix.pending, change{id: id})
	ix.dirty = true
	return http.StatusOK, ix.writeResult(id, old.version, "deleted")
}

// getParams are the URL parameters of the get API (RestGetAction) that
// this fake does not model and that unmodelledURLParams does not list.
var getParams = []string{"realtime", "refresh", "force_synthetic_source"}

// getDoc is GET|HEAD /{index}/_doc/{id}, real-time as Elasticsearch's get
// is by default: it reads the live view, so a write not yet refreshed is
// found and a deleted document is not. A found document answers 200 with
// the source as written; a missing one 404 with only _index, _id and found
// false (GetResult.toXContent, RestGetAction). HEAD answers the same status
// with no body.
func (s *Server) getDoc(w http.ResponseWriter, r *request) *esError {
	for _, k := range getParams {
		if r.URL.Query().Has(k) {
			return notImplemented("URL parameter [%s] of a get", k)
		}
	}
	if e := cmp.Or(r.params(), r.noBody()); e != nil {
		return e
	}
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	id := r.segs[2]
	status, res := ix.get(id)
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	return ok(w, status, res)
}

// get reads one document from the live view.
func (ix *index) get(id string) (int, map[string]any) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	e := ix.live[id]
	if e == nil || e.doc == nil {
		return http.StatusNotFound, map[string]any{"_index": ix.name, "_id": id, "found": false}
	}
	return http.StatusOK, map[string]any{
		"_index": ix.name, "_id": id, "_version": e.version, "_seq_no": e.seqNo, "_primary_term": 1,
		"found": true, "_source": e.doc.source,
	}
}

func (ix *index) writeResult(id string, version int64, result string) map[string]any {
	seq := ix.seqNo
	ix.seqNo++
	return map[string]any{
		"_index": ix.name, "_id": id, "_version": version, "result": result,
		"_shards": ix.shardsHeader(), "_seq_no": seq, "_primary_term": 1,
	}
}

// Metadata fields, which a document's source must not contain.
var metadataFields = []string{"_id", "_index", "_source", "_routing", "_version", "_seq_no", "_primary_term",
	"_field_names", "_ignored", "_doc_count", "_tier", "_data_stream_timestamp", "_feature", "_nested_path"}

func docError(format string, args ...any) *esError {
	return badRequest("document_parsing_exception", format, args...)
}

// parseDoc checks a source against the mapping and analyses its fields, as
// Elasticsearch's document parser does (the "[line:col]" prefix of its
// reasons is left out: this fake does not track positions).
func (ix *index) parseDoc(id string, src []byte) (*doc, *esError) {
	obj, err := decodeObject(src)
	if err != nil {
		return nil, docError("failed to parse: %v", err)
	}
	d := &doc{id: id, source: json.RawMessage(bytes.Clone(src)), terms: map[string][]string{},
		numbers: map[string][]float64{}, vectors: map[string][]float32{}}
	for _, name := range sortedKeys(obj) {
		v := obj[name]
		if slices.Contains(metadataFields, name) {
			return nil, docError("Field [%s] is a metadata field and cannot be added inside a document. Use the index API request parameters.", name)
		}
		if strings.Contains(name, ".") {
			return nil, notImplemented("dotted field name [%s] in a document (an object path)", name)
		}
		f := ix.fields[name]
		if f == nil {
			switch ix.dynamic {
			case "strict":
				return nil, badRequest("strict_dynamic_mapping_exception",
					"mapping set to strict, dynamic introduction of [%s] within [_doc] is not allowed", name)
			case "false":
				continue // kept in _source, not indexed
			}
			return nil, notImplemented("dynamic mapping of the new field [%s]", name)
		}
		if f.typ == "dense_vector" {
			// The array is the one value.
			if e := f.parseVector(d, id, name, v); e != nil {
				return nil, e
			}
			continue
		}
		values := []any{v}
		if arr, ok := v.([]any); ok {
			values = arr
		}
		for _, v := range values {
			if e := f.parseValue(d, id, name, v); e != nil {
				return nil, e
			}
		}
	}
	return d, nil
}

// parseValue indexes one value of a field into d: a text field's analysed
// tokens (when indexed) and its multi-fields', a keyword's whole value
// (kept with index false too: its doc values still answer), a number's
// value. Lucene's length of a multi-valued field counts every value's terms
// (position_increment_gap does not change the count).
func (f *field) parseValue(d *doc, id, name string, v any) *esError {
	if v == nil {
		return nil
	}
	text, isScalar := scalar(v) // not: an object, or an array inside an array
	_, isBool := v.(bool)
	switch {
	case isScalar && f.typ == "keyword":
		d.terms[name] = append(d.terms[name], text)
	case isScalar && f.typ == "text" && f.indexed:
		d.terms[name] = append(d.terms[name], f.analyzer.analyze(text)...)
	case isScalar && f.typ == "text":
	case isScalar && !isBool:
		n, err := json.Number(strings.TrimSpace(text)).Float64()
		if err == nil {
			d.numbers[name] = append(d.numbers[name], n)
			return nil
		}
		fallthrough
	default:
		preview, _ := json.Marshal(v)
		if _, isString := v.(string); isString {
			preview = []byte(text)
		}
		return docError("failed to parse field [%s] of type [%s] in document with id '%s'. Preview of field's value: '%s'",
			name, f.typ, id, preview)
	}
	for sub, sf := range f.sub {
		if e := sf.parseValue(d, id, name+"."+sub, v); e != nil {
			return e
		}
	}
	return nil
}

// parseVector reads a dense_vector's value: an array of dims numbers, not
// all zero for cosine (DenseVectorFieldMapper's checks, Elasticsearch 8.19).
func (f *field) parseVector(d *doc, id, name string, v any) *esError {
	arr, ok := v.([]any)
	if !ok {
		return docError("failed to parse field [%s] of type [dense_vector] in document with id '%s'. Preview of field's value: '%v'", name, id, v)
	}
	if len(arr) != f.dims {
		return docError("The [dense_vector] field [%s] in doc [document with id '%s'] has a different number of dimensions [%d] than defined in the mapping [%d]",
			name, id, len(arr), f.dims)
	}
	vec := make([]float32, len(arr))
	for i, x := range arr {
		n, ok := x.(json.Number)
		fl, err := n.Float64()
		if !ok || err != nil {
			return docError("failed to parse field [%s] of type [dense_vector] in document with id '%s'. Preview of field's value: '%v'", name, id, x)
		}
		vec[i] = float32(fl)
	}
	if f.similarity == "cosine" && fakekit.Dot(vec, vec) == 0 {
		return docError("The [cosine] similarity does not support vectors with zero magnitude. Preview of invalid vector: %v", arr[:min(len(arr), 5)])
	}
	d.vectors[name] = vec
	return nil
}

// bulk is POST|PUT [/{index}]/_bulk: NDJSON action lines (index, create,
// delete), each but delete followed by a source line. Items are answered
// one by one in a 200 response, "errors" true when any failed; a
// malformed action line fails the whole request.
func (s *Server) bulk(w http.ResponseWriter, r *request) *esError {
	mode, e := r.writeMode(false, "refresh", "timeout", "wait_for_active_shards")
	if e != nil {
		return e
	}
	defaultIndex := ""
	if len(r.segs) == 2 {
		defaultIndex = r.segs[0]
	}
	ops, e := parseBulk(r.body, defaultIndex)
	if e != nil {
		return e
	}
	// Every index must exist before anything is written (auto-creation is
	// not modelled).
	targets := map[string]*index{}
	for _, op := range ops {
		if targets[op.index] == nil {
			if targets[op.index], e = s.writeTarget(op.index); e != nil {
				return e
			}
		}
	}
	items := make([]map[string]any, len(ops))
	failed := false
	for i, op := range ops {
		ix := targets[op.index]
		var status int
		var res map[string]any
		var e *esError
		switch {
		case s.takeBulkRejection():
			e = rejection("write")
		case op.action == "delete":
			status, res = ix.remove(op.id)
		default:
			if e = checkID(op.id); e == nil {
				status, res, e = ix.write(op.id, op.source, op.action == "create")
			}
		}
		if e != nil {
			failed = true
			res = map[string]any{"_index": op.index, "_id": op.id, "status": e.status,
				"error": map[string]any{"type": e.typ, "reason": e.reason}}
		} else {
			res["status"] = status
		}
		items[i] = map[string]any{op.action: res}
	}
	for _, ix := range targets {
		ix.afterWrite(r, mode)
	}
	return ok(w, http.StatusOK, map[string]any{"took": r.took(), "errors": failed, "items": items})
}

type bulkOp struct {
	action, index, id string
	source            []byte
}

// parseBulk splits a _bulk body into operations.
func parseBulk(body []byte, defaultIndex string) ([]bulkOp, *esError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("action_request_validation_exception", "Validation Failed: 1: no requests added;")
	}
	if body[len(body)-1] != '\n' {
		return nil, badRequest("illegal_argument_exception", "The bulk request must be terminated by a newline [\\n]")
	}
	lines := bytes.Split(body[:len(body)-1], []byte("\n"))
	var ops []bulkOp
	for i := 0; i < len(lines); i++ {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 {
			continue
		}
		op, e := parseBulkAction(line, i+1, defaultIndex)
		if e != nil {
			return nil, e
		}
		if op.action != "delete" {
			if i+1 >= len(lines) || len(bytes.TrimSpace(lines[i+1])) == 0 {
				return nil, badRequest("action_request_validation_exception", "Validation Failed: 1: source is missing;")
			}
			i++
			op.source = lines[i]
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// parseBulkAction reads the action and metadata line number n of a _bulk
// body.
func parseBulkAction(line []byte, n int, defaultIndex string) (bulkOp, *esError) {
	meta, err := decodeObject(line)
	if err != nil {
		return bulkOp{}, malformed(err)
	}
	if len(meta) != 1 {
		return bulkOp{}, badRequest("illegal_argument_exception",
			"Malformed action/metadata line [%d], expected END_OBJECT but found [FIELD_NAME]", n)
	}
	action := firstKey(meta)
	switch action {
	case "index", "create", "delete":
	case "update":
		return bulkOp{}, notImplemented("bulk action [update]")
	default:
		return bulkOp{}, badRequest("illegal_argument_exception",
			"Malformed action/metadata line [%d], expected one of [create, delete, index, update] but found [%s]", n, action)
	}
	params, ok := meta[action].(map[string]any)
	if !ok {
		return bulkOp{}, badRequest("illegal_argument_exception",
			"Malformed action/metadata line [%d], expected START_OBJECT but found [%T]", n, meta[action])
	}
	op := bulkOp{action: action, index: defaultIndex}
	for _, k := range sortedKeys(params) {
		v, _ := params[k].(string)
		switch k {
		case "_index":
			op.index = v
		case "_id":
			op.id = v
		case "routing", "version", "version_type", "if_seq_no", "if_primary_term", "pipeline",
			"require_alias", "require_data_stream", "dynamic_templates", "retry_on_conflict", "list_executed_pipelines":
			return bulkOp{}, notImplemented("bulk action parameter [%s]", k)
		default:
			return bulkOp{}, badRequest("illegal_argument_exception", "Action/metadata line [%d] contains an unknown parameter [%s]", n, k)
		}
	}
	switch {
	case op.index == "":
		return bulkOp{}, badRequest("action_request_validation_exception", "Validation Failed: 1: index is missing;")
	case op.id == "" && action == "delete":
		return bulkOp{}, badRequest("action_request_validation_exception", "Validation Failed: 1: id is missing;")
	case op.id == "":
		return bulkOp{}, notImplemented("auto-generated document ids")
	}
	return op, nil
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

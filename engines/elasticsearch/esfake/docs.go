package esfake

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// writeTarget returns the index a write names: Elasticsearch would create
// a missing one (with dynamic mapping), which this fake does not do.
func (s *Server) writeTarget(name string) (*index, *esError) {
	if ix, _ := s.lookup(name); ix != nil {
		return ix, nil
	}
	return nil, notImplemented("index auto-creation on a write to the missing index [%s]", name)
}

// indexDoc is PUT|POST /{index}/_doc/{id}: index or replace.
func (s *Server) indexDoc(w http.ResponseWriter, r *request) *esError {
	ix, e := s.writeTarget(r.segs[0])
	if e != nil {
		return e
	}
	status, res, e := ix.write(r.segs[2], r.body)
	if e != nil {
		return e
	}
	if ix.afterWrite(r) {
		res["forced_refresh"] = true
	}
	return ok(w, status, res)
}

// deleteDoc is DELETE /{index}/_doc/{id}; a missing document answers 404
// with result not_found (a write result, not an error body).
func (s *Server) deleteDoc(w http.ResponseWriter, r *request) *esError {
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	status, res := ix.remove(r.segs[2])
	if ix.afterWrite(r) {
		res["forced_refresh"] = true
	}
	return ok(w, status, res)
}

// write indexes one document in the live view.
func (ix *index) write(id string, src []byte) (int, map[string]any, *esError) {
	d, e := ix.parseDoc(id, src)
	if e != nil {
		return 0, nil, e
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.live[id]
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
	ix.dirty = true // a delete is an operation even when nothing was found
	old := ix.live[id]
	if old == nil {
		return http.StatusNotFound, ix.writeResult(id, 1, "not_found")
	}
	old.version++
	if old.doc == nil {
		return http.StatusNotFound, ix.writeResult(id, old.version, "not_found")
	}
	old.seqNo = ix.seqNo
	old.doc = nil
	ix.pending = append(ix.pending, change{id: id})
	return http.StatusOK, ix.writeResult(id, old.version, "deleted")
}

// getDoc is GET /{index}/_doc/{id}, real-time as Elasticsearch's get is by
// default: it reads the live view, so a write not yet refreshed is found
// and a deleted document is not. A found document answers 200 with the
// source as written; a missing one 404 with only _index, _id and found
// false (GetResult.toXContent, RestGetAction).
func (s *Server) getDoc(w http.ResponseWriter, r *request) *esError {
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	id := r.segs[2]
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if en := ix.live[id]; en != nil && en.doc != nil {
		return ok(w, http.StatusOK, map[string]any{
			"_index": ix.name, "_id": id, "_version": en.version, "_seq_no": en.seqNo, "_primary_term": 1,
			"found": true, "_source": en.doc.source,
		})
	}
	return ok(w, http.StatusNotFound, map[string]any{"_index": ix.name, "_id": id, "found": false})
}

func (ix *index) writeResult(id string, version int64, result string) map[string]any {
	seq := ix.seqNo
	ix.seqNo++
	return map[string]any{
		"_index": ix.name, "_id": id, "_version": version, "result": result,
		"_shards": shards, "_seq_no": seq, "_primary_term": 1,
	}
}

// parseDoc checks a source against the strict mapping and analyses its
// fields, as Elasticsearch's document parser does (the "[line:col]" prefix
// of its reasons is left out: this fake does not track positions). A value
// of another JSON type than the driver writes for the field is refused.
func (ix *index) parseDoc(id string, src []byte) (*doc, *esError) {
	obj, e := decodeObject(src, func(err error) *esError { return docError("failed to parse: %v", err) })
	if e != nil {
		return nil, e
	}
	d := &doc{id: id, source: json.RawMessage(bytes.Clone(src)), terms: map[string][]string{},
		numbers: map[string]float64{}, vectors: map[string][]float32{}}
	for _, name := range sortedKeys(obj) {
		f, v := ix.fields[name], obj[name]
		switch {
		case f == nil && ix.strict:
			return nil, badRequest("strict_dynamic_mapping_exception",
				"mapping set to strict, dynamic introduction of [%s] within [_doc] is not allowed", name)
		case f == nil:
			return nil, notImplemented("dynamic mapping of the new field [%s]", name)
		case f.typ == "dense_vector":
			if e := f.parseVector(d, id, name, v); e != nil {
				return nil, e
			}
		case !f.parseValue(d, name, v):
			return nil, docError("failed to parse field [%s] of type [%s] in document with id '%s'", name, f.typ, id)
		}
	}
	return d, nil
}

// parseValue indexes a field's value into d, and its multi-fields': a text
// field's analysed terms (none with index false), a keyword's whole value
// (kept with index false too: its doc values still answer), a double's
// number. It reports false for a value of the wrong JSON type.
func (f *field) parseValue(d *doc, name string, v any) bool {
	text, isString := v.(string)
	n, isNumber := number(v)
	switch {
	case f.typ == "double" && isNumber:
		d.numbers[name] = n
	case f.typ == "keyword" && isString:
		d.terms[name] = []string{text}
	case f.typ == "text" && isString && f.indexed:
		d.terms[name] = f.analyzer.analyze(text)
	case f.typ != "text" || !isString:
		return false
	}
	for sub, sf := range f.sub {
		sf.parseValue(d, name+"."+sub, v)
	}
	return true
}

// parseVector reads a dense_vector's value: an array of dims numbers of a
// magnitude its similarity takes (DenseVectorFieldMapper's checks,
// Elasticsearch 8.19; an unindexed vector has no similarity to check).
func (f *field) parseVector(d *doc, id, name string, v any) *esError {
	vec, ok := floatArray(v)
	switch {
	case !ok:
		return docError("failed to parse field [%s] of type [dense_vector] in document with id '%s'. Preview of field's value: '%v'", name, id, v)
	case len(vec) != f.dims:
		return docError("The [dense_vector] field [%s] in doc [document with id '%s'] has a different number of dimensions [%d] than defined in the mapping [%d]",
			name, id, len(vec), f.dims)
	}
	if msg := magnitudeError(f.sim, vec); msg != "" {
		return docError("%s", msg)
	}
	d.vectors[name] = vec
	return nil
}

// floatArray reads a JSON array of numbers as float32s, the precision
// Elasticsearch keeps vectors in; false when v is not one.
func floatArray(v any) ([]float32, bool) {
	arr, ok := v.([]any)
	out := make([]float32, len(arr))
	for i, x := range arr {
		f, isNum := number(x)
		if !isNum {
			return nil, false
		}
		out[i] = float32(f)
	}
	return out, ok
}

// bulk is POST|PUT /{index}/_bulk: NDJSON pairs of an index action
// ({"index":{"_id":…}}) and a source line. Items are answered one by one
// in a 200 response, "errors" true when any failed.
func (s *Server) bulk(w http.ResponseWriter, r *request) *esError {
	ix, e := s.writeTarget(r.segs[0])
	if e != nil {
		return e
	}
	body := r.body
	if len(body) == 0 || body[len(body)-1] != '\n' {
		return badRequest("illegal_argument_exception", "The bulk request must be terminated by a newline [\\n]")
	}
	lines := bytes.Split(body[:len(body)-1], []byte("\n"))
	if len(lines)%2 != 0 {
		return badRequest("action_request_validation_exception", "Validation Failed: 1: source is missing;")
	}
	var items []map[string]any
	failed := false
	for i := 0; i < len(lines); i += 2 {
		var action map[string]map[string]string
		if err := json.Unmarshal(lines[i], &action); err != nil || len(action) != 1 || len(action["index"]) != 1 || action["index"]["_id"] == "" {
			return notImplemented("bulk action line %s", lines[i])
		}
		id := action["index"]["_id"]
		status, res, e := 0, map[string]any(nil), rejection("write")
		if !s.takeBulkRejection() {
			status, res, e = ix.write(id, lines[i+1])
		}
		if e != nil {
			failed = true
			res = map[string]any{"_index": ix.name, "_id": id, "status": e.status,
				"error": map[string]any{"type": e.typ, "reason": e.reason}}
		} else {
			res["status"] = status
		}
		items = append(items, map[string]any{"index": res})
	}
	ix.afterWrite(r)
	return ok(w, http.StatusOK, map[string]any{"took": r.took(), "errors": failed, "items": items})
}

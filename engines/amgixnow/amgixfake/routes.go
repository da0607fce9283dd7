package amgixfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// --- collections -------------------------------------------------------------

type vectorConfig struct {
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	IndexFields   []string `json:"index_fields"`
	TopK          *int64   `json:"top_k"`
	LanguageCode  *string  `json:"language_default_code"`
	Dimensions    *int64   `json:"dimensions"`
	DenseDistance *string  `json:"dense_distance"`
	Normalization *bool    `json:"normalization"`
}

type metadataIndex struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

type collectionConfig struct {
	Vectors         []vectorConfig  `json:"vectors"`
	StoreContent    *bool           `json:"store_content"`
	MetadataIndexes []metadataIndex `json:"metadata_indexes"`
}

// modelledTypes are the vector types the fake indexes.
var modelledTypes = []string{"full_text", "whitespace", "dense_custom"}

// metaTypes are the metadata types Amgix allows (validate_metadata_index).
var metaTypes = []string{"string", "integer", "float", "boolean", "datetime"}

// maxDimensions is MAX_VECTOR_DIMENSIONS.
const maxDimensions = 8192

// vectorTypes are Amgix's VectorType literals (src/common.rs), "keyword"
// being an alias of "wmtr".
var vectorTypes = []string{"dense_model", "sparse_model", "full_text", "trigrams", "whitespace", "wmtr", "keyword", "dense_custom", "sparse_custom", "noop"}

var documentFields = []string{"name", "description", "content"}

func (s *Server) listCollections(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := []string{}
	for n := range s.colls {
		names = append(names, n)
	}
	reply(w, http.StatusOK, names)
}

func (s *Server) createCollection(w http.ResponseWriter, r *http.Request) {
	var cfg collectionConfig
	if decodeBody(w, r, &cfg) != nil {
		return
	}
	name, ok := collectionName(w, r)
	if !ok {
		return
	}
	c, msg, status := newCollection(cfg)
	if msg != "" {
		if status == http.StatusUnprocessableEntity {
			validation(w, status, "body", msg)
		} else {
			detail(w, status, msg)
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.colls[name] != nil {
		detail(w, http.StatusConflict, fmt.Sprintf("Collection '%s' already exists", name))
		return
	}
	s.colls[name] = c
	reply(w, http.StatusOK, okResponse{OK: true})
}

// newCollection validates a config as validate_collection_config does.
func newCollection(cfg collectionConfig) (*collection, string, int) {
	const bad = http.StatusUnprocessableEntity
	if len(cfg.Vectors) == 0 {
		// Amgix substitutes a "noop" vector, which indexes nothing.
		return nil, "amgixfake: no vectors given: Amgix's noop vector is not modelled", http.StatusBadRequest
	}
	c := &collection{stored: map[string]*doc{}, visible: map[string]*doc{}, storeContent: true, metaIndexes: map[string]string{}}
	for _, mi := range cfg.MetadataIndexes {
		switch {
		case !validName.MatchString(mi.Key):
			return nil, fmt.Sprintf("metadata_indexes.%s: key can only contain letters, numbers, underscores, and hyphens", mi.Key), bad
		case !contains(metaTypes, mi.Type):
			return nil, fmt.Sprintf(`metadata_indexes.%s: invalid type '%s'. Allowed types: ["string", "integer", "float", "boolean", "datetime"]`, mi.Key, mi.Type), bad
		}
		c.metaIndexes[mi.Key] = mi.Type
	}
	if cfg.StoreContent != nil {
		c.storeContent = *cfg.StoreContent
	}
	seen := map[string]bool{}
	for _, v := range cfg.Vectors {
		vec, msg, status := newVector(v, seen)
		if msg != "" {
			return nil, msg, status
		}
		c.vectors = append(c.vectors, vec)
	}
	return c, "", 0
}

// newVector validates one vector of a config (VectorConfig's validators,
// validate_dense_distance and validate_custom_vector_config); seen holds
// the names before it.
func newVector(v vectorConfig, seen map[string]bool) (vector, string, int) {
	const bad = http.StatusUnprocessableEntity
	switch {
	case strings.TrimSpace(v.Name) == "":
		return vector{}, "name: Vector configuration name cannot be empty or whitespace", bad
	case !validName.MatchString(v.Name):
		return vector{}, "name: Vector name can only contain letters, numbers, underscores, and hyphens", bad
	case len([]rune(v.Name)) > MaxNameLen:
		return vector{}, fmt.Sprintf("name: Vector name cannot exceed %d characters", MaxNameLen), bad
	case seen[v.Name]:
		return vector{}, fmt.Sprintf("Duplicate vector names found: %s. Each vector name must be unique within a collection.", v.Name), bad
	case !contains(vectorTypes, strings.ToLower(v.Type)):
		return vector{}, fmt.Sprintf("unknown vector type: %q (expected snake_case literal, e.g. dense_model)", strings.ToLower(v.Type)), bad
	case !contains(modelledTypes, strings.ToLower(v.Type)):
		return vector{}, "amgixfake: only full_text, whitespace and dense_custom vectors are modelled", http.StatusBadRequest
	}
	seen[v.Name] = true
	vec := vector{name: v.Name, typ: strings.ToLower(v.Type), topK: DefaultTopK, fields: v.IndexFields, lang: "en", distance: "cosine"}
	dense := vec.typ == "dense_custom"
	// normalization defaults to true for a dense type, false for a
	// sparse one (apply_normalization_default in src/models.rs).
	vec.normalization = dense
	switch {
	case v.DenseDistance != nil && !contains([]string{"cosine", "dot", "euclid"}, *v.DenseDistance):
		return vector{}, fmt.Sprintf("unknown variant `%s`, expected one of `cosine`, `dot`, `euclid`", *v.DenseDistance), bad
	case v.DenseDistance != nil && *v.DenseDistance != "cosine" && !dense:
		return vector{}, "dense_distance can only be specified for dense vectors. Current type: " + vec.typ, bad
	case v.Normalization != nil && *v.Normalization && !dense:
		return vector{}, fmt.Sprintf("Normalization is not supported for sparse vector type '%s'. Only dense vectors support normalization.", vec.typ), bad
	case dense && v.Dimensions == nil:
		return vector{}, "Dimensions are required for dense_custom vector type", bad
	case v.Dimensions != nil && *v.Dimensions < 1:
		return vector{}, "Dimensions must be positive (greater than 0)", bad
	case v.Dimensions != nil && *v.Dimensions > maxDimensions:
		return vector{}, fmt.Sprintf("Dimensions cannot exceed %d", maxDimensions), bad
	}
	if v.DenseDistance != nil {
		vec.distance = *v.DenseDistance
	}
	if v.Normalization != nil {
		vec.normalization = *v.Normalization
	}
	if v.Dimensions != nil {
		vec.dims = int(*v.Dimensions)
	}
	if v.IndexFields == nil {
		vec.fields = []string{"content"}
	}
	for _, f := range vec.fields {
		if !contains(documentFields, f) {
			return vector{}, fmt.Sprintf("unknown variant `%s`, expected one of `name`, `description`, `content`", f), bad
		}
	}
	switch {
	case v.TopK != nil && *v.TopK < 1:
		return vector{}, "top_k must be positive (greater than 0)", bad
	case v.TopK != nil && *v.TopK > MaxTopK:
		return vector{}, fmt.Sprintf("top_k cannot exceed %d", MaxTopK), bad
	case v.TopK != nil:
		vec.topK = int(*v.TopK)
	}
	if v.LanguageCode != nil {
		if !twoLetters(*v.LanguageCode) {
			return vector{}, "Language code must be a valid ISO 639-1 code (2 letters)", bad
		}
		vec.lang = *v.LanguageCode
	}
	return vec, "", 0
}

func twoLetters(s string) bool {
	if len(s) != 2 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// deleteCollection answers {"ok": true} whether or not the collection
// existed. What the real server answers for a missing one depends on the
// Qdrant client's delete_collection and was not confirmed.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request) {
	name, ok := collectionName(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.colls, name)
	reply(w, http.StatusOK, okResponse{OK: true})
}

// collectionConfig is GET /v1/collections/{name}: the configuration as
// get_collection_config answers it (CollectionConfig in src/models.rs), or
// 404 {"detail": "Collection '…' not found"}. Of each vector it gives the
// members the fake models and the defaults of those a full_text vector
// leaves unset; the numeric defaults it does not know (wmtr_word_ratio,
// language_confidence) are left out, and dense_distance is a dense
// vector's only.
func (s *Server) collectionConfig(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collectionFor(w, r)
	if !ok {
		return
	}
	vectors := make([]map[string]any, len(c.vectors))
	for i, v := range c.vectors {
		vectors[i] = map[string]any{
			"name": v.name, "type": v.typ, "model": nil, "revision": nil, "query_model": nil, "query_revision": nil,
			"dimensions": nil, "top_k": v.topK, "index_fields": v.fields, "language_default_code": v.lang,
			"language_detect": false, "normalization": v.normalization, "keep_case": false,
		}
		if v.typ == "dense_custom" {
			vectors[i]["dimensions"], vectors[i]["dense_distance"] = v.dims, v.distance
		}
	}
	var indexes []metadataIndex
	for k, t := range c.metaIndexes {
		indexes = append(indexes, metadataIndex{k, t})
	}
	slices.SortFunc(indexes, func(a, b metadataIndex) int { return strings.Compare(a.Key, b.Key) })
	reply(w, http.StatusOK, map[string]any{"vectors": vectors, "store_content": c.storeContent, "metadata_indexes": indexes})
}

func (s *Server) exists(w http.ResponseWriter, r *http.Request) {
	name, ok := collectionName(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	reply(w, http.StatusOK, map[string]bool{"exists": s.colls[name] != nil})
}

// stats answers the collection's doc_count (which lags the writes by the
// stats batcher's delay) and the queued writes.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collectionFor(w, r)
	if !ok {
		return
	}
	reply(w, http.StatusOK, map[string]any{
		"doc_count": c.counted,
		"queue": map[string]int{
			"queued_upsert": c.pendingUpserts, "queued_delete": c.pendingDeletes,
			"requeued_upsert": 0, "requeued_delete": 0, "failed_upsert": 0, "failed_delete": 0,
			"total": c.pendingUpserts + c.pendingDeletes,
		},
	})
}

// --- documents -----------------------------------------------------------------

type wireDoc struct {
	ID            *string                    `json:"id"`
	Timestamp     *json.RawMessage           `json:"timestamp"`
	Name          *string                    `json:"name"`
	Description   *string                    `json:"description"`
	Content       *string                    `json:"content"`
	Metadata      map[string]json.RawMessage `json:"metadata"`
	CustomVectors []wireCustomVector         `json:"custom_vectors"`
}

// wireCustomVector is CustomDocumentVector (a query's CustomVector has no
// field).
type wireCustomVector struct {
	VectorName string          `json:"vector_name"`
	Field      string          `json:"field"`
	Vector     json.RawMessage `json:"vector"`
}

// denseVector reads a custom vector as validate_custom_vector_data_value
// does for a dense one: a non-empty list of numbers.
func denseVector(raw json.RawMessage) ([]float32, string) {
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil || len(v) == 0 {
		if len(v) == 0 && err == nil {
			return nil, "Vector data cannot be empty"
		}
		return nil, "amgixfake: only dense vectors (lists of numbers) are modelled"
	}
	return v, ""
}

// metaValue reads one metadata value as validate_metadata does: a string,
// number or bool, or {"value": v, "type": t}; the fake keeps the value.
func metaValue(key string, raw json.RawMessage) (any, string) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, "metadata." + key + ": " + err.Error()
	}
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > maxMetaValueLen {
			return nil, fmt.Sprintf("metadata.%s: string value exceeds %d character limit", key, maxMetaValueLen)
		}
		return x, ""
	case float64, bool:
		return x, ""
	case map[string]any:
		t, ok := x["type"].(string)
		val, has := x["value"]
		if !ok || !has {
			return nil, fmt.Sprintf(`metadata.%s: value is a dict but missing 'value' or 'type' fields. For datetime, use {"value": "...", "type": "datetime"}`, key)
		}
		if !contains(metaTypes, t) {
			return nil, fmt.Sprintf(`metadata.%s: invalid type '%s'. Allowed types: ["string", "integer", "float", "boolean", "datetime"]`, key, t)
		}
		switch val.(type) {
		case float64:
			if t == "float" || t == "integer" {
				return val, ""
			}
		case string:
			if t == "string" {
				return val, ""
			}
		case bool:
			if t == "boolean" {
				return val, ""
			}
		}
		return nil, fmt.Sprintf("metadata.%s: value does not fit type='%s' (or the type is not modelled)", key, t)
	}
	name := "list"
	if v == nil {
		name = "null"
	}
	return nil, fmt.Sprintf("metadata.%s: value must be string, int, float, bool, or MetaValue (required for datetime), got %s", key, name)
}

// maxMetaValueLen is MAX_METADATA_VALUE_LENGTH.
const maxMetaValueLen = 1024

// parseDoc is Document's deserialization and validate_document, both 422 in
// Amgix but with different bodies: data is true for a deserialization error
// (a missing field, a timestamp that does not parse: serde's, answered as a
// rejection), false for a validation error, whose message is prefixed with
// its field ("id: ...").
func parseDoc(d wireDoc) (out *doc, msg string, data bool) {
	if d.ID == nil {
		return nil, "missing field `id`", true
	}
	if d.Timestamp == nil {
		return nil, "missing field `timestamp`", true
	}
	var tsText string
	if err := json.Unmarshal(*d.Timestamp, &tsText); err != nil {
		return nil, "Timestamp must be a datetime object", true
	}
	ts, msg := parseTimestamp(tsText)
	if msg != "" {
		return nil, msg, true
	}
	id := strings.TrimSpace(*d.ID)
	switch {
	case id == "":
		return nil, "id: Document ID cannot be empty or whitespace", false
	case !validName.MatchString(id):
		return nil, "id: Document ID can only contain letters, numbers, underscores, and hyphens", false
	case utf8.RuneCountInString(id) > MaxNameLen:
		return nil, fmt.Sprintf("id: ensure this value has at most %d characters", MaxNameLen), false
	}
	out = &doc{id: id, ts: ts, text: map[string]string{}}
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{{"name", d.Name, MaxDocNameLen}, {"description", d.Description, MaxDescLen}, {"content", d.Content, MaxContentLen}} {
		if f.v == nil {
			continue
		}
		if utf8.RuneCountInString(*f.v) > f.max {
			return nil, fmt.Sprintf("%s: ensure this value has at most %d characters", f.name, f.max), false
		}
		out.text[f.name] = *f.v
	}
	for key, raw := range d.Metadata {
		if !validName.MatchString(key) {
			return nil, fmt.Sprintf("metadata.%s: key can only contain letters, numbers, underscores, and hyphens", key), false
		}
		v, msg := metaValue(key, raw)
		if msg != "" {
			return nil, msg, false
		}
		if out.meta == nil {
			out.meta = map[string]any{}
		}
		out.meta[key] = v
	}
	out.custom = d.CustomVectors
	for _, cv := range d.CustomVectors {
		if !validName.MatchString(strings.TrimSpace(cv.VectorName)) {
			return nil, "vector_name: Vector name can only contain letters, numbers, underscores, and hyphens", false
		}
		if _, msg := denseVector(cv.Vector); msg != "" {
			return nil, msg, false
		}
	}
	return out, "", false
}

// vectorize is validate_metadata_types (an indexed key's value must be of
// the index's type) and CustomDenseVector.extract_for_documents for each
// of the collection's dense_custom vectors: the document must carry one
// for every index field, of the configured dimension. Amgix answers a
// vectorization error 400 (UpsertSyncError::Vectorization in src/main.rs
// at 04b08ea); the fake answers the metadata type error the same.
func (c *collection) vectorize(d *doc) string {
	for key, typ := range c.metaIndexes {
		v, ok := d.meta[key]
		if !ok {
			continue
		}
		fits := false
		switch x := v.(type) {
		case string:
			fits = typ == "string"
		case float64:
			fits = typ == "float" || (typ == "integer" && x == float64(int64(x)))
		case bool:
			fits = typ == "boolean"
		}
		if !fits {
			return fmt.Sprintf("Metadata key '%s' value does not match collection config expected type '%s'", key, typ)
		}
	}
	for _, v := range c.vectors {
		if v.typ != "dense_custom" {
			continue
		}
		if d.custom == nil {
			return fmt.Sprintf("Custom dense vector '%s' requires custom vectors but document has none", v.name)
		}
		for _, f := range v.fields {
			i := slices.IndexFunc(d.custom, func(cv wireCustomVector) bool { return cv.VectorName == v.name && cv.Field == f })
			if i < 0 {
				return fmt.Sprintf("Custom dense vector '%s' for field '%s' not provided", v.name, f)
			}
			vec, _ := denseVector(d.custom[i].Vector)
			if len(vec) != v.dims {
				return fmt.Sprintf("Custom dense vector '%s' has %d dimensions, expected %d", v.name, len(vec), v.dims)
			}
			if d.dense == nil {
				d.dense = map[string][]float32{}
			}
			// One dense vector per document and vector name: the fake's
			// collections attach each to one field.
			d.dense[v.name] = vec
		}
	}
	return ""
}

func (s *Server) upsert(w http.ResponseWriter, r *http.Request, queued bool) {
	var wd wireDoc
	if decodeBody(w, r, &wd) != nil {
		return
	}
	if _, ok := collectionName(w, r); !ok {
		return
	}
	d, msg, data := parseDoc(wd)
	switch {
	case data:
		rejection(w, http.StatusUnprocessableEntity, msg)
		return
	case msg != "":
		validation(w, http.StatusUnprocessableEntity, "body", msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collectionFor(w, r)
	if !ok {
		return
	}
	if msg := c.vectorize(d); msg != "" {
		detail(w, http.StatusBadRequest, msg)
		return
	}
	reply(w, http.StatusOK, okResponse{OK: true, Skipped: s.writeLocked(r.PathValue("name"), c, []*doc{d}, queued)})
}

type bulkRequest struct {
	Documents *[]wireDoc `json:"documents"`
}

func (s *Server) bulk(w http.ResponseWriter, r *http.Request) {
	var req bulkRequest
	if decodeBody(w, r, &req) != nil {
		return
	}
	if _, ok := collectionName(w, r); !ok {
		return
	}
	if req.Documents == nil {
		rejection(w, http.StatusUnprocessableEntity, "missing field `documents`")
		return
	}
	if len(*req.Documents) > MaxBulkUpload {
		validation(w, http.StatusUnprocessableEntity, "body", fmt.Sprintf("documents: ensure this value has at most %d items", MaxBulkUpload))
		return
	}
	docs := make([]*doc, len(*req.Documents))
	for i, wd := range *req.Documents {
		d, msg, data := parseDoc(wd)
		switch {
		case data:
			rejection(w, http.StatusUnprocessableEntity, msg)
			return
		case msg != "":
			// validate_bulk_upload: "documents[i]: " + the document's message.
			validation(w, http.StatusUnprocessableEntity, "body", fmt.Sprintf("documents[%d]: %s", i, msg))
			return
		}
		docs[i] = d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.collectionFor(w, r)
	if !ok {
		return
	}
	for _, d := range docs {
		if msg := c.vectorize(d); msg != "" {
			detail(w, http.StatusBadRequest, msg)
			return
		}
	}
	reply(w, http.StatusOK, okResponse{OK: true, Skipped: s.writeLocked(r.PathValue("name"), c, docs, s.cfg.queued)})
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, queued bool) {
	name, ok := collectionName(w, r)
	if !ok {
		return
	}
	raw, ok := r.URL.Query()["request_timestamp"]
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("Failed to deserialize query string: missing field `request_timestamp`"))
		return
	}
	ts, msg := parseTimestamp(raw[0])
	if msg != "" {
		validation(w, http.StatusUnprocessableEntity, "query.request_timestamp", fmt.Sprintf("'request_timestamp' must include a UTC timezone (e.g. 2024-01-01T00:00:00Z). Got %s", raw[0]))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A missing collection: 404 here; unconfirmed for the real delete route.
	c, ok := s.collectionFor(w, r)
	if !ok {
		return
	}
	del := &doc{id: r.PathValue("id"), ts: ts, deleted: true}
	reply(w, http.StatusOK, okResponse{OK: true, Skipped: s.writeLocked(name, c, []*doc{del}, queued)})
}

// getDocument is get_document (src/main.rs at 4686706): with_vectors is
// read from the query first (a value serde cannot read as a bool is axum's
// plain-text 400; true is not modelled, answered 400 by the fake), then the
// collection name (422). The document comes from what Qdrant has applied —
// the searchable state, so an acknowledged write may not show yet — through
// get_documents with suppress_not_found false: a missing document is 404
// "Documents not found for document_ids: <id>" (src/qdrant.rs). That call
// does not look the collection up first, so a missing collection is Qdrant's
// error, answered 500 "Database error: …" (the message's wording is
// UNCONFIRMED). The answer is the Document model as serde writes it: every
// member, null where unset, keys sorted (serde_json's map), the timestamp as
// chrono writes it (RFC 3339, Z, 0/3/6/9 fraction digits), content only
// when the collection stores it.
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	if v, ok := r.URL.Query()["with_vectors"]; ok {
		switch v[0] {
		case "false":
		case "true":
			detail(w, http.StatusBadRequest, "amgixfake: with_vectors=true is not modelled")
			return
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("Failed to deserialize query string: with_vectors: provided string was not `true` or `false`"))
			return
		}
	}
	id := r.PathValue("id")
	name, ok := collectionName(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.colls[name]
	if c == nil {
		detail(w, http.StatusInternalServerError, fmt.Sprintf("Database error: Qdrant error: Error in the response: Not found: Collection `amgix_%s` doesn't exist!", name))
		return
	}
	d := c.visible[id]
	if d == nil {
		detail(w, http.StatusNotFound, "Documents not found for document_ids: "+id)
		return
	}
	content := text(d, "content")
	if !c.storeContent {
		content = nil
	}
	reply(w, http.StatusOK, map[string]any{
		"id": d.id, "timestamp": chronoTime(d.ts), "tags": nil, "name": text(d, "name"),
		"description": text(d, "description"), "content": content, "metadata": d.meta, "custom_vectors": nil,
	})
}

// chronoTime is a UTC time as chrono's Serialize writes it: RFC 3339 with Z
// and 0, 3, 6 or 9 digits of fraction (SecondsFormat::AutoSi).
func chronoTime(t time.Time) string {
	layout := "2006-01-02T15:04:05.000000000Z"
	switch ns := t.Nanosecond(); {
	case ns == 0:
		layout = "2006-01-02T15:04:05Z"
	case ns%1_000_000 == 0:
		layout = "2006-01-02T15:04:05.000Z"
	case ns%1_000 == 0:
		layout = "2006-01-02T15:04:05.000000Z"
	}
	return t.UTC().Format(layout)
}

// writeLocked applies writes (or, queued, schedules them) and returns the
// IDs it skipped. The caller holds s.mu.
func (s *Server) writeLocked(name string, c *collection, docs []*doc, queued bool) []string {
	if queued {
		for _, d := range docs {
			c.pend(d, 1)
		}
		time.AfterFunc(s.cfg.delay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			for _, d := range docs {
				c.pend(d, -1)
			}
			// The queue's writes wait for Qdrant (38b16d6): searchable at once.
			s.applyLocked(name, c, docs, true)
		})
		return nil
	}
	return s.applyLocked(name, c, docs, s.cfg.sync)
}

// applyLocked is the stale check and the write. A write becomes searchable
// now (visibleNow) or after the index delay. The caller holds s.mu.
func (s *Server) applyLocked(name string, c *collection, docs []*doc, visibleNow bool) []string {
	var skipped []string
	var applied []string
	counted := 0 // the change to doc_count
	for _, d := range docs {
		old := c.stored[d.id]
		stale := old != nil && !d.ts.After(old.ts)
		s.writes = append(s.writes, Write{Collection: name, ID: d.id, Timestamp: d.ts, Delete: d.deleted, Skipped: stale})
		switch {
		case stale:
			skipped = append(skipped, d.id)
			continue
		case d.deleted && old == nil:
			continue // a missing document: success, nothing to do
		case d.deleted:
			delete(c.stored, d.id)
			counted--
		default:
			c.index(d)
			c.stored[d.id] = d
			if old == nil {
				counted++
			}
		}
		applied = append(applied, d.id)
	}
	if counted != 0 {
		time.AfterFunc(s.cfg.statsDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			c.counted += counted
		})
	}
	if visibleNow {
		c.publish(applied)
	} else if len(applied) > 0 {
		time.AfterFunc(s.cfg.delay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			c.publish(applied)
		})
	}
	return skipped
}

// --- search ----------------------------------------------------------------------

type searchRequest struct {
	Query          *string         `json:"query"`
	Limit          *uint32         `json:"limit"`
	FusionMode     *string         `json:"fusion_mode"`
	VectorWeights  []vectorWeight  `json:"vector_weights"`
	VectorOptions  []vectorWeight  `json:"vector_options"`
	CustomVectors  []queryVector   `json:"custom_vectors"`
	MetadataFilter json.RawMessage `json:"metadata_filter"`
}

// vectorWeight is VectorSearchWeight (weight defaults to 1).
type vectorWeight struct {
	VectorName string   `json:"vector_name"`
	Field      string   `json:"field"`
	Weight     *float64 `json:"weight"`
}

// queryVector is CustomVector.
type queryVector struct {
	VectorName string          `json:"vector_name"`
	Vector     json.RawMessage `json:"vector"`
}

// metadataFilter is MetadataFilter's JSON form (the string form of
// src/filter_parser.rs is not modelled).
type metadataFilter struct {
	And   []metadataFilter `json:"and"`
	Or    []metadataFilter `json:"or"`
	Not   *metadataFilter  `json:"not"`
	Key   *string          `json:"key"`
	Op    *string          `json:"op"`
	Value any              `json:"value"`
}

// match is convert_metadata_node's meaning over a document's metadata: eq
// matches a string, a bool, or a number (Qdrant's integer match, so only a
// whole number: the fake compares the values); gt/gte/lt/lte a number
// range; and/or/not combine. A condition with an op Amgix drops matches
// everything, as a dropped condition does.
func (f *metadataFilter) match(meta map[string]any) bool {
	if f.Key != nil {
		got, ok := meta[*f.Key]
		op := ""
		if f.Op != nil {
			op = *f.Op
		}
		if op == "eq" {
			return ok && got == f.Value
		}
		want, isNum := f.Value.(float64)
		n, gotNum := got.(float64)
		if !isNum || !gotNum {
			return op != "gt" && op != "gte" && op != "lt" && op != "lte"
		}
		switch op {
		case "gt":
			return n > want
		case "gte":
			return n >= want
		case "lt":
			return n < want
		case "lte":
			return n <= want
		}
		return true
	}
	for _, c := range f.And {
		if !c.match(meta) {
			return false
		}
	}
	if len(f.Or) > 0 && !slices.ContainsFunc(f.Or, func(c metadataFilter) bool { return c.match(meta) }) {
		return false
	}
	return f.Not == nil || !f.Not.match(meta)
}

// checkFilter is validate_metadata_filter (src/encoder.rs), answered 400
// (SearchError::InvalidFilter): every key must have a metadata index, a
// string or boolean key takes eq or neq only, and the value must be of the
// index's type ("float": any number).
func (c *collection) checkFilter(f *metadataFilter) string {
	if len(c.metaIndexes) == 0 {
		return "Collection has no metadata_indexes defined. Cannot filter on metadata."
	}
	if f.Key != nil {
		key, op := *f.Key, ""
		if f.Op != nil {
			op = *f.Op
		}
		typ, ok := c.metaIndexes[key]
		if !ok {
			return fmt.Sprintf("Metadata filter key '%s' is not indexed in collection metadata_indexes", key)
		}
		switch typ {
		case "string", "boolean":
			if op != "eq" && op != "neq" {
				return fmt.Sprintf("Metadata filter operator '%s' is not supported for %s key '%s'. Use 'eq' or '!='.", op, typ, key)
			}
		}
		fits := false
		switch f.Value.(type) {
		case string:
			fits = typ == "string"
		case float64:
			fits = typ == "float" || typ == "integer"
		case bool:
			fits = typ == "boolean"
		}
		if !fits {
			return fmt.Sprintf("Metadata filter value for key '%s' must be of type %s", key, typ)
		}
	}
	for i := range f.And {
		if msg := c.checkFilter(&f.And[i]); msg != "" {
			return msg
		}
	}
	for i := range f.Or {
		if msg := c.checkFilter(&f.Or[i]); msg != "" {
			return msg
		}
	}
	if f.Not != nil {
		return c.checkFilter(f.Not)
	}
	return ""
}

type searchResult struct {
	ID           string         `json:"id"`
	Timestamp    time.Time      `json:"timestamp"`
	Name         *string        `json:"name"`
	Description  *string        `json:"description"`
	Content      *string        `json:"content,omitempty"`
	Metadata     map[string]any `json:"metadata"`
	Score        float64        `json:"score"`
	VectorScores []vectorScore  `json:"vector_scores"`
}

type vectorScore struct {
	Field  string  `json:"field"`
	Vector string  `json:"vector"`
	Score  float64 `json:"score"`
	Rank   int     `json:"rank"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if decodeBody(w, r, &req) != nil {
		return
	}
	if _, ok := collectionName(w, r); !ok {
		return
	}
	limit, filter, ok := parseSearch(w, req)
	if !ok {
		return
	}
	s.mu.Lock()
	c, ok := s.collectionFor(w, r)
	if !ok {
		s.mu.Unlock()
		return
	}
	results, msg := c.run(req, limit, filter)
	s.mu.Unlock()
	switch {
	case msg != "":
		detail(w, http.StatusBadRequest, msg)
	case s.cfg.bareArray:
		reply(w, http.StatusOK, results)
	default:
		reply(w, http.StatusOK, map[string]any{"results": results, "query_time_ms": 0.1})
	}
}

// parseSearch checks a search request as Amgix's validators do, answering
// the rejection itself (ok false): the limit and the metadata filter.
func parseSearch(w http.ResponseWriter, req searchRequest) (limit int, filter *metadataFilter, ok bool) {
	limit = DefaultLimit
	if req.Limit != nil {
		limit = int(*req.Limit)
	}
	if len(req.MetadataFilter) > 0 && string(req.MetadataFilter) != "null" {
		if req.MetadataFilter[0] == '"' {
			detail(w, http.StatusBadRequest, "amgixfake: string metadata filters are not modelled")
			return 0, nil, false
		}
		filter = &metadataFilter{}
		if err := json.Unmarshal(req.MetadataFilter, filter); err != nil {
			rejection(w, http.StatusUnprocessableEntity, "Failed to deserialize the JSON body into the target type: metadata_filter: "+err.Error())
			return 0, nil, false
		}
	}
	switch {
	case req.Query == nil:
		rejection(w, http.StatusUnprocessableEntity, "missing field `query`")
		return 0, nil, false
	case strings.TrimSpace(*req.Query) == "":
		validation(w, http.StatusUnprocessableEntity, "body", "query: Query string cannot be empty or whitespace")
		return 0, nil, false
	case utf8.RuneCountInString(*req.Query) > MaxQueryLen:
		validation(w, http.StatusUnprocessableEntity, "body", fmt.Sprintf("query: ensure this value has at most %d characters", MaxQueryLen))
		return 0, nil, false
	case limit < 1:
		validation(w, http.StatusUnprocessableEntity, "body", "limit: ensure this value is greater than or equal to 1")
		return 0, nil, false
	case limit > MaxSearchLimit:
		validation(w, http.StatusUnprocessableEntity, "body", fmt.Sprintf("limit: ensure this value is less than or equal to %d", MaxSearchLimit))
		return 0, nil, false
	case req.FusionMode != nil && *req.FusionMode != "rrf":
		detail(w, http.StatusBadRequest, fmt.Sprintf("amgixfake: only fusion_mode rrf is modelled, got %q", *req.FusionMode))
		return 0, nil, false
	}
	for _, cv := range req.CustomVectors {
		if !validName.MatchString(strings.TrimSpace(cv.VectorName)) {
			validation(w, http.StatusUnprocessableEntity, "body", "vector_name: Vector name can only contain letters, numbers, underscores, and hyphens")
			return 0, nil, false
		}
		if _, msg := denseVector(cv.Vector); msg != "" {
			validation(w, http.StatusUnprocessableEntity, "body", msg)
			return 0, nil, false
		}
	}
	return limit, filter, true
}

// run searches the collection: full text alone when nothing but full_text
// vectors is asked for, the weighted arms otherwise; msg is a refusal (400).
func (c *collection) run(req searchRequest, limit int, filter *metadataFilter) (results []searchResult, msg string) {
	plain := req.VectorWeights == nil && req.VectorOptions == nil && req.CustomVectors == nil && filter == nil &&
		!slices.ContainsFunc(c.vectors, func(v vector) bool { return v.typ != "full_text" })
	if plain {
		return c.search(*req.Query, limit), ""
	}
	if filter != nil {
		msg = c.checkFilter(filter)
	}
	var arms []searchArm
	if msg == "" {
		arms, msg = c.arms(*req.Query, req.VectorWeights, req.VectorOptions, req.CustomVectors)
	}
	if msg != "" {
		return nil, msg
	}
	keep := func(d *doc) bool { return filter == nil || filter.match(d.meta) }
	return c.armSearch(arms, limit, keep), ""
}

// arms is the vectorization of a query (vectorize_search_query) and the
// arm weights of src/qdrant.rs search: every (vector, field) pair of the
// collection, with the weight vector_weights gives it (1 when it gives
// none), those of weight 0 left out. The later source's vector_options
// (src/vectors/vectorizer.rs at 388bad3), when given, wins, and only the
// pairs it lists with a weight other than 0 are searched. A vector_weights entry naming a
// vector or field the collection lacks is refused, and a dense_custom arm
// needs the query's custom vector of the configured dimension
// (CustomDenseVector.extract_for_query). Amgix answers these 400
// (SearchError::Vectorization in src/main.rs at 04b08ea).
func (c *collection) arms(query string, weights, options []vectorWeight, custom []queryVector) ([]searchArm, string) {
	listedOnly := len(options) > 0
	if listedOnly {
		weights = options
	}
	weight := map[string]float64{}
	for _, w := range weights {
		i := slices.IndexFunc(c.vectors, func(v vector) bool { return v.name == strings.TrimSpace(w.VectorName) })
		if i < 0 {
			var names []string
			for _, v := range c.vectors {
				names = append(names, v.name)
			}
			return nil, fmt.Sprintf("Vector configuration '%s' not found. Available vectors: %s", w.VectorName, strings.Join(names, ", "))
		}
		if !contains(c.vectors[i].fields, w.Field) {
			return nil, fmt.Sprintf("Field '%s' is not configured for vector '%s'. Available fields: %q", w.Field, w.VectorName, c.vectors[i].fields)
		}
		weight[armKey(c.vectors[i].name, w.Field)] = 1
		if w.Weight != nil {
			weight[armKey(c.vectors[i].name, w.Field)] = *w.Weight
		}
	}
	var arms []searchArm
	for _, v := range c.vectors {
		for _, f := range v.fields {
			wt, listed := weight[armKey(v.name, f)]
			switch {
			case !listed && listedOnly:
				continue
			case !listed:
				wt = 1
			}
			if wt == 0 {
				continue
			}
			a := searchArm{vector: v, field: f, weight: wt}
			if v.typ == "dense_custom" {
				i := slices.IndexFunc(custom, func(q queryVector) bool { return strings.TrimSpace(q.VectorName) == v.name })
				if i < 0 {
					return nil, fmt.Sprintf("Failed to generate vector '%s': Custom dense vector '%s' not provided in query", v.name, v.name)
				}
				a.dense, _ = denseVector(custom[i].Vector)
				if len(a.dense) != v.dims {
					return nil, fmt.Sprintf("Failed to generate vector '%s': Custom dense vector '%s' has %d dimensions, expected %d", v.name, v.name, len(a.dense), v.dims)
				}
			} else {
				a.words = v.tokenize(query)
			}
			arms = append(arms, a)
		}
	}
	return arms, ""
}

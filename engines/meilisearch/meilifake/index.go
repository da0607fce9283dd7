package meilifake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// index is one Meilisearch index.
type index struct {
	uid          string
	primaryKey   string   // "" until set or inferred
	searchable   []string // nil: every attribute ("*")
	typo         typoSettings
	filterable   []string             // filterableAttributes
	embedders    map[string]int       // userProvided embedders: name → dimensions
	docs         map[string]*document // by external id
	fields       []string             // every field seen, first-seen order (the "*" order)
	nextInternal uint64
}

// typoSettings are the part of typoTolerance Settings reports: the fake
// checks a typoTolerance update as Meilisearch does but matches words
// exactly, whatever the setting (see the package doc).
type typoSettings struct {
	enabled           bool
	oneTypo, twoTypos int
}

var defaultTypo = typoSettings{enabled: true, oneTypo: 5, twoTypos: 9}

// document is a stored document and its words per field.
type document struct {
	internal uint64 // insertion order, the last tie-break of ranking
	order    []string
	raw      map[string]json.RawMessage
	words    map[string][]string
	vectors  map[string][]float64 // _vectors, by embedder: not a field of the document
}

func newIndex(uid, primaryKey string) *index {
	return &index{uid: uid, primaryKey: primaryKey, typo: defaultTypo, docs: map[string]*document{}}
}

// searchableFields returns the searchable attributes in ranking order.
func (ix *index) searchableFields() []string {
	if ix.searchable == nil {
		return ix.fields
	}
	return ix.searchable
}

func indexNotFound(uid string) *apiError {
	return newError("index_not_found", fmt.Sprintf("Index `%s` not found.", uid))
}

// lookup returns an index or writes 404. Called with s.mu held.
func (s *Server) lookup(w http.ResponseWriter, uid string) *index {
	ix, ok := s.indexes[uid]
	if !ok {
		writeError(w, indexNotFound(uid))
	}
	return ix
}

func (s *Server) createIndex(w http.ResponseWriter, r *http.Request) {
	m, e := object(r, "bad_request", []string{"uid", "primaryKey"})
	if failed(w, e) {
		return
	}
	var uid, pk string
	if isNull(m["uid"]) {
		writeError(w, newError("missing_index_uid", "Missing field `uid`"))
		return
	}
	if e := decodeField(m["uid"], "uid", "invalid_index_uid", "a string", &uid); failed(w, e) {
		return
	}
	if e := checkIndexUID(uid); failed(w, e) {
		return
	}
	if !isNull(m["primaryKey"]) {
		if e := decodeField(m["primaryKey"], "primaryKey", "invalid_index_primary_key", "a string", &pk); failed(w, e) {
			return
		}
	}
	var details any
	if pk != "" {
		details = pk
	}
	s.enqueue(w, uid, "indexCreation", map[string]any{"primaryKey": details}, func() (map[string]any, *apiError) {
		if _, ok := s.indexes[uid]; ok {
			return nil, newError("index_already_exists", fmt.Sprintf("Index `%s` already exists.", uid))
		}
		s.indexes[uid] = newIndex(uid, pk)
		return nil, nil
	})
}

func (s *Server) deleteIndex(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); failed(w, e) {
		return
	}
	s.enqueue(w, uid, "indexDeletion", map[string]any{"deletedDocuments": nil}, func() (map[string]any, *apiError) {
		ix, ok := s.indexes[uid]
		if !ok {
			return nil, indexNotFound(uid)
		}
		delete(s.indexes, uid)
		return map[string]any{"deletedDocuments": len(ix.docs)}, nil
	})
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.lookup(w, r.PathValue("uid"))
	if ix == nil {
		return
	}
	dist := map[string]int{}
	embeddings, embedded := 0, 0
	for _, d := range ix.docs {
		embeddings += len(d.vectors)
		if len(d.vectors) > 0 {
			embedded++
		}
		for _, f := range d.order {
			dist[f]++
		}
	}
	indexing := false
	for _, t := range s.tasks {
		indexing = indexing || t.IndexUID == ix.uid && t.Status == statusProcessing
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"numberOfDocuments": len(ix.docs), "rawDocumentDbSize": 0, "avgDocumentSize": 0,
		"isIndexing": indexing, "numberOfEmbeddings": embeddings, "numberOfEmbeddedDocuments": embedded, "fieldDistribution": dist,
	})
}

// ---- settings -----------------------------------------------------------

// setting serves GET /indexes/{uid}/settings/{setting}: value's answer
// for the index and, as for every index route, 404 index_not_found for an
// index that is not there.
func (s *Server) setting(value func(*index) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ix := s.lookup(w, r.PathValue("uid")); ix != nil {
			fakekit.WriteJSON(w, http.StatusOK, value(ix))
		}
	}
}

// searchableAttributes is the list in ranking order, ["*"] when unset
// (every attribute).
func searchableAttributes(ix *index) any {
	if ix.searchable == nil {
		return []string{"*"}
	}
	return ix.searchable
}

// filterableAttributes is the list as set, [] when unset: Meilisearch 1.37
// returns a flat list of names as it was set (the granular form, objects of
// attributePatterns and features, is not modelled).
func filterableAttributes(ix *index) any {
	if ix.filterable == nil {
		return []string{}
	}
	return ix.filterable
}

// embedders is each embedder by name, {} when none; the fake models
// userProvided embedders only, shown as their source and dimensions.
func embedders(ix *index) any {
	out := make(map[string]any, len(ix.embedders))
	for name, dim := range ix.embedders {
		out[name] = map[string]any{"source": "userProvided", "dimensions": dim}
	}
	return out
}

// settingsKnown are Meilisearch 1.37's index settings; settingsModelled the
// ones the fake models.
var (
	settingsModelled = []string{"searchableAttributes", "typoTolerance", "filterableAttributes", "embedders"}
	settingsKnown    = append(slices.Clone(settingsModelled), "displayedAttributes",
		"sortableAttributes", "rankingRules", "stopWords", "nonSeparatorTokens", "separatorTokens", "dictionary",
		"synonyms", "distinctAttribute", "proximityPrecision", "faceting", "pagination",
		"searchCutoffMs", "localizedAttributes", "facetSearch", "prefixSearch", "chat", "vectorStore")
	typoKnown = []string{"enabled", "minWordSizeForTypos", "disableOnWords", "disableOnAttributes", "disableOnNumbers"}
)

// settingsUpdate is a parsed PATCH /settings body: nil members are
// unchanged. Resetting a setting (null) is not modelled: the driver sets
// each once, on a new index.
type settingsUpdate struct {
	searchable, filterable *[]string
	typo                   map[string]json.RawMessage
	enabled                *bool
	oneTypo, twoTypos      *int
	embedders              map[string]int
}

func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); failed(w, e) {
		return
	}
	m, e := object(r, "bad_request", settingsKnown)
	if failed(w, e) {
		return
	}
	u, e := parseSettings(m)
	if failed(w, e) {
		return
	}
	details := map[string]any{}
	for k, v := range m {
		details[k] = v
	}
	s.enqueue(w, uid, "settingsUpdate", details, func() (map[string]any, *apiError) {
		ix, had := s.indexes[uid]
		if !had {
			ix = newIndex(uid, "")
		}
		if e := u.applyTo(ix); e != nil {
			return nil, e
		}
		s.indexes[uid] = ix
		return nil, nil
	})
}

func parseSettings(m map[string]json.RawMessage) (u settingsUpdate, e *apiError) {
	for k, v := range m {
		switch {
		case !isNull(v) && !slices.Contains(settingsModelled, k):
			return u, notModelled("the setting `" + k + "`")
		case isNull(v) && slices.Contains(settingsModelled, k):
			return u, notModelled("resetting the setting `" + k + "`")
		}
	}
	if raw, ok := m["searchableAttributes"]; ok {
		var list []string
		if e := decodeField(raw, "searchableAttributes", "invalid_settings_searchable_attributes", "an array of strings", &list); e != nil {
			return u, e
		}
		if slices.Contains(list, "*") {
			list = nil
		}
		u.searchable = &list
	}
	if raw, ok := m["filterableAttributes"]; ok {
		if u.filterable, e = parseFilterable(raw); e != nil {
			return u, e
		}
	}
	if raw, ok := m["embedders"]; ok {
		if u.embedders, e = parseEmbedders(raw); e != nil {
			return u, e
		}
	}
	if raw, ok := m["typoTolerance"]; ok {
		if u.typo, e = fields(raw, ".typoTolerance", "invalid_settings_typo_tolerance", typoKnown); e != nil {
			return u, e
		}
		return u, u.parseTypo()
	}
	return u, nil
}

// parseTypo reads typoTolerance's enabled and minWordSizeForTypos; the
// words, attributes and numbers typo tolerance is disabled on are not
// modelled beyond none (the driver's [] and false).
func (u *settingsUpdate) parseTypo() *apiError {
	for k, v := range u.typo {
		switch {
		case isNull(v):
		case k == "enabled":
			u.enabled = new(bool)
			if e := decodeField(v, "typoTolerance.enabled", "invalid_settings_typo_tolerance", "a boolean", u.enabled); e != nil {
				return e
			}
		case k == "minWordSizeForTypos":
			mw, e := fields(v, ".typoTolerance.minWordSizeForTypos", "invalid_settings_typo_tolerance", []string{"oneTypo", "twoTypos"})
			for k, v := range mw {
				n, err := uintField(v, "typoTolerance.minWordSizeForTypos."+k, "invalid_settings_typo_tolerance", 255)
				e = cmp.Or(e, err)
				*map[string]**int{"oneTypo": &u.oneTypo, "twoTypos": &u.twoTypos}[k] = new(int(n))
			}
			if e != nil {
				return e
			}
		case string(v) != "[]" && string(v) != "false":
			return notModelled("typoTolerance." + k + " other than none")
		}
	}
	return nil
}

// applyTo brings the index's settings up to the update; an inconsistent
// result fails the task and changes nothing, as Meilisearch checks it while
// processing.
func (u settingsUpdate) applyTo(ix *index) *apiError {
	typo := ix.typo
	if u.enabled != nil {
		typo.enabled = *u.enabled
	}
	if u.oneTypo != nil {
		typo.oneTypo = *u.oneTypo
	}
	if u.twoTypos != nil {
		typo.twoTypos = *u.twoTypos
	}
	if typo.oneTypo > typo.twoTypos {
		return newError("invalid_settings_typo_tolerance", fmt.Sprintf("`minWordSizeForTypos` setting is invalid. `oneTypo` and `twoTypos` fields should be between `0` and `255`, and `twoTypos` should be greater or equals to `oneTypo` but found `oneTypo: %d` and twoTypos: %d`.", typo.oneTypo, typo.twoTypos))
	}
	ix.typo = typo
	if u.searchable != nil {
		ix.searchable = *u.searchable
	}
	if u.filterable != nil {
		ix.filterable = *u.filterable
	}
	if u.embedders != nil && ix.embedders == nil {
		ix.embedders = map[string]int{}
	}
	maps.Copy(ix.embedders, u.embedders)
	return nil
}

// ---- documents ----------------------------------------------------------

func (s *Server) addDocuments(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); failed(w, e) {
		return
	}
	q := r.URL.Query()
	known := []string{"primaryKey", "csvDelimiter", "customMetadata", "skipCreation"}
	if e := checkParams(q, "documents", known, known[:1]); failed(w, e) {
		return
	}
	var raw json.RawMessage
	if e := jsonBody(r, &raw); failed(w, e) {
		return
	}
	docs, e := documentList(raw)
	if failed(w, e) {
		return
	}
	pk := q.Get("primaryKey")
	s.enqueue(w, uid, "documentAdditionOrUpdate",
		map[string]any{"receivedDocuments": len(docs), "indexedDocuments": nil},
		func() (map[string]any, *apiError) {
			n, err := s.replaceDocuments(uid, pk, docs)
			return map[string]any{"receivedDocuments": len(docs), "indexedDocuments": n}, err
		})
}

// documentList reads a JSON array of objects (or one object), keeping each
// object's field order.
func documentList(raw json.RawMessage) ([]orderedObject, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
	}
	var items []json.RawMessage
	err := json.Unmarshal(raw, &items)
	docs := make([]orderedObject, len(items))
	for i := 0; err == nil && i < len(items); i++ {
		docs[i], err = parseObject(items[i])
	}
	if err != nil {
		return nil, newError("malformed_payload", fmt.Sprintf("The `json` payload provided is malformed. `Couldn't serialize document value: %v`.", err))
	}
	return docs, nil
}

// orderedObject is a JSON object with its keys in document order.
type orderedObject struct {
	keys   []string
	values map[string]json.RawMessage
	raw    json.RawMessage
}

func parseObject(raw json.RawMessage) (orderedObject, error) {
	o := orderedObject{values: map[string]json.RawMessage{}, raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, fmt.Errorf("expected an object, found `%.40s`", raw)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, err
		}
		if _, dup := o.values[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.values[k] = v
	}
	return o, nil
}

// replaceDocuments applies an add-or-replace task: every document is checked
// first, and one bad document fails the whole task. Called with s.mu held.
func (s *Server) replaceDocuments(uid, pk string, docs []orderedObject) (int, *apiError) {
	ix, existed := s.indexes[uid]
	if !existed {
		ix = newIndex(uid, "")
	}
	key := ix.primaryKey
	switch {
	case pk != "" && key != "" && pk != key:
		return 0, newError("index_primary_key_already_exists", fmt.Sprintf("Index `%s`: Index already has a primary key: `%s`.", uid, key))
	case key == "" && pk != "":
		key = pk
	case key == "" && len(docs) > 0:
		// The driver names the primary key when it creates the index.
		return 0, notModelled("primary key inference")
	}
	ids := make([]string, len(docs))
	vectors := make([]map[string][]float64, len(docs))
	for i, d := range docs {
		id, err := documentID(d, key)
		if err != nil {
			return 0, err
		}
		ids[i] = id
		if vectors[i], err = ix.vectorsOf(d); err != nil {
			return 0, err
		}
	}
	if !existed {
		s.indexes[uid] = ix
	}
	ix.primaryKey = key
	for i, d := range docs {
		ix.put(ids[i], d, vectors[i])
	}
	return len(docs), nil
}

// documentID returns a document's id: an integer, or a string of a-z A-Z
// 0-9 - _ of at most 511 bytes.
func documentID(d orderedObject, key string) (string, *apiError) {
	raw, ok := d.values[key]
	if !ok || isNull(raw) {
		return "", newError("missing_document_id", fmt.Sprintf("Document doesn't have a `%s` attribute: `%.200s`.", key, d.raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if len(s) > 0 && len(s) <= 511 && validUID.MatchString(s) {
			return s, nil
		}
	} else {
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&n) == nil {
			if _, err := n.Int64(); err == nil {
				return n.String(), nil
			}
		}
	}
	return "", newError("invalid_document_id", fmt.Sprintf("Document identifier `%.100s` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.", raw))
}

// put replaces a document whole, keeping its insertion rank. Its
// _vectors are kept apart: Meilisearch does not return them as a field.
func (ix *index) put(id string, o orderedObject, vectors map[string][]float64) {
	d := &document{raw: o.values, words: map[string][]string{}, vectors: vectors}
	delete(o.values, vectorsKey)
	for _, k := range o.keys {
		if k != vectorsKey {
			d.order = append(d.order, k)
		}
	}
	if old, ok := ix.docs[id]; ok {
		d.internal = old.internal
	} else {
		d.internal = ix.nextInternal
		ix.nextInternal++
	}
	for _, k := range d.order {
		if !slices.Contains(ix.fields, k) {
			ix.fields = append(ix.fields, k)
		}
		d.words[k] = valueWords(o.values[k])
	}
	ix.docs[id] = d
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	uid, id := r.PathValue("uid"), r.PathValue("id")
	if e := checkIndexUID(uid); failed(w, e) {
		return
	}
	s.enqueue(w, uid, "documentDeletion", map[string]any{"providedIds": 1, "deletedDocuments": nil}, func() (map[string]any, *apiError) {
		ix, ok := s.indexes[uid]
		if !ok {
			return nil, indexNotFound(uid)
		}
		n := 0
		if _, ok := ix.docs[id]; ok {
			delete(ix.docs, id)
			n = 1
		}
		return map[string]any{"providedIds": 1, "deletedDocuments": n}, nil
	})
}

// getDocument is get_document (routes/indexes/documents.rs): the query
// parameters first (unknown: 400 bad_request; retrieveVectors, which the
// driver never sends: 501), then the index uid and the index, then the
// document (404 document_not_found). The answer is the stored document in
// the index's field order, narrowed to fields when given: a comma-separated
// list in which "*" means every field and a name no document has is
// skipped.
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	selected, e := parseDocumentQuery(r.URL.Query())
	uid, id := r.PathValue("uid"), r.PathValue("id")
	if e == nil {
		e = checkIndexUID(uid)
	}
	if failed(w, e) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.lookup(w, uid)
	if ix == nil {
		return
	}
	d, ok := ix.docs[id]
	if !ok {
		writeError(w, newError("document_not_found", fmt.Sprintf("Document `%s` not found.", id)))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(d.render(ix.fields, selected))
}

// parseDocumentQuery reads GET document's query parameters: the fields
// selected, nil for every one.
func parseDocumentQuery(q url.Values) ([]string, *apiError) {
	known := []string{"fields", "retrieveVectors"}
	if e := checkParams(q, "document", known, known[:1]); e != nil {
		return nil, e
	}
	v, ok := q["fields"]
	if !ok || slices.Contains(strings.Split(v[0], ","), "*") {
		return nil, nil
	}
	return strings.Split(v[0], ","), nil
}

package meilifake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// index is one Meilisearch index.
type index struct {
	uid                  string
	primaryKey           string // "" until set or inferred
	createdAt, updatedAt time.Time
	searchable           []string // nil: every attribute ("*")
	typo                 typoSettings
	filterable           []string             // filterableAttributes
	embedders            map[string]int       // userProvided embedders: name → dimensions
	docs                 map[string]*document // by external id
	fields               []string             // every field seen, first-seen order (the "*" order)
	nextInternal         uint64
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
	now := time.Now()
	return &index{uid: uid, primaryKey: primaryKey, createdAt: now, updatedAt: now, typo: defaultTypo, docs: map[string]*document{}}
}

func (ix *index) view() map[string]any {
	var pk any
	if ix.primaryKey != "" {
		pk = ix.primaryKey
	}
	return map[string]any{"uid": ix.uid, "createdAt": timeOrNil(ix.createdAt), "updatedAt": timeOrNil(ix.updatedAt), "primaryKey": pk}
}

// searchableFields returns the searchable attributes in ranking order.
func (ix *index) searchableFields() []string {
	if ix.searchable == nil {
		return ix.fields
	}
	return ix.searchable
}

func indexNotFound(uid string) *apiError {
	e := newError("index_not_found", fmt.Sprintf("Index `%s` not found.", uid))
	return &e
}

// lookup returns an index or writes 404. Called with s.mu held.
func (s *Server) lookup(w http.ResponseWriter, uid string) *index {
	ix, ok := s.indexes[uid]
	if !ok {
		writeError(w, *indexNotFound(uid))
	}
	return ix
}

// ensure returns the index, creating it as a write to a missing index does.
// Called with s.mu held.
func (s *Server) ensure(uid string) *index {
	ix, ok := s.indexes[uid]
	if !ok {
		ix = newIndex(uid, "")
		s.indexes[uid] = ix
	}
	return ix
}

func (s *Server) createIndex(w http.ResponseWriter, r *http.Request) {
	m, e := object(r, "bad_request", []string{"uid", "primaryKey"})
	if e != nil {
		writeError(w, *e)
		return
	}
	var uid, pk string
	if isNull(m["uid"]) {
		writeError(w, newError("missing_index_uid", "Missing field `uid`"))
		return
	}
	if e := decodeField(m["uid"], "uid", "invalid_index_uid", "a string", &uid); e != nil {
		writeError(w, *e)
		return
	}
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
		return
	}
	if !isNull(m["primaryKey"]) {
		if e := decodeField(m["primaryKey"], "primaryKey", "invalid_index_primary_key", "a string", &pk); e != nil {
			writeError(w, *e)
			return
		}
	}
	var details any
	if pk != "" {
		details = pk
	}
	s.enqueue(w, uid, "indexCreation", map[string]any{"primaryKey": details}, func() (map[string]any, *apiError) {
		if _, ok := s.indexes[uid]; ok {
			e := newError("index_already_exists", fmt.Sprintf("Index `%s` already exists.", uid))
			return nil, &e
		}
		s.indexes[uid] = newIndex(uid, pk)
		return nil, nil
	})
}

func (s *Server) getIndex(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix := s.lookup(w, r.PathValue("uid")); ix != nil {
		fakekit.WriteJSON(w, http.StatusOK, ix.view())
	}
}

func (s *Server) deleteIndex(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
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

// settingsKnown are Meilisearch 1.37's index settings; only the first two
// are modelled.
var (
	settingsModelled = []string{"searchableAttributes", "typoTolerance", "filterableAttributes", "embedders"}
	settingsKnown    = append(slices.Clone(settingsModelled), "displayedAttributes", "filterableAttributes",
		"sortableAttributes", "rankingRules", "stopWords", "nonSeparatorTokens", "separatorTokens", "dictionary",
		"synonyms", "distinctAttribute", "proximityPrecision", "faceting", "pagination", "embedders",
		"searchCutoffMs", "localizedAttributes", "facetSearch", "prefixSearch", "chat", "vectorStore")
	typoKnown = []string{"enabled", "minWordSizeForTypos", "disableOnWords", "disableOnAttributes", "disableOnNumbers"}
)

// settingsUpdate is a parsed PATCH /settings body: nil members are unchanged.
type settingsUpdate struct {
	searchable      *[]string // points at nil to reset to "*"
	typo            map[string]json.RawMessage
	typoReset       bool
	oneTypo, twoTyp *int
	filterable      *[]string
	embedders       map[string]int // 0: removed
	embeddersReset  bool
}

func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
		return
	}
	m, e := object(r, "bad_request", settingsKnown)
	if e != nil {
		writeError(w, *e)
		return
	}
	u, e := parseSettings(m)
	if e != nil {
		writeError(w, *e)
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
		next, err := u.applyTo(ix)
		if err != nil {
			return nil, err
		}
		ix.searchable, ix.typo, ix.updatedAt = next.searchable, next.typo, time.Now()
		ix.filterable, ix.embedders = next.filterable, next.embedders
		// A removed embedder's embeddings go with it.
		for _, d := range ix.docs {
			for name := range d.vectors {
				if _, ok := ix.embedders[name]; !ok {
					delete(d.vectors, name)
				}
			}
		}
		s.indexes[uid] = ix
		return nil, nil
	})
}

func parseSettings(m map[string]json.RawMessage) (settingsUpdate, *apiError) {
	var u settingsUpdate
	for k, v := range m {
		if !contains(settingsModelled, k) && !isNull(v) {
			e := notModelled("the setting `" + k + "`")
			return u, &e
		}
	}
	if raw, ok := m["searchableAttributes"]; ok {
		var list []string
		if !isNull(raw) {
			if e := decodeField(raw, "searchableAttributes", "invalid_settings_searchable_attributes", "an array of strings", &list); e != nil {
				return u, e
			}
			if slices.Contains(list, "*") {
				list = nil
			}
		}
		u.searchable = &list
	}
	if raw, ok := m["filterableAttributes"]; ok {
		var e *apiError
		if u.filterable, e = parseFilterable(raw); e != nil {
			return u, e
		}
	}
	if raw, ok := m["embedders"]; ok {
		var e *apiError
		if u.embedders, u.embeddersReset, e = parseEmbedders(raw); e != nil {
			return u, e
		}
	}
	raw, ok := m["typoTolerance"]
	switch {
	case !ok:
	case isNull(raw):
		u.typoReset = true
	default:
		if err := json.Unmarshal(raw, &u.typo); err != nil || u.typo == nil {
			e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("Invalid value type at `.typoTolerance`: expected an object, but found `%.60s`", raw))
			return u, &e
		}
		for k := range u.typo {
			if !contains(typoKnown, k) {
				e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("Unknown field `%s` inside `.typoTolerance`: expected one of %s", k, quoteList(typoKnown)))
				return u, &e
			}
		}
		if e := u.parseMinWordSize(); e != nil {
			return u, e
		}
	}
	return u, nil
}

func (u *settingsUpdate) parseMinWordSize() *apiError {
	raw := u.typo["minWordSizeForTypos"]
	if isNull(raw) {
		return nil
	}
	var mw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &mw); err != nil || mw == nil {
		e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("Invalid value type at `.typoTolerance.minWordSizeForTypos`: expected an object, but found `%.60s`", raw))
		return &e
	}
	for k, v := range mw {
		var dst **int
		switch k {
		case "oneTypo":
			dst = &u.oneTypo
		case "twoTypos":
			dst = &u.twoTyp
		default:
			e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("Unknown field `%s` inside `.typoTolerance.minWordSizeForTypos`: expected one of `oneTypo`, `twoTypos`", k))
			return &e
		}
		if isNull(v) {
			continue
		}
		n, e := uintField(v, "typoTolerance.minWordSizeForTypos."+k, "invalid_settings_typo_tolerance", 255)
		if e != nil {
			return e
		}
		i := int(n)
		*dst = &i
	}
	return nil
}

// applyTo returns the index's settings after the update; an inconsistent
// result fails the task, as Meilisearch checks it while processing.
func (u settingsUpdate) applyTo(ix *index) (index, *apiError) {
	next := *ix
	if u.searchable != nil {
		next.searchable = *u.searchable
	}
	if u.filterable != nil {
		next.filterable = *u.filterable
	}
	if u.embeddersReset || u.embedders != nil {
		next.embedders = map[string]int{}
		if !u.embeddersReset {
			maps.Copy(next.embedders, ix.embedders)
		}
		for name, dim := range u.embedders {
			if dim == 0 {
				delete(next.embedders, name)
				continue
			}
			// A new dimension must fit the embeddings already stored
			// (userProvided vectors are not regenerated).
			for _, d := range ix.docs {
				if v, ok := d.vectors[name]; ok && len(v) != dim {
					return next, dimensionError(ix.uid, dim, len(v))
				}
			}
			next.embedders[name] = dim
		}
	}
	if u.typoReset {
		next.typo = defaultTypo
	}
	for k, v := range u.typo {
		if isNull(v) {
			if k == "enabled" {
				next.typo.enabled = true
			}
			continue
		}
		var err error
		var list []string
		switch k {
		case "enabled":
			err = json.Unmarshal(v, &next.typo.enabled)
		case "disableOnWords", "disableOnAttributes":
			err = json.Unmarshal(v, &list)
		case "disableOnNumbers":
			var b bool
			err = json.Unmarshal(v, &b)
			if err == nil && b {
				e := notModelled("typoTolerance.disableOnNumbers = true")
				return next, &e
			}
		}
		if err != nil {
			e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("Invalid value type at `.typoTolerance.%s`: %v", k, err))
			return next, &e
		}
	}
	if u.oneTypo != nil {
		next.typo.oneTypo = *u.oneTypo
	}
	if u.twoTyp != nil {
		next.typo.twoTypos = *u.twoTyp
	}
	if next.typo.oneTypo > next.typo.twoTypos {
		e := newError("invalid_settings_typo_tolerance", fmt.Sprintf("`minWordSizeForTypos` setting is invalid. `oneTypo` and `twoTypos` fields should be between `0` and `255`, and `twoTypos` should be greater or equals to `oneTypo` but found `oneTypo: %d` and twoTypos: %d`.", next.typo.oneTypo, next.typo.twoTypos))
		return next, &e
	}
	return next, nil
}

// ---- documents ----------------------------------------------------------

func (s *Server) addDocuments(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
		return
	}
	q := r.URL.Query()
	for k := range q {
		if k != "primaryKey" {
			if contains([]string{"csvDelimiter", "customMetadata", "skipCreation"}, k) {
				writeError(w, notModelled("the documents parameter `"+k+"`"))
			} else {
				writeError(w, newError("bad_request", fmt.Sprintf("Unknown parameter `%s`: expected one of `primaryKey`, `csvDelimiter`, `customMetadata`, `skipCreation`", k)))
			}
			return
		}
	}
	if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); mt == "application/x-ndjson" || mt == "text/csv" {
		writeError(w, notModelled("a "+mt+" payload"))
		return
	}
	var raw json.RawMessage
	if e := jsonBody(r, &raw); e != nil {
		writeError(w, *e)
		return
	}
	docs, e := documentList(raw)
	if e != nil {
		writeError(w, *e)
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
	if err := json.Unmarshal(raw, &items); err != nil {
		e := newError("malformed_payload", fmt.Sprintf("The `json` payload provided is malformed. `Couldn't serialize document value: %v`.", err))
		return nil, &e
	}
	docs := make([]orderedObject, len(items))
	for i, it := range items {
		o, err := parseObject(it)
		if err != nil {
			e := newError("malformed_payload", fmt.Sprintf("The `json` payload provided is malformed. `Couldn't serialize document value: %v`.", err))
			return nil, &e
		}
		docs[i] = o
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
		e := newError("index_primary_key_already_exists", fmt.Sprintf("Index `%s`: Index already has a primary key: `%s`.", uid, key))
		return 0, &e
	case key == "" && pk != "":
		key = pk
	case key == "" && len(docs) > 0:
		var err *apiError
		if key, err = inferPrimaryKey(docs[0]); err != nil {
			return 0, err
		}
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
	ix.updatedAt = time.Now()
	return len(docs), nil
}

// inferPrimaryKey picks the one field whose name ends in "id", as
// Meilisearch does for an index without a primary key.
func inferPrimaryKey(d orderedObject) (string, *apiError) {
	var found []string
	for _, k := range d.keys {
		if strings.HasSuffix(strings.ToLower(k), "id") {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		e := newError("index_primary_key_no_candidate_found", "The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.")
		return "", &e
	}
	e := newError("index_primary_key_multiple_candidates_found", fmt.Sprintf("The primary key inference failed as the engine found %d fields ending with `id` in their names: '%s' and '%s'. Please specify the primary key manually using the `primaryKey` query parameter.", len(found), found[0], found[1]))
	return "", &e
}

// documentID returns a document's id: an integer, or a string of a-z A-Z
// 0-9 - _ of at most 511 bytes.
func documentID(d orderedObject, key string) (string, *apiError) {
	raw, ok := d.values[key]
	if !ok || isNull(raw) {
		e := newError("missing_document_id", fmt.Sprintf("Document doesn't have a `%s` attribute: `%.200s`.", key, d.raw))
		return "", &e
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
	e := newError("invalid_document_id", fmt.Sprintf("Document identifier `%.100s` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.", raw))
	return "", &e
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
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
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

// getDocumentParams are GET /indexes/{uid}/documents/{id}'s query
// parameters (deny_unknown_fields).
var getDocumentParams = []string{"fields", "retrieveVectors"}

// getDocument is get_document (routes/indexes/documents.rs): the query
// parameters are read first (an unknown one is 400 bad_request), then the
// index uid (400 invalid_index_uid) and the index (404 index_not_found),
// then the document (404 document_not_found, "Document `id` not found.").
// The answer is the stored document with its fields in the index's field
// order, narrowed to fields when given: a comma-separated list in which
// "*" means every field, an empty value none, and a name no document has
// is skipped. retrieveVectors=true is not modelled (no embedders are).
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if !contains(getDocumentParams, k) {
			writeError(w, newError("bad_request", fmt.Sprintf("Unknown parameter `%s`: expected one of %s", k, quoteList(getDocumentParams))))
			return
		}
	}
	if v, ok := q["retrieveVectors"]; ok {
		switch v[0] {
		case "false":
		case "true":
			writeError(w, notModelled("retrieveVectors=true"))
			return
		default:
			writeError(w, newError("invalid_document_retrieve_vectors", fmt.Sprintf("Invalid value in parameter `retrieveVectors`: could not parse `%s` as a boolean, expected either `true` or `false`", v[0])))
			return
		}
	}
	var selected []string // nil: every field
	if v, ok := q["fields"]; ok {
		selected = strings.Split(v[0], ",")
		if contains(selected, "*") {
			selected = nil
		}
	}
	uid, id := r.PathValue("uid"), r.PathValue("id")
	if e := checkIndexUID(uid); e != nil {
		writeError(w, *e)
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
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range ix.fields {
		v, has := d.raw[f]
		if !has || selected != nil && !contains(selected, f) {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

package elasticsearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
)

// AnalyzerName is the custom analyzer every text field uses.
const AnalyzerName = "searchbench_english"

// ExactAnalyzerName is the analyzer of the exact sub-field (option exact):
// the standard tokenizer and lowercase, no stop words and no stemming, so
// that SKU "IT-500" keeps "it", which the _english_ stop list drops.
const ExactAnalyzerName = "searchbench_exact"

// ExactSubField is the name of a Text field's exact sub-field (option
// exact): the lookup of "sku" searches "sku.exact".
const ExactSubField = "exact"

// MaxDims is the most dimensions a dense_vector takes in Elasticsearch
// 8.19 (DenseVectorFieldMapper.MAX_DIMS_COUNT).
const MaxDims = 4096

// mapping is a schema as this driver writes it, under the options that
// shape the index (fields, exact, m, ef_construction).
type mapping struct {
	names   []string // every field, in schema order: what a get returns
	text    []string // indexed Text fields, in schema order: what a search covers
	types   map[string]engines.FieldType
	indexed map[string]bool // fields mapped with "index": true (the default)
	vector  string          // the schema's Vector field, "" for none
	dims    int             // its dimension
	sim     string          // its dense_vector similarity (similarity)
	exact   bool            // Text fields have the exact sub-field
	m, efc  int             // the HNSW graph's parameters
}

func newMapping(schema engines.Schema, o options) (*mapping, error) {
	m := &mapping{types: map[string]engines.FieldType{}, indexed: map[string]bool{}, exact: o.exact, m: o.m, efc: o.efConstruction}
	for _, f := range schema.Fields {
		switch {
		case f.Name == "" || strings.HasPrefix(f.Name, "_") || strings.Contains(f.Name, "."):
			// _ names are metadata fields; a dot would make an object path.
			return nil, fmt.Errorf("field name %q is not allowed (empty, leading _ or a dot)", f.Name)
		}
		if _, dup := m.types[f.Name]; dup {
			return nil, fmt.Errorf("field %s declared twice", f.Name)
		}
		m.indexed[f.Name] = o.indexed[f.Type]
		switch f.Type {
		case engines.Text:
			if m.indexed[f.Name] {
				m.text = append(m.text, f.Name)
			}
		case engines.Tag, engines.Numeric:
		case engines.Vector:
			switch {
			case m.vector != "":
				// A Query does not name its vector field: one is the
				// schema's.
				return nil, fmt.Errorf("fields %s and %s: %w (one vector field at most)", m.vector, f.Name, engines.ErrUnsupported)
			case f.Dim < 1 || f.Dim > MaxDims:
				return nil, fmt.Errorf("field %s: dimension %d: %w (dense_vector takes 1 to %d)", f.Name, f.Dim, engines.ErrUnsupported, MaxDims)
			}
			sim, err := similarity(f.Metric)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			m.vector, m.dims, m.sim = f.Name, f.Dim, sim
		default:
			return nil, fmt.Errorf("field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
		m.types[f.Name] = f.Type
		m.names = append(m.names, f.Name)
	}
	if len(m.names) == 0 {
		return nil, errors.New("schema has no field")
	}
	return m, nil
}

// similarity is the dense_vector similarity that ranks by metric
// (dense_vector reference, "similarity",
// https://www.elastic.co/guide/en/elasticsearch/reference/8.19/dense-vector.html;
// DenseVectorFieldMapper.VectorSimilarity in Elasticsearch 8.19). Cosine
// is cosine, L2 is l2_norm. Dot is max_inner_product, not dot_product:
// dot_product is cosine's fast form for unit-length vectors only — a float
// document or query vector whose squared magnitude is not within 1e-3 of
// 1 is refused ("The [dot_product] similarity can only be used with
// unit-length vectors.", ElementType.FLOAT.checkVectorMagnitude) — whereas
// engines.Dot ranks vectors of any length by inner product, which is what
// max_inner_product does (Lucene's MAXIMUM_INNER_PRODUCT).
func similarity(metric engines.Metric) (string, error) {
	switch metric {
	case engines.Cosine:
		return "cosine", nil
	case engines.L2:
		return "l2_norm", nil
	case engines.Dot:
		return "max_inner_product", nil
	}
	return "", fmt.Errorf("vector metric %s: %w", metric, engines.ErrUnsupported)
}

// property is one field's mapping in createBody (and what checkMapping
// expects GET _mapping to echo).
func (m *mapping) property(name string) map[string]any {
	var p map[string]any
	switch m.types[name] {
	case engines.Text:
		p = map[string]any{"type": "text", "analyzer": AnalyzerName}
		if !m.indexed[name] {
			// No analyzer: nothing is analysed for an unindexed field.
			p = map[string]any{"type": "text"}
		}
		if m.exact {
			p["fields"] = map[string]any{ExactSubField: map[string]any{"type": "text", "analyzer": ExactAnalyzerName}}
		}
	case engines.Tag:
		p = map[string]any{"type": "keyword"}
	case engines.Numeric:
		p = map[string]any{"type": "double"}
	case engines.Vector:
		p = map[string]any{"type": "dense_vector", "dims": m.dims}
		if m.indexed[name] {
			// similarity and index_options are refused with "index": false.
			p["similarity"] = m.sim
			p["index_options"] = map[string]any{"type": "hnsw", "m": m.m, "ef_construction": m.efc}
		}
	}
	if !m.indexed[name] {
		p["index"] = false
	} else if m.types[name] == engines.Vector {
		p["index"] = true
	}
	return p
}

// createBody is PUT /{index}'s body.
func (m *mapping) createBody(refreshInterval string) ([]byte, error) {
	props := map[string]any{}
	for _, name := range m.names {
		props[name] = m.property(name)
	}
	analyzers := map[string]any{
		AnalyzerName: map[string]any{
			"type":      "custom",
			"tokenizer": "standard",
			"filter":    []string{"lowercase", "searchbench_stop", "searchbench_stemmer"},
		},
	}
	if m.exact {
		analyzers[ExactAnalyzerName] = map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase"}}
	}
	return json.Marshal(map[string]any{
		"settings": map[string]any{
			"index": map[string]any{
				"number_of_shards":   1,
				"number_of_replicas": 0,
				"refresh_interval":   refreshInterval,
			},
			"analysis": map[string]any{
				"filter": map[string]any{
					"searchbench_stop":    map[string]any{"type": "stop", "stopwords": "_english_"},
					"searchbench_stemmer": map[string]any{"type": "stemmer", "language": "english"},
				},
				"analyzer": analyzers,
			},
		},
		"mappings": map[string]any{"dynamic": "strict", "properties": props},
	})
}

// checkMapping reads GET /{index}/_mapping's answer and checks that every
// schema field is mapped as createBody maps it (every key createBody sends,
// with its value; Elasticsearch echoes them): another schema's index, or
// one the options shaped differently, is refused.
func (m *mapping) checkMapping(index string, body []byte) error {
	var res map[string]struct {
		Mappings struct {
			Properties map[string]any `json:"properties"`
		} `json:"mappings"`
	}
	if err := decode(body, &res); err != nil {
		return err
	}
	ix, ok := res[index]
	if !ok {
		return fmt.Errorf("the answer has no mapping of index %s (an alias?)", index)
	}
	for _, name := range m.names {
		want, err := json.Marshal(m.property(name))
		if err != nil {
			return err
		}
		var w any
		if err := json.Unmarshal(want, &w); err != nil {
			return err
		}
		if !contains(ix.Mappings.Properties[name], w) {
			return fmt.Errorf("field %s is not mapped as Create maps it (%s)", name, want)
		}
	}
	return nil
}

// contains says whether got has every key of want with the same value,
// recursively (decoded JSON): Elasticsearch may echo more than was sent.
func contains(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(got, want)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !contains(gm[k], v) {
			return false
		}
	}
	return true
}

// source is a document's _source: the fields the schema names, each as its
// type says. A field the schema lacks is an error (the index is strict).
func (m *mapping) source(doc engines.Document) ([]byte, error) {
	src := make(map[string]any, len(doc.Fields))
	for _, f := range doc.Fields {
		t, ok := m.types[f.Name]
		if !ok {
			return nil, fmt.Errorf("field %s is not in the schema", f.Name)
		}
		switch t {
		case engines.Numeric:
			src[f.Name] = f.Number
		case engines.Vector:
			src[f.Name] = f.Vector
		default:
			src[f.Name] = f.Text
		}
	}
	b, err := json.Marshal(src)
	if err != nil {
		// A NaN or infinite number: JSON has no spelling for it.
		return nil, fmt.Errorf("document %s: %w", doc.ID, err)
	}
	return b, nil
}

// bulkBody is a _bulk body of one "index" action per document; it ends with
// the newline Elasticsearch requires. It returns the IDs in order, to match
// the response's items against.
func (m *mapping) bulkBody(docs []engines.Document) ([]byte, []string, error) {
	var b bytes.Buffer
	ids := make([]string, len(docs))
	for i, d := range docs {
		if _, err := docID(d.ID); err != nil {
			return nil, nil, fmt.Errorf("document %d: %w", i, err)
		}
		action, err := json.Marshal(map[string]map[string]string{"index": {"_id": d.ID}})
		if err != nil {
			return nil, nil, err
		}
		src, err := m.source(d)
		if err != nil {
			return nil, nil, err
		}
		b.Write(action)
		b.WriteByte('\n')
		b.Write(src)
		b.WriteByte('\n')
		ids[i] = d.ID
	}
	return b.Bytes(), ids, nil
}

// forbiddenInName are the characters Elasticsearch refuses in an index name
// (MetadataCreateIndexService.validateIndexOrAliasName); refusing them here
// also keeps a name from changing the request path.
const forbiddenInName = `\/*?"<>| ,#:`

func checkIndexName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("index name %q is not allowed", name)
	case len(name) > 255:
		return fmt.Errorf("index name of %d bytes: at most 255", len(name))
	case strings.ToLower(name) != name:
		return fmt.Errorf("index name %q must be lowercase", name)
	case strings.ContainsAny(name, forbiddenInName):
		return fmt.Errorf("index name %q must not contain any of %s", name, forbiddenInName)
	case strings.ContainsAny(name[:1], "_-+"):
		return fmt.Errorf("index name %q must not start with _, - or +", name)
	}
	return nil
}

// docID escapes an ID for the request path (the client writes it verbatim);
// Elasticsearch decodes it, so "a/b" stays one ID.
func docID(id string) (string, error) {
	if id == "" {
		return "", errors.New("empty document id")
	}
	if len(id) > 512 {
		return "", fmt.Errorf("document id of %d bytes: Elasticsearch allows at most 512", len(id))
	}
	return url.PathEscape(id), nil
}

// multiMatch is the query of every search.
type multiMatch struct {
	Query     string   `json:"query"`
	Fields    []string `json:"fields"`
	Type      string   `json:"type"`
	Fuzziness string   `json:"fuzziness,omitempty"`
}

func searchBody(q engines.Query, fields []string, o options) ([]byte, error) {
	return json.Marshal(map[string]any{
		"size":             q.K,
		"track_total_hits": o.trackTotalHits,
		"_source":          false,
		"query": map[string]any{"multi_match": multiMatch{
			Query: q.Text, Fields: fields, Type: "most_fields", Fuzziness: o.fuzziness,
		}},
	})
}

// shards is the _shards header of search, count, refresh and write
// responses.
type shards struct {
	Total      *int `json:"total"`
	Successful *int `json:"successful"`
	Failed     int  `json:"failed"`
	Failures   []struct {
		Reason errorCause `json:"reason"`
	} `json:"failures"`
}

// check fails when a shard failed: a partial answer is not an answer.
func (s *shards) check() error {
	if s == nil || s.Total == nil || s.Successful == nil {
		return errors.New("malformed response: no _shards with total and successful counts")
	}
	noneAnswered := *s.Successful == 0 && *s.Total > 0
	if s.Failed == 0 && !noneAnswered {
		return nil
	}
	err := fmt.Errorf("%d of %d shards failed", max(s.Failed, 1), *s.Total)
	if len(s.Failures) > 0 {
		c := s.Failures[0].Reason
		err = fmt.Errorf("%w: first: %s", err, c.String())
		if c.Type == "es_rejected_execution_exception" {
			err = fmt.Errorf("%w: %w", engines.ErrOverloaded, err)
		}
	}
	return err
}

// decode unmarshals a response body, as an error on failure.
func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("malformed response: %v", err)
	}
	return nil
}

type searchResponse struct {
	TimedOut bool    `json:"timed_out"`
	Shards   *shards `json:"_shards"`
	Hits     *struct {
		Total *struct {
			Value    *int64 `json:"value"`
			Relation string `json:"relation"`
		} `json:"total"`
		Hits *[]*struct {
			ID *string `json:"_id"`
		} `json:"hits"`
	} `json:"hits"`
}

// parseSearch reads a search response: the hits' ids, best first, and the
// total (-1 unless exact). More than k hits, a hit without an _id, a shard
// failure or a timeout is an error.
func parseSearch(body []byte, k int) (engines.Hits, error) {
	var r searchResponse
	if err := decode(body, &r); err != nil {
		return engines.Hits{}, err
	}
	if err := r.Shards.check(); err != nil {
		return engines.Hits{}, err
	}
	if r.TimedOut {
		return engines.Hits{}, fmt.Errorf("%w: the search timed out on the server (partial results)", engines.ErrTimeout)
	}
	if r.Hits == nil || r.Hits.Hits == nil {
		return engines.Hits{}, errors.New("malformed response: no hits.hits array")
	}
	hits := *r.Hits.Hits
	if len(hits) > k {
		return engines.Hits{}, fmt.Errorf("the engine returned %d hits for size %d", len(hits), k)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		if h == nil || h.ID == nil {
			return engines.Hits{}, fmt.Errorf("malformed response: hit %d has no _id", i)
		}
		ids[i] = *h.ID
	}
	total := int64(-1)
	if t := r.Hits.Total; t != nil {
		switch {
		case t.Value == nil || *t.Value < 0:
			return engines.Hits{}, errors.New("malformed response: hits.total without a count")
		case t.Relation == "eq":
			total = *t.Value
		case t.Relation == "gte": // a lower bound: the count is not known
		default:
			return engines.Hits{}, fmt.Errorf("malformed response: hits.total.relation %.20q", t.Relation)
		}
		if total >= 0 && total < int64(len(ids)) {
			return engines.Hits{}, fmt.Errorf("malformed response: %d hits but a total of %d", len(ids), total)
		}
	}
	return engines.Hits{IDs: ids, Total: total}, nil
}

type writeResponse struct {
	ID     *string `json:"_id"`
	Result string  `json:"result"`
	Shards *shards `json:"_shards"`
}

// parseWrite reads an index or delete response and checks its result is
// one of want.
func parseWrite(body []byte, want ...string) error {
	var r writeResponse
	if err := decode(body, &r); err != nil {
		return err
	}
	if !slices.Contains(want, r.Result) {
		return fmt.Errorf("unexpected result %.40q (want %s)", r.Result, strings.Join(want, " or "))
	}
	if r.Result == "not_found" {
		return nil // nothing was written, so no shard to report on
	}
	return r.Shards.check()
}

type bulkResponse struct {
	Errors *bool                        `json:"errors"`
	Items  *[]map[string]*bulkItemReply `json:"items"`
}

type bulkItemReply struct {
	ID     *string     `json:"_id"`
	Status int         `json:"status"`
	Error  *errorCause `json:"error"`
}

// parseBulk checks every item of a _bulk response against the IDs sent.
// When every failure was a rejection for load (429), the error wraps
// engines.ErrOverloaded and names the first; otherwise it names the first
// item refused for another reason, which is what the error is about.
func parseBulk(body []byte, ids []string) error {
	var r bulkResponse
	if err := decode(body, &r); err != nil {
		return err
	}
	if r.Errors == nil || r.Items == nil {
		return errors.New("malformed response: no errors flag or items array")
	}
	items := *r.Items
	if len(items) != len(ids) {
		return fmt.Errorf("malformed response: %d items for %d documents", len(items), len(ids))
	}
	var first, firstRefused error
	failed, overloaded := 0, 0
	for i, item := range items {
		reply := item["index"]
		if len(item) != 1 || reply == nil {
			return fmt.Errorf("malformed response: item %d is not one index result", i)
		}
		if reply.ID == nil || *reply.ID != ids[i] {
			return fmt.Errorf("malformed response: item %d is not the result for id %s", i, ids[i])
		}
		if reply.Status/100 == 2 && reply.Error == nil {
			continue
		}
		failed++
		err := fmt.Errorf("id %s: %w", ids[i], itemError(reply))
		if engines.Classify(err) == engines.Overloaded {
			overloaded++
		} else if firstRefused == nil {
			firstRefused = err
		}
		if first == nil {
			first = err
		}
	}
	switch {
	case failed == 0 && *r.Errors:
		return errors.New("malformed response: errors is true but every item succeeded")
	case failed == 0:
		return nil
	case overloaded == failed:
		return fmt.Errorf("%w: %d of %d items rejected; first: %w", engines.ErrOverloaded, failed, len(ids), first)
	}
	// Not load: name the first item refused for what it is.
	return fmt.Errorf("%d of %d items failed (%d rejected for load); first refused: %v", failed, len(ids), overloaded, firstRefused)
}

func itemError(r *bulkItemReply) error {
	h := &HTTPError{Status: r.Status}
	if r.Error != nil {
		h.Type, h.Reason = r.Error.Type, r.Error.Reason
	}
	return h.classified()
}

// getResponse is GET /{index}/_doc/{id}'s answer (GetResult.toXContent in
// Elasticsearch's server/…/index/get/GetResult.java): _index, _id, and
// _version, _seq_no, _primary_term, found true and _source when the
// document exists, only found false when it does not.
type getResponse struct {
	ID     *string                    `json:"_id"`
	Found  *bool                      `json:"found"`
	Source map[string]json.RawMessage `json:"_source"`
}

// parseGet reads the answer to a get of id: the schema's fields as _source
// has them, in schema order (a field the document lacks, or null, is left
// out; a field the schema does not name is not returned). A 404 that says
// found false wraps engines.ErrNotFound; any other 404 (a missing index) is
// the server's error.
func (m *mapping) parseGet(status int, body []byte, id string) (engines.Document, error) {
	var r getResponse
	if status == http.StatusNotFound {
		if json.Unmarshal(body, &r) == nil && r.Found != nil && !*r.Found && r.ID != nil && *r.ID == id {
			return engines.Document{}, httpwire.StatusError(status, true, errors.New("found false"))
		}
		return engines.Document{}, responseError(status, body)
	}
	if err := decode(body, &r); err != nil {
		return engines.Document{}, err
	}
	switch {
	case r.ID == nil || *r.ID != id:
		return engines.Document{}, fmt.Errorf("malformed response: not the document asked for (_id %.40q)", deref(r.ID))
	case r.Found == nil || !*r.Found:
		return engines.Document{}, fmt.Errorf("malformed response: HTTP %d without found true", status)
	case r.Source == nil:
		return engines.Document{}, errors.New("malformed response: found, but no _source object")
	}
	d := engines.Document{ID: id}
	for _, name := range m.names {
		raw, ok := r.Source[name]
		if !ok || string(raw) == "null" {
			continue
		}
		f := engines.Field{Name: name}
		var err error
		switch m.types[name] {
		case engines.Numeric:
			err = json.Unmarshal(raw, &f.Number)
		case engines.Vector:
			err = json.Unmarshal(raw, &f.Vector)
		default:
			err = json.Unmarshal(raw, &f.Text)
		}
		if err != nil {
			return engines.Document{}, fmt.Errorf("malformed response: _source field %s of a %s field: %v", name, m.types[name], err)
		}
		d.Fields = append(d.Fields, f)
	}
	return d, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseCreated reads PUT /{index}'s response.
func parseCreated(body []byte) error {
	var r struct {
		Acknowledged       bool `json:"acknowledged"`
		ShardsAcknowledged bool `json:"shards_acknowledged"`
	}
	if err := decode(body, &r); err != nil {
		return err
	}
	switch {
	case !r.Acknowledged:
		return errors.New("the index was not acknowledged by the cluster in time")
	case !r.ShardsAcknowledged:
		// Writes would wait for the shard, or fail: better to stop here.
		return errors.New("the index's shard did not start in time (shards_acknowledged false)")
	}
	return nil
}

// parseShardsOnly reads a response that is only a _shards header (refresh).
func parseShardsOnly(body []byte) error {
	var r struct {
		Shards *shards `json:"_shards"`
	}
	if err := decode(body, &r); err != nil {
		return err
	}
	return r.Shards.check()
}

func parseCount(body []byte) (int64, error) {
	var r struct {
		Count  *int64  `json:"count"`
		Shards *shards `json:"_shards"`
	}
	if err := decode(body, &r); err != nil {
		return 0, err
	}
	if err := r.Shards.check(); err != nil {
		return 0, err
	}
	if r.Count == nil || *r.Count < 0 {
		return 0, errors.New("malformed response: no count")
	}
	return *r.Count, nil
}

// parseInfo reads GET /'s version.number.
func parseInfo(body []byte) (string, error) {
	var r struct {
		Version *struct {
			Number string `json:"number"`
		} `json:"version"`
	}
	if err := decode(body, &r); err != nil {
		return "", err
	}
	if r.Version == nil || r.Version.Number == "" {
		return "", errors.New("malformed response: no version.number")
	}
	if len(r.Version.Number) > 64 {
		return "", errors.New("malformed response: version.number is too long to be one")
	}
	return r.Version.Number, nil
}

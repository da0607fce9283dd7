package amgixnow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

func collectionPath(name string) string { return "/v1/collections/" + name }

// vectorConfig is one of a collection's vectors (VectorConfig in
// src/models.rs); Dimensions and DenseDistance are a dense vector's.
type vectorConfig struct {
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	IndexFields   []string `json:"index_fields"`
	TopK          int      `json:"top_k,omitempty"`
	Dimensions    int      `json:"dimensions,omitempty"`
	DenseDistance string   `json:"dense_distance,omitempty"`
}

// metadataIndex is a payload index on a metadata key (MetadataIndex in
// src/models.rs; Qdrant's keyword index for "string", float for "float":
// create_metadata_index in src/qdrant.rs).
type metadataIndex struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

type collectionConfig struct {
	Vectors         []vectorConfig  `json:"vectors"`
	StoreContent    bool            `json:"store_content"`
	MetadataIndexes []metadataIndex `json:"metadata_indexes,omitempty"`
}

// customDocumentVector is a vector the client supplies with a document
// (CustomDocumentVector in src/models.rs).
type customDocumentVector struct {
	VectorName string    `json:"vector_name"`
	Field      string    `json:"field"`
	Vector     []float32 `json:"vector"`
}

// wireDocument is the body of one document: the text fields in their
// document fields, tag fields as metadata strings, numeric fields as
// metadata numbers, the vector as a custom vector. Fields the layout does
// not keep are not sent.
func (l *layout) wireDocument(doc engines.Document, ts int64) (map[string]any, error) {
	m := make(map[string]any, len(l.text)+4)
	m["id"], m["timestamp"] = doc.ID, formatTimestamp(ts)
	for _, f := range l.text {
		m[f.amgix] = doc.Text(f.schema)
	}
	meta := map[string]any{}
	for _, f := range doc.Fields {
		switch {
		case slices.Contains(l.tags, f.Name):
			meta[f.Name] = f.Text
		case slices.Contains(l.numerics, f.Name):
			// A bare number: the float index takes any JSON number
			// (validate_metadata_types in src/encoder.rs).
			meta[f.Name] = f.Number
		case f.Name == l.vector:
			if len(f.Vector) != l.dim {
				return nil, fmt.Errorf("vector field %q has %d dimensions; the collection's have %d", f.Name, len(f.Vector), l.dim)
			}
			m["custom_vectors"] = []customDocumentVector{{VectorName: DenseVector, Field: denseField, Vector: f.Vector}}
		}
	}
	if l.exactMeta {
		meta[l.exact.schema] = doc.Text(l.exact.schema)
	}
	if len(meta) > 0 {
		m["metadata"] = meta
	}
	if _, ok := m["custom_vectors"]; !ok && l.vector != "" {
		// Amgix refuses the write ("Custom dense vector … requires custom
		// vectors but document has none", src/vectors/dense_custom.rs).
		return nil, fmt.Errorf("no vector in field %q", l.vector)
	}
	return m, nil
}

// searchRequest is SearchQuery (src/models.rs): the members the driver
// sends.
type searchRequest struct {
	Query         string         `json:"query"`
	Limit         int            `json:"limit"`
	VectorWeights []vectorWeight `json:"vector_weights,omitempty"`
	// VectorOptions repeats VectorWeights under the later source's name
	// (SearchQuerySettings.vector_options, VectorSearchOption: the same
	// members): which one the 0.1.2 image reads is not known, and each
	// version ignores the other's member (no deny_unknown_fields).
	VectorOptions  []vectorWeight  `json:"vector_options,omitempty"`
	CustomVectors  []customVector  `json:"custom_vectors,omitempty"`
	MetadataFilter *metadataFilter `json:"metadata_filter,omitempty"`
}

// vectorWeight is VectorSearchWeight: one arm's weight in the fusion.
type vectorWeight struct {
	VectorName string  `json:"vector_name"`
	Field      string  `json:"field"`
	Weight     float64 `json:"weight"`
}

// customVector is a query vector the client supplies (CustomVector).
type customVector struct {
	VectorName string    `json:"vector_name"`
	Vector     []float32 `json:"vector"`
}

// metadataFilter is MetadataFilter's JSON form, every condition AND-ed.
type metadataFilter struct {
	And []metadataCondition `json:"and"`
}

// metadataCondition is a leaf of MetadataFilter: "eq" matches a keyword,
// "gte"/"lte" a float range (convert_metadata_node in src/qdrant.rs).
type metadataCondition struct {
	Key   string `json:"key"`
	Op    string `json:"op"`
	Value any    `json:"value"`
}

// checkConfig reads a collection's configuration and checks that it is
// what Create makes (topK 0: the server's default, not checked): a dense
// vector's dense_distance included, since a shard that searched a
// collection of another metric would rank by the wrong distance.
func (l *layout) checkConfig(body []byte, topK int) error {
	var c struct {
		Vectors []struct {
			Name          string   `json:"name"`
			Type          string   `json:"type"`
			IndexFields   []string `json:"index_fields"`
			TopK          int      `json:"top_k"`
			Dimensions    int      `json:"dimensions"`
			DenseDistance string   `json:"dense_distance"`
		} `json:"vectors"`
		StoreContent    bool            `json:"store_content"`
		MetadataIndexes []metadataIndex `json:"metadata_indexes"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return fmt.Errorf("malformed collection configuration: %q", quote.Clip(string(body)))
	}
	want := l.vectors(topK)
	describe := func(name, typ string, fields []string, topK, dims int, distance string) string {
		s := fmt.Sprintf("%s %s over %v", name, typ, fields)
		if topK != 0 {
			s += fmt.Sprintf(" (top_k %d)", topK)
		}
		if dims != 0 {
			s += fmt.Sprintf(" (%d dimensions, %s)", dims, distance)
		}
		return s
	}
	var wants []string
	for _, v := range want {
		wants = append(wants, describe(v.Name, v.Type, v.IndexFields, v.TopK, v.Dimensions, v.DenseDistance))
	}
	makes := fmt.Sprintf("Create makes %s, storing content", strings.Join(wants, "; "))
	if len(c.Vectors) != len(want) || !c.StoreContent {
		return fmt.Errorf("the collection has %d vectors (store_content %v); %s", len(c.Vectors), c.StoreContent, makes)
	}
	for i, v := range c.Vectors {
		w := want[i]
		if v.Name != w.Name || v.Type != w.Type || !slices.Equal(v.IndexFields, w.IndexFields) || (w.TopK != 0 && v.TopK != w.TopK) ||
			v.Dimensions != w.Dimensions || (w.DenseDistance != "" && v.DenseDistance != w.DenseDistance) {
			return fmt.Errorf("its vector %d is %s; %s", i+1, describe(v.Name, v.Type, v.IndexFields, v.TopK, v.Dimensions, v.DenseDistance), makes)
		}
	}
	if mi := l.metadataIndexes(); !slices.Equal(c.MetadataIndexes, mi) {
		return fmt.Errorf("its metadata indexes are %v; Create makes %v", c.MetadataIndexes, mi)
	}
	return nil
}

// parseDocument decodes GET …/documents/{id}'s Document into the schema's
// fields: text from the document fields, tag and numeric fields from the
// metadata (a bare value, or {"value": v, "type": t} as older storage
// keeps it: flatten_doc_metadata in src/models.rs). The vector is not in
// the answer.
func (l *layout) parseDocument(answer []byte, id string) (engines.Document, error) {
	specs := make([]engines.FieldSpec, len(l.text))
	for i, f := range l.text {
		specs[i] = engines.FieldSpec{Name: f.amgix, Type: engines.Text}
	}
	doc, err := httpwire.DecodeDocument(answer, "id", id, specs)
	if err != nil {
		return engines.Document{}, err
	}
	for i := range doc.Fields {
		tf := l.text[slices.IndexFunc(l.text, func(f textField) bool { return f.amgix == doc.Fields[i].Name })]
		doc.Fields[i].Name = tf.schema
	}
	if len(l.tags)+len(l.numerics) == 0 {
		return doc, nil
	}
	var d struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(answer, &d); err != nil {
		return engines.Document{}, fmt.Errorf("document's metadata: %w", err)
	}
	value := func(raw json.RawMessage, v any) error {
		var wrapped struct {
			Value json.RawMessage `json:"value"`
		}
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			if err := json.Unmarshal(raw, &wrapped); err != nil {
				return err
			}
			raw = wrapped.Value
		}
		return json.Unmarshal(raw, v)
	}
	for _, name := range append(slices.Clone(l.tags), l.numerics...) {
		raw, ok := d.Metadata[name]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		f := engines.Field{Name: name}
		var err error
		if slices.Contains(l.tags, name) {
			err = value(raw, &f.Text)
		} else {
			err = value(raw, &f.Number)
		}
		if err != nil {
			return engines.Document{}, fmt.Errorf("metadata %q: %w", name, err)
		}
		doc.Fields = append(doc.Fields, f)
	}
	return doc, nil
}

// ParseExists decodes {"exists": bool}.
func ParseExists(body []byte) (bool, error) {
	var v struct {
		Exists *bool `json:"exists"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Exists == nil {
		return false, fmt.Errorf("malformed exists response: %q", quote.Clip(string(body)))
	}
	return *v.Exists, nil
}

// ParseVersion decodes {"version": "..."}.
func ParseVersion(body []byte) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &v); err != nil || strings.TrimSpace(v.Version) == "" {
		return "", fmt.Errorf("malformed version response: %q", quote.Clip(string(body)))
	}
	return strings.TrimSpace(v.Version), nil
}

// okResponse is Amgix's OkResponse: {"ok": true, "skipped": [ids]}, skipped
// present only when a write was not applied because its timestamp was not
// newer than the stored document's.
type okResponse struct {
	OK      *bool    `json:"ok"`
	Skipped []string `json:"skipped"`
}

// ParseWrite decodes a write's answer into the IDs Amgix skipped.
func ParseWrite(body []byte) ([]string, error) {
	var r okResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("malformed write response: %w", err)
	}
	if r.OK == nil || !*r.OK {
		return nil, errors.New(`write response without "ok": true`)
	}
	return r.Skipped, nil
}

// searchHit is the one field the driver reads of a SearchResult (a document's
// stored fields flattened, plus score and vector_scores).
type searchHit struct {
	ID *string `json:"id"`
}

// ParseSearch decodes a search answer into IDs, best first, and checks that
// it holds at most k hits. Two shapes are accepted: a bare JSON array of
// results (Amgix Now's src/main.rs at 04b08ea) and {"results": [...],
// "query_time_ms": ...} (later versions, and the reference's reading); which
// one the 0.1.2 image sends is not known here.
func ParseSearch(body []byte, k int) ([]string, error) {
	var hits []searchHit
	switch trimmed := bytes.TrimLeft(body, " \t\r\n"); {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(body, &hits); err != nil {
			return nil, fmt.Errorf("malformed search response: %w", err)
		}
	default:
		var r struct {
			Results *[]searchHit `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("malformed search response: %w", err)
		}
		if r.Results == nil {
			return nil, errors.New(`search response has no "results"`)
		}
		hits = *r.Results
	}
	if len(hits) > k {
		return nil, fmt.Errorf("search returned %d hits for limit %d", len(hits), k)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		if h.ID == nil || *h.ID == "" {
			return nil, fmt.Errorf("search hit %d has no id", i)
		}
		ids[i] = *h.ID
	}
	return ids, nil
}

// collectionStats is GET /v1/collections/{name}/stats.
type collectionStats struct {
	DocCount *int64 `json:"doc_count"`
	Queue    struct {
		Total int64 `json:"total"`
	} `json:"queue"`
}

// ParseStats decodes the collection's document count and queue depth.
func ParseStats(body []byte) (docs, queued int64, err error) {
	var s collectionStats
	if err := json.Unmarshal(body, &s); err != nil {
		return 0, 0, fmt.Errorf("malformed stats response: %w", err)
	}
	if s.DocCount == nil || *s.DocCount < 0 {
		return 0, 0, errors.New(`stats response without a "doc_count"`)
	}
	return *s.DocCount, s.Queue.Total, nil
}

// bulkRequest is the body of POST …/documents/bulk.
type bulkRequest struct {
	Documents []map[string]any `json:"documents"`
}

// encode is a request's JSON body.
func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

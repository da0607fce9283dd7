package amgixnow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines"
)

// documentFields are Amgix's text fields, the only ones a vector can index
// (DocumentField in src/common.rs).
var documentFields = []string{"name", "description", "content"}

// denseField is the document field the dense_custom vector is attached to:
// Amgix names every vector after a document field (Qdrant's vector
// "content_dense"), even one the client supplies.
const denseField = "content"

// denseDistance is the dense_distance of a vector field's metric: Amgix's
// DenseDistance (src/common.rs: cosine, dot, euclid), which
// create_collection (src/qdrant.rs) makes the Qdrant distance of the named
// vector — Distance::Cosine, Dot, Euclid. Qdrant (qdrant/qdrant
// lib/segment/src/spaces/simple.rs, read at f2c2686; Amgix Now embeds
// v1.17.1) normalises a vector only for Cosine (CosineMetric's
// preprocess); Dot ranks by the raw inner product, largest first, and
// Euclid by the Euclidean distance, smallest first: the harness's Dot and
// L2. Amgix
// passes a dense_custom vector to Qdrant as the client sent it
// (CustomDenseVector.extract_for_documents and extract_for_query in
// src/vectors/dense_custom.rs): the vector config's "normalization" is
// read only where Amgix computes the embedding itself
// (DenseModelVector.get_dense_vector in src/vectors/dense_model.rs, the
// model's output L2-normalised; normalize_embeddings in amgix-server's
// dense_model.py), so it is not sent, and the server's default (true for
// a dense type, apply_normalization_default in src/models.rs) changes
// nothing about a custom vector's ranking.
var denseDistance = map[engines.Metric]string{engines.Cosine: "cosine", engines.L2: "euclid", engines.Dot: "dot"}

// textField is a schema text field and the Amgix document field holding it.
type textField struct{ schema, amgix string }

// layout is how a schema is kept in an Amgix collection, under the options:
// which document field holds each text field, which metadata keys hold the
// tag and numeric fields, and which vectors the collection has.
type layout struct {
	text      []textField
	indexText bool     // the ft (and kw) vectors exist
	tags      []string // tag fields kept as metadata strings
	numerics  []string // numeric fields kept as metadata floats
	vector    string   // the vector field, "" when not indexed
	dim       int
	distance  string // the vector field's dense_distance (denseDistance)
	// exact is the lookup field (LookupField) when the schema has it and
	// text is indexed: it gets the whitespace vector kw; exactMeta keeps
	// it as a metadata string too.
	exact     *textField
	exactMeta bool
	// refused says, per schema field the options leave out of the index,
	// which option did.
	refused map[string]string
}

// newLayout checks schema as Create would and lays it out.
func newLayout(driver string, schema engines.Schema, o options) (*layout, error) {
	l := &layout{refused: map[string]string{}}
	seen := map[string]bool{}
	var text []string
	for _, f := range schema.Fields {
		if seen[f.Name] {
			return nil, engines.RefuseSchema(driver, "field %q twice", f.Name)
		}
		seen[f.Name] = true
		if f.Type != engines.Text && !o.types[f.Type] {
			l.refused[f.Name] = fmt.Sprintf("%s fields are not indexed (option fields)", f.Type)
			continue
		}
		// Text fields are placed together once all are known: where
		// each goes depends on the others (placeText).
		if f.Type == engines.Text {
			text = append(text, f.Name)
			continue
		}
		if err := l.addField(driver, f); err != nil {
			return nil, err
		}
	}
	if err := l.placeText(driver, text, o); err != nil {
		return nil, err
	}
	if !l.indexText && l.vector == "" {
		return nil, engines.RefuseSchema(driver, "nothing to index: %w (an Amgix collection needs a text field or a vector field indexed)", engines.ErrUnsupported)
	}
	if err := invalidName("collection name", schema.Name); err != nil {
		return nil, engines.RefuseSchema(driver, "%w", err)
	}
	return l, nil
}

// addField lays out an indexed field that is not text: a tag or numeric
// field as a metadata key, a vector field as the collection's one dense
// vector.
func (l *layout) addField(driver string, f engines.FieldSpec) error {
	switch f.Type {
	case engines.Tag, engines.Numeric:
		if err := invalidName("metadata key", f.Name); err != nil {
			return engines.RefuseSchema(driver, "field %q: %w", f.Name, err)
		}
		if f.Type == engines.Tag {
			l.tags = append(l.tags, f.Name)
		} else {
			l.numerics = append(l.numerics, f.Name)
		}
	case engines.Vector:
		switch {
		case l.vector != "":
			return engines.RefuseSchema(driver, "vector fields %q and %q: %w (one dense vector per collection here)", l.vector, f.Name, engines.ErrUnsupported)
		case f.Dim < 1 || f.Dim > maxDims:
			return engines.RefuseSchema(driver, "vector field %q: dimension %d: %w (Amgix takes 1 to %d)", f.Name, f.Dim, engines.ErrUnsupported, maxDims)
		}
		d, ok := denseDistance[f.Metric]
		if !ok {
			return engines.RefuseSchema(driver, "vector field %q: metric %s: %w (Amgix's dense distances are cosine, dot and euclid)", f.Name, f.Metric, engines.ErrUnsupported)
		}
		l.vector, l.dim, l.distance = f.Name, f.Dim, d
	default:
		return engines.RefuseSchema(driver, "field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
	}
	return nil
}

// placeText gives the schema's text fields, in schema order, their
// document fields, and says whether the ft vector indexes them and
// whether the lookup field gets kw.
func (l *layout) placeText(driver string, text []string, o options) error {
	// Schema fields named like Amgix's keep their places (the text corpus:
	// name and content); others take name, description and content in
	// schema order (the products: sku, title, description).
	identity := true
	for _, f := range text {
		identity = identity && slices.Contains(documentFields, f)
	}
	if len(text) > len(documentFields) {
		return engines.RefuseSchema(driver, "%d text fields: %w (Amgix documents have %d: %s)", len(text), engines.ErrUnsupported, len(documentFields), strings.Join(documentFields, ", "))
	}
	for i, f := range text {
		tf := textField{f, documentFields[i]}
		if identity {
			tf.amgix = f
		}
		l.text = append(l.text, tf)
	}
	l.indexText = len(l.text) > 0 && o.types[engines.Text]
	if !l.indexText && len(l.text) > 0 {
		for _, f := range l.text {
			l.refused[f.schema] = "text fields are not indexed (option fields)"
		}
	}
	if i := slices.IndexFunc(l.text, func(f textField) bool { return f.schema == LookupField }); i >= 0 && l.indexText {
		l.exact, l.exactMeta = &l.text[i], o.exactMeta
	}
	return nil
}

// amgixFields are the document fields holding the text fields.
func (l *layout) amgixFields() []string {
	out := make([]string, len(l.text))
	for i, f := range l.text {
		out[i] = f.amgix
	}
	return out
}

// textOf finds a schema text field.
func (l *layout) textOf(name string) (textField, bool) {
	i := slices.IndexFunc(l.text, func(f textField) bool { return f.schema == name })
	if i < 0 {
		return textField{}, false
	}
	return l.text[i], true
}

// vectors is the collection's vector configuration (Create's body).
func (l *layout) vectors(topK int) []vectorConfig {
	var out []vectorConfig
	if l.indexText {
		out = append(out, vectorConfig{Name: VectorName, Type: "full_text", IndexFields: l.amgixFields(), TopK: topK})
		if l.exact != nil {
			out = append(out, vectorConfig{Name: ExactVector, Type: "whitespace", IndexFields: []string{l.exact.amgix}, TopK: topK})
		}
	}
	if l.vector != "" {
		out = append(out, vectorConfig{Name: DenseVector, Type: "dense_custom", IndexFields: []string{denseField}, Dimensions: l.dim, DenseDistance: l.distance})
	}
	return out
}

// metadataIndexes are the payload indexes the filters use.
func (l *layout) metadataIndexes() []metadataIndex {
	var out []metadataIndex
	for _, t := range l.tags {
		out = append(out, metadataIndex{Key: t, Type: "string"})
	}
	for _, n := range l.numerics {
		out = append(out, metadataIndex{Key: n, Type: "float"})
	}
	if l.exactMeta {
		out = append(out, metadataIndex{Key: l.exact.schema, Type: "string"})
	}
	return out
}

// arm is one (vector, document field) pair a search ranks by.
type arm struct{ vector, field string }

// arms is every pair of the collection, in vectors' order.
func (l *layout) arms() []arm {
	var out []arm
	for _, v := range l.vectors(0) {
		for _, f := range v.IndexFields {
			out = append(out, arm{v.Name, f})
		}
	}
	return out
}

// knnQuery is the query text of a kNN: Amgix requires a query that is not
// blank (validate_search_query), though no arm that reads it is searched.
const knnQuery = "knn"

// plan is the search request for q, or why the collection cannot answer a
// query of q's shape (wrapping engines.ErrUnsupported). CheckQuery and
// Search both call it. The values are not checked against the data (a
// vector's length is Search's business).
func (l *layout) plan(q engines.Query) (searchRequest, error) {
	req := searchRequest{Query: q.Text, Limit: q.K}
	if q.K > MaxLimit {
		return req, fmt.Errorf("k=%d: %w (Amgix returns at most %d hits)", q.K, engines.ErrUnsupported, MaxLimit)
	}
	conds, err := l.conditions(q.Filters)
	if err != nil {
		return req, err
	}
	var use []arm
	switch {
	case q.Vector != nil && q.Field != "":
		return req, fmt.Errorf("a lookup in %q with a vector: %w", q.Field, engines.ErrUnsupported)
	case q.Vector != nil:
		use, err = l.vectorArms(q, &req)
	case q.Field != "":
		use, conds, err = l.lookupArm(q, conds)
	case q.Text != "":
		if err = l.needText(q); err == nil {
			use = l.textArms()
		}
	default:
		return req, fmt.Errorf("filters alone: %w (an Amgix search needs a query text or vector)", engines.ErrUnsupported)
	}
	if err != nil {
		return req, err
	}
	if len(conds) > 0 {
		req.MetadataFilter = &metadataFilter{And: conds}
	}
	l.weigh(&req, use)
	return req, nil
}

// needText is why a search of q's shape, which reads the text fields,
// cannot be made: nil when the ft vector indexes them.
func (l *layout) needText(q engines.Query) error {
	if !l.indexText {
		return fmt.Errorf("%s search: %w: text fields are not indexed (option fields, or none in the schema)", q.Shape(), engines.ErrUnsupported)
	}
	return nil
}

// textArms are the ft vector's arms: one per text field.
func (l *layout) textArms() []arm {
	out := make([]arm, 0, len(l.text))
	for _, f := range l.text {
		out = append(out, arm{VectorName, f.amgix})
	}
	return out
}

// vectorArms puts q's vector in req and is the arms a kNN (or, with a
// query text, hybrid) search of q ranks by.
func (l *layout) vectorArms(q engines.Query, req *searchRequest) ([]arm, error) {
	if l.vector == "" {
		why := "the schema has no vector field"
		for name, r := range l.refused {
			if strings.HasPrefix(r, "vector") {
				why = fmt.Sprintf("vector field %q: %s", name, r)
			}
		}
		return nil, fmt.Errorf("%s search: %w: %s", q.Shape(), engines.ErrUnsupported, why)
	}
	req.CustomVectors = []customVector{{VectorName: DenseVector, Vector: q.Vector}}
	use := []arm{{DenseVector, denseField}}
	if q.Text == "" {
		req.Query = knnQuery
		return use, nil
	}
	// Hybrid: the full_text arms and the kNN arm, fused by Amgix's
	// rrf (fusion_mode's default).
	if err := l.needText(q); err != nil {
		return nil, err
	}
	return append(use, l.textArms()...), nil
}

// lookupArm is the arm a lookup of q.Text in q.Field ranks by, and conds
// with the metadata condition that pins the lookup field when the
// collection keeps it as metadata (option exact=metadata).
func (l *layout) lookupArm(q engines.Query, conds []metadataCondition) ([]arm, []metadataCondition, error) {
	tf, ok := l.textOf(q.Field)
	if !ok {
		why := "not a text field of the schema"
		if r := l.refused[q.Field]; r != "" {
			why = r
		}
		return nil, nil, fmt.Errorf("lookup in %q: %w: %s", q.Field, engines.ErrUnsupported, why)
	}
	if err := l.needText(q); err != nil {
		return nil, nil, err
	}
	if l.exact != nil && tf == *l.exact {
		if l.exactMeta {
			conds = append(conds, metadataCondition{Key: tf.schema, Op: "eq", Value: q.Text})
		}
		return []arm{{ExactVector, tf.amgix}}, conds, nil
	}
	return []arm{{VectorName, tf.amgix}}, conds, nil
}

// conditions are the metadata conditions of filters, or why the
// collection cannot filter on one of their fields.
func (l *layout) conditions(filters []engines.Filter) ([]metadataCondition, error) {
	var conds []metadataCondition
	for _, f := range filters {
		switch {
		case slices.Contains(l.tags, f.Field):
			conds = append(conds, metadataCondition{Key: f.Field, Op: "eq", Value: f.Tag})
		case slices.Contains(l.numerics, f.Field):
			conds = append(conds, metadataCondition{Key: f.Field, Op: "gte", Value: f.Min}, metadataCondition{Key: f.Field, Op: "lte", Value: f.Max})
		case l.refused[f.Field] != "":
			return nil, fmt.Errorf("filter on %q: %w: %s", f.Field, engines.ErrUnsupported, l.refused[f.Field])
		default:
			return nil, fmt.Errorf("filter on %q: %w: not a tag or numeric field of the schema", f.Field, engines.ErrUnsupported)
		}
	}
	return conds, nil
}

// weigh lists every arm in req, those not in use with weight 0 (skipped
// by the server, src/qdrant.rs search): an arm left out would be searched
// with weight 1 in the source that reads vector_weights. A search of every
// arm sends none, as the text corpus always has.
func (l *layout) weigh(req *searchRequest, use []arm) {
	all := l.arms()
	if len(use) == len(all) {
		return
	}
	for _, a := range all {
		w := 0.0
		if slices.Contains(use, a) {
			w = 1
		}
		req.VectorWeights = append(req.VectorWeights, vectorWeight{VectorName: a.vector, Field: a.field, Weight: w})
	}
	req.VectorOptions = req.VectorWeights
}

package valkey

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

// createArgs is FT.CREATE's arguments for d.
func (d indexDef) createArgs() []string {
	args := []string{d.name, "ON", "HASH", "PREFIX", "1", d.prefix}
	if d.noStop {
		args = append(args, "NOSTOPWORDS")
	}
	args = append(args, "SCHEMA")
	for _, f := range d.fields {
		switch f.Type {
		case engines.Text:
			args = append(args, f.Name, "TEXT")
		case engines.Tag:
			// Stated, not left to the defaults: a tag is the whole value,
			// compared byte for byte, as an Elasticsearch keyword or a
			// Typesense exact filter (the package comment says why).
			args = append(args, f.Name, "TAG", "SEPARATOR", TagSeparator, "CASESENSITIVE")
		case engines.Numeric:
			args = append(args, f.Name, "NUMERIC")
		case engines.Vector:
			args = append(args, f.Name, "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", strconv.Itoa(f.Dim), "DISTANCE_METRIC", distanceMetrics[f.Metric])
		}
	}
	return args
}

// distanceMetrics are FT.CREATE's DISTANCE_METRIC for each engines.Metric
// (and what FT.INFO's distance_metric reads back): valkey-search 1.2.1
// knows L2, IP and COSINE (src/indexes/vector_base.h,
// kDistanceMetricByStr). What a KNN search ranks by is the HNSW space's
// distance, ascending (src/indexes/vector_base.cc, CreateSpace and
// VectorBase::Init): COSINE and IP are hnswlib's InnerProductSpace,
// 1 − a·b (third_party/hnswlib/space_ip.h, InnerProductDistance; the
// SIMD and simsimd.h variants compute the same), on vectors normalized
// to unit length for COSINE alone (normalize_, the stored vectors in
// InternVector and the query in VectorHNSW::Search) — so IP's ascending
// distance is the largest inner product first on vectors of any length,
// as engines.Dot asks; L2 is L2Space, the squared Euclidean distance
// (space_l2.h, L2Sqr), in the same order as the distance itself.
var distanceMetrics = map[engines.Metric]string{engines.Cosine: "COSINE", engines.L2: "L2", engines.Dot: "IP"}

// ftType is the FT.CREATE (and FT.INFO) type of a schema field.
func ftType(t engines.FieldType) string {
	return [...]string{engines.Text: "TEXT", engines.Tag: "TAG", engines.Numeric: "NUMERIC", engines.Vector: "VECTOR"}[t]
}

// globEscape quotes SCAN MATCH's special characters.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hsetArgs is the field/value list of doc in schema order, and its size in
// bytes.
func (l *layout) hsetArgs(doc engines.Document) ([]string, int, error) {
	if doc.ID == "" {
		return nil, 0, errors.New("valkey: document has no ID")
	}
	byName := make(map[string]engines.Field, len(doc.Fields))
	for _, f := range doc.Fields {
		if _, ok := l.types[f.Name]; !ok {
			return nil, 0, fmt.Errorf("valkey: document %s: field %q is not in the schema", doc.ID, f.Name)
		}
		byName[f.Name] = f
	}
	args := make([]string, 0, 2*len(l.schema.Fields))
	size := 0
	for _, spec := range l.schema.Fields {
		f, ok := byName[spec.Name]
		var v string
		switch spec.Type {
		case engines.Text, engines.Tag:
			v = f.Text
		case engines.Numeric:
			if !ok || math.IsNaN(f.Number) || math.IsInf(f.Number, 0) {
				return nil, 0, fmt.Errorf("valkey: document %s: numeric field %s is missing or not finite (every write carries the whole field set)", doc.ID, spec.Name)
			}
			v = strconv.FormatFloat(f.Number, 'f', -1, 64)
		case engines.Vector:
			if len(f.Vector) != spec.Dim {
				return nil, 0, fmt.Errorf("valkey: document %s: vector field %s has %d dimensions, the schema %d", doc.ID, spec.Name, len(f.Vector), spec.Dim)
			}
			v = valkey.VectorString32(f.Vector)
		}
		args = append(args, spec.Name, v)
		size += len(spec.Name) + len(v)
	}
	return args, size, nil
}

// Batches splits commands of the given sizes into consecutive groups of at
// most limit bytes (a command larger than limit is a group alone).
func Batches(sizes []int, limit int) [][2]int {
	var out [][2]int
	start, total := 0, 0
	for i, s := range sizes {
		if i > start && total+s > limit {
			out = append(out, [2]int{start, i})
			start, total = i, 0
		}
		total += s
	}
	if start < len(sizes) {
		out = append(out, [2]int{start, len(sizes)})
	}
	return out
}

// document decodes a hash Upsert wrote (hsetArgs' encoding, reversed).
func (l *layout) document(id string, hash map[string]string) (engines.Document, error) {
	doc := engines.Document{ID: id, Fields: make([]engines.Field, 0, len(l.schema.Fields))}
	for _, spec := range l.schema.Fields {
		v, ok := hash[spec.Name]
		if !ok {
			continue
		}
		f := engines.Field{Name: spec.Name}
		switch spec.Type {
		case engines.Text, engines.Tag:
			f.Text = v
		case engines.Numeric:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return engines.Document{}, fmt.Errorf("numeric field %s holds %.40q, not a number", spec.Name, v)
			}
			f.Number = n
		case engines.Vector:
			if len(v) != 4*spec.Dim {
				return engines.Document{}, fmt.Errorf("vector field %s holds %d bytes, not %d float32s", spec.Name, len(v), spec.Dim)
			}
			f.Vector = valkey.ToVector32(v)
		}
		doc.Fields = append(doc.Fields, f)
	}
	return doc, nil
}

// searchPlan is what Search sends: one or two query strings.
type searchPlan struct {
	index   string
	queries []string // all-words then any-word, or one
	vector  []float32
	empty   bool // nothing can match
}

// searchPlan builds the FT.SEARCH query strings for q on layout l.
func (l *layout) searchPlan(q engines.Query, tiered bool) (searchPlan, error) {
	d, err := l.chooseIndex(q)
	if err != nil {
		return searchPlan{}, err
	}
	p := searchPlan{index: d.name, vector: q.Vector}
	clauses, err := FilterClauses(d.types, q.Filters)
	if err != nil {
		return p, err
	}
	var words []string
	switch {
	case q.Field != "":
		c, ok, err := FieldClause(d.types, q.Field, q.Text)
		if err != nil {
			return p, err
		}
		if !ok {
			p.empty = true
			return p, nil
		}
		clauses = append(clauses, c)
	case q.Text != "":
		if words = Words(q.Text, d.noStop); len(words) == 0 {
			p.empty = true
			return p, nil
		}
	}
	if q.Vector != nil {
		spec := d.types[d.vector]
		if len(q.Vector) != spec.Dim {
			return p, fmt.Errorf("valkey: query vector has %d dimensions, field %s %d", len(q.Vector), d.vector, spec.Dim)
		}
		if len(words) > 0 {
			clauses = append(clauses, group(OrQuery(words), len(words)))
		}
		p.queries = []string{joinFilter(clauses) + KNNClause(d.vector, q.K, q.Knob)}
		return p, nil
	}
	if len(words) > 1 && tiered {
		p.queries = append(p.queries, joinFilter(append(slices.Clone(clauses), AndQuery(words))))
	}
	if len(words) > 0 {
		clauses = append(clauses, group(OrQuery(words), len(words)))
	}
	p.queries = append(p.queries, joinFilter(clauses))
	return p, nil
}

// stopWords is valkey-search's default TEXT stop list (the 33 Lucene English
// words, kDefaultStopWords). The server drops a stop word from an unquoted
// query (src/commands/filter_parser.cc, ParseUnquotedTextToken); the driver
// drops it first, because what is left can be an invalid query: a query of
// stop words alone is "Invalid Query Syntax", and an OR whose side is a
// stop word alone is "Missing OR term" — and crashed valkey-search 1.2.0
// (fixed in 1.2.1, #1115, 00-RELEASENOTES), the version of
// valkey/valkey-bundle:9.1.0.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		stopWords[w] = true
	}
}

// Words cuts free text into lowercased words of letters and digits, drops
// stop words unless keepStop (an index created with NOSTOPWORDS) and
// repeats. valkey-search's lexer cuts at its default punctuation and at
// whitespace; this cuts at every other character as well (an underscore,
// say, which the lexer keeps inside a word) — the corpora have none, and
// only letters and digits surviving means no word needs escaping. The
// server bounds a query's predicate tree (search.query-string-terms-count:
// n words OR-ed are 2n−1 nodes); a query over the bound is its error, not
// silently shortened here.
func Words(text string, keepStop bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if seen[w] || !keepStop && stopWords[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// OrQuery is the words as alternatives: `w1 | w2 | …` (any word matches),
// the OR semantics of the study's other engines.
func OrQuery(words []string) string { return strings.Join(words, " | ") }

// AndQuery is the words together (valkey-search's own default: every word).
func AndQuery(words []string) string { return strings.Join(words, " ") }

// escapeTag makes a value safe inside @field:{…}: every character that is
// not a letter or digit is backslash-escaped, so punctuation, '|', '}' and
// spaces are taken literally.
func escapeTag(v string) string {
	var b strings.Builder
	for _, r := range v {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func formatBound(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// fieldTypes is an index's fields by name.
type fieldTypes map[string]engines.FieldSpec

// FilterClauses turns Query.Filters into query clauses that must all hold:
// `@f:{tag}` for a Tag field, `@f:[min max]` for a Numeric one.
func FilterClauses(fields fieldTypes, filters []engines.Filter) ([]string, error) {
	var out []string
	for _, f := range filters {
		spec, ok := fields[f.Field]
		switch {
		case !ok:
			return nil, fmt.Errorf("filter on %q: the index has no such field: %w", f.Field, engines.ErrUnsupported)
		case spec.Type == engines.Tag:
			out = append(out, fmt.Sprintf("@%s:{%s}", f.Field, escapeTag(f.Tag)))
		case spec.Type == engines.Numeric:
			if math.IsNaN(f.Min) || math.IsNaN(f.Max) || f.Min > f.Max {
				return nil, fmt.Errorf("filter on %q: range [%v, %v] is empty", f.Field, f.Min, f.Max)
			}
			out = append(out, fmt.Sprintf("@%s:[%s %s]", f.Field, formatBound(f.Min), formatBound(f.Max)))
		default:
			return nil, fmt.Errorf("filter on %s field %q: %w", spec.Type, f.Field, engines.ErrUnsupported)
		}
	}
	return out, nil
}

// FieldClause is the exact lookup of text in one field: `@f:{value}` for a
// Tag field; for a Text field the value's words as an exact phrase,
// `@f:"w1 w2"`, so that "IT-500" finds the document whose field reads
// IT-500 and not every document that has a 500. Inside quotes no word is
// dropped as a stop word and none is stemmed: on an index with the default
// stop list, whose documents lost "it" at indexing, that lookup finds
// nothing — the trap Study B's exact index (NOSTOPWORDS) avoids. ok is false
// when the text has no word at all.
func FieldClause(fields fieldTypes, field, text string) (clause string, ok bool, err error) {
	spec, found := fields[field]
	switch {
	case !found:
		return "", false, fmt.Errorf("search in field %q: the index has no such field: %w", field, engines.ErrUnsupported)
	case spec.Type == engines.Tag:
		return fmt.Sprintf("@%s:{%s}", field, escapeTag(text)), true, nil
	case spec.Type == engines.Text:
		words := Words(text, true)
		if len(words) == 0 {
			return "", false, nil
		}
		return fmt.Sprintf(`@%s:"%s"`, field, strings.Join(words, " ")), true, nil
	}
	return "", false, fmt.Errorf("search in %s field %q: %w", spec.Type, field, engines.ErrUnsupported)
}

// KNNClause is the vector part: `=>[KNN k @field $vec]`, with
// `EF_RUNTIME ef` before the bracket closes when the query sets the knob.
func KNNClause(field string, k, ef int) string {
	if ef > 0 {
		return fmt.Sprintf("=>[KNN %d @%s $vec EF_RUNTIME %d]", k, field, ef)
	}
	return fmt.Sprintf("=>[KNN %d @%s $vec]", k, field)
}

// Knob is the KNN clause's EF_RUNTIME: the candidate list of the HNSW
// search, max(EF_RUNTIME, k) in valkey-search 1.2.1; without it the
// index's own (the driver's FT.CREATE leaves the default, 10). Its bound
// is the server's max-vector-ef-runtime (1,000,000 unless configured).
var Knob = engines.Knob{
	Name: "EF_RUNTIME", Min: 1, Max: 1_000_000, Default: "the index's EF_RUNTIME, 10 as the driver creates it",
	Trades: "a longer candidate list finds more of the true nearest neighbours and visits more of the graph per search",
	Source: "valkey-search 1.2.1 src/commands/ft_search_parser.cc (VerifyQueryString: EF_RUNTIME), src/commands/ft_create_parser.cc (kMaxEfRuntime, max-vector-ef-runtime), third_party/hnswlib/hnswalg.h (max(ef, k))",
}

// joinFilter joins clauses that must all hold; none is "*" (every document).
func joinFilter(clauses []string) string {
	if len(clauses) == 0 {
		return "*"
	}
	return strings.Join(clauses, " ")
}

// group brackets an OR so that it binds as one clause next to others.
func group(q string, n int) string {
	if n > 1 {
		return "(" + q + ")"
	}
	return q
}

// The reply readers below take a reply as valkey-go's ValkeyMessage.ToAny
// gives it: string, int64, float64, bool, nil (a null), error (an error
// reply inside a list), []any, or map[string]any (a RESP3 map). They are
// pure functions over those values, so that the fuzz targets reach them
// and a reply of an unexpected shape is an error, never a panic.

// render is a reply as an error message quotes it (quote.Unreadable clips
// it).
func render(v any) string { return fmt.Sprint(v) }

// pairs reads a list of name/value pairs (FT.INFO's shape), or a RESP3 map,
// into a map.
func pairs(v any) (map[string]any, error) {
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case []any:
		if len(x)%2 != 0 {
			return nil, fmt.Errorf("odd number of items (%d) in a list of name/value pairs", len(x))
		}
		out := make(map[string]any, len(x)/2)
		for i := 0; i < len(x); i += 2 {
			k, ok := x[i].(string)
			if !ok {
				return nil, fmt.Errorf("item %d: a name is not a string", i)
			}
			out[k] = x[i+1]
		}
		return out, nil
	}
	return nil, errors.New("expected a list of name/value pairs")
}

// FTAttribute is one of FT.INFO's attributes as the driver reads it.
type FTAttribute struct {
	Type string // TEXT, TAG, NUMERIC or VECTOR
	// DistanceMetric is a VECTOR's distance_metric (L2, IP or COSINE:
	// src/indexes/vector_base.cc, VectorBase::RespondWithInfo, 1.2.1),
	// "" for the other types.
	DistanceMetric string
}

// ParseFTAttributes reads FT.INFO's attributes: each attribute's
// identifier (the hash field), its type (TEXT, TAG, NUMERIC, VECTOR), as
// valkey-search's docs/commands/ft.info.md lists them, and a VECTOR's
// distance_metric, in the list after its "index".
func ParseFTAttributes(v any) (map[string]FTAttribute, error) {
	kv, err := pairs(v)
	if err != nil {
		return nil, fmt.Errorf("FT.INFO: %w", err)
	}
	attrs, ok := kv["attributes"].([]any)
	if !ok {
		return nil, fmt.Errorf("FT.INFO: no list of attributes in %s", quote.Clip(render(v)))
	}
	out := make(map[string]FTAttribute, len(attrs))
	for i, a := range attrs {
		f, err := pairs(a)
		if err != nil {
			return nil, fmt.Errorf("FT.INFO: attribute %d: %w", i, err)
		}
		id, _ := f["identifier"].(string)
		typ, _ := f["type"].(string)
		if id == "" || typ == "" {
			return nil, fmt.Errorf("FT.INFO: attribute %d has no identifier or type: %s", i, quote.Clip(render(a)))
		}
		attr := FTAttribute{Type: typ}
		if typ == "VECTOR" {
			index, err := pairs(f["index"])
			if err != nil {
				return nil, fmt.Errorf("FT.INFO: attribute %s: index: %w", id, err)
			}
			if attr.DistanceMetric, _ = index["distance_metric"].(string); attr.DistanceMetric == "" {
				return nil, fmt.Errorf("FT.INFO: vector attribute %s has no distance_metric: %s", id, quote.Clip(render(a)))
			}
		}
		out[id] = attr
	}
	return out, nil
}

// FTInfo is what the driver reads from FT.INFO.
type FTInfo struct {
	NumDocs           int64
	MutationQueueSize int64
	IndexingFailures  int64
	// Backfill is whether the index is still scanning the keys that
	// existed when it was created, BackfillDone the share of them it has
	// (0 to 1: the module's backfill_complete_percent is a fraction,
	// "%f" of processed / db size, src/index_schema.cc RespondWithInfo
	// and GetBackfillPercent, 1.2.1). Both are optional: zero and 1 when
	// absent.
	Backfill     bool
	BackfillDone float64
}

// ParseFTInfo reads FT.INFO's reply: num_docs and mutation_queue_size are
// required (as integers or their decimal strings), hash_indexing_failures,
// backfill_in_progress and backfill_complete_percent optional.
func ParseFTInfo(v any) (FTInfo, error) {
	kv, err := pairs(v)
	if err != nil {
		return FTInfo{}, fmt.Errorf("FT.INFO: %w", err)
	}
	info := FTInfo{BackfillDone: 1}
	var backfill int64
	for _, f := range []struct {
		name     string
		dst      *int64
		optional bool
	}{
		{"num_docs", &info.NumDocs, false},
		{"mutation_queue_size", &info.MutationQueueSize, false},
		{"hash_indexing_failures", &info.IndexingFailures, true},
		{"backfill_in_progress", &backfill, true},
	} {
		item, ok := kv[f.name]
		if !ok {
			if f.optional {
				continue
			}
			return FTInfo{}, fmt.Errorf("FT.INFO: no %s in the reply", f.name)
		}
		n, err := wholeNumber(item)
		if err != nil {
			return FTInfo{}, fmt.Errorf("FT.INFO: %s: %w", f.name, err)
		}
		*f.dst = n
	}
	info.Backfill = backfill != 0
	if item, ok := kv["backfill_complete_percent"]; ok {
		f, err := fraction(item)
		if err != nil {
			return FTInfo{}, fmt.Errorf("FT.INFO: backfill_complete_percent: %w", err)
		}
		info.BackfillDone = f
	}
	return info, nil
}

// fraction reads a scalar that holds a number from 0 to 1 ("0.250000").
func fraction(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, fmt.Errorf("%.40q is not a number", x)
		}
	default:
		return 0, errors.New("not a number")
	}
	if !(f >= 0 && f <= 1) {
		return 0, fmt.Errorf("%v is not from 0 to 1", f)
	}
	return f, nil
}

// wholeNumber reads a scalar that holds an integer: an integer reply, or a
// float or a string with no fraction ("3", "3.000000").
func wholeNumber(v any) (int64, error) {
	var f float64
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		f = x
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
	default:
		return 0, errors.New("not a number")
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fmt.Errorf("%v is not a whole number", f)
	}
	return int64(f), nil
}

// ParseSearchKeys reads an FT.SEARCH … NOCONTENT reply: the total, then one
// key per hit.
func ParseSearchKeys(v any) (total int64, keys []string, err error) {
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		return 0, nil, errors.New("FT.SEARCH: expected a list that starts with the total")
	}
	total, err = wholeNumber(items[0])
	if err != nil {
		return 0, nil, fmt.Errorf("FT.SEARCH: total: %w", err)
	}
	if total < 0 {
		return 0, nil, fmt.Errorf("FT.SEARCH: negative total %d", total)
	}
	keys = make([]string, 0, len(items)-1)
	for i, item := range items[1:] {
		key, ok := item.(string)
		if !ok {
			return 0, nil, fmt.Errorf("FT.SEARCH: item %d is not a key (was the reply sent without NOCONTENT?)", i+1)
		}
		keys = append(keys, key)
	}
	return total, keys, nil
}

// ParseInfo reads INFO's text: "# Section" headers, "name:value" lines,
// blank lines. A line that is neither is an error: the reply is not INFO
// output. Names are unique across sections except INFO modules' "module",
// one line per loaded module (the bundle loads four): a map keeps only the
// last, so SearchModuleVersion reads that section's text itself.
func ParseInfo(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("INFO line %d is not name:value: %.40q", i+1, line)
		}
		out[name] = val
	}
	return out, nil
}

// searchStats maps INFO search fields onto the names Stats reports. The
// runner's ladder table reads "queue_depth". Valkey prefixes a module's INFO
// fields with the module's name, developer fields (section
// search_global_ingestion) included — "search_ingest_hash_keys" appears so
// in a public INFO SEARCH dump of a valkey-search server; the bare names
// are taken too, in case a build shows them unprefixed.
var searchStats = []struct{ stat, field string }{
	{engines.StatQueueDepth, "writer_queue_size"},
	{"query_queue_size", "query_queue_size"},
	{"used_write_cpu", "used_write_cpu"},
	{"used_read_cpu", "used_read_cpu"},
	{engines.StatIndexingJobs, "ingest_hash_keys"},
	{"ingest_hash_blocked", "ingest_hash_blocked"},
	{engines.StatIngestField + "vector", "ingest_field_vector"},
	{engines.StatIngestField + "text", "ingest_field_text"},
	{engines.StatIngestField + "tag", "ingest_field_tag"},
	{engines.StatIngestField + "numeric", "ingest_field_numeric"},
	{"number_of_indexes", "number_of_indexes"},
}

// SearchStats picks the search module's gauges and counters out of parsed
// INFO search; a field that is absent is left out, one that is not a number
// is an error.
func SearchStats(info map[string]string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, s := range searchStats {
		raw, ok := info["search_"+s.field]
		if !ok {
			raw, ok = info[s.field]
		}
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, fmt.Errorf("INFO search: %s=%q is not a number", s.field, raw)
		}
		out[s.stat] = f
	}
	return out, nil
}

// ServerVersion reads the server's version from parsed INFO server:
// valkey_version, or redis_version from servers that predate it.
func ServerVersion(info map[string]string) (string, error) {
	for _, k := range []string{"valkey_version", "redis_version"} {
		if v := info[k]; v != "" {
			return v, nil
		}
	}
	return "", errors.New("INFO server has neither valkey_version nor redis_version")
}

// SearchModuleVersion finds the search module in INFO modules' text
// ("module:name=search,ver=…,…", one such line per module) and decodes its
// version. ok is false when the module is not loaded.
func SearchModuleVersion(text string) (version string, ok bool, err error) {
	for _, line := range strings.Split(text, "\n") {
		rest, found := strings.CutPrefix(strings.TrimRight(line, "\r"), "module:")
		if !found {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range strings.Split(rest, ",") {
			if n, v, found := strings.Cut(kv, "="); found {
				attrs[n] = v
			}
		}
		if attrs["name"] != "search" {
			continue
		}
		n, perr := strconv.ParseInt(attrs["ver"], 10, 64)
		if perr != nil || n < 0 {
			return "", true, fmt.Errorf("INFO modules: search ver=%q is not a version number", attrs["ver"])
		}
		return decodeModuleVersion(n), true, nil
	}
	return "", false, nil
}

// decodeModuleVersion turns a module's integer version into x.y.z.
// valkey-search's version is kModuleVersion = vmsdk::ValkeyVersion(1, 2, 0)
// at tag 1.2.0, the module the pinned bundle 9.1.0 builds (1.2.1 on its
// branch's later head),
// which packs (major<<16)|(minor<<8)|patch (src/version.h,
// vmsdk/src/utils.h); that this integer is what INFO modules shows is
// unconfirmed, and modules in the RedisModule tradition write
// major*10000+minor*100+patch, so both are recognised: the shifted form is
// taken when its minor and patch bytes are both below 100.
func decodeModuleVersion(n int64) string {
	if n >= 1<<16 {
		major, minor, patch := n>>16, (n>>8)&0xff, n&0xff
		if minor < 100 && patch < 100 {
			return fmt.Sprintf("%d.%d.%d", major, minor, patch)
		}
	}
	return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
}

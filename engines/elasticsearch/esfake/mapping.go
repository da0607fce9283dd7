package esfake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// An index's settings and mappings as a create request gives them, and
// the JSON decoding of request bodies, refusing what Elasticsearch refuses.

// forbiddenInName are the characters Elasticsearch refuses in an index name
// (MetadataCreateIndexService.validateIndexOrAliasName, Strings.INVALID_FILENAME_CHARS, and ':').
const forbiddenInName = `\/*?"<>| ,#:`

func checkIndexName(name string) *esError {
	invalid := func(why string) *esError {
		e := newError(http.StatusBadRequest, "invalid_index_name_exception", "Invalid index name [%s], %s", name, why)
		e.extra = map[string]any{"index_uuid": "_na_", "index": name}
		return e
	}
	switch {
	case strings.ToLower(name) != name:
		return invalid("must be lowercase")
	case strings.ContainsAny(name, forbiddenInName):
		return invalid(`must not contain the following characters [ , ", *, \, <, |, ,, >, /, ?, #, :]`)
	case strings.HasPrefix(name, "_") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "+"):
		return invalid("must not start with '_', '-', or '+'")
	case name == "." || name == "..":
		return invalid("must not be '.' or '..'")
	case len(name) > 255:
		return invalid("index name is too long, (" + strconv.Itoa(len(name)) + " > 255)")
	}
	return nil
}

// Index settings this fake knows Elasticsearch has but does not model:
// they are refused as not implemented, any other unknown one as
// Elasticsearch refuses it.
var unmodelledSettings = []string{
	"index.codec", "index.translog.", "index.mapping.", "index.similarity.", "index.merge.", "index.routing",
	"index.sort.", "index.blocks.", "index.max_", "index.number_of_routing_shards", "index.hidden",
	"index.auto_expand_replicas", "index.default_pipeline", "index.final_pipeline", "index.lifecycle.",
	"index.query.", "index.store.", "index.unassigned.", "index.write.", "index.search.slowlog.",
	"index.indexing.slowlog.", "index.priority", "index.shard.", "index.soft_deletes.", "index.gc_deletes",
	"index.analysis.tokenizer.", "index.analysis.char_filter.", "index.analysis.normalizer.", "index.mode",
}

// newIndex builds an index from the create request's settings and
// mappings, refusing what Elasticsearch refuses.
func (s *Server) newIndex(name string, rawSettings, rawMappings any) (*index, *esError) {
	ix := &index{
		name: name, uuid: newUUID(),
		refreshEvery: defaultRefresh, idleAfter: cmp.Or(s.opts.SearchIdleAfter, defaultIdleAfter),
		maxResultWindow: defaultMaxResultWindow, maxListeners: defaultMaxListeners,
		dynamic: "true", fields: map[string]*field{},
		settings: map[string]string{},
		stop:     make(chan struct{}),
		live:     map[string]*entry{}, visible: map[string]*doc{},
		released: make(chan struct{}),
	}
	flat := map[string]any{}
	if rawSettings != nil {
		m, ok := rawSettings.(map[string]any)
		if !ok {
			return nil, newError(http.StatusBadRequest, "parse_exception", "key [settings] must be an object")
		}
		flatten("", m, flat)
	}
	def := analysisDef{analyzers: map[string]map[string]any{}, filters: map[string]map[string]any{}}
	for _, k := range sortedKeys(flat) {
		key := k
		if !strings.HasPrefix(key, "index.") {
			key = "index." + key
		}
		if err := ix.setting(def, key, flat[k]); err != nil {
			return nil, err
		}
	}
	analyzers, err := def.buildAnalyzers()
	if err != nil {
		return nil, err
	}
	if rawMappings != nil {
		if err := ix.parseMappings(rawMappings, analyzers); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// setting applies one index setting (key "index."-prefixed), keeping the
// analysis ones in def for buildAnalyzers.
func (ix *index) setting(def analysisDef, key string, v any) *esError {
	str, isScalar := scalar(v)
	if isScalar {
		ix.settings[key] = str
	}
	var err *esError
	switch {
	case key == "index.number_of_shards":
		var n int
		if n, err = intSetting(key, str, 1); err == nil && n != 1 {
			err = notImplemented("more than one shard")
		}
	case key == "index.number_of_replicas":
		ix.replicas, err = intSetting(key, str, 0)
	case key == "index.refresh_interval":
		ix.refreshEvery, err = timeSetting(key, str, true)
		ix.explicitRefresh = true
	case key == "index.search.idle.after":
		ix.idleAfter, err = timeSetting(key, str, false)
	case key == "index.max_result_window":
		ix.maxResultWindow, err = intSetting(key, str, 1)
	case key == "index.max_refresh_listeners":
		ix.maxListeners, err = intSetting(key, str, 0)
	case strings.HasPrefix(key, "index.analysis.analyzer."):
		return def.add(def.analyzers, key, strings.TrimPrefix(key, "index.analysis.analyzer."), v)
	case strings.HasPrefix(key, "index.analysis.filter."):
		return def.add(def.filters, key, strings.TrimPrefix(key, "index.analysis.filter."), v)
	case slices.ContainsFunc(unmodelledSettings, func(p string) bool { return strings.HasPrefix(key, p) }):
		err = notImplemented("index setting [%s]", key)
	default:
		err = badRequest("illegal_argument_exception", "unknown setting [%s] please check that any required plugins are installed, "+
			"or check the breaking changes documentation for removed settings", key)
	}
	if err == nil && !isScalar {
		err = badRequest("illegal_argument_exception", "Failed to parse value [%v] for setting [%s]", v, key)
	}
	return err
}

// add keeps one setting ("name.key") of an analyzer or filter in group.
func (analysisDef) add(group map[string]map[string]any, key, rest string, v any) *esError {
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return badRequest("illegal_argument_exception", "unknown setting [%s]", key)
	}
	if group[rest[:i]] == nil {
		group[rest[:i]] = map[string]any{}
	}
	group[rest[:i]][rest[i+1:]] = v
	return nil
}

func newUUID() string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, 22)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// flatten turns nested settings into dotted keys, as Elasticsearch reads
// them ({"index":{"refresh_interval":"1s"}} is index.refresh_interval);
// arrays stay values.
func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			flatten(prefix+k+".", sub, out)
			continue
		}
		out[prefix+k] = v
	}
}

// scalar is a setting's (or a query text's) string form; Elasticsearch
// keeps every setting as a string, so 1 and "1" are the same.
var scalar = fakekit.Scalar

func intSetting(key, v string, min int) (int, *esError) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, badRequest("illegal_argument_exception", "Failed to parse value [%s] for setting [%s]", v, key)
	}
	if n < min {
		return 0, badRequest("illegal_argument_exception", "Failed to parse value [%s] for setting [%s] must be >= %d", v, key, min)
	}
	return n, nil
}

// timeValueRE is Elasticsearch's time value: a whole number and a unit
// (TimeValue.parseTimeValue; fractions are refused since 7.0).
var timeValueRE = regexp.MustCompile(`^([0-9]+)(nanos|micros|ms|s|m|h|d)$`)

var timeUnits = map[string]time.Duration{
	"nanos": time.Nanosecond, "micros": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

// timeSetting parses a time value; "-1" (when minusOne) and "0" need no
// unit. -1 comes back as -1 ns: every caller reads ≤ 0 as "never".
func timeSetting(key, v string, minusOne bool) (time.Duration, *esError) {
	switch {
	case v == "0":
		return 0, nil
	case v == "-1" && minusOne:
		return -1, nil
	}
	m := timeValueRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(v)))
	if m == nil {
		if strings.HasPrefix(v, "-") {
			return 0, badRequest("illegal_argument_exception", "failed to parse value [%s] for setting [%s], must be >= [-1]", v, key)
		}
		return 0, badRequest("illegal_argument_exception",
			"failed to parse setting [%s] with value [%s] as a time value: unit is missing or unrecognized", key, v)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || time.Duration(n) > time.Duration(1<<62)/timeUnits[m[2]] {
		return 0, badRequest("illegal_argument_exception", "failed to parse value [%s] for setting [%s]", v, key)
	}
	return time.Duration(n) * timeUnits[m[2]], nil
}

// Mapping types this fake knows Elasticsearch has but does not model.
var unmodelledTypes = []string{"date", "date_nanos", "boolean", "object", "nested", "flattened",
	"sparse_vector", "semantic_text", "geo_point", "geo_shape", "ip", "binary", "match_only_text",
	"search_as_you_type", "completion", "wildcard", "constant_keyword", "alias", "rank_feature",
	"rank_features", "token_count", "version", "histogram", "percolator", "join", "integer_range",
	"long_range", "float_range", "double_range", "date_range", "ip_range", "point", "shape", "annotated_text"}

var numericTypes = []string{"long", "integer", "short", "byte", "double", "float", "half_float", "unsigned_long"}

// Field parameters Elasticsearch has that this fake does not model.
var unmodelledParams = []string{"norms", "similarity", "store", "term_vector",
	"position_increment_gap", "index_options", "fielddata", "copy_to", "boost", "eager_global_ordinals",
	"index_phrases", "index_prefixes", "search_quote_analyzer", "meta", "ignore_above", "normalizer",
	"doc_values", "null_value", "split_queries_on_whitespace", "coerce", "ignore_malformed", "script",
	"on_script_error", "time_series_dimension", "time_series_metric", "fielddata_frequency_filter"}

func mapperError(format string, args ...any) *esError {
	return badRequest("mapper_parsing_exception", format, args...)
}

// parseMappings reads the mappings object: dynamic and properties.
func (ix *index) parseMappings(raw any, analyzers map[string]*analyzer) *esError {
	m, ok := raw.(map[string]any)
	if !ok {
		return mapperError("Failed to parse mapping: mappings must be an object")
	}
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch k {
		case "dynamic":
			d, _ := scalar(v)
			if d != "true" && d != "false" && d != "strict" {
				if d == "runtime" {
					return notImplemented("dynamic runtime")
				}
				return mapperError("Failed to parse mapping: Could not convert [dynamic] to boolean")
			}
			ix.dynamic = d
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return mapperError("Failed to parse mapping: Expected map for property [fields] on field [properties] but got a class %T", v)
			}
			for _, name := range sortedKeys(props) {
				f, err := parseField(name, props[name], analyzers)
				if err != nil {
					return err
				}
				ix.fields[name] = f
				for sub, sf := range f.sub {
					ix.fields[name+"."+sub] = sf
				}
			}
		case "_source", "_routing", "dynamic_templates", "runtime", "_meta", "date_detection", "numeric_detection",
			"dynamic_date_formats", "_field_names", "enabled", "subobjects", "_data_stream_timestamp":
			return notImplemented("mapping parameter [%s]", k)
		default:
			return mapperError("Root mapping definition has unsupported parameters:  [%s : %v]", k, v)
		}
	}
	return nil
}

func parseField(name string, raw any, analyzers map[string]*analyzer) (*field, *esError) {
	switch {
	case name == "":
		return nil, mapperError("Failed to parse mapping: field name cannot be an empty string")
	case strings.Contains(name, "."):
		return nil, notImplemented("dotted field name [%s] (an object path)", name)
	}
	def, ok := raw.(map[string]any)
	if !ok {
		return nil, mapperError("Failed to parse mapping: Expected map for property [fields] on field [%s] but got a class %T", name, raw)
	}
	typ, _ := def["type"].(string)
	f := &field{typ: typ, def: def, indexed: true}
	switch {
	case def["type"] == nil:
		return nil, notImplemented("object field [%s]", name)
	case typ == "text", typ == "keyword", slices.Contains(numericTypes, typ):
	case typ == "dense_vector":
		return parseDenseVector(name, f)
	case slices.Contains(unmodelledTypes, typ):
		return nil, notImplemented("field type [%s]", typ)
	default:
		return nil, mapperError("Failed to parse mapping: No handler for type [%v] declared on field [%s]", def["type"], name)
	}
	for _, k := range sortedKeys(def) {
		switch {
		case k == "type":
		case typ == "text" && (k == "analyzer" || k == "search_analyzer"):
		case k == "index":
			b, ok := boolValue(def[k])
			if !ok {
				return nil, mapperError("Failed to parse mapping: Failed to parse value [%v] as only [true] or [false] are allowed.", def[k])
			}
			f.indexed = b
		case k == "fields" && (typ == "text" || typ == "keyword"):
			var err *esError
			if f.sub, err = parseMultiFields(name, def[k], analyzers); err != nil {
				return nil, err
			}
		case slices.Contains(unmodelledParams, k) || k == "fields":
			return nil, notImplemented("mapping parameter [%s] on field [%s]", k, name)
		default:
			return nil, mapperError("unknown parameter [%s] on mapper [%s] of type [%s]", k, name, typ)
		}
	}
	if typ != "text" {
		return f, nil
	}
	var err *esError
	dflt := cmp.Or(analyzers["default"], standardAnalyzer)
	if f.analyzer, err = analyzerParam(def, "analyzer", dflt, analyzers); err != nil {
		return nil, err
	}
	if f.searchAnalyzer, err = analyzerParam(def, "search_analyzer", f.analyzer, analyzers); err != nil {
		return nil, err
	}
	return f, nil
}

// parseMultiFields reads a text or keyword field's multi-fields (its
// fields parameter), one level deep.
func parseMultiFields(name string, raw any, analyzers map[string]*analyzer) (map[string]*field, *esError) {
	subs, ok := raw.(map[string]any)
	if !ok {
		return nil, mapperError("Failed to parse mapping: Expected map for property [fields] on field [%s] but got a class %T", name, raw)
	}
	out := map[string]*field{}
	for _, sub := range sortedKeys(subs) {
		if sd, ok := subs[sub].(map[string]any); ok && sd["fields"] != nil {
			return nil, notImplemented("multi-fields inside the multi-field [%s.%s]", name, sub)
		}
		sf, err := parseField(sub, subs[sub], analyzers)
		if err != nil {
			return nil, err
		}
		out[sub] = sf
	}
	return out, nil
}

// analyzerParam resolves a text field's analyzer or search_analyzer
// (param): one the index defines, the built-in standard, or dflt when the
// field does not set it.
func analyzerParam(def map[string]any, param string, dflt *analyzer, analyzers map[string]*analyzer) (*analyzer, *esError) {
	v, set := def[param]
	if !set {
		return dflt, nil
	}
	n, _ := v.(string)
	switch {
	case analyzers[n] != nil:
		return analyzers[n], nil
	case n == "standard":
		return standardAnalyzer, nil
	case slices.Contains(knownAnalyzers, n):
		return nil, notImplemented("analyzer [%s]", n)
	}
	return nil, mapperError("Failed to parse mapping: analyzer [%v] has not been configured in mappings", v)
}

// boolValue reads a boolean parameter as Elasticsearch does: true, false,
// or the strings "true" and "false".
func boolValue(v any) (bool, bool) {
	s, ok := scalar(v) // a number's string is neither
	return s == "true", ok && (s == "true" || s == "false")
}

// parseDenseVector reads a dense_vector mapping (DenseVectorFieldMapper in
// Elasticsearch 8.19): dims 1 to 4096 (required here: the first document
// setting it is not modelled), index (default true), similarity (cosine,
// the default for floats; the others are not modelled) and index_options
// of type hnsw with m and ef_construction (the quantised types are not
// modelled). similarity and index_options need index true.
func parseDenseVector(name string, f *field) (*field, *esError) {
	def := f.def
	for _, k := range sortedKeys(def) {
		v := def[k]
		switch k {
		case "type":
		case "dims":
			n, ok := intValue(v)
			switch {
			case !ok:
				return nil, mapperError("Failed to parse mapping: [dims] on mapper [%s] of type [dense_vector] must be an integer", name)
			case n < 1 || n > maxDims:
				return nil, mapperError("Failed to parse mapping: The number of dimensions should be in the range [1, %d] but was [%d]", maxDims, n)
			}
			f.dims = n
		case "index":
			b, ok := boolValue(v)
			if !ok {
				return nil, mapperError("Failed to parse mapping: Failed to parse value [%v] as only [true] or [false] are allowed.", v)
			}
			f.indexed = b
		case "similarity":
			s, _ := v.(string)
			switch s {
			case "cosine":
				f.similarity = s
			case "dot_product", "l2_norm", "max_inner_product":
				return nil, notImplemented("dense_vector similarity [%s]", s)
			default:
				return nil, mapperError("Failed to parse mapping: Unknown value [%v] for field [similarity] - accepted values are [l2_norm, dot_product, cosine, max_inner_product]", v)
			}
		case "index_options":
			if e := checkHNSW(name, v); e != nil {
				return nil, e
			}
		case "element_type":
			if v != "float" {
				return nil, notImplemented("dense_vector element_type [%v]", v)
			}
		case "meta", "fields", "copy_to", "store", "doc_values":
			return nil, notImplemented("mapping parameter [%s] on field [%s]", k, name)
		default:
			return nil, mapperError("unknown parameter [%s] on mapper [%s] of type [dense_vector]", k, name)
		}
	}
	switch {
	case f.dims == 0:
		return nil, notImplemented("dense_vector [%s] without dims (set by the first document)", name)
	case !f.indexed && (def["similarity"] != nil || def["index_options"] != nil):
		param := "similarity"
		if def["similarity"] == nil {
			param = "index_options"
		}
		return nil, mapperError("Failed to parse mapping: Field [%s] requires field [index] to be configured and set to true", param)
	case f.indexed && f.similarity == "":
		f.similarity = "cosine"
	}
	return f, nil
}

// maxDims is dense_vector's most dimensions in Elasticsearch 8.19.
const maxDims = 4096

// checkHNSW reads a dense_vector's index_options: type hnsw, m 1 to 512,
// ef_construction 1 to 3200 (Lucene's HNSW format's bounds).
func checkHNSW(name string, v any) *esError {
	o, ok := v.(map[string]any)
	if !ok {
		return mapperError("Failed to parse mapping: Expected map for property [index_options] on field [%s] but got a class %T", name, v)
	}
	typ, _ := o["type"].(string)
	switch typ {
	case "hnsw":
	case "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat", "int4_flat", "bbq_flat":
		return notImplemented("dense_vector index_options type [%s]", typ)
	case "":
		return mapperError("Failed to parse mapping: [index_options] requires field [type] to be configured")
	default:
		return mapperError("Failed to parse mapping: Unknown vector index options type [%s] for field [%s]", typ, name)
	}
	for _, k := range sortedKeys(o) {
		bound := map[string]int{"m": 512, "ef_construction": 3200}[k]
		switch {
		case k == "type":
		case bound > 0:
			n, ok := intValue(o[k])
			if !ok || n < 1 || n > bound {
				return mapperError("Failed to parse mapping: [%s] must be an integer from 1 to %d, got [%v]", k, bound, o[k])
			}
		default:
			return mapperError("Failed to parse mapping: Mapping definition for [%s] has unsupported parameters:  [%s : %v]", name, k, o[k])
		}
	}
	return nil
}

// decodeObject decodes a JSON object, numbers as json.Number, rejecting
// trailing content and duplicate keys (Elasticsearch 8's parser refuses
// "Duplicate field" where Go would keep the last value).
func decodeObject(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := fakekit.DecodeJSON(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("expected an object")
	}
	// b is valid JSON by now: walk fails only on a duplicate key.
	if err := walk(json.NewDecoder(bytes.NewReader(b))); err != nil {
		return nil, err
	}
	return m, nil
}

// walk reads one JSON value from dec and fails on an object key seen twice
// in one object.
func walk(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, _ := tok.(json.Delim)
	seen := map[string]bool{}
	for (delim == '{' || delim == '[') && dec.More() {
		if delim == '{' {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := key.(string)
			if seen[k] {
				return fmt.Errorf("Duplicate field '%s'", k)
			}
			seen[k] = true
		}
		if err := walk(dec); err != nil {
			return err
		}
	}
	if delim == '{' || delim == '[' {
		_, err = dec.Token() // the closing delimiter
	}
	return err
}

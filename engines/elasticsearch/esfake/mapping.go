package esfake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	porter "github.com/blevesearch/go-porterstemmer"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// An index's settings, analysis and mappings as the driver's create
// request gives them, and the JSON decoding of request bodies.

// newIndex builds an index from the create request's settings and
// mappings.
func (s *Server) newIndex(name string, body map[string]any) (*index, *esError) {
	ix := &index{
		name: name, uuid: newUUID(), refreshEvery: time.Second,
		idleAfter: cmp.Or(s.opts.SearchIdleAfter, 30*time.Second),
		fields:    map[string]*field{}, settings: map[string]string{},
		stop: make(chan struct{}), live: map[string]*entry{}, visible: map[string]*doc{},
		released: make(chan struct{}),
	}
	settings, _ := body["settings"].(map[string]any)
	flat := map[string]any{}
	flatten("", settings, flat)
	analysis := map[string]map[string]any{} // "analyzer.name" or "filter.name" → its settings
	for k, v := range flat {
		key := k
		if !strings.HasPrefix(key, "index.") {
			key = "index." + key
		}
		str, isScalar := fakekit.Scalar(v)
		if isScalar {
			ix.settings[key] = str
		}
		name, setting, _ := cutLast(strings.TrimPrefix(key, "index.analysis."), ".")
		var e *esError
		switch {
		case key == "index.number_of_shards" && str == "1", key == "index.number_of_replicas" && str == "0":
			// One node, one shard, no replica: what the driver asks for.
		case key == "index.refresh_interval":
			ix.refreshEvery, e = timeValue(key, str)
			ix.explicitRefresh = true
		case strings.HasPrefix(key, "index.analysis.analyzer.") || strings.HasPrefix(key, "index.analysis.filter."):
			if analysis[name] == nil {
				analysis[name] = map[string]any{}
			}
			analysis[name][setting] = v
		default:
			e = notImplemented("index setting [%s] %v", key, v)
		}
		if e != nil {
			return nil, e
		}
	}
	analyzers, e := buildAnalyzers(analysis)
	if e != nil {
		return nil, e
	}
	if m, ok := body["mappings"].(map[string]any); ok {
		e = ix.parseMappings(m, analyzers)
	}
	return ix, e
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
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

// timeUnitRE is Elasticsearch's time value (TimeValue.parseTimeValue) as
// the driver's refresh_interval option takes it.
var timeUnitRE = regexp.MustCompile(`^([0-9]+)(nanos|micros|ms|s|m|h|d)$`)

// timeValue parses a time value; "-1" (never) comes back as -1 ns.
func timeValue(key, v string) (time.Duration, *esError) {
	m := timeUnitRE.FindStringSubmatch(v)
	switch {
	case v == "-1":
		return -1, nil
	case m == nil:
		return 0, notImplemented("[%s] %s", key, v)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return time.Duration(n) * map[string]time.Duration{"nanos": time.Nanosecond, "micros": time.Microsecond,
		"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[m[2]], nil
}

// analyzer turns text into terms: words (runs of letters and digits, not
// Lucene's standard tokenizer: the finer points of tokenizing belong to the
// live tests), then token filters in order; a filter drops a token by
// returning "".
type analyzer []func(string) string

func (a analyzer) analyze(text string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, f := range a {
			if tok = f(tok); tok == "" {
				break
			}
		}
		if tok != "" {
			out = append(out, tok)
		}
	}
	return out
}

// englishStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, the
// stop filter's _english_ list.
var englishStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
	"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

// tokenFilters are the filters the driver's analyzers use: the built-in
// lowercase, and the stop (_english_) and stemmer (english: Lucene's
// PorterStemFilter, which does not lowercase) filters it defines, by
// their settings (fmt's form of a map, its keys sorted).
var tokenFilters = map[string]func(string) string{
	"lowercase": strings.ToLower,
	"map[stopwords:_english_ type:stop]": func(t string) string {
		if slices.Contains(englishStopWords, t) {
			return ""
		}
		return t
	},
	"map[language:english type:stemmer]": func(t string) string { return string(porter.StemWithoutLowerCasing([]rune(t))) },
}

// standardAnalyzer is Elasticsearch's built-in "standard" (lowercase, no
// stop words): a text field's analyzer when it names none.
var standardAnalyzer = analyzer{strings.ToLower}

// buildAnalyzers builds the custom analyzers the analysis settings define
// (standard tokenizer, filters among tokenFilters), as Elasticsearch does
// when it creates the index.
func buildAnalyzers(analysis map[string]map[string]any) (map[string]analyzer, *esError) {
	out := map[string]analyzer{}
	for _, key := range sortedKeys(analysis) {
		s := analysis[key]
		if strings.HasPrefix(key, "filter.") {
			if tokenFilters[fmt.Sprint(s)] == nil {
				return nil, notImplemented("token filter %v", s)
			}
			continue
		}
		names, _ := s["filter"].([]any)
		if len(s) != 3 || s["type"] != "custom" || s["tokenizer"] != "standard" || len(names) == 0 {
			return nil, notImplemented("analyzer %v", s)
		}
		var a analyzer
		for _, n := range names {
			f := tokenFilters[fmt.Sprint(n)]
			if def, ok := analysis["filter."+fmt.Sprint(n)]; ok {
				f = tokenFilters[fmt.Sprint(def)]
			}
			if f == nil {
				return nil, notImplemented("token filter [%v]", n)
			}
			a = append(a, f)
		}
		out[strings.TrimPrefix(key, "analyzer.")] = a
	}
	return out, nil
}

// parseMappings reads the mappings object: dynamic and properties.
func (ix *index) parseMappings(m map[string]any, analyzers map[string]analyzer) *esError {
	for _, k := range sortedKeys(m) {
		props, ok := m[k].(map[string]any)
		switch {
		case k == "dynamic" && m[k] == "strict":
			ix.strict = true
		case k == "properties" && ok:
			for _, name := range sortedKeys(props) {
				f, e := parseField(name, props[name], analyzers)
				if e != nil {
					return e
				}
				ix.fields[name] = f
				for sub, sf := range f.sub {
					ix.fields[name+"."+sub] = sf
				}
			}
		default:
			return notImplemented("mapping parameter [%s]", k)
		}
	}
	return nil
}

// parseField reads one field's mapping: text (analyzer, index, fields),
// keyword and double (index) or dense_vector (dims, index, similarity,
// index_options hnsw with m and ef_construction), as the driver maps a
// schema's field types.
func parseField(name string, raw any, analyzers map[string]analyzer) (*field, *esError) {
	def, _ := raw.(map[string]any)
	typ, _ := def["type"].(string)
	f := &field{typ: typ, def: def, indexed: def["index"] != false, analyzer: standardAnalyzer}
	params := map[string][]string{"text": {"analyzer", "fields"}, "keyword": nil, "double": nil,
		"dense_vector": {"dims", "similarity", "index_options"}}
	known, modelled := params[typ]
	if !modelled {
		return nil, notImplemented("field [%s] of type [%v]", name, def["type"])
	}
	for _, k := range sortedKeys(def) {
		if !slices.Contains(known, k) && k != "type" && k != "index" {
			return nil, notImplemented("mapping parameter [%s] on field [%s]", k, name)
		}
	}
	if v, set := def["analyzer"]; set {
		a, ok := analyzers[fmt.Sprint(v)]
		if !ok {
			return nil, mapperError("analyzer [%v] has not been configured in mappings", v)
		}
		f.analyzer = a
	}
	if subs, ok := def["fields"].(map[string]any); ok {
		f.sub = map[string]*field{}
		for _, sub := range sortedKeys(subs) {
			var e *esError
			if f.sub[sub], e = parseField(sub, subs[sub], analyzers); e != nil {
				return nil, e
			}
		}
	}
	if typ == "dense_vector" {
		return f, f.parseDenseVector(name)
	}
	return f, nil
}

// parseDenseVector checks a dense_vector mapping (DenseVectorFieldMapper in
// Elasticsearch 8.19): similarity and index_options need index true; an
// indexed vector's similarity is one of the four Elasticsearch takes,
// cosine by default (similarity.go).
func (f *field) parseDenseVector(name string) *esError {
	n, err := strconv.Atoi(fmt.Sprint(f.def["dims"]))
	opts, _ := f.def["index_options"].(map[string]any)
	f.dims = n
	switch {
	case err != nil:
		return notImplemented("dense_vector [%s] without an integer dims", name)
	case !f.indexed && f.def["similarity"] != nil:
		return mapperError("Field [similarity] requires field [index] to be configured and set to true")
	case !f.indexed && f.def["index_options"] != nil:
		return mapperError("Field [index_options] requires field [index] to be configured and set to true")
	case opts != nil && (opts["type"] != "hnsw" || len(opts) != 3 || opts["m"] == nil || opts["ef_construction"] == nil):
		return notImplemented("dense_vector index_options %v", opts)
	case !f.indexed:
		return nil
	}
	var e *esError
	f.sim, e = parseSimilarity(f.def["similarity"])
	return e
}

// decodeObject decodes a JSON object, numbers as json.Number; a body that
// is not one is the error bad makes.
func decodeObject(b []byte, bad func(error) *esError) (map[string]any, *esError) {
	var m map[string]any
	if err := fakekit.DecodeJSON(b, &m); err != nil {
		return nil, bad(err)
	}
	if m == nil {
		return nil, bad(fmt.Errorf("expected an object"))
	}
	return m, nil
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	f, err := n.Float64()
	return f, ok && err == nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

package esfake

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
	"github.com/blevesearch/segment"
)

// analyzer turns text into terms: the standard tokenizer, then token
// filters in order.
type analyzer struct {
	name    string
	filters []tokenFilter
}

// tokenFilter changes a token, or drops it (ok false).
type tokenFilter func(tok string) (out string, ok bool)

// maxTokenLength is the standard tokenizer's max_token_length default:
// longer tokens are split at this many characters.
const maxTokenLength = 255

func (a *analyzer) analyze(text string) []string {
	var out []string
	seg := segment.NewWordSegmenterDirect([]byte(text))
	for seg.Segment() {
		if seg.Type() == segment.None {
			continue // whitespace and punctuation: not a token
		}
		for _, tok := range splitLong(seg.Text()) {
			if tok, ok := a.filter(tok); ok {
				out = append(out, tok)
			}
		}
	}
	return out
}

func (a *analyzer) filter(tok string) (string, bool) {
	for _, f := range a.filters {
		var ok bool
		if tok, ok = f(tok); !ok {
			return "", false
		}
	}
	return tok, true
}

func splitLong(tok string) []string {
	if utf8.RuneCountInString(tok) <= maxTokenLength {
		return []string{tok}
	}
	r := []rune(tok)
	var out []string
	for len(r) > maxTokenLength {
		out = append(out, string(r[:maxTokenLength]))
		r = r[maxTokenLength:]
	}
	return append(out, string(r))
}

// englishStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, the
// stop filter's _english_ list.
var englishStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
	"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

func lowercase(tok string) (string, bool) { return strings.ToLower(tok), true }

func stop(words []string, ignoreCase bool) tokenFilter {
	set := map[string]bool{}
	for _, w := range words {
		if ignoreCase {
			w = strings.ToLower(w)
		}
		set[w] = true
	}
	return func(tok string) (string, bool) {
		key := tok
		if ignoreCase {
			key = strings.ToLower(tok)
		}
		return tok, !set[key]
	}
}

// porterStem is Lucene's PorterStemFilter (Elasticsearch's "porter_stem",
// and the stemmer filter's "english" language); it does not lowercase.
func porterStem(tok string) (string, bool) {
	return string(porter.StemWithoutLowerCasing([]rune(tok))), true
}

// standardAnalyzer is Elasticsearch's built-in "standard": the standard
// tokenizer and lowercase, no stop words.
var standardAnalyzer = &analyzer{name: "standard", filters: []tokenFilter{lowercase}}

// Built-in names Elasticsearch knows that this fake does not implement:
// an analyzer, tokenizer or filter named here is refused as not
// implemented, any other unknown name as Elasticsearch refuses it.
var (
	knownAnalyzers = []string{"simple", "whitespace", "stop", "keyword", "pattern", "fingerprint", "english",
		"french", "german", "spanish", "italian", "portuguese", "russian", "cjk", "arabic", "snowball", "classic"}
	knownTokenizers = []string{"letter", "lowercase", "whitespace", "uax_url_email", "classic", "thai", "ngram",
		"edge_ngram", "keyword", "pattern", "simple_pattern", "char_group", "simple_pattern_split", "path_hierarchy"}
	knownFilters = []string{"asciifolding", "uppercase", "trim", "unique", "kstem", "snowball", "shingle", "ngram",
		"edge_ngram", "synonym", "synonym_graph", "word_delimiter", "word_delimiter_graph", "length", "truncate",
		"reverse", "elision", "apostrophe", "classic", "decimal_digit", "keyword_marker", "cjk_width",
		"cjk_bigram", "common_grams", "multiplexer", "pattern_replace", "pattern_capture", "limit", "fingerprint"}
)

// analysisDef is the index.analysis.* settings of an index.
type analysisDef struct {
	analyzers map[string]map[string]any // name → its settings
	filters   map[string]map[string]any
}

// buildAnalyzers checks the analysis settings and builds every analyzer
// they define, as Elasticsearch does when it creates the index.
func (d analysisDef) buildAnalyzers() (map[string]*analyzer, *esError) {
	out := map[string]*analyzer{}
	for _, name := range sortedKeys(d.analyzers) {
		a, err := d.buildAnalyzer(name, d.analyzers[name])
		if err != nil {
			return nil, err
		}
		out[name] = a
	}
	// A filter defined but used by no analyzer is still built (and checked).
	for _, name := range sortedKeys(d.filters) {
		if _, err := d.buildFilter(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d analysisDef) buildAnalyzer(name string, s map[string]any) (*analyzer, *esError) {
	typ, _ := s["type"].(string)
	tokenizer, hasTokenizer := s["tokenizer"]
	switch {
	case typ == "" && !hasTokenizer:
		return nil, badRequest("illegal_argument_exception", "analyzer [%s] must specify either an analyzer type, or a tokenizer", name)
	case typ == "standard":
		for k := range s {
			if k != "type" && k != "stopwords" && k != "max_token_length" {
				return nil, badRequest("illegal_argument_exception", "unknown setting [index.analysis.analyzer.%s.%s]", name, k)
			}
		}
		if _, ok := s["max_token_length"]; ok {
			return nil, notImplemented("max_token_length on analyzer [%s]", name)
		}
		a := &analyzer{name: name, filters: []tokenFilter{lowercase}}
		if sw, ok := s["stopwords"]; ok {
			words, err := stopWords(name, sw)
			if err != nil {
				return nil, err
			}
			a.filters = append(a.filters, stop(words, false))
		}
		return a, nil
	case typ != "" && typ != "custom":
		if slices.Contains(knownAnalyzers, typ) {
			return nil, notImplemented("analyzer type [%s]", typ)
		}
		return nil, badRequest("illegal_argument_exception", "Unknown analyzer type [%s] for [%s]", typ, name)
	}
	// custom
	for k := range s {
		switch k {
		case "type", "tokenizer", "filter", "position_increment_gap":
		case "char_filter":
			return nil, notImplemented("char_filter on analyzer [%s]", name)
		default:
			return nil, badRequest("illegal_argument_exception", "unknown setting [index.analysis.analyzer.%s.%s]", name, k)
		}
	}
	tok, _ := tokenizer.(string)
	switch {
	case tok == "standard":
	case slices.Contains(knownTokenizers, tok):
		return nil, notImplemented("tokenizer [%s]", tok)
	default:
		return nil, badRequest("illegal_argument_exception", "Custom Analyzer [%s] failed to find tokenizer under name [%v]", name, tokenizer)
	}
	names, err := stringList(s["filter"])
	if err != nil {
		return nil, badRequest("illegal_argument_exception", "analyzer [%s]: filter must be a name or a list of names", name)
	}
	a := &analyzer{name: name}
	for _, fn := range names {
		f, err := d.filterByName(name, fn)
		if err != nil {
			return nil, err
		}
		a.filters = append(a.filters, f)
	}
	return a, nil
}

// filterByName resolves a filter an analyzer names: one the index defines,
// or a built-in.
func (d analysisDef) filterByName(analyzerName, fn string) (tokenFilter, *esError) {
	if _, ok := d.filters[fn]; ok {
		return d.buildFilter(fn)
	}
	switch fn {
	case "lowercase":
		return lowercase, nil
	case "stop":
		return stop(englishStopWords, false), nil
	case "porter_stem", "stemmer":
		return porterStem, nil // the stemmer filter's default language is english
	}
	if slices.Contains(knownFilters, fn) {
		return nil, notImplemented("token filter [%s]", fn)
	}
	return nil, badRequest("illegal_argument_exception", "Custom Analyzer [%s] failed to find filter under name [%s]", analyzerName, fn)
}

// buildFilter builds a filter the index defines.
func (d analysisDef) buildFilter(name string) (tokenFilter, *esError) {
	s := d.filters[name]
	typ, _ := s["type"].(string)
	allow := func(keys ...string) *esError {
		for k := range s {
			if k != "type" && !slices.Contains(keys, k) {
				return badRequest("illegal_argument_exception", "unknown setting [index.analysis.filter.%s.%s]", name, k)
			}
		}
		return nil
	}
	switch typ {
	case "":
		return nil, badRequest("illegal_argument_exception", "token_filter [%s] must specify either an analyzer type, or a tokenizer", name)
	case "lowercase":
		if _, ok := s["language"]; ok {
			return nil, notImplemented("lowercase filter language")
		}
		return lowercase, allow()
	case "stop":
		if err := allow("stopwords", "ignore_case", "remove_trailing"); err != nil {
			return nil, err
		}
		if v, ok := s["remove_trailing"]; ok && fmt.Sprint(v) != "true" {
			return nil, notImplemented("remove_trailing false")
		}
		words := englishStopWords
		if sw, ok := s["stopwords"]; ok {
			var err *esError
			if words, err = stopWords(name, sw); err != nil {
				return nil, err
			}
		}
		ignoreCase := fmt.Sprint(s["ignore_case"]) == "true"
		return stop(words, ignoreCase), nil
	case "stemmer":
		if err := allow("language", "name"); err != nil {
			return nil, err
		}
		lang, _ := s["language"].(string)
		if lang == "" {
			lang, _ = s["name"].(string)
		}
		switch lang {
		case "", "english", "porter":
			return porterStem, nil
		case "light_english", "minimal_english", "porter2", "lovins", "possessive_english", "kstem":
			return nil, notImplemented("stemmer language [%s]", lang)
		}
		return nil, badRequest("illegal_argument_exception", "esfake: unknown stemmer language [%s] (this fake knows only the English ones)", lang)
	case "porter_stem":
		return porterStem, allow()
	}
	if slices.Contains(knownFilters, typ) {
		return nil, notImplemented("token filter type [%s]", typ)
	}
	return nil, badRequest("illegal_argument_exception", "Unknown filter type [%s] for [%s]", typ, name)
}

// stopWords reads a stopwords setting: "_english_", "_none_" or a list.
func stopWords(owner string, v any) ([]string, *esError) {
	if s, ok := v.(string); ok {
		switch s {
		case "_english_":
			return englishStopWords, nil
		case "_none_":
			return nil, nil
		}
		if strings.HasPrefix(s, "_") && strings.HasSuffix(s, "_") {
			return nil, notImplemented("stop word list [%s]", s)
		}
	}
	words, err := stringList(v)
	if err != nil {
		return nil, badRequest("illegal_argument_exception", "[%s]: stopwords must be a list name or a list of words", owner)
	}
	return words, nil
}

// stringList reads a string or an array of strings.
func stringList(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is not a string", i)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T is not a string or a list", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package esfake

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	porter "github.com/blevesearch/go-porterstemmer"
)

// analyzer turns text into terms: words (runs of letters and digits), then
// token filters in order. It is what the driver's analyzer needs for a
// document to be found by its words — lowercase, the _english_ stop list,
// the english stemmer — not Lucene's standard tokenizer: ranking and the
// finer points of tokenizing belong to the live tests.
type analyzer struct {
	filters []tokenFilter
}

// tokenFilter changes a token, or drops it (ok false).
type tokenFilter func(tok string) (out string, ok bool)

func (a *analyzer) analyze(text string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if tok, ok := a.filter(tok); ok {
			out = append(out, tok)
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

// englishStopWords is Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, the
// stop filter's _english_ list.
var englishStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
	"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

func lowercase(tok string) (string, bool) { return strings.ToLower(tok), true }

func stop(words []string) tokenFilter {
	return func(tok string) (string, bool) { return tok, !slices.Contains(words, tok) }
}

// porterStem is Lucene's PorterStemFilter (the stemmer filter's "english"
// language), from a library; it does not lowercase.
func porterStem(tok string) (string, bool) {
	return string(porter.StemWithoutLowerCasing([]rune(tok))), true
}

// standardAnalyzer is Elasticsearch's built-in "standard": lowercase, no
// stop words.
var standardAnalyzer = &analyzer{filters: []tokenFilter{lowercase}}

// knownAnalyzers are built-in analyzers this fake does not implement: a
// field naming one is refused as not implemented, any other undefined name
// as Elasticsearch refuses it.
var knownAnalyzers = []string{"simple", "whitespace", "stop", "keyword", "pattern", "fingerprint", "english",
	"french", "german", "spanish", "italian", "portuguese", "russian", "cjk", "arabic", "snowball", "classic"}

// analysisDef is the index.analysis.* settings of an index.
type analysisDef struct {
	analyzers map[string]map[string]any // name → its settings
	filters   map[string]map[string]any
}

// buildAnalyzers checks the analysis settings and builds every analyzer
// they define, as Elasticsearch does when it creates the index. What the
// fake does not model (other tokenizers, filters and analyzer types) is
// refused as not implemented.
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
	allowed := []string{"type", "tokenizer", "filter", "position_increment_gap"}
	switch {
	case typ == "" && !hasTokenizer:
		return nil, badRequest("illegal_argument_exception", "analyzer [%s] must specify either an analyzer type, or a tokenizer", name)
	case typ == "standard":
		allowed = []string{"type", "stopwords"}
	case typ != "" && typ != "custom":
		return nil, notImplemented("analyzer type [%s]", typ)
	case tokenizer != "standard":
		return nil, notImplemented("tokenizer [%v]", tokenizer)
	}
	if err := checkKeys(s, allowed, []string{"char_filter", "max_token_length"}, "analyzer", name); err != nil {
		return nil, err
	}
	if typ == "standard" {
		a := &analyzer{filters: []tokenFilter{lowercase}}
		if sw, ok := s["stopwords"]; ok {
			words, err := stopWords(name, sw)
			if err != nil {
				return nil, err
			}
			a.filters = append(a.filters, stop(words))
		}
		return a, nil
	}
	names, err := stringList(s["filter"])
	if err != nil {
		return nil, badRequest("illegal_argument_exception", "analyzer [%s]: filter must be a name or a list of names", name)
	}
	a := &analyzer{}
	for _, fn := range names {
		f, err := d.filterByName(fn)
		if err != nil {
			return nil, err
		}
		a.filters = append(a.filters, f)
	}
	return a, nil
}

// filterByName resolves a filter an analyzer names: one the index defines,
// or a built-in.
func (d analysisDef) filterByName(fn string) (tokenFilter, *esError) {
	if _, ok := d.filters[fn]; ok {
		return d.buildFilter(fn)
	}
	switch fn {
	case "lowercase":
		return lowercase, nil
	case "stop":
		return stop(englishStopWords), nil
	case "porter_stem", "stemmer":
		return porterStem, nil // the stemmer filter's default language is english
	}
	return nil, notImplemented("token filter [%s]", fn)
}

// buildFilter builds a filter the index defines: lowercase, stop (a list,
// case-sensitive), stemmer (english) or porter_stem.
func (d analysisDef) buildFilter(name string) (tokenFilter, *esError) {
	s := d.filters[name]
	typ, _ := s["type"].(string)
	allowed, modelled := map[string][]string{
		"lowercase": {"type"}, "stop": {"type", "stopwords"}, "stemmer": {"type", "language", "name"}, "porter_stem": {"type"},
	}[typ]
	switch {
	case typ == "":
		return nil, badRequest("illegal_argument_exception", "token_filter [%s] must specify either an analyzer type, or a tokenizer", name)
	case !modelled:
		return nil, notImplemented("token filter type [%s]", typ)
	}
	if err := checkKeys(s, allowed, []string{"ignore_case", "remove_trailing", "language"}, "filter", name); err != nil {
		return nil, err
	}
	switch typ {
	case "lowercase":
		return lowercase, nil
	case "stop":
		words := englishStopWords
		if sw, ok := s["stopwords"]; ok {
			var err *esError
			if words, err = stopWords(name, sw); err != nil {
				return nil, err
			}
		}
		return stop(words), nil
	}
	lang, _ := s["language"].(string)
	if lang == "" {
		lang, _ = s["name"].(string)
	}
	if typ == "porter_stem" || lang == "" || lang == "english" || lang == "porter" {
		return porterStem, nil
	}
	return nil, notImplemented("stemmer language [%s]", lang)
}

// checkKeys refuses a setting of an analyzer or filter that is not in
// allowed: as not implemented when Elasticsearch has it (unmodelled), as
// Elasticsearch refuses an unknown setting otherwise.
func checkKeys(s map[string]any, allowed, unmodelled []string, kind, name string) *esError {
	for _, k := range sortedKeys(s) {
		switch {
		case slices.Contains(allowed, k):
		case slices.Contains(unmodelled, k):
			return notImplemented("setting [index.analysis.%s.%s.%s]", kind, name, k)
		default:
			return badRequest("illegal_argument_exception", "unknown setting [index.analysis.%s.%s.%s]", kind, name, k)
		}
	}
	return nil
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

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

package valkeyfake

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultPunctuation is valkey-search's default PUNCTUATION set: text is cut
// into words at these characters and at whitespace.
const defaultPunctuation = ",.<>{}[]\"':;!@#$%^&*()-+=~/\\|?`"

// defaultStopWords is the 33-word Lucene English list valkey-search drops
// from TEXT fields and queries unless the index says NOSTOPWORDS
// (kDefaultStopWords).
var defaultStopWords = []string{
	"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
	"into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the",
	"their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
}

// DefaultStopWords returns a copy of the default stop list, for tests that
// need to know which words an index without NOSTOPWORDS drops.
func DefaultStopWords() []string { return append([]string(nil), defaultStopWords...) }

// defaultMinStemSize: words shorter than this are not stemmed (MINSTEMSIZE).
const defaultMinStemSize = 4

// textOptions are an index's per-index text settings.
type textOptions struct {
	punctuation string
	stopWords   map[string]bool
	minStemSize int
	offsets     bool
}

func (o textOptions) isPunct(r rune) bool {
	return unicode.IsSpace(r) || (r < utf8.RuneSelf && strings.ContainsRune(o.punctuation, r))
}

// tokenize lowercases text and cuts it at punctuation and whitespace.
func (o textOptions) tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), o.isPunct)
}

// stem is a small suffix stripper standing in for valkey-search's Snowball
// English stemmer. It is applied identically to indexed words and query
// terms, so it decides which inflections match each other; that is what the
// driver's contract depends on, not the exact Snowball stems.
func stem(word string, minSize int) string {
	if utf8.RuneCountInString(word) < minSize {
		return word
	}
	for _, s := range []struct{ suffix, repl string }{
		{"ational", "ate"}, {"ization", "ize"}, {"iveness", "ive"}, {"fulness", "ful"},
		{"ousness", "ous"}, {"ements", "e"}, {"ement", "e"}, {"ingly", ""}, {"edly", ""},
		{"ies", "y"}, {"ied", "y"}, {"ing", ""}, {"ed", ""}, {"ly", ""}, {"es", ""}, {"s", ""},
	} {
		if strings.HasSuffix(word, s.suffix) && len(word)-len(s.suffix)+len(s.repl) >= 3 {
			if s.suffix == "s" && strings.HasSuffix(word, "ss") {
				return word
			}
			base := word[:len(word)-len(s.suffix)] + s.repl
			if n := len(base); s.repl == "" && (s.suffix == "ing" || s.suffix == "ed") && n >= 2 &&
				base[n-1] == base[n-2] && !strings.ContainsRune("aeioulsz", rune(base[n-1])) {
				base = base[:n-1] // running → run, as Snowball undoubles
			}
			return base
		}
	}
	return word
}

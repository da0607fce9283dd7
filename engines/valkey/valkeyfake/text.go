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

// defaultMinStemSize is MINSTEMSIZE's default, which FT.INFO reports. The
// fake does not stem: a query word matches an indexed word that is the same
// after lowercasing, which is all the driver's tests rely on.
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

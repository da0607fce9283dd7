package valkeyfake

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// defaultPunctuation is valkey-search's default PUNCTUATION set: text is cut
// into words at these characters and at whitespace (kDefaultPunctuation,
// src/commands/ft_create_parser.h, 1.2.1: no backtick).
const defaultPunctuation = ",.<>{}[]\"':;!@#$%^&*()-+=~/\\|?"

// defaultStopWords is the 33-word Lucene English list valkey-search drops
// from TEXT fields and queries unless the index says NOSTOPWORDS, in the
// module's order, which FT.INFO's stop_words keeps (kDefaultStopWords,
// src/commands/ft_create_parser.h, 1.2.1).
var defaultStopWords = []string{
	"a", "is", "the", "an", "and", "are", "as", "at", "be",
	"but", "by", "for", "if", "in", "into", "it", "no", "not",
	"of", "on", "or", "such", "that", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

// defaultMinStemSize is MINSTEMSIZE's default, which FT.INFO reports. The
// fake does not stem: a query word matches an indexed word that is the same
// after lowercasing, which is all the driver's tests rely on.
const defaultMinStemSize = 4

// textOptions are an index's per-index text settings.
type textOptions struct {
	punctuation string
	stopWords   map[string]bool
	stopList    []string // the same words, in the order FT.INFO lists them
	minStemSize int
	noStem      bool // NOSTEM: the TEXT fields' default
	offsets     bool
}

func (o *textOptions) setStopWords(words []string) {
	o.stopList = slices.Clone(words)
	o.stopWords = map[string]bool{}
	for _, w := range words {
		o.stopWords[strings.ToLower(w)] = true
	}
}

func (o textOptions) isPunct(r rune) bool {
	return unicode.IsSpace(r) || (r < utf8.RuneSelf && strings.ContainsRune(o.punctuation, r))
}

// tokenize lowercases text and cuts it at punctuation and whitespace.
func (o textOptions) tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), o.isPunct)
}

// stem is the Snowball English stem of a lowercased word, the stemmer
// valkey-search runs (libstemmer's "english", src/indexes/text/lexer.cc).
func stem(word string) string {
	env := snowballstem.NewEnv(word)
	english.Stem(env)
	return env.Current()
}

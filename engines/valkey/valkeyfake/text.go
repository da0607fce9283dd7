package valkeyfake

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// punctuation is valkey-search's default PUNCTUATION set: text is cut into
// words at these characters and at whitespace (kDefaultPunctuation,
// src/commands/ft_create_parser.h, 1.2.1: no backtick).
const punctuation = ",.<>{}[]\"':;!@#$%^&*()-+=~/\\|?"

// minStemSize is MINSTEMSIZE's default, which FT.INFO reports: shorter
// indexed words are not stemmed.
const minStemSize = 4

// stopWords is the 33-word Lucene English list valkey-search drops from TEXT
// fields and queries unless the index says NOSTOPWORDS, in the module's
// order, which FT.INFO's stop_words keeps (kDefaultStopWords,
// src/commands/ft_create_parser.h, 1.2.1).
var stopWords = []string{
	"a", "is", "the", "an", "and", "are", "as", "at", "be",
	"but", "by", "for", "if", "in", "into", "it", "no", "not",
	"of", "on", "or", "such", "that", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with",
}

// isStop says whether the index drops the lowercased word w.
func (ix *index) isStop(w string) bool { return !ix.noStop && slices.Contains(stopWords, w) }

// tokenize lowercases text and cuts it at punctuation and whitespace.
func tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return unicode.IsSpace(r) || r < utf8.RuneSelf && strings.ContainsRune(punctuation, r)
	})
}

// stem is the Snowball English stem of a lowercased word, the stemmer
// valkey-search runs (libstemmer's "english", src/indexes/text/lexer.cc).
func stem(word string) string {
	env := snowballstem.NewEnv(word)
	english.Stem(env)
	return env.Current()
}

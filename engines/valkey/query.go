package valkey

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/searchbench/searchbench/engines"
)

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

// KNNClause is the vector part: `=>[KNN k @field $vec]`.
func KNNClause(field string, k int) string {
	return fmt.Sprintf("=>[KNN %d @%s $vec]", k, field)
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

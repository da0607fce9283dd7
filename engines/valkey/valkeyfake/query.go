package valkeyfake

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// predicate is one node of a parsed query.
type predicate interface {
	eval(d indexedDoc) bool
}

type andPred []predicate
type orPred []predicate
type notPred struct{ p predicate }
type allPred struct{}

func (a andPred) eval(d indexedDoc) bool {
	for _, p := range a {
		if !p.eval(d) {
			return false
		}
	}
	return true
}

func (o orPred) eval(d indexedDoc) bool {
	for _, p := range o {
		if p.eval(d) {
			return true
		}
	}
	return false
}

func (n notPred) eval(d indexedDoc) bool { return !n.p.eval(d) }
func (allPred) eval(indexedDoc) bool     { return true }

// termPred matches a word in the named TEXT fields, whole or as a prefix.
// Unless exact (VERBATIM), a field with stemming also matches the word's stem
// and every word indexed there with the same stem (src/query/predicate.cc
// TermPredicate::Evaluate; the query's word is stemmed whatever its length,
// an indexed one only from MINSTEMSIZE on).
type termPred struct {
	fields []*attribute
	word   string
	prefix bool
	exact  bool
	stem   string
}

func (t termPred) eval(d indexedDoc) bool {
	for _, a := range t.fields {
		tv, _ := d[a.alias].(textValue)
		for i, tok := range tv.toks {
			switch {
			case tok == t.word, t.prefix && strings.HasPrefix(tok, t.word):
				return true
			case t.prefix || t.exact || a.noStem:
			case tok == t.stem, tv.stems[i] != "" && tv.stems[i] == t.stem:
				return true
			}
		}
	}
	return false
}

// phrasePred matches words at consecutive positions of one field (an exact
// phrase: slop 0, in order, not stemmed).
type phrasePred struct {
	fields []*attribute
	words  []string
}

func (p phrasePred) eval(d indexedDoc) bool {
	for _, a := range p.fields {
		tv, _ := d[a.alias].(textValue)
		for i := 0; i+len(p.words) <= len(tv.toks); i++ {
			if slices.Equal(tv.toks[i:i+len(p.words)], p.words) {
				return true
			}
		}
	}
	return false
}

type tagPred struct {
	alias string
	tags  []string // a trailing '*' is a prefix
}

func (t tagPred) eval(d indexedDoc) bool {
	tags, _ := d[t.alias].([]string)
	for _, have := range tags {
		for _, want := range t.tags {
			if p, ok := strings.CutSuffix(want, "*"); ok && strings.HasPrefix(have, p) || have == want {
				return true
			}
		}
	}
	return false
}

type numPred struct {
	alias        string
	lo, hi       float64
	loInc, hiInc bool
}

func (n numPred) eval(d indexedDoc) bool {
	v, ok := d[n.alias].(float64)
	if !ok {
		return false
	}
	return (v > n.lo || n.loInc && v == n.lo) && (v < n.hi || n.hiInc && v == n.hi)
}

// queryParser parses the filter part of a dialect-2 query the way
// FilterParser does: OR binds looser than AND (juxtaposition), brackets
// group, '-' negates, '@field:' takes {tags}, [range], (expression),
// "phrase" or a term.
type queryParser struct {
	ix       *index
	verbatim bool // VERBATIM: terms are not stemmed
	s        string
	pos      int
	sawOp    bool // a predicate was parsed (query_operations_ is not kNone)
}

func (p *queryParser) end() bool  { return p.pos >= len(p.s) }
func (p *queryParser) peek() byte { return p.s[p.pos] }

func (p *queryParser) skipSpace() {
	for !p.end() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *queryParser) unexpected() error {
	if p.end() {
		return fmt.Errorf("Unexpected end of query at position %d", p.pos+1)
	}
	return fmt.Errorf("Unexpected character at position %d: `%c`", p.pos+1, p.peek())
}

// parseFilter parses a whole pre-filter; "*" (optionally bracketed) is
// match-all. verbatim is FT.SEARCH's VERBATIM.
func parseFilter(ix *index, s string, verbatim bool) (predicate, error) {
	s = strings.TrimSpace(s)
	if t := strings.Trim(s, "() "); t == "*" {
		return allPred{}, nil
	}
	p := &queryParser{ix: ix, s: s, verbatim: verbatim}
	pred, err := p.orExpr(nil)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if !p.end() {
		return nil, p.unexpected()
	}
	if pred == nil {
		return nil, fmt.Errorf("Invalid Query Syntax")
	}
	return pred, nil
}

// orExpr parses alternatives. field is the TEXT field a bracketed
// @field:( … ) restricts terms to. An alternative that is empty (stop
// words only) is rejected as FilterParser rejects it: "Invalid Query
// Syntax" when nothing was parsed before it, "Missing OR term" otherwise.
func (p *queryParser) orExpr(field *attribute) (predicate, error) {
	var alts orPred
	for {
		a, err := p.andExpr(field)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		orNext := !p.end() && p.peek() == '|'
		if a == nil && (orNext || len(alts) > 0) {
			if len(alts) == 0 && !p.sawOp {
				return nil, fmt.Errorf("Invalid Query Syntax")
			}
			return nil, fmt.Errorf("Missing OR term")
		}
		if a != nil {
			alts = append(alts, a)
		}
		if !orNext {
			break
		}
		p.pos++
	}
	return collapse(alts, alts), nil
}

// collapse is a node of preds: none, the one, or all (an andPred or an
// orPred) as the caller built it.
func collapse(preds []predicate, all predicate) predicate {
	switch len(preds) {
	case 0:
		return nil
	case 1:
		return preds[0]
	}
	return all
}

func (p *queryParser) andExpr(field *attribute) (predicate, error) {
	var all andPred
	for {
		p.skipSpace()
		if p.end() || p.peek() == '|' || p.peek() == ')' {
			break
		}
		u, err := p.unary(field)
		if err != nil {
			return nil, err
		}
		if u != nil {
			p.sawOp = true
			all = append(all, u)
		}
	}
	return collapse(all, all), nil
}

func (p *queryParser) unary(field *attribute) (predicate, error) {
	if p.peek() == '-' {
		p.pos++
		p.skipSpace()
		if p.end() {
			return nil, p.unexpected()
		}
		u, err := p.unary(field)
		if err != nil || u == nil {
			return u, err
		}
		return notPred{u}, nil
	}
	switch p.peek() {
	case '(':
		p.pos++
		e, err := p.orExpr(field)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.end() || p.peek() != ')' {
			return nil, fmt.Errorf("Missing `)`")
		}
		p.pos++
		if e == nil {
			return nil, fmt.Errorf("Empty brackets detected at Position: %d", p.pos-1)
		}
		return e, nil
	case '@':
		return p.fieldExpr()
	case '"':
		return p.phrase(field)
	}
	return p.term(field)
}

func (p *queryParser) fieldExpr() (predicate, error) {
	p.pos++ // '@'
	start := p.pos
	for !p.end() && p.peek() != ':' && p.peek() != ' ' {
		p.pos++
	}
	name := p.s[start:p.pos]
	p.skipSpace()
	if p.end() || p.peek() != ':' {
		return nil, fmt.Errorf("Unexpected character at position %d: `%s`, expecting `:`", p.pos+1, p.s[p.pos:min(p.pos+1, len(p.s))])
	}
	p.pos++
	p.skipSpace()
	if p.end() {
		return nil, p.unexpected()
	}
	a := p.ix.byAlias[name]
	switch p.peek() {
	case '{':
		if a == nil || a.typ != typeTag {
			return nil, fmt.Errorf("`%s` is not indexed as a tag field", name)
		}
		p.pos++
		return p.tags(a)
	case '[':
		if a == nil || a.typ != typeNumeric {
			return nil, fmt.Errorf("`%s` is not indexed as a numeric field", name)
		}
		p.pos++
		return p.numeric(a)
	}
	if a == nil || a.typ != typeText {
		return nil, fmt.Errorf("Index does not have any text field")
	}
	if p.peek() == '(' {
		// No bracketed group after a TEXT field: its text parser stops
		// at the bracket with no word, which is "Invalid Query Syntax"
		// when nothing came before, and otherwise ends the field's text,
		// the bracket then read as a group of its own, on every TEXT
		// field (src/commands/filter_parser.cc ParseTextTokens, 1.2.1).
		if !p.sawOp {
			return nil, fmt.Errorf("Invalid Query Syntax")
		}
		return nil, nil
	}
	if p.peek() == '"' {
		return p.phrase(a)
	}
	return p.term(a)
}

// tags reads a tag list up to its closing brace: tags cut at '|', a
// backslash keeping the character after it.
func (p *queryParser) tags(a *attribute) (predicate, error) {
	var tags []string
	var cur strings.Builder
	for {
		if p.end() {
			return nil, fmt.Errorf("Missing closing TAG bracket, '}'")
		}
		c := p.peek()
		p.pos++
		switch {
		case c == '\\' && !p.end():
			cur.WriteByte(p.peek())
			p.pos++
			continue
		case c != '|' && c != '}':
			cur.WriteByte(c)
			continue
		}
		if t := strings.TrimSpace(cur.String()); t != "" {
			if !a.caseSensitive {
				t = strings.ToLower(t)
			}
			tags = append(tags, t)
		}
		cur.Reset()
		if c == '}' {
			return tagPred{alias: a.alias, tags: tags}, nil
		}
	}
}

func (p *queryParser) number() (float64, error) {
	p.skipSpace()
	start := p.pos
	for !p.end() && strings.IndexByte("+-.0123456789eEinfINF", p.peek()) >= 0 {
		p.pos++
	}
	v := p.s[start:p.pos]
	switch strings.ToLower(v) {
	case "-inf":
		return math.Inf(-1), nil
	case "inf", "+inf":
		return math.Inf(1), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || v == "" {
		return 0, fmt.Errorf("Invalid number: %s", v)
	}
	return f, nil
}

// bound reads one end of a range, exclusive after '('.
func (p *queryParser) bound() (v float64, inclusive bool, err error) {
	p.skipSpace()
	if inclusive = p.end() || p.peek() != '('; !inclusive {
		p.pos++
	}
	v, err = p.number()
	return v, inclusive, err
}

func (p *queryParser) numeric(a *attribute) (predicate, error) {
	n := numPred{alias: a.alias}
	var err error
	if n.lo, n.loInc, err = p.bound(); err != nil {
		return nil, err
	}
	if p.end() || (p.peek() != ' ' && p.peek() != ',') {
		return nil, fmt.Errorf("Expected space or `,` between start and end values of a numeric field. Position: %d", p.pos)
	}
	p.pos++
	if n.hi, n.hiInc, err = p.bound(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.end() || p.peek() != ']' {
		return nil, fmt.Errorf("Expected ']' got '%s'. Position: %d", p.s[p.pos:min(p.pos+1, len(p.s))], p.pos)
	}
	p.pos++
	if n.lo > n.hi || n.lo == n.hi && !(n.loInc && n.hiInc) {
		return nil, fmt.Errorf("Start and end values of a numeric field indicate an empty range. Position: %d", p.pos)
	}
	return n, nil
}

// textFields is the set a term searches: one field, or every TEXT field.
func (p *queryParser) textFields(field *attribute) ([]*attribute, error) {
	if field != nil {
		return []*attribute{field}, nil
	}
	var all []*attribute
	for _, a := range p.ix.attrs {
		if a.typ == typeText {
			all = append(all, a)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("Index does not have any text field")
	}
	return all, nil
}

// word reads one token up to a token boundary, handling backslash escapes:
// a backslash before punctuation keeps the character in the token.
func (p *queryParser) word(quoted bool) (string, error) {
	var b strings.Builder
	for !p.end() {
		c := p.peek()
		if c == '\\' {
			p.pos++
			if p.end() {
				return "", fmt.Errorf("Invalid escape sequence: backslash at end of input")
			}
			b.WriteByte(p.peek())
			p.pos++
			continue
		}
		if c == '"' || c == ' ' {
			break
		}
		if !quoted {
			if strings.IndexByte(")|(@", c) >= 0 || c == '-' && b.Len() == 0 {
				break
			}
			if strings.IndexByte("{}[]:;$", c) >= 0 {
				return "", p.unexpected()
			}
			if c == '*' || c == '%' {
				break
			}
		}
		if c < 0x80 && strings.IndexByte(p.ix.text.punctuation, c) >= 0 {
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	return strings.ToLower(b.String()), nil
}

func (p *queryParser) term(field *attribute) (predicate, error) {
	fields, err := p.textFields(field)
	if err != nil {
		return nil, err
	}
	if p.peek() == '%' || p.peek() == '*' {
		return nil, fmt.Errorf("valkeyfake: fuzzy and suffix terms are not implemented by this wire-contract fake")
	}
	start := p.pos
	w, err := p.word(false)
	if err != nil {
		return nil, err
	}
	prefix := false
	if !p.end() && p.peek() == '*' {
		p.pos++
		prefix = true
	}
	if p.pos == start {
		// A lone punctuation character separates words; it is no term.
		p.pos++
		return nil, nil
	}
	if w == "" || !prefix && p.ix.text.stopWords[w] {
		return nil, nil
	}
	return termPred{fields: fields, word: w, prefix: prefix, exact: p.verbatim, stem: stem(w)}, nil
}

func (p *queryParser) phrase(field *attribute) (predicate, error) {
	fields, err := p.textFields(field)
	if err != nil {
		return nil, err
	}
	p.pos++ // opening quote
	var words []string
	for {
		if p.end() {
			return nil, fmt.Errorf("Missing closing quote")
		}
		if p.peek() == '"' {
			p.pos++
			break
		}
		start := p.pos
		w, err := p.word(true)
		if err != nil {
			return nil, err
		}
		if w != "" {
			words = append(words, w)
		}
		if p.pos == start {
			p.pos++
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	if len(words) > 1 && !p.ix.text.offsets {
		return nil, fmt.Errorf("Index does not support offsets")
	}
	// One quoted word is the word exactly: a phrase of one.
	return phrasePred{fields: fields, words: words}, nil
}

// knn is a parsed `[KNN k @field $blob [EF_RUNTIME n] [AS name]]` clause.
type knn struct {
	kStr, blobStr, efStr, as string
	field                    *attribute
	k, ef                    int       // resolved (ef 0: no EF_RUNTIME)
	vec                      []float32 // resolved
}

func parseKNN(ix *index, s string) (*knn, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("Vector query clause is missing")
	}
	if !strings.HasPrefix(s, "[") {
		return nil, fmt.Errorf("Expecting '[' got '%c'", s[0])
	}
	if !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("Expecting ']' got '%c'", s[len(s)-1])
	}
	parts := strings.Fields(s[1 : len(s)-1])
	switch {
	case len(parts) == 0:
		return nil, errors.New("Missing parameters")
	case !strings.EqualFold(parts[0], "KNN"):
		return nil, fmt.Errorf("`%s`. Expecting `KNN`", parts[0])
	case len(parts) == 1:
		return nil, errors.New("KNN argument is missing")
	case len(parts) == 2:
		return nil, errors.New("Vector field argument is missing")
	case !strings.HasPrefix(parts[2], "@") || len(parts[2]) == 1:
		return nil, fmt.Errorf("Unexpected argument `%s`. Expecting a vector field name, starting with '@'", parts[2])
	case len(parts) == 3:
		return nil, errors.New("Blob attribute argument is missing")
	}
	k := &knn{kStr: parts[1], blobStr: parts[3]}
	for i := 4; i < len(parts); i++ {
		switch {
		case strings.EqualFold(parts[i], "EF_RUNTIME") && i+1 < len(parts):
			i++
			k.efStr = parts[i]
		case strings.EqualFold(parts[i], "AS") && i+1 < len(parts):
			i++
			k.as = parts[i]
		case strings.EqualFold(parts[i], "EF_RUNTIME"), strings.EqualFold(parts[i], "AS"):
			return nil, errors.New(strings.ToUpper(parts[i]) + " argument is missing")
		default:
			return nil, fmt.Errorf("Unexpected argument `%s`", parts[i])
		}
	}
	alias := parts[2][1:]
	a := ix.byAlias[alias]
	if a == nil {
		return nil, fmt.Errorf("Index field `%s` not exists", alias)
	}
	if a.typ != typeVector {
		return nil, fmt.Errorf("Index field `%s` is not a Vector index ", alias)
	}
	k.field = a
	return k, nil
}

// distance is the index's metric as valkey-search reports it: COSINE
// 1−cos (1 for a zero vector), IP 1−dot, L2 the squared distance.
func distance(metric string, a, b []float32) float64 {
	switch metric {
	case "COSINE":
		return 1 - fakekit.Cosine(a, b)
	case "IP":
		return 1 - fakekit.Dot(a, b)
	}
	return fakekit.L2Squared(a, b)
}

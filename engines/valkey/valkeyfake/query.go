package valkeyfake

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// predicate is one node of a parsed query.
type predicate interface {
	eval(d indexedDoc) bool
}

type andPred []predicate
type orPred []predicate
type allPred struct{}

func (a andPred) eval(d indexedDoc) bool {
	return !slices.ContainsFunc(a, func(p predicate) bool { return !p.eval(d) })
}

func (o orPred) eval(d indexedDoc) bool {
	return slices.ContainsFunc(o, func(p predicate) bool { return p.eval(d) })
}

func (allPred) eval(indexedDoc) bool { return true }

// termPred matches a word in the named TEXT fields: the word, its stem, or
// any word indexed there with the same stem (src/query/predicate.cc
// TermPredicate::Evaluate; the query's word is stemmed whatever its length,
// an indexed one only from MINSTEMSIZE on).
type termPred struct {
	fields     []*attribute
	word, stem string
}

func (t termPred) eval(d indexedDoc) bool {
	for _, a := range t.fields {
		tv, _ := d[a.name].(textValue)
		for i, tok := range tv.toks {
			if tok == t.word || tok == t.stem || tv.stems[i] != "" && tv.stems[i] == t.stem {
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
		tv, _ := d[a.name].(textValue)
		for i := 0; i+len(p.words) <= len(tv.toks); i++ {
			if slices.Equal(tv.toks[i:i+len(p.words)], p.words) {
				return true
			}
		}
	}
	return false
}

type tagPred struct {
	field string
	tags  []string
}

func (t tagPred) eval(d indexedDoc) bool {
	tags, _ := d[t.field].([]string)
	return slices.ContainsFunc(tags, func(have string) bool { return slices.Contains(t.tags, have) })
}

type numPred struct {
	field  string
	lo, hi float64
}

func (n numPred) eval(d indexedDoc) bool {
	v, ok := d[n.field].(float64)
	return ok && v >= n.lo && v <= n.hi
}

// queryParser parses the filter part of a dialect-2 query the way
// FilterParser does, for the forms the driver writes: OR binds looser than
// AND (juxtaposition), brackets group, '@field:' takes {tags}, [lo hi] or a
// "phrase"; a bare word or phrase searches every TEXT field. Negation,
// prefix, suffix and fuzzy terms and exclusive bounds are refused by name.
type queryParser struct {
	ix  *index
	s   string
	pos int
}

var errNotModelled = errors.New("valkeyfake: negation, prefix, suffix and fuzzy terms and exclusive bounds are not modelled")

func (p *queryParser) end() bool  { return p.pos >= len(p.s) }
func (p *queryParser) peek() byte { return p.s[p.pos] }

func (p *queryParser) skipSpace() {
	for !p.end() && strings.IndexByte(" \t\n\r", p.peek()) >= 0 {
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
// match-all.
func parseFilter(ix *index, s string) (predicate, error) {
	if strings.Trim(s, "() ") == "*" {
		return allPred{}, nil
	}
	p := &queryParser{ix: ix, s: strings.TrimSpace(s)}
	pred, err := p.orExpr()
	if err == nil && !p.end() {
		err = p.unexpected()
	}
	return pred, err
}

// orExpr parses alternatives. One that is empty (stop words only) is
// refused, as FilterParser refuses it ("Invalid Query Syntax"; after
// another alternative the module says "Missing OR term", which the driver,
// dropping stop words, never meets).
func (p *queryParser) orExpr() (predicate, error) {
	var alts orPred
	for {
		a, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		if a == nil {
			return nil, errors.New("Invalid Query Syntax")
		}
		if alts = append(alts, a); p.end() || p.peek() != '|' {
			return alts, nil
		}
		p.pos++
	}
}

func (p *queryParser) andExpr() (predicate, error) {
	var all andPred
	for p.skipSpace(); !p.end() && p.peek() != '|' && p.peek() != ')'; p.skipSpace() {
		u, err := p.unary()
		if err != nil {
			return nil, err
		}
		if u != nil {
			all = append(all, u)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

func (p *queryParser) unary() (predicate, error) {
	switch p.peek() {
	case '-':
		return nil, errNotModelled
	case '(':
		p.pos++
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if p.end() || p.peek() != ')' {
			return nil, errors.New("Missing `)`")
		}
		p.pos++
		return e, nil
	case '@':
		return p.fieldExpr()
	case '"':
		return p.phrase(nil)
	}
	return p.term(nil)
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
	a := p.ix.byName[name]
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
		return nil, errors.New("Index does not have any text field")
	}
	if p.peek() == '"' {
		return p.phrase(a)
	}
	return p.term(a)
}

// tags reads a tag list up to its closing brace: tags cut at '|', a
// backslash keeping the character after it.
func (p *queryParser) tags(a *attribute) (predicate, error) {
	t := tagPred{field: a.name}
	var cur strings.Builder
	for {
		if p.end() {
			return nil, errors.New("Missing closing TAG bracket, '}'")
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
		if tag := strings.TrimSpace(cur.String()); tag != "" {
			if !a.caseSensitive {
				tag = strings.ToLower(tag)
			}
			t.tags = append(t.tags, tag)
		}
		cur.Reset()
		if c == '}' {
			return t, nil
		}
	}
}

// number reads one end of a range.
func (p *queryParser) number() (float64, error) {
	p.skipSpace()
	if !p.end() && p.peek() == '(' {
		return 0, errNotModelled
	}
	start := p.pos
	for !p.end() && strings.IndexByte("+-.0123456789eEinfINF", p.peek()) >= 0 {
		p.pos++
	}
	v := p.s[start:p.pos]
	f, err := strconv.ParseFloat(v, 64) // takes ±inf, as the module does
	if err != nil {
		return 0, fmt.Errorf("Invalid number: %s", v)
	}
	return f, nil
}

func (p *queryParser) numeric(a *attribute) (predicate, error) {
	n := numPred{field: a.name}
	var err error
	if n.lo, err = p.number(); err != nil {
		return nil, err
	}
	if p.end() || (p.peek() != ' ' && p.peek() != ',') {
		return nil, fmt.Errorf("Expected space or `,` between start and end values of a numeric field. Position: %d", p.pos)
	}
	p.pos++
	if n.hi, err = p.number(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.end() || p.peek() != ']' {
		return nil, fmt.Errorf("Expected ']' got '%s'. Position: %d", p.s[p.pos:min(p.pos+1, len(p.s))], p.pos)
	}
	p.pos++
	if n.lo > n.hi {
		return nil, fmt.Errorf("Start and end values of a numeric field indicate an empty range. Position: %d", p.pos)
	}
	return n, nil
}

// textFields is the set a term searches: one field, or every TEXT field.
func (p *queryParser) textFields(field *attribute) ([]*attribute, error) {
	switch {
	case field != nil:
		return []*attribute{field}, nil
	case len(p.ix.texts) == 0:
		return nil, errors.New("Index does not have any text field")
	}
	return p.ix.texts, nil
}

// word reads one token up to a token boundary (the driver's words are
// letters and digits: escapes are not modelled).
func (p *queryParser) word(quoted bool) (string, error) {
	var b strings.Builder
	for ; !p.end(); p.pos++ {
		c := p.peek()
		switch {
		case c == '"' || c == ' ', !quoted && strings.IndexByte(")|(@*%", c) >= 0:
		case !quoted && strings.IndexByte("{}[]:;$", c) >= 0:
			return "", p.unexpected()
		case c >= 0x80 || strings.IndexByte(punctuation, c) < 0:
			b.WriteByte(c)
			continue
		}
		break
	}
	return strings.ToLower(b.String()), nil
}

func (p *queryParser) term(field *attribute) (predicate, error) {
	fields, err := p.textFields(field)
	if err != nil {
		return nil, err
	}
	start := p.pos
	w, err := p.word(false)
	switch {
	case err != nil:
		return nil, err
	case !p.end() && (p.peek() == '*' || p.peek() == '%'):
		return nil, errNotModelled
	case p.pos == start:
		// A lone punctuation character separates words; it is no term.
		p.pos++
		return nil, nil
	case w == "" || p.ix.isStop(w):
		return nil, nil
	}
	return termPred{fields: fields, word: w, stem: stem(w)}, nil
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
			return nil, errors.New("Missing closing quote")
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
	a := ix.byName[alias]
	if a == nil {
		return nil, fmt.Errorf("Index field `%s` not exists", alias)
	}
	if a.typ != typeVector {
		return nil, fmt.Errorf("Index field `%s` is not a Vector index ", alias)
	}
	k.field = a
	return k, nil
}

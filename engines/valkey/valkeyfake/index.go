package valkeyfake

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

type fieldType int

const (
	typeText fieldType = iota
	typeTag
	typeNumeric
	typeVector
)

var typeNames = map[string]fieldType{"TEXT": typeText, "TAG": typeTag, "NUMERIC": typeNumeric, "VECTOR": typeVector}

func (t fieldType) String() string {
	return [...]string{"TEXT", "TAG", "NUMERIC", "VECTOR"}[t]
}

// attribute is one SCHEMA entry of an index.
type attribute struct {
	identifier string // the hash field
	alias      string // the name queries use
	typ        fieldType
	// TAG
	separator     byte
	caseSensitive bool
	// TEXT
	noStem     bool
	suffixTrie bool
	// VECTOR
	algorithm  string
	dim        int
	metric     string
	m, efc     int
	efRuntime  int
	initialCap int
	blockSize  int // FLAT
}

// indexedDoc is what an index holds for one key: by alias, the parsed
// value of each attribute the key carries, a textValue, []string (tags),
// float64 or []float32.
type indexedDoc map[string]any

// textValue is a TEXT attribute's words in order (positions), stop words
// removed, and each word's stem, "" where it has none.
type textValue struct{ toks, stems []string }

// index is one FT.CREATE'd index and the documents it has ingested.
type index struct {
	name     string
	prefixes []string
	text     textOptions
	attrs    []*attribute
	byAlias  map[string]*attribute
	docs     map[string]indexedDoc
	failures int64
	queue    int64 // mutations accepted but not yet applied (mutation_queue_size)
	skipScan bool  // SKIPINITIALSCAN: no backfill
	backfill backfill
}

// matches says whether key is under one of the index's prefixes: the prefix
// trie semantics that keep writes away from indexes on other prefixes.
func (ix *index) matches(key string) bool {
	if len(ix.prefixes) == 0 {
		return true
	}
	for _, p := range ix.prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// valueError is a KeyValueParser's error for a parameter's value: "Error
// parsing value for the parameter `KEY` - " before the value's error
// (vmsdk/src/command_parser.h KeyValueParser::Parse, 1.2.1).
func valueError(param, format string, a ...any) error {
	return fmt.Errorf("Error parsing value for the parameter `%s` - %s", param, fmt.Sprintf(format, a...))
}

// argIter walks command arguments the way vmsdk's ArgsIterator does. err
// is the first missing or malformed value: a parser checks it once after
// each option.
type argIter struct {
	args []string
	pos  int
	err  error
}

func (it *argIter) more() bool   { return it.pos < len(it.args) }
func (it *argIter) peek() string { return it.args[it.pos] }
func (it *argIter) next() (string, bool) {
	if !it.more() {
		return "", false
	}
	it.pos++
	return it.args[it.pos-1], true
}

func (it *argIter) match(word string) bool {
	if it.more() && strings.EqualFold(it.peek(), word) {
		it.pos++
		return true
	}
	return false
}

// value is param's value, "" with it.err set when there is none.
func (it *argIter) value(param string) string {
	v, ok := it.next()
	if !ok {
		it.fail(fmt.Errorf("Missing argument for `%s`", param))
	}
	return v
}

// uint is param's value as a count, 0 with it.err set when it is none.
func (it *argIter) uint(param string) int {
	v := it.value(param)
	n, err := strconv.ParseUint(v, 10, 31)
	if err != nil {
		it.fail(fmt.Errorf("Bad arguments for %s: `%s` is outside acceptable bounds", param, v))
	}
	return int(n)
}

// fail keeps the first error.
func (it *argIter) fail(err error) {
	if it.err == nil {
		it.err = err
	}
}

// take is the next n arguments (as many as there are).
func (it *argIter) take(n int) []string {
	n = min(n, len(it.args)-it.pos)
	it.pos += n
	return it.args[it.pos-n : it.pos]
}

// Limits of valkey-search 1.2 (ft_create_parser.cc defaults).
const (
	maxPrefixes   = 8
	maxAttributes = 1000
	maxTextFields = 64
	maxDimensions = 32768
	maxIndexes    = 1000 // search.max-indexes' default (src/schema_manager.cc kMaxIndexesDefault)
	// search.max-nonvector-search-results-fetched's default
	// (src/valkey_search_options.cc kDefaultMaxNonVectorSearchResultsFetched).
	maxNonVectorResults = 100_000
	maxKNN              = 10000
	defaultM            = 16
	defaultEFC          = 200
	defaultEFRuntime    = 10
	defaultInitialCap   = 10 * 1024 // kDefaultInitialCap, FT.INFO's capacity
	defaultBlockSize    = 1024      // kDefaultBlockSize (FLAT)
	maxQueryBytes       = 10240     // search.query-string-bytes
)

// parseCreate parses FT.CREATE's arguments (after the command name) in
// ParseFTCreateArgs's order: name, ON, PREFIX, the pre-SCHEMA text options
// in any order, SCHEMA, attributes.
func parseCreate(args []string) (*index, error) {
	it := &argIter{args: args}
	name, ok := it.next()
	if !ok {
		return nil, fmt.Errorf("Missing argument")
	}
	ix := &index{name: name, byAlias: map[string]*attribute{}, docs: map[string]indexedDoc{}}
	ix.text = textOptions{punctuation: defaultPunctuation, minStemSize: defaultMinStemSize, offsets: true}
	ix.text.setStopWords(defaultStopWords)
	if err := parseSource(it, ix); err != nil {
		return nil, err
	}
	if it.match("FILTER") {
		return nil, fmt.Errorf("The parameter `FILTER` is not supported")
	}
	if err := parseTextOptions(it, ix); err != nil {
		return nil, err
	}
	s, ok := it.next()
	if !ok {
		return nil, fmt.Errorf("Missing argument")
	}
	if !strings.EqualFold(s, "SCHEMA") {
		return nil, fmt.Errorf("Unexpected parameter `%s`, expecting `SCHEMA`", s)
	}
	if !it.more() {
		return nil, fmt.Errorf("Index schema must have at least one attribute")
	}
	texts := 0
	seen := map[string]bool{}
	for it.more() {
		id, _ := it.next()
		a, err := parseAttribute(it, id)
		if err != nil {
			return nil, fmt.Errorf("Invalid field type for field `%s`: %s", id, err)
		}
		if seen[a.identifier] {
			return nil, fmt.Errorf("Duplicate field in schema - %s", a.identifier)
		}
		if len(seen)+1 > maxAttributes {
			return nil, fmt.Errorf("The maximum number of attributes cannot exceed %d.", maxAttributes)
		}
		if a.typ == typeText {
			if texts++; texts > maxTextFields {
				return nil, fmt.Errorf("The maximum number of text fields cannot exceed %d.", maxTextFields)
			}
		}
		seen[a.identifier] = true
		if a.typ == typeText && ix.text.noStem {
			a.noStem = true
		}
		ix.attrs = append(ix.attrs, a)
		ix.byAlias[a.alias] = a
	}
	return ix, nil
}

// parseSource reads FT.CREATE's ON HASH|JSON and PREFIX n p1 … pn.
func parseSource(it *argIter, ix *index) error {
	if it.match("ON") {
		switch v := it.value("ON"); {
		case it.err != nil:
			return it.err
		case strings.EqualFold(v, "JSON"):
			return fmt.Errorf("JSON module is not loaded.")
		case !strings.EqualFold(v, "HASH"):
			return fmt.Errorf("Unknown argument `%s`", v)
		}
	}
	if it.match("PREFIX") {
		n := it.uint("PREFIX")
		switch {
		case it.err != nil:
			return it.err
		case n > len(it.args)-it.pos:
			return fmt.Errorf("Bad arguments for PREFIX: `%d` is outside acceptable bounds", n)
		case n > maxPrefixes:
			return fmt.Errorf("Number of prefixes (%d) exceeds the maximum allowed (%d)", n, maxPrefixes)
		}
		ix.prefixes = append(ix.prefixes, it.take(n)...)
	}
	return nil
}

// parseTextOptions consumes SCORE, LANGUAGE, SKIPINITIALSCAN and the index
// text options until a word that is none of them.
func parseTextOptions(it *argIter, ix *index) error {
	for it.more() && !strings.EqualFold(it.peek(), "SCHEMA") {
		start := it.pos
		var bad error // a value the option refuses
		switch {
		case it.match("SCORE"):
			v := it.value("SCORE")
			if f, err := strconv.ParseFloat(v, 64); err != nil || f < 0 || f > 1 {
				bad = fmt.Errorf("`SCORE` parameter with a value `%s` is not supported. The value must be between 0.0 and 1.0", v)
			}
		case it.match("LANGUAGE"):
			if v := it.value("LANGUAGE"); !strings.EqualFold(v, "ENGLISH") {
				bad = fmt.Errorf("Unknown argument `%s`", v)
			}
		case it.match("SKIPINITIALSCAN"):
			ix.skipScan = true
		case it.match("WITHOFFSETS"):
		case it.match("PAYLOAD_FIELD"):
			return fmt.Errorf("The parameter `PAYLOAD_FIELD` is not supported")
		case it.match("NOOFFSETS"):
			ix.text.offsets = false
		case it.match("NOSTEM"):
			// The index's default for its TEXT fields (PerIndexTextParams
			// no_stem, src/commands/ft_create_parser.cc ParseText).
			ix.text.noStem = true
		case it.match("NOSTOPWORDS"):
			ix.text.setStopWords(nil)
		case it.match("STOPWORDS"):
			n := it.uint("STOPWORDS")
			if n > len(it.args)-it.pos {
				bad = fmt.Errorf("Missing argument for STOPWORDS. The count does not match the number of arguments provided for STOPWORDS")
			}
			ix.text.setStopWords(it.take(n))
		case it.match("PUNCTUATION"):
			if ix.text.punctuation = it.value("PUNCTUATION"); ix.text.punctuation == "" {
				bad = fmt.Errorf("PUNCTUATION string cannot be empty")
			}
		case it.match("MINSTEMSIZE"):
			v, err := strconv.Atoi(it.value("MINSTEMSIZE"))
			if ix.text.minStemSize = v; err != nil || v <= 0 {
				bad = fmt.Errorf("MINSTEMSIZE must be positive")
			}
		}
		if it.fail(bad); it.err != nil {
			return it.err
		}
		if it.pos == start {
			return nil
		}
	}
	return nil
}

func parseAttribute(it *argIter, id string) (*attribute, error) {
	a := &attribute{identifier: id, alias: id}
	if it.match("AS") {
		v, ok := it.next()
		if !ok {
			return nil, fmt.Errorf("Missing argument for `AS`")
		}
		a.alias = v
	}
	for _, ch := range a.alias {
		if strings.ContainsRune(defaultPunctuation, ch) {
			return nil, fmt.Errorf("Attribute alias `%s` contains invalid character `%c`", a.alias, ch)
		}
	}
	t, ok := it.next()
	if !ok {
		return nil, fmt.Errorf("Argument value is empty")
	}
	typ, ok := typeNames[strings.ToUpper(t)]
	if !ok {
		return nil, fmt.Errorf("Unknown argument `%s`", t)
	}
	a.typ = typ
	var err error
	switch typ {
	case typeTag:
		err = parseTag(it, a)
	case typeText:
		err = parseTextField(it, a)
	case typeVector:
		err = parseVector(it, a)
	}
	if err != nil {
		return nil, err
	}
	it.match("SORTABLE") // accepted and ignored
	return a, nil
}

func parseTag(it *argIter, a *attribute) error {
	a.separator = ','
	for {
		switch {
		case it.match("SEPARATOR"):
			v := it.value("SEPARATOR")
			if it.err != nil {
				return it.err
			}
			if len(v) != 1 {
				return fmt.Errorf("The separator must be a single character, but got `%s`", v)
			}
			a.separator = v[0]
		case it.match("CASESENSITIVE"):
			a.caseSensitive = true
		default:
			return nil
		}
	}
}

func parseTextField(it *argIter, a *attribute) error {
	for {
		switch {
		case it.match("WITHSUFFIXTRIE"):
			a.suffixTrie = true
		case it.match("NOSUFFIXTRIE"):
			a.suffixTrie = false
		case it.match("NOSTEM"):
			a.noStem = true
		case it.match("WEIGHT"):
			v := it.value("WEIGHT")
			if f, err := strconv.ParseFloat(v, 64); it.err == nil && (err != nil || f != 1.0) {
				return fmt.Errorf("The `WEIGHT` clause with a value other than `1.0` is not supported.")
			}
			if it.err != nil {
				return it.err
			}
		default:
			return nil
		}
	}
}

// parseVector parses `HNSW|FLAT <count> <key value>…`, where count is the
// number of tokens that follow, and verifies as HNSWParameters::Verify does.
func parseVector(it *argIter, a *attribute) error {
	algo, ok := it.next()
	if !ok {
		return fmt.Errorf("Argument value is empty")
	}
	a.algorithm = strings.ToUpper(algo)
	if a.algorithm != "HNSW" && a.algorithm != "FLAT" {
		return fmt.Errorf("Unknown argument `%s`", algo)
	}
	nv, ok := it.next()
	if !ok {
		return fmt.Errorf("Missing argument")
	}
	n, perr := strconv.ParseUint(nv, 10, 31)
	if perr != nil {
		return fmt.Errorf("Bad arguments for %s: `%s` is outside acceptable bounds", a.algorithm, nv)
	}
	if remaining := len(it.args) - it.pos; int(n) > remaining {
		return fmt.Errorf("Expected %d parameters for %s but got %d parameters.", n, a.algorithm, remaining)
	}
	sub := it.take(int(n))
	a.m, a.efc, a.efRuntime, a.initialCap, a.blockSize = defaultM, defaultEFC, defaultEFRuntime, defaultInitialCap, defaultBlockSize
	var vtype string
	ints := map[string]*int{"DIM": &a.dim, "M": &a.m, "EF_CONSTRUCTION": &a.efc, "EF_RUNTIME": &a.efRuntime,
		"INITIAL_CAP": &a.initialCap, "BLOCK_SIZE": &a.blockSize}
	// The attributes are read by a KeyValueParser, which refuses an
	// unknown key as an "Unexpected argument" (valueError).
	for i := 0; i < len(sub); i += 2 {
		key := strings.ToUpper(sub[i])
		if i+1 >= len(sub) {
			return valueError(sub[i], "Missing argument")
		}
		val := sub[i+1]
		dst, isInt := ints[key]
		switch {
		case isInt:
			v, err := strconv.Atoi(val)
			if err != nil {
				return valueError(sub[i], "`%s` is not a valid numeric value", val)
			}
			*dst = v
		case key == "TYPE" && strings.EqualFold(val, "FLOAT32"):
			vtype = "FLOAT32"
		case key == "DISTANCE_METRIC" && slices.Contains([]string{"L2", "IP", "COSINE"}, strings.ToUpper(val)):
			a.metric = strings.ToUpper(val)
		case key == "TYPE" || key == "DISTANCE_METRIC":
			return valueError(sub[i], "Unknown argument `%s`", val)
		default:
			return fmt.Errorf("Unexpected argument `%s`", sub[i])
		}
	}
	switch {
	case a.dim == 0:
		return fmt.Errorf("Missing dimensions parameter.")
	case a.dim < 0 || a.dim > maxDimensions:
		return fmt.Errorf("The dimensions value must be a positive integer greater than 0 and less than or equal to %d.", maxDimensions)
	case vtype == "":
		return fmt.Errorf("Missing vector TYPE parameter.")
	case a.metric == "":
		return fmt.Errorf("Missing DISTANCE_METRIC parameter.")
	case a.algorithm == "HNSW" && (a.m < 2 || a.m > 2000000):
		return fmt.Errorf("M must be a positive integer greater than 2 and cannot exceed 2000000.")
	}
	return nil
}

// ingest parses the attributes a hash carries, given what the index held
// for the key before (nil: nothing). As in valkey-search
// (src/index_schema.cc ProcessAttributeMutation, 1.2.1), an attribute that
// did not hold the key before is an Add: when its value is taken, the
// ingest_field_<type> counter counts it (added); when it is not — a value
// that is no number, a vector of the wrong byte length, a TAG value with no
// tag, text that is not UTF-8 — the add is "skipped", which FT.INFO's
// hash_indexing_failures counts (failures). An attribute that held the key
// is a Modify, counted in neither. Either way a value not taken leaves the
// attribute without the key.
func (ix *index) ingest(hash map[string]string, prev indexedDoc) (d indexedDoc, added map[fieldType]int, failures int) {
	d, added = indexedDoc{}, map[fieldType]int{}
	for _, a := range ix.attrs {
		v, ok := hash[a.identifier]
		if !ok {
			continue
		}
		if val := ix.valueOf(a, v); val != nil {
			d[a.alias] = val
		}
		switch {
		case prev.has(a):
		case d.has(a):
			added[a.typ]++
		default:
			failures++
		}
	}
	return d, added, failures
}

// valueOf parses an attribute's value as its index does, nil when the
// index does not take it: text that is not UTF-8 (src/indexes/text/lexer.cc
// Tokenize: "Invalid UTF-8"), a TAG value with no tag (src/indexes/tag.cc
// AddRecord), no number (src/indexes/numeric.cc ParseNumber:
// absl::SimpleAtod, "nan" refused), a vector of the wrong byte length.
func (ix *index) valueOf(a *attribute, v string) any {
	switch a.typ {
	case typeText:
		if !utf8.ValidString(v) {
			return nil
		}
		var tv textValue
		for _, t := range ix.text.tokenize(v) {
			if ix.text.stopWords[t] {
				continue
			}
			// The stem a word is found by (Lexer::UpdateStemMap): none for
			// a field without stemming or a word shorter than MINSTEMSIZE.
			st := ""
			if !a.noStem && len(t) >= ix.text.minStemSize {
				st = stem(t)
			}
			tv.toks, tv.stems = append(tv.toks, t), append(tv.stems, st)
		}
		return tv
	case typeTag:
		if tags := splitTags(v, a.separator, a.caseSensitive); len(tags) > 0 {
			return tags
		}
	case typeNumeric:
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && !math.IsNaN(f) {
			return f
		}
	case typeVector:
		if len(v) == 4*a.dim {
			return decodeVector(v)
		}
	}
	return nil
}

// decodeVector reads a FLOAT32 vector's little-endian bytes.
func decodeVector(b string) []float32 {
	vec := make([]float32, len(b)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32([]byte(b[4*i:])))
	}
	return vec
}

// has says whether the document holds a value of a.
func (d indexedDoc) has(a *attribute) bool {
	_, ok := d[a.alias]
	return ok
}

func splitTags(v string, sep byte, caseSensitive bool) []string {
	var out []string
	for _, t := range strings.Split(v, string(sep)) {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !caseSensitive {
			t = strings.ToLower(t)
		}
		out = append(out, t)
	}
	return out
}

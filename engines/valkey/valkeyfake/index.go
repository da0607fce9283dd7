package valkeyfake

import (
	"encoding/binary"
	"errors"
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

var typeNames = []string{"TEXT", "TAG", "NUMERIC", "VECTOR"}

// attribute is one SCHEMA entry of an index: the hash field, its type, a
// TAG's separator and case sensitivity, a VECTOR's dimension and
// DISTANCE_METRIC, by its name in the module's table (the driver's vectors
// are HNSW, FLOAT32).
type attribute struct {
	name          string
	typ           fieldType
	separator     byte
	caseSensitive bool
	dim           int
	metric        string // "COSINE", "L2" or "IP"
}

// indexedDoc is what an index holds for one key: by field, the parsed value
// of each attribute: a textValue, []string (tags), float64 or []float32.
type indexedDoc map[string]any

// textValue is a TEXT attribute's words in order (positions), stop words
// removed, and each word's stem, "" where it has none.
type textValue struct{ toks, stems []string }

// index is one FT.CREATE'd index and the documents it has ingested.
type index struct {
	name     string
	prefixes []string
	noStop   bool // NOSTOPWORDS
	attrs    []*attribute
	texts    []*attribute // the TEXT attributes, in schema order
	byName   map[string]*attribute
	docs     map[string]indexedDoc
	failures int64
	queue    int64 // mutations accepted but not yet applied (mutation_queue_size)
	backfill backfill
}

// matches says whether key is under one of the index's prefixes.
func (ix *index) matches(key string) bool {
	return len(ix.prefixes) == 0 || slices.ContainsFunc(ix.prefixes, func(p string) bool { return strings.HasPrefix(key, p) })
}

// argIter walks command arguments the way vmsdk's ArgsIterator does.
type argIter struct {
	args []string
	pos  int
}

func (it *argIter) more() bool { return it.pos < len(it.args) }

// next is the next argument, "" at the end.
func (it *argIter) next() string {
	if !it.more() {
		return ""
	}
	it.pos++
	return it.args[it.pos-1]
}

func (it *argIter) match(word string) bool {
	if it.more() && strings.EqualFold(it.args[it.pos], word) {
		it.pos++
		return true
	}
	return false
}

// take is the next n arguments (as many as there are).
func (it *argIter) take(n int) []string {
	n = min(n, len(it.args)-it.pos)
	it.pos += n
	return it.args[it.pos-n : it.pos]
}

// Limits of valkey-search 1.2 (ft_create_parser.cc).
const (
	maxAttributes = 1000
	maxTextFields = 64
	maxDimensions = 32768
)

// parseCreate parses FT.CREATE's arguments after the command name in the
// driver's form, in ParseFTCreateArgs's order: name [ON HASH] [PREFIX n p…]
// [NOSTOPWORDS] SCHEMA attributes.
func parseCreate(args []string) (*index, error) {
	it := &argIter{args: args}
	name := it.next()
	ix := &index{name: name, byName: map[string]*attribute{}, docs: map[string]indexedDoc{}}
	if it.match("ON") && !strings.EqualFold(it.next(), "HASH") {
		return nil, errors.New("valkeyfake: only ON HASH is modelled")
	}
	if it.match("PREFIX") {
		n, _ := strconv.Atoi(it.next())
		ix.prefixes = it.take(max(n, 0))
	}
	ix.noStop = it.match("NOSTOPWORDS")
	if s := it.next(); !strings.EqualFold(s, "SCHEMA") {
		return nil, fmt.Errorf("Unexpected parameter `%s`, expecting `SCHEMA`", s)
	}
	for it.more() {
		id := it.next()
		a, err := parseAttribute(it, id)
		switch {
		case err != nil:
			return nil, fmt.Errorf("Invalid field type for field `%s`: %s", id, err)
		case ix.byName[id] != nil:
			return nil, fmt.Errorf("Duplicate field in schema - %s", id)
		case len(ix.attrs)+1 > maxAttributes:
			return nil, fmt.Errorf("The maximum number of attributes cannot exceed %d.", maxAttributes)
		case a.typ == typeText && len(ix.texts) >= maxTextFields:
			return nil, fmt.Errorf("The maximum number of text fields cannot exceed %d.", maxTextFields)
		case a.typ == typeText:
			ix.texts = append(ix.texts, a)
		}
		ix.attrs = append(ix.attrs, a)
		ix.byName[id] = a
	}
	return ix, nil
}

// parseAttribute reads `TEXT`, `TAG [SEPARATOR c] [CASESENSITIVE]`,
// `NUMERIC` or `VECTOR HNSW …` after a field's name.
func parseAttribute(it *argIter, name string) (*attribute, error) {
	a := &attribute{name: name, separator: ','}
	t := it.next()
	if a.typ = fieldType(slices.Index(typeNames, strings.ToUpper(t))); a.typ < 0 {
		return nil, fmt.Errorf("Unknown argument `%s`", t)
	}
	switch a.typ {
	case typeTag:
		if it.match("SEPARATOR") {
			v := it.next()
			if len(v) != 1 {
				return nil, fmt.Errorf("The separator must be a single character, but got `%s`", v)
			}
			a.separator = v[0]
		}
		a.caseSensitive = it.match("CASESENSITIVE")
	case typeVector:
		return a, parseVector(it, a)
	}
	return a, nil
}

// distanceMetrics are the DISTANCE_METRIC values valkey-search 1.2.1
// knows (src/indexes/vector_base.h, kDistanceMetricByStr).
var distanceMetrics = []string{"L2", "IP", "COSINE"}

// errVectorForm refuses a vector attribute of a form the fake does not
// model.
var errVectorForm = errors.New("valkeyfake: only VECTOR HNSW 6 TYPE FLOAT32 DIM n (1 to 32768) DISTANCE_METRIC L2|IP|COSINE is modelled")

// parseVector reads the driver's vector attribute, `HNSW 6 TYPE FLOAT32
// DIM n DISTANCE_METRIC m`, its pairs in any order, each read in turn as
// the module's KeyValueParser does (src/commands/ft_create_parser.cc,
// CreateHNSWParser). A metric is looked up as given, then upper-cased
// (vmsdk/src/type_conversions.h, ToEnum); one the module does not know is
// its error, the parameter and the value quoted as sent
// (vmsdk/src/command_parser.h, KeyValueParser::Parse). The module's other
// forms, and its checks of them (HNSWParameters::Verify), are not modelled.
func parseVector(it *argIter, a *attribute) error {
	p := it.take(8)
	if len(p) < 8 || !strings.EqualFold(p[0], "HNSW") || p[1] != "6" {
		return errVectorForm
	}
	seen := map[string]string{}
	for i := 2; i+1 < len(p); i += 2 {
		key, val := strings.ToUpper(p[i]), p[i+1]
		switch key {
		case "DISTANCE_METRIC":
			switch m := strings.ToUpper(val); {
			case val == "":
				return fmt.Errorf("Error parsing value for the parameter `%s` - Argument value is empty", p[i])
			case !slices.Contains(distanceMetrics, m):
				return fmt.Errorf("Error parsing value for the parameter `%s` - Unknown argument `%s`", p[i], val)
			default:
				val = m
			}
		case "TYPE", "DIM":
		default:
			return errVectorForm
		}
		seen[key] = val
	}
	dim, err := strconv.Atoi(seen["DIM"])
	if len(seen) != 3 || !strings.EqualFold(seen["TYPE"], "FLOAT32") || err != nil || dim < 1 || dim > maxDimensions {
		return errVectorForm
	}
	a.dim, a.metric = dim, seen["DISTANCE_METRIC"]
	return nil
}

// ingest parses the attributes a hash carries, given what the index held
// for the key before (nil: nothing). As in valkey-search
// (src/index_schema.cc ProcessAttributeMutation, 1.2.1), an attribute that
// did not hold the key before is an Add: when its value is taken, the
// ingest_field_<type> counter counts it (added); when it is not, the add is
// "skipped", which FT.INFO's hash_indexing_failures counts (failures). An
// attribute that held the key is a Modify, counted in neither. Either way a
// value not taken leaves the attribute without the key.
func (ix *index) ingest(hash map[string]string, prev indexedDoc) (d indexedDoc, added map[fieldType]int, failures int) {
	d, added = indexedDoc{}, map[fieldType]int{}
	for _, a := range ix.attrs {
		v, ok := hash[a.name]
		if !ok {
			continue
		}
		if val := ix.valueOf(a, v); val != nil {
			d[a.name] = val
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
// Tokenize), a TAG value with no tag (src/indexes/tag.cc AddRecord), no
// number (src/indexes/numeric.cc ParseNumber: absl::SimpleAtod, "nan"
// refused), a vector of the wrong byte length.
func (ix *index) valueOf(a *attribute, v string) any {
	switch a.typ {
	case typeText:
		if !utf8.ValidString(v) {
			return nil
		}
		var tv textValue
		for _, t := range tokenize(v) {
			if ix.isStop(t) {
				continue
			}
			// The stem a word is found by (Lexer::UpdateStemMap): none for
			// a word shorter than MINSTEMSIZE.
			st := ""
			if len(t) >= minStemSize {
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
	_, ok := d[a.name]
	return ok
}

func splitTags(v string, sep byte, caseSensitive bool) []string {
	var out []string
	for _, t := range strings.Split(v, string(sep)) {
		if t = strings.TrimSpace(t); t != "" && !caseSensitive {
			t = strings.ToLower(t)
		}
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

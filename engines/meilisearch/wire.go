package meilisearch

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
)

func settings(fields []string) *meilisearch.Settings {
	return &meilisearch.Settings{
		SearchableAttributes: fields,
		TypoTolerance: &meilisearch.TypoTolerance{
			Enabled: false,
			// The client always sends these; send the server's defaults.
			MinWordSizeForTypos: meilisearch.MinWordSizeForTypos{OneTypo: 5, TwoTypos: 9},
			DisableOnWords:      []string{},
			DisableOnAttributes: []string{},
		},
	}
}

// body is a document as Meilisearch stores it: the id, the schema's text
// and tag fields as strings, numeric fields as numbers (a field the
// document lacks is written empty, or 0, so a replaced document never
// keeps an old value), and the vector: under _vectors.<field> when the
// field is an embedder (userProvided: the document carries its own
// embedding), else as a plain array field, stored and not indexed, so
// that the documents weigh the same with and without the embedder.
func (l layout) body(doc engines.Document) (map[string]any, error) {
	if err := checkID(doc.ID, maxDocID); err != nil {
		return nil, fmt.Errorf("document id %w", err)
	}
	m := make(map[string]any, len(l.stored)+2)
	m[PrimaryKey] = doc.ID
	for _, f := range l.stored {
		if f.Type == engines.Numeric {
			m[f.Name] = 0.0
		} else {
			m[f.Name] = ""
		}
	}
	for _, f := range doc.Fields {
		switch l.kinds[f.Name] {
		case engines.Numeric:
			if math.IsNaN(f.Number) || math.IsInf(f.Number, 0) {
				return nil, fmt.Errorf("field %s: %v is not a JSON number", f.Name, f.Number)
			}
			m[f.Name] = f.Number
		case engines.Vector:
			if f.Name != l.vector || f.Vector == nil {
				continue
			}
			if len(f.Vector) != l.dim {
				return nil, fmt.Errorf("field %s: vector of %d dimensions, the schema's is %d", f.Name, len(f.Vector), l.dim)
			}
			if l.embed {
				m[vectorsKey] = map[string][]float32{f.Name: f.Vector}
			} else {
				m[f.Name] = f.Vector
			}
		default:
			if _, ok := m[f.Name]; ok && f.Name != PrimaryKey {
				m[f.Name] = f.Text
			}
		}
	}
	return m, nil
}

// vectorsKey is the reserved attribute that carries a document's
// embeddings, by embedder name.
const vectorsKey = "_vectors"

// searchBody is the body the client sends for a search: json.Marshal of
// the SearchRequest{Query: text, Limit: k, AttributesToRetrieve: [id],
// MatchingStrategy: strategy} it would build, written out with only the
// query string left to encoding/json, which spares each search the
// reflection over the struct's thirty-odd fields. FuzzSearchBody checks it against
// json.Marshal of the struct. k is at least 1 (a zero limit is omitted).
func searchBody(text string, k int, strategy meilisearch.MatchingStrategy) ([]byte, error) {
	q, err := json.Marshal(text)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(q)+96)
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `,"attributesToRetrieve":["`+PrimaryKey+`"]`...)
	if strategy != "" { // one of the option's three names: nothing to escape
		b = append(b, `,"matchingStrategy":"`...)
		b = append(b, strategy...)
		b = append(b, '"')
	}
	b = append(b, `,"q":`...)
	b = append(b, q...)
	return append(b, `,"hybrid":null}`...), nil
}

// ParseSearch reads a search response body: the hits' ids, best first, and
// the total (estimatedTotalHits, else totalHits, else -1). A body that is not
// JSON, more than k hits, a missing "hits" array, a hit without a string or
// integer "id", or a total that is not an integer is an error. Keys match
// exactly; when one repeats, the last counts.
//
// It reads the body itself: encoding/json costs several times its CPU and
// about a hundred allocations per answer, and the JSON libraries measured
// against it (valyala/fastjson, tidwall/gjson: BenchmarkParse*, figures in
// bench/README.md) were slower and do not refuse what encoding/json
// refuses unless they validate first, which doubles their cost. One pass
// validates the whole body as encoding/json's scanner does and keeps the
// values of the keys it reads; a second reads the hits. FuzzParseSearch
// checks it against encoding/json.
func ParseSearch(body []byte, k int) (engines.Hits, error) {
	hits, estimated, exact, err := readTop(body)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("malformed response: %w", err)
	}
	if hits == nil || string(hits) == "null" {
		return engines.Hits{}, errors.New("malformed response: no hits array")
	}
	raw, err := hitRaws(hits)
	if err != nil {
		return engines.Hits{}, err
	}
	if len(raw) > k {
		return engines.Hits{}, fmt.Errorf("the engine returned %d hits for limit %d", len(raw), k)
	}
	ids, err := hitIDs(raw)
	if err != nil {
		return engines.Hits{}, err
	}
	est, hasEst, err1 := totalHits("estimatedTotalHits", estimated)
	tot, hasTot, err2 := totalHits("totalHits", exact)
	if err := cmp.Or(err1, err2); err != nil {
		return engines.Hits{}, err
	}
	total := int64(-1)
	switch {
	case hasEst:
		total = est
	case hasTot:
		total = tot
	}
	return engines.Hits{IDs: ids, Total: total}, nil
}

// totalHits reads a count: absent or null (false), or an integer.
func totalHits(name string, raw []byte) (int64, bool, error) {
	if raw == nil || string(raw) == "null" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("malformed response: %s %.40s is not an integer", name, raw)
	}
	return n, true, nil
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// readTop validates body — a JSON object, accepted as encoding/json's
// scanner accepts it — and returns the last value of each key ParseSearch
// reads (nil when absent).
func readTop(b []byte) (hits, estimated, exact []byte, err error) {
	i := skipSpace(b, 0)
	end, err := scanValue(b, i, 0, func(key, v []byte) error {
		switch string(keyValue(key)) { // compared without a copy
		case "hits":
			hits = v
		case "estimatedTotalHits":
			estimated = v
		case "totalHits":
			exact = v
		}
		return nil
	}, nil)
	switch {
	case err != nil:
	case skipSpace(b, end) != len(b):
		err = syntaxError(b, skipSpace(b, end), "the end")
	case b[i] != '{':
		err = errors.New("not an object")
	}
	return hits, estimated, exact, err
}

// hitRaws reads a hits array that readTop validated: each hit's raw id,
// nil for a hit without one (or null).
func hitRaws(hits []byte) ([][]byte, error) {
	if hits[0] != '[' {
		return nil, errors.New("malformed response: hits is not an array")
	}
	ids := make([][]byte, 0, 16)
	_, err := scanValue(hits, 0, 0, nil, func(hit []byte) error {
		var id []byte
		switch hit[0] {
		case '{':
			_, _ = scanValue(hit, 0, 0, func(key, v []byte) error {
				if string(keyValue(key)) == PrimaryKey {
					id = v
				}
				return nil
			}, nil)
		case 'n': // null: no id
		default:
			return fmt.Errorf("malformed response: hit %d is not an object", len(ids))
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// keyValue is a validated key's value: its bytes when plain, else decoded.
func keyValue(quoted []byte) []byte {
	if isPlain(quoted) {
		return quoted[1 : len(quoted)-1]
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid by construction
	return []byte(s)
}

// isPlain says whether a quoted string's bytes are its value: ASCII
// without escapes (encoding/json replaces invalid UTF-8, so anything else
// goes through it).
func isPlain(quoted []byte) bool {
	for _, c := range quoted[1 : len(quoted)-1] {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func syntaxError(b []byte, i int, want string) error {
	if i >= len(b) {
		return fmt.Errorf("invalid JSON: the body ends where %s should be", want)
	}
	return fmt.Errorf("invalid JSON: %q at byte %d where %s should be", b[i], i, want)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue validates the value at b[i:], inside depth containers, and
// returns where it ends. When the value is an object, member (if not nil)
// is called with each key (quoted) and value; when an array, element with
// each element; the first error either returns stops the scan.
func scanValue(b []byte, i, depth int, member func(key, value []byte) error, element func(value []byte) error) (int, error) {
	if i >= len(b) {
		return i, syntaxError(b, i, "a value")
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{' || c == '[':
		if depth++; depth > maxDepth {
			return i, errors.New("invalid JSON: nested too deep")
		}
		return scanContainer(b, i, depth, member, element)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	}
	return i, syntaxError(b, i, "a value")
}

// scanContainer is scanValue for the object or array opening at b[i],
// depth containers deep counting itself.
func scanContainer(b []byte, i, depth int, member func(key, value []byte) error, element func(value []byte) error) (int, error) {
	object := b[i] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		var key []byte
		if object {
			var err error
			if key, i, err = scanKey(b, i); err != nil {
				return i, err
			}
		}
		end, err := scanValue(b, i, depth, nil, nil)
		if err != nil {
			return end, err
		}
		switch {
		case object && member != nil:
			err = member(key, b[i:end])
		case !object && element != nil:
			err = element(b[i:end])
		}
		if err != nil {
			return end, err
		}
		if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		return i, syntaxError(b, i, "',' or '"+string(closer)+"'")
	}
}

// scanKey scans an object member's key at b[i:] and the colon after it:
// the key (quoted), and where its value starts, or where the scan failed.
func scanKey(b []byte, i int) ([]byte, int, error) {
	if i == len(b) || b[i] != '"' {
		return nil, i, syntaxError(b, i, "a key")
	}
	end, err := scanString(b, i)
	if err != nil {
		return nil, end, err
	}
	key := b[i:end]
	if i = skipSpace(b, end); i == len(b) || b[i] != ':' {
		return nil, i, syntaxError(b, i, "':'")
	}
	return key, skipSpace(b, i+1), nil
}

func scanLiteral(b []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return i, syntaxError(b, i, lit)
	}
	return i + len(lit), nil
}

// scanNumber: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func scanNumber(b []byte, i int) (int, error) {
	digits := func(i int) (int, bool) {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j, j > i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i, _ = digits(i)
	default:
		return i, syntaxError(b, i, "a digit")
	}
	ok := true
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, syntaxError(b, i, "a digit")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, syntaxError(b, i, "a digit")
		}
	}
	return i, nil
}

// scanString validates the string at b[i] (a quote) and returns where it
// ends. Bytes that are not UTF-8 are accepted, as encoding/json does.
func scanString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return i, syntaxError(b, i, "a character of a string")
		case c == '\\':
			if i++; i == len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if i++; i == len(b) || !isHex(b[i]) {
						return i, syntaxError(b, i, "a hexadecimal digit")
					}
				}
			default:
				return i, syntaxError(b, i, "an escape")
			}
		}
	}
	return i, syntaxError(b, i, "'\"'")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hitIDs reads the hits' ids. The ids whose bytes are their value (plain
// strings and integers: nearly all) share one allocation.
func hitIDs(raw [][]byte) ([]string, error) {
	ids := make([]string, len(raw))
	var ends [64]int // of the first 64 ids: where each ends in buf, -1 when decoded apart
	size := 0
	for _, r := range raw {
		size += len(r)
	}
	buf := make([]byte, 0, size)
	for i, r := range raw {
		b, s, err := hitID(r)
		if err != nil {
			return nil, fmt.Errorf("malformed response: hit %d: %v", i, err)
		}
		switch {
		case b == nil:
			ids[i] = s
			if i < len(ends) {
				ends[i] = -1
			}
		case i < len(ends):
			buf = append(buf, b...)
			ends[i] = len(buf)
		default:
			ids[i] = string(b)
		}
	}
	all, from := string(buf), 0
	for i := range min(len(raw), len(ends)) {
		if ends[i] >= 0 {
			ids[i], from = all[from:ends[i]], ends[i]
		}
	}
	return ids, nil
}

// hitID reads a document id: a JSON string, or an integer (Meilisearch's
// other id type). When the id's bytes are its value, it returns them (a
// part of raw); otherwise the decoded string.
func hitID(raw []byte) ([]byte, string, error) {
	switch {
	case len(raw) == 0:
		return nil, "", errors.New("no id")
	case raw[0] == '"':
		if isPlain(raw) {
			return raw[1 : len(raw)-1], "", nil
		}
		var s string
		_ = json.Unmarshal(raw, &s) // valid by construction
		return nil, s, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return raw, "", nil
		}
	}
	return nil, "", fmt.Errorf("id %.40s is neither a string nor an integer", raw)
}

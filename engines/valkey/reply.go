package valkey

import (
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/engines/quote"
	"math"
	"strconv"
	"strings"

	"github.com/valkey-io/valkey-go"
)

// value is a reply reduced to what this driver reads: a scalar as text, or
// a list (RESP3 maps are flattened to key, value, key, value …). Parsing
// works on values, so that it is a pure function the fuzz targets can reach,
// and so a reply of an unexpected shape is an error, never a panic.
type value struct {
	list   bool
	text   string
	items  []value
	isNull bool
}

// String renders v as an error message quotes a reply: scalars as they
// are, lists in brackets, (nil) for a null; it stops after a few hundred
// bytes, which is all a message shows (quote.Unreadable).
func (v value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v value) write(b *strings.Builder) {
	switch {
	case b.Len() > 2*quote.MaxLen:
		b.WriteString("…")
	case v.isNull:
		b.WriteString("(nil)")
	case v.list:
		b.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				b.WriteByte(' ')
			}
			if b.Len() > 2*quote.MaxLen {
				b.WriteString("…")
				break
			}
			item.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(v.text)
	}
}

// maxDepth bounds how deep a reply may nest; FT.INFO nests four levels.
const maxDepth = 16

func fromMessage(m valkey.ValkeyMessage) (value, error) { return convert(m, 0) }

func convert(m valkey.ValkeyMessage, depth int) (value, error) {
	if depth > maxDepth {
		return value{}, errors.New("reply nests too deeply")
	}
	if err := m.Error(); err != nil {
		if valkey.IsValkeyNil(err) {
			return value{isNull: true}, nil
		}
		return value{}, err
	}
	switch {
	case m.IsMap():
		kv, err := m.ToMap()
		if err != nil {
			return value{}, err
		}
		v := value{list: true, items: make([]value, 0, 2*len(kv))}
		for k, item := range kv {
			c, err := convert(item, depth+1)
			if err != nil {
				return value{}, err
			}
			v.items = append(v.items, value{text: k}, c)
		}
		return v, nil
	case m.IsArray():
		arr, err := m.ToArray()
		if err != nil {
			return value{}, err
		}
		v := value{list: true, items: make([]value, 0, len(arr))}
		for _, item := range arr {
			c, err := convert(item, depth+1)
			if err != nil {
				return value{}, err
			}
			v.items = append(v.items, c)
		}
		return v, nil
	case m.IsInt64():
		n, err := m.AsInt64()
		return value{text: strconv.FormatInt(n, 10)}, err
	case m.IsFloat64():
		f, err := m.AsFloat64()
		return value{text: strconv.FormatFloat(f, 'g', -1, 64)}, err
	case m.IsBool():
		b, err := m.AsBool()
		return value{text: map[bool]string{true: "1", false: "0"}[b]}, err
	}
	s, err := m.ToString()
	return value{text: s}, err
}

// pairs reads a list of name/value pairs (FT.INFO's shape) into a map of
// the scalar values; nested values are kept only as their lists.
func pairs(v value) (map[string]value, error) {
	if !v.list {
		return nil, errors.New("expected a list of name/value pairs")
	}
	if len(v.items)%2 != 0 {
		return nil, fmt.Errorf("odd number of items (%d) in a list of name/value pairs", len(v.items))
	}
	out := make(map[string]value, len(v.items)/2)
	for i := 0; i < len(v.items); i += 2 {
		k := v.items[i]
		if k.list {
			return nil, fmt.Errorf("item %d: a name is a list", i)
		}
		out[k.text] = v.items[i+1]
	}
	return out, nil
}

// ParseFTAttributes reads FT.INFO's attributes: each attribute's
// identifier (the hash field) and its type (TEXT, TAG, NUMERIC, VECTOR), as
// valkey-search's docs/commands/ft.info.md lists them.
func ParseFTAttributes(v value) (map[string]string, error) {
	kv, err := pairs(v)
	if err != nil {
		return nil, fmt.Errorf("FT.INFO: %w", err)
	}
	attrs, ok := kv["attributes"]
	if !ok || !attrs.list {
		return nil, fmt.Errorf("FT.INFO: no list of attributes in %s", quote.Clip(v.String()))
	}
	out := make(map[string]string, len(attrs.items))
	for i, a := range attrs.items {
		f, err := pairs(a)
		if err != nil {
			return nil, fmt.Errorf("FT.INFO: attribute %d: %w", i, err)
		}
		id, typ := f["identifier"], f["type"]
		if id.list || typ.list || id.text == "" || typ.text == "" {
			return nil, fmt.Errorf("FT.INFO: attribute %d has no identifier or type: %s", i, quote.Clip(a.String()))
		}
		out[id.text] = typ.text
	}
	return out, nil
}

// FTInfo is what the driver reads from FT.INFO.
type FTInfo struct {
	NumDocs           int64
	MutationQueueSize int64
	IndexingFailures  int64
}

// ParseFTInfo reads FT.INFO's reply: num_docs and mutation_queue_size are
// required (as integers or their decimal strings), hash_indexing_failures
// optional.
func ParseFTInfo(v value) (FTInfo, error) {
	kv, err := pairs(v)
	if err != nil {
		return FTInfo{}, fmt.Errorf("FT.INFO: %w", err)
	}
	var info FTInfo
	for _, f := range []struct {
		name     string
		dst      *int64
		optional bool
	}{
		{"num_docs", &info.NumDocs, false},
		{"mutation_queue_size", &info.MutationQueueSize, false},
		{"hash_indexing_failures", &info.IndexingFailures, true},
	} {
		item, ok := kv[f.name]
		if !ok {
			if f.optional {
				continue
			}
			return FTInfo{}, fmt.Errorf("FT.INFO: no %s in the reply", f.name)
		}
		n, err := wholeNumber(item)
		if err != nil {
			return FTInfo{}, fmt.Errorf("FT.INFO: %s: %w", f.name, err)
		}
		*f.dst = n
	}
	return info, nil
}

// wholeNumber reads a scalar that holds an integer, written as one or as a
// float with no fraction ("3", "3.000000").
func wholeNumber(v value) (int64, error) {
	if v.list || v.isNull {
		return 0, errors.New("not a number")
	}
	s := strings.TrimSpace(v.text)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return int64(f), nil
}

// ParseSearchKeys reads an FT.SEARCH … NOCONTENT reply: the total, then one
// key per hit.
func ParseSearchKeys(v value) (total int64, keys []string, err error) {
	if !v.list || len(v.items) == 0 {
		return 0, nil, errors.New("FT.SEARCH: expected a list that starts with the total")
	}
	total, err = wholeNumber(v.items[0])
	if err != nil {
		return 0, nil, fmt.Errorf("FT.SEARCH: total: %w", err)
	}
	if total < 0 {
		return 0, nil, fmt.Errorf("FT.SEARCH: negative total %d", total)
	}
	keys = make([]string, 0, len(v.items)-1)
	for i, item := range v.items[1:] {
		if item.list || item.isNull {
			return 0, nil, fmt.Errorf("FT.SEARCH: item %d is not a key (was the reply sent without NOCONTENT?)", i+1)
		}
		keys = append(keys, item.text)
	}
	return total, keys, nil
}

package meilisearch_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/valyala/fastjson"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/meilisearch"
)

// The question these benchmarks answer: does a well-kept JSON library read
// a search answer within 10% of ParseSearch's own scanner's CPU? Each
// parser reads the same answers with the same contract as far as the
// library allows (the ids best first, sharing one allocation; the total;
// a body that is not JSON, a missing hits array, more than k hits, a hit
// without a string or integer id are errors).
//
//	go test -run '^$' -bench 'Parse' -benchmem -count 6 ./engines/meilisearch

// benchAnswers are the answers measured: a realistic 10-hit answer as
// Meilisearch 1.37 sends it for attributesToRetrieve [id], the same with
// integer ids, and a 1-hit answer.
var benchAnswers = []struct {
	name string
	body []byte
	k    int
}{
	{"10hits", tenHits(func(i int) string { return fmt.Sprintf(`"%d"`, 1000+i) }), 10},
	{"10intHits", tenHits(func(i int) string { return strconv.Itoa(1000 + i) }), 10},
	{"1hit", []byte(`{"hits":[{"id":"1"}],"query":"x","processingTimeMs":0,"limit":10,"offset":0,"estimatedTotalHits":1}`), 10},
}

func tenHits(id func(int) string) []byte {
	var hits []string
	for i := range 10 {
		hits = append(hits, `{"id":`+id(i)+`}`)
	}
	return []byte(`{"hits":[` + strings.Join(hits, ",") + `],"query":"lorem ipsum dolor","processingTimeMs":1,"limit":10,"offset":0,"estimatedTotalHits":2417}`)
}

func benchParse(b *testing.B, parse func([]byte, int) (engines.Hits, error)) {
	for _, a := range benchAnswers {
		want, err := meilisearch.ParseSearch(a.body, a.k)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(a.name, func(b *testing.B) {
			got, err := parse(a.body, a.k)
			if err != nil || strings.Join(got.IDs, ",") != strings.Join(want.IDs, ",") || got.Total != want.Total {
				b.Fatalf("%+v, %v; want %+v", got, err, want)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(a.body)))
			for b.Loop() {
				if _, err := parse(a.body, a.k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseScanner is the driver's own scanner (ParseSearch).
func BenchmarkParseScanner(b *testing.B) { benchParse(b, meilisearch.ParseSearch) }

// BenchmarkParseFastjson is github.com/valyala/fastjson with a pooled
// Parser (no allocation per answer for the parse tree).
func BenchmarkParseFastjson(b *testing.B) { benchParse(b, parseFastjson) }

// BenchmarkParseFastjsonValidated is fastjson with fastjson.ValidateBytes
// first: Parser.Parse alone does not check every number's syntax or a
// string's escapes, which encoding/json (and the scanner) refuse.
func BenchmarkParseFastjsonValidated(b *testing.B) {
	benchParse(b, func(body []byte, k int) (engines.Hits, error) {
		if err := fastjson.ValidateBytes(body); err != nil {
			return engines.Hits{}, err
		}
		return parseFastjson(body, k)
	})
}

// BenchmarkParseGjson is github.com/tidwall/gjson: validated
// (gjson.ValidBytes), then read in place.
func BenchmarkParseGjson(b *testing.B) { benchParse(b, parseGjson) }

var fastjsonParsers fastjson.ParserPool

func parseFastjson(body []byte, k int) (engines.Hits, error) {
	p := fastjsonParsers.Get()
	defer fastjsonParsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return engines.Hits{}, err
	}
	o, err := v.Object()
	if err != nil {
		return engines.Hits{}, err
	}
	hits, err := o.Get("hits").Array()
	if err != nil {
		return engines.Hits{}, errors.New("no hits array")
	}
	if len(hits) > k {
		return engines.Hits{}, errors.New("too many hits")
	}
	var arr [512]byte
	buf := arr[:0]
	ends := make([]int, len(hits))
	for i, h := range hits {
		id := h.Get("id")
		switch {
		case id == nil:
			return engines.Hits{}, errors.New("no id")
		case id.Type() == fastjson.TypeString:
			buf = append(buf, id.GetStringBytes()...)
		case id.Type() == fastjson.TypeNumber:
			n := len(buf)
			buf = id.MarshalTo(buf)
			if _, err := strconv.ParseInt(string(buf[n:]), 10, 64); err != nil {
				return engines.Hits{}, err
			}
		default:
			return engines.Hits{}, errors.New("bad id")
		}
		ends[i] = len(buf)
	}
	return engines.Hits{IDs: split(string(buf), ends), Total: fastjsonTotal(o)}, nil
}

func fastjsonTotal(o *fastjson.Object) int64 {
	for _, key := range []string{"estimatedTotalHits", "totalHits"} {
		if v := o.Get(key); v != nil && v.Type() == fastjson.TypeNumber {
			n, _ := v.Int64()
			return n
		}
	}
	return -1
}

func parseGjson(body []byte, k int) (engines.Hits, error) {
	if !gjson.ValidBytes(body) {
		return engines.Hits{}, errors.New("invalid JSON")
	}
	top := gjson.ParseBytes(body)
	if !top.IsObject() {
		return engines.Hits{}, errors.New("not an object")
	}
	hits := top.Get("hits")
	if !hits.IsArray() {
		return engines.Hits{}, errors.New("no hits array")
	}
	var arr [512]byte
	buf := arr[:0]
	ends := make([]int, 0, k)
	var err error
	hits.ForEach(func(_, h gjson.Result) bool {
		if len(ends) == k {
			err = errors.New("too many hits")
			return false
		}
		id := h.Get("id")
		switch id.Type {
		case gjson.String:
			buf = append(buf, id.Str...)
		case gjson.Number:
			if _, err = strconv.ParseInt(id.Raw, 10, 64); err != nil {
				return false
			}
			buf = append(buf, id.Raw...)
		default:
			err = errors.New("bad id")
			return false
		}
		ends = append(ends, len(buf))
		return true
	})
	if err != nil {
		return engines.Hits{}, err
	}
	total := int64(-1)
	if t := top.Get("estimatedTotalHits"); t.Type == gjson.Number {
		total = t.Int()
	} else if t := top.Get("totalHits"); t.Type == gjson.Number {
		total = t.Int()
	}
	return engines.Hits{IDs: split(string(buf), ends), Total: total}, nil
}

// split cuts all at ends into the ids, sharing its one allocation.
func split(all string, ends []int) []string {
	ids := make([]string, len(ends))
	from := 0
	for i, end := range ends {
		ids[i], from = all[from:end], end
	}
	return ids
}

package typesense_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/typesense"
)

// A malformed search body is an error, never a panic, and a parsed one
// never has more than k hits or more hits than found.
func FuzzParseSearch(f *testing.F) {
	for _, seed := range []string{
		`{"facet_counts":[],"found":2,"hits":[{"document":{"id":"1"},"highlight":{},"text_match":1},{"document":{"id":"2"}}],"out_of":2,"page":1,"search_time_ms":0}`,
		`{"found":0,"hits":[]}`,
		`{"found":1,"hits":[{"document":{"id":1}}]}`,
		`{"found":1,"hits":[{"document":{"name":"no id"}}]}`,
		`{"found":1,"hits":[{"document":null}]}`,
		`{"found":1,"hits":[null]}`,
		`{"found":0,"hits":[{"document":{"id":"1"}}]}`,
		`{"found":-1,"hits":[]}`,
		`{"found":"many","hits":[]}`,
		`{"hits":[]}`,
		`{"found":1}`,
		`{"found":1,"hits":{"document":{"id":"1"}}}`,
		`[1,2]`,
		`null`,
		``,
		`{"found":1,"hits":[{"document":{"id":"` + strings.Repeat("9", 400) + `"}}]}`,
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		h, err := typesense.ParseSearch(body, k)
		if err != nil {
			return
		}
		if len(h.IDs) > k || int64(len(h.IDs)) > h.Total {
			t.Fatalf("%d hits for k=%d, found=%d accepted", len(h.IDs), k, h.Total)
		}
	})
}

// A malformed import answer is an error, never a panic; success means one
// successful line per document.
func FuzzParseImport(f *testing.F) {
	for _, seed := range []string{
		`{"success":true}` + "\n" + `{"success":true}`,
		`{"success":true}` + "\n" + `{"code":400,"document":"{}","error":"Field ` + "`name`" + ` has been declared in the schema, but is not found in the document.","success":false}`,
		`{"success":true}`,
		`{"success":"yes"}` + "\n" + `{"success":true}`,
		`{}` + "\n" + `{}`,
		`{"success":true}` + "\n\n" + `{"success":true}` + "\n",
		`{"success":false}` + "\n" + `{"success":false,"code":503,"error":"Not Ready or Lagging"}`,
		`not json` + "\n" + `{"success":true}`,
		``,
	} {
		f.Add([]byte(seed), 2)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprint(i)
		}
		if err := typesense.ParseImport(body, ids); err == nil && succeeded(body) < n {
			t.Fatalf("%q accepted for %d documents", body, n)
		}
	})
}

// succeeded counts the lines that are JSON objects saying success: true,
// the key matched as encoding/json matches it (case-insensitively, after
// unescaping), so the oracle and the parser read keys alike.
func succeeded(body []byte) int {
	n := 0
	for _, line := range strings.Split(string(body), "\n") {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		for k, v := range m {
			if strings.EqualFold(k, "success") && string(v) == "true" {
				n++
				break
			}
		}
	}
	return n
}

// A malformed multi_search answer is an error, never a panic; a parsed one
// has the limits of a search answer.
func FuzzParseMultiSearch(f *testing.F) {
	for _, seed := range []string{
		`{"results":[{"found":2,"hits":[{"document":{"id":"1"}},{"document":{"id":"2"}}]}]}`,
		`{"results":[{"code":400,"error":"Query field ` + "`e`" + ` must have 4 dimensions."}]}`,
		`{"results":[{"code":"x","error":1}]}`,
		`{"results":[{"error":"no code"}]}`,
		`{"results":[]}`,
		`{"results":[null]}`,
		`{"results":[{},{}]}`,
		`{"results":{}}`,
		`{"message":"Not Found"}`,
		``,
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		h, err := typesense.ParseMultiSearch(body, k)
		if err != nil {
			return
		}
		if len(h.IDs) > k || int64(len(h.IDs)) > h.Total {
			t.Fatalf("%d hits for k=%d, found=%d accepted", len(h.IDs), k, h.Total)
		}
	})
}

package amgixnow

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/searchbench/searchbench/engines/quote"
)

// FuzzParse feeds any body to every response parser: a malformed answer is
// an error, never a panic, and what parses keeps the parsers' promises.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"results":[{"id":"1","timestamp":"2026-01-01T00:00:00Z","name":"a","score":0.5,"vector_scores":[]}],"query_time_ms":1.5}`,
		`[{"id":"1","score":1},{"id":"2","score":0.5}]`,
		`{"results":[],"facet_counts":null,"query_time_ms":0.1}`,
		`{"results":[{"id":7}]}`,
		`{"results":[{"name":"no id"}]}`,
		`{"ok":true}`,
		`{"ok":true,"skipped":["1","2"]}`,
		`{"ok":false}`,
		`{"doc_count":3,"queue":{"total":2}}`,
		`{"doc_count":-1}`,
		`{"version":"0.1.2 (Amgix-Now)"}`,
		`{"exists":true}`,
		`{"detail":"Collection 'x' not found"}`,
		`{"detail":[{"type":"validation_error","loc":["body","limit"],"msg":"too big","input":null}]}`,
		`Failed to deserialize query string: missing field ` + "`request_timestamp`",
		`{"detail":`, `[`, `null`, "", "\xff\xfe",
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		k = 1 + abs(k)%MaxLimit
		if ids, err := ParseSearch(body, k); err == nil {
			if len(ids) > k {
				t.Fatalf("ParseSearch returned %d ids for k=%d", len(ids), k)
			}
			for _, id := range ids {
				if id == "" {
					t.Fatal("ParseSearch returned an empty id")
				}
			}
		}
		_, _ = ParseWrite(body)
		if docs, _, err := ParseStats(body); err == nil && docs < 0 {
			t.Fatalf("ParseStats returned a negative count %d", docs)
		}
		if v, err := ParseVersion(body); err == nil && strings.TrimSpace(v) == "" {
			t.Fatal("ParseVersion returned an empty version")
		}
		_, _ = ParseExists(body)
		if d := errorDetail(body); len(d) > quote.MaxLen+len("… (clipped, 1234567890 bytes)") || !utf8.ValidString(d) {
			t.Fatalf("errorDetail returned %d bytes: %q", len(d), d)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestParseSearchShapes(t *testing.T) {
	for body, want := range map[string]string{
		`[{"id":"a"},{"id":"b"}]`:                    "a,b",
		`{"results":[{"id":"a"}],"query_time_ms":1}`: "a",
		` {"results":[]}`:                            "",
	} {
		ids, err := ParseSearch([]byte(body), 10)
		if err != nil || strings.Join(ids, ",") != want {
			t.Errorf("ParseSearch(%s) = %v, %v; want %s", body, ids, err, want)
		}
	}
	for _, body := range []string{`{"hits":[]}`, `[{"id":"a"}]x`, `{"results":[{"id":1}]}`, `{"results":[{}]}`, `"x"`} {
		if ids, err := ParseSearch([]byte(body), 10); err == nil {
			t.Errorf("ParseSearch(%s) = %v; want an error", body, ids)
		}
	}
	if _, err := ParseSearch([]byte(`[{"id":"a"},{"id":"b"}]`), 1); err == nil {
		t.Error("ParseSearch accepted more hits than k")
	}
	if got := errorDetail([]byte(`{"detail":[{"loc":["body","limit"],"msg":"too big"},{"loc":["query","q"],"msg":"bad"}]}`)); got != "body.limit: too big; query.q: bad" {
		t.Errorf("errorDetail of a validation list = %q", got)
	}
}

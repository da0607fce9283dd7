package meilisearch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/meilisearch"
)

// A malformed search body is an error, never a panic, a parsed one never
// has more than k hits, and ParseSearch's own walk of the body reads what
// encoding/json reads (referenceParse).
func FuzzParseSearch(f *testing.F) {
	for _, seed := range []string{
		`{"hits":[{"id":"1"},{"id":2}],"estimatedTotalHits":2,"limit":10,"offset":0,"processingTimeMs":0,"query":"x"}`,
		`{"hits":[],"totalHits":0}`,
		`{"hits":[{"id":"p1","_vectors":{"e":[0.1,-2e-3]}}],"estimatedTotalHits":41,"semanticHitCount":1}`,
		`{"hits":[{"id":1.5}]}`,
		`{"hits":[{"name":"no id"}]}`,
		`{"hits":null}`,
		`{"hits":{"id":"1"}}`,
		`{"hits":[null]}`,
		`{"estimatedTotalHits":"many"}`,
		`[1,2]`,
		`null`,
		``,
		`{"hits":[{"id":"` + strings.Repeat("9", 400) + `"}]}`,
		`{"hits":5,"hits":[{"id":-0,"id":"\u00e9"}],"totalHits":null,"estimatedTotalHits":3}`,
		" {\"x\":[{\"a\":[1,\"]\"]},true,null],\"hits\" :\t[ {\"id\":\"\\\"\\\\\"} ] } ",
		// What the validating pass must refuse or accept as encoding/json does.
		`{"hits":[],"x":01}`, `{"hits":[],"x":1.}`, `{"hits":[],"x":-}`, `{"hits":[],"x":1e}`, `{"hits":[],"x":-0.5e+7}`,
		`{"hits":[],"x":"\u12g4"}`, `{"hits":[],"x":"\q"}`, "{\"hits\":[],\"x\":\"\t\"}", "{\"hits\":[],\"x\":\"\xff\"}",
		`{"hits":[]} x`, `{"hits":[],}`, `{"hits":[] "x":1}`, `{"hits":[1,]}`, `{"hits":[],"x":tru}`, `{"hits":[],"x":nul}`,
		`{"hits":[],"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"hits":[],"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		h, err := meilisearch.ParseSearch(body, k)
		if err == nil && len(h.IDs) > k {
			t.Fatalf("%d hits for k=%d accepted", len(h.IDs), k)
		}
		want, wantErr := referenceParse(body, k)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: ParseSearch %+v, %v; encoding/json %+v, %v", body, h, err, want, wantErr)
		}
		if err == nil && (!slices.Equal(h.IDs, want.IDs) || h.Total != want.Total) {
			t.Fatalf("%q: ParseSearch %+v; encoding/json %+v", body, h, want)
		}
	})
}

// referenceParse is ParseSearch's contract written with encoding/json maps
// (exact keys, the last of a repeated key counts): the fuzz target checks
// the hand-written walk against it.
func referenceParse(body []byte, k int) (engines.Hits, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return engines.Hits{}, err
	}
	raw, ok := top["hits"]
	if !ok || string(raw) == "null" {
		return engines.Hits{}, errors.New("no hits")
	}
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &hits); err != nil {
		return engines.Hits{}, err
	}
	if len(hits) > k {
		return engines.Hits{}, errors.New("too many")
	}
	h := engines.Hits{IDs: []string{}, Total: -1}
	for _, hit := range hits {
		id, ok := hit["id"]
		var s string
		var n int64
		switch {
		case !ok:
			return engines.Hits{}, errors.New("no id")
		case json.Unmarshal(id, &s) == nil && id[0] == '"':
			h.IDs = append(h.IDs, s)
		case json.Unmarshal(id, &n) == nil && !bytes.ContainsAny(id, ".eE"):
			h.IDs = append(h.IDs, string(id)) // as sent: -0 stays -0
		default:
			return engines.Hits{}, errors.New("bad id")
		}
	}
	for _, key := range []string{"totalHits", "estimatedTotalHits"} { // the second wins
		raw, ok := top[key]
		if !ok {
			continue
		}
		var n *int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return engines.Hits{}, err
		}
		if n != nil {
			h.Total = *n
		}
	}
	return h, nil
}

// Whatever a server answers — any status, any body — every call returns
// (an error or a result) without panicking.
func FuzzServerAnswers(f *testing.F) {
	enginetest.FuzzServerAnswers(f, answers)
}

// Each unexpected status fails in the class it does for every HTTP driver.
func TestStatusClasses(t *testing.T) {
	enginetest.StatusClasses(t, answers)
}

var answers = enginetest.Answers{
	Driver:  "meilisearch",
	Config:  engines.Config{WriteMode: engines.Searchable},
	Good:    goodAnswer,
	Timeout: 500 * time.Millisecond,
	Seeds: []enginetest.Answer{
		{Status: 202, Body: `{"taskUid":1,"indexUid":"x","status":"enqueued","type":"indexCreation"}`},
		{Status: 200, Body: `{"uid":1,"status":"succeeded","details":{"deletedDocuments":0}}`},
		{Status: 200, Body: `{"uid":1,"status":"failed","error":{"message":"m","code":"internal","type":"internal","link":"l"}}`},
		{Status: 200, Body: `{"uid":1,"status":"weird"}`},
		{Status: 200, Body: `{"uid":1}`},
		{Status: 200, Body: `{"results":[{"uid":3,"status":"failed"}],"total":1}`},
		{Status: 200, Body: `{"numberOfDocuments":"x"}`},
		{Status: 404, Body: `{"message":"Index x not found.","code":"index_not_found","type":"invalid_request","link":"l"}`},
		{Status: 503, Body: `not json`},
		{Status: 500, Body: ``},
		{Status: 202, Body: `{"taskUid":"one"}`},
		{Status: 200, Body: `{"hits":[{"id":{}}]}`},
		{Status: 200, Body: `{"id":"1","name":"x","content":null}`},
		{Status: 200, Body: `{"id":"2","name":5}`},
	},
	Missing:    &enginetest.Answer{Status: 404, Body: `{"message":"Document ` + "`1`" + ` not found.","code":"document_not_found","type":"invalid_request","link":"l"}`},
	GetMissing: &enginetest.Answer{Status: 404, Body: `{"message":"Document ` + "`1`" + ` not found.","code":"document_not_found","type":"invalid_request","link":"l"}`},
}

// goodAnswer is a well-formed Meilisearch answer for the routes Open and
// Create use.
func goodAnswer(r *http.Request) (int, []byte) {
	switch {
	case r.URL.Path == "/version":
		return 200, []byte(`{"pkgVersion":"1.37.0"}`)
	case strings.HasPrefix(r.URL.Path, "/tasks/"):
		return 200, []byte(`{"uid":1,"status":"succeeded"}`)
	}
	return 202, []byte(`{"taskUid":1,"status":"enqueued"}`)
}

// What ParseSearch reads from each shape of answer.
func TestParseSearchShapes(t *testing.T) {
	for _, c := range []struct {
		body  string
		ids   string // comma-joined; "error" for an error
		total int64
	}{
		{`{"hits":[{"id":"1"},{"id":2}],"estimatedTotalHits":2,"limit":10,"offset":0,"processingTimeMs":0,"query":"x"}`, "1,2", 2},
		{`{"hits":[{"id":"a-b_C","name":"x"}],"totalHits":7}`, "a-b_C", 7},
		// A hybrid or semantic answer (Meilisearch 1.37): the extra
		// semanticHitCount, and hits that may carry _rankingScore or
		// _vectors when asked, are skipped.
		{`{"hits":[{"id":"p1","_rankingScore":0.93,"_vectors":{"embedding":[0.1,-2e-3]}},{"id":"p3"}],"query":"","processingTimeMs":1,"limit":2,"offset":0,"estimatedTotalHits":41,"semanticHitCount":2}`, "p1,p3", 41},
		{`{"hits":[{"id":"\u0031\""}]}`, "1\"", -1},
		{`{"hits":[{"id":-12}],"estimatedTotalHits":1,"totalHits":9}`, "-12", 1},
		{`{"hits":[]}`, "", -1},
		{`{"hits":[{"id":1.5}]}`, "error", 0},
		{`{"hits":[{"id":1e3}]}`, "error", 0},
		{`{"hits":[{"id":null}]}`, "error", 0},
		{`{"hits":[{"id":{}}]}`, "error", 0},
		{`{"hits":[{"id":["1"]}]}`, "error", 0},
		{`{"hits":[{"name":"no id"}]}`, "error", 0},
		{`{"hits":[null]}`, "error", 0},
		{`{"hits":null}`, "error", 0},
		{`{"hits":{"id":"1"}}`, "error", 0},
		{`{"hits":[{"id":"1"}]`, "error", 0},
		{`{"estimatedTotalHits":3}`, "error", 0},
		{`{"hits":[{"id":"1"},{"id":"2"},{"id":"3"}]}`, "error", 0}, // more than k=2
	} {
		h, err := meilisearch.ParseSearch([]byte(c.body), 2)
		if c.ids == "error" {
			if err == nil {
				t.Errorf("%s: %+v, want an error", c.body, h)
			}
			continue
		}
		if err != nil || strings.Join(h.IDs, ",") != c.ids || h.Total != c.total {
			t.Errorf("%s: %+v, %v; want ids %s total %d", c.body, h, err, c.ids, c.total)
		}
	}
	// Beyond the 64 ids that share one allocation, escaped ids among them.
	var hits, want []string
	for i := range 70 {
		id := strconv.Itoa(i)
		switch i % 3 {
		case 0:
			hits = append(hits, fmt.Sprintf(`{"id":"%d"}`, i))
		case 1:
			hits = append(hits, fmt.Sprintf(`{"id":%d}`, i))
		default:
			hits, id = append(hits, fmt.Sprintf(`{"id":"\u00e9%d"}`, i)), "é"+id
		}
		want = append(want, id)
	}
	h, err := meilisearch.ParseSearch([]byte(`{"hits":[`+strings.Join(hits, ",")+`]}`), 100)
	if err != nil || !slices.Equal(h.IDs, want) {
		t.Errorf("70 hits: %q, %v; want %q", h.IDs, err, want)
	}
}

// BenchmarkParseSearch reads a search answer of 10 ids, as Meilisearch
// sends it: the driver's share of every search.
func BenchmarkParseSearch(b *testing.B) {
	var hits []string
	for i := range 10 {
		hits = append(hits, fmt.Sprintf(`{"id":"%d"}`, 1000+i))
	}
	body := []byte(`{"hits":[` + strings.Join(hits, ",") + `],"query":"lorem ipsum dolor","processingTimeMs":1,"limit":10,"offset":0,"estimatedTotalHits":2417}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := meilisearch.ParseSearch(body, 10); err != nil {
			b.Fatal(err)
		}
	}
}

package elasticsearch_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/elasticsearch"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// Every response parser has a fuzz target: a malformed body is an error,
// never a panic, and what a parser accepts keeps its promises. Run one with
// go test -fuzz FuzzParseSearch -fuzztime 30s ./engines/elasticsearch/

// addSeeds adds the bodies shared by every target: the shapes a broken
// server or proxy sends.
func addSeeds(f *testing.F, add func(string)) {
	for _, s := range []string{``, `null`, `[]`, `[1,2]`, `"x"`, `{}`, `{"error":{"type":"x","reason":"y"},"status":500}`,
		`<html><body>502 Bad Gateway</body></html>`, `{"_shards":null}`, `{"_shards":{"total":"1"}}`,
		`{"_shards":{"total":1,"successful":0,"failed":0}}`, `{"_shards":{"failed":1,"failures":[null]}}`,
		`{"_shards":{"failed":-1}}`, strings.Repeat(`{"a":`, 200)} {
		add(s)
	}
}

func FuzzParseSearch(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s), 10) })
	for _, s := range []string{
		`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1.5,"hits":[{"_index":"i","_id":"1","_score":1.5},{"_index":"i","_id":"2","_score":1}]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":10000,"relation":"gte"},"hits":[{"_id":"1"}]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[null]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[{"_id":1}]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":-1,"relation":"eq"},"hits":[]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":0,"relation":"eq"},"hits":[{"_id":"1"}]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":{"value":1,"relation":"lt"},"hits":[]}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"total":5,"hits":[]}}`,
		`{"timed_out":true,"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[]}}`,
		`{"_shards":{"total":1,"successful":0,"failed":1,"failures":[{"reason":{"type":"es_rejected_execution_exception","reason":"full"}}]}}`,
	} {
		f.Add([]byte(s), 10)
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, body []byte, k int) {
		h, err := elasticsearch.ParseSearch(body, k)
		if err != nil {
			return
		}
		if len(h.IDs) > k {
			t.Fatalf("%d hits for k=%d accepted", len(h.IDs), k)
		}
		if h.Total != -1 && h.Total < int64(len(h.IDs)) {
			t.Fatalf("total %d below %d hits accepted", h.Total, len(h.IDs))
		}
	})
}

func FuzzParseBulk(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s), uint8(2)) })
	for _, s := range []string{
		`{"took":3,"errors":false,"items":[{"index":{"_index":"i","_id":"1","_version":1,"result":"created","status":201}},{"index":{"_id":"2","status":200}}]}`,
		`{"errors":true,"items":[{"index":{"_id":"1","status":429,"error":{"type":"es_rejected_execution_exception","reason":"full"}}},{"index":{"_id":"2","status":201}}]}`,
		`{"errors":true,"items":[{"index":{"_id":"1","status":400,"error":{"type":"strict_dynamic_mapping_exception","reason":"x"}}},{"index":{"_id":"2","status":429}}]}`,
		`{"errors":false,"items":[{"index":null},{"index":{"_id":"2","status":201}}]}`,
		`{"errors":false,"items":[{},{"index":{"_id":"2","status":201}}]}`,
		`{"errors":false,"items":[{"index":{"_id":"1","status":201},"delete":{}},{"index":{"_id":"2","status":201}}]}`,
		`{"errors":false,"items":[null,null]}`,
		`{"errors":"no","items":{}}`,
	} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, body []byte, n uint8) {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprint(i + 1)
		}
		if err := elasticsearch.ParseBulk(body, ids); err == nil && n > 0 && !strings.Contains(string(body), `"`+ids[n-1]+`"`) {
			t.Fatalf("a bulk response without the last id %s accepted", ids[n-1])
		}
	})
}

func FuzzParseWrite(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s)) })
	for _, s := range []string{
		`{"_index":"i","_id":"1","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1}`,
		`{"_index":"i","_id":"1","_version":2,"result":"not_found","_shards":{"total":1,"successful":1,"failed":0}}`,
		`{"result":"deleted","_shards":{"total":2,"successful":1,"failed":0}}`,
		`{"result":"updated","_shards":{"total":1,"successful":0,"failed":1,"failures":[{"reason":{"type":"x","reason":"y"}}]}}`,
		`{"result":"created"}`,
		`{"result":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, want := range [][]string{{"created", "updated"}, {"deleted"}, {"not_found"}} {
			_ = elasticsearch.ParseWrite(body, want...)
		}
	})
}

func FuzzParseCount(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s)) })
	for _, s := range []string{
		`{"count":3,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}`,
		`{"count":-3,"_shards":{"total":1,"successful":1,"failed":0}}`,
		`{"count":1e30,"_shards":{"total":1,"successful":1,"failed":0}}`,
		`{"count":"3","_shards":{"total":1,"successful":1,"failed":0}}`,
		`{"_shards":{"total":1,"successful":1,"failed":0}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if n, err := elasticsearch.ParseCount(body); err == nil && n < 0 {
			t.Fatalf("negative count %d accepted", n)
		}
	})
}

func FuzzParseInfo(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s)) })
	for _, s := range []string{
		`{"name":"n","cluster_name":"c","version":{"number":"8.19.6","build_flavor":"default"},"tagline":"You Know, for Search"}`,
		`{"version":{"number":""}}`,
		`{"version":{"number":8}}`,
		`{"version":null}`,
		`{"version":{"number":"` + strings.Repeat("9", 100) + `"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if v, err := elasticsearch.ParseInfo(body); err == nil && (v == "" || len(v) > 64) {
			t.Fatalf("version %q accepted", v)
		}
	})
}

func FuzzParseCreated(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s)) })
	for _, s := range []string{
		`{"acknowledged":true,"shards_acknowledged":true,"index":"i"}`,
		`{"acknowledged":true,"shards_acknowledged":false,"index":"i"}`,
		`{"acknowledged":false}`,
		`{"acknowledged":"true","shards_acknowledged":"true"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := elasticsearch.ParseCreated(body); err == nil && !strings.Contains(string(body), "true") {
			t.Fatalf("an index creation without acknowledgement accepted: %s", body)
		}
	})
}

func FuzzParseShardsOnly(f *testing.F) {
	addSeeds(f, func(s string) { f.Add([]byte(s)) })
	for _, s := range []string{
		`{"_shards":{"total":1,"successful":1,"failed":0}}`,
		`{"_shards":{"total":2,"successful":1,"failed":0}}`,
		`{"_shards":{"total":1,"successful":0,"failed":1,"failures":[{"shard":0,"index":"i","status":"INTERNAL_SERVER_ERROR","reason":{"type":"x","reason":"y"}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// encoding/json matches keys case-insensitively: "_SHARDS" is _shards.
		if err := elasticsearch.ParseShardsOnly(body); err == nil && !strings.Contains(strings.ToLower(string(body)), "_shards") {
			t.Fatalf("a response without _shards accepted: %s", body)
		}
	})
}

func FuzzParseGet(f *testing.F) {
	for _, status := range []int{200, 404} {
		addSeeds(f, func(s string) { f.Add(status, []byte(s)) })
	}
	for _, s := range []string{
		`{"_index":"i","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"name":"a","content":"b","tag":"t","price":1.5}}`,
		`{"_index":"i","_id":"1","found":false}`,
		`{"_id":"1","found":true,"_source":{"name":null,"price":"x"}}`,
		`{"_id":"1","found":true,"_source":{"name":["a","b"]}}`,
		`{"_id":"1","found":true,"_source":[]}`,
		`{"_id":1,"found":"true"}`,
	} {
		f.Add(200, []byte(s))
		f.Add(404, []byte(s))
	}
	schema := engines.Schema{Name: "i", Fields: []engines.FieldSpec{
		{Name: "name", Type: engines.Text}, {Name: "content", Type: engines.Text},
		{Name: "tag", Type: engines.Tag}, {Name: "price", Type: engines.Numeric},
	}}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		d, err := elasticsearch.ParseGet(status, body, "1", schema)
		if engines.Classify(err) == engines.NotFound && status != 404 {
			t.Fatalf("status %d classified not found", status)
		}
		if err != nil {
			return
		}
		if d.ID != "1" {
			t.Fatalf("document %q returned for id 1", d.ID)
		}
		// Only the schema's fields, each once, in schema order.
		next := 0
		for _, fld := range d.Fields {
			for next < len(schema.Fields) && schema.Fields[next].Name != fld.Name {
				next++
			}
			if next == len(schema.Fields) {
				t.Fatalf("fields %+v: not the schema's, in its order", d.Fields)
			}
			next++
		}
	})
}

func FuzzResponseError(f *testing.F) {
	addSeeds(f, func(s string) { f.Add(500, []byte(s)) })
	for _, s := range []struct {
		status int
		body   string
	}{
		{429, `{"error":{"root_cause":[{"type":"es_rejected_execution_exception","reason":"full"}],"type":"es_rejected_execution_exception","reason":"full"},"status":429}`},
		{429, `{"error":{"type":"cluster_block_exception","reason":"flood stage"},"status":429}`},
		{503, `{"error":{"type":"unavailable_shards_exception","reason":"primary not active"},"status":503}`},
		{404, `{"error":{"type":"index_not_found_exception","reason":"no such index [x]"},"status":404}`},
		{400, `{"error":"no handler found for uri [/x] and method [GET]","status":400}`},
		{401, `{"error":{"type":"security_exception","reason":"` + strings.Repeat("é", 400) + `"}}`},
		{504, ``},
		{408, `{"error":[1]}`},
	} {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		err := elasticsearch.ResponseError(status, body)
		if err == nil || err.Error() == "" {
			t.Fatalf("status %d: no error", status)
		}
		if c := engines.Classify(err); (status == 503 && c != engines.Overloaded) || ((status == 408 || status == 504) && c != engines.Timeout) {
			t.Fatalf("status %d classified %s", status, c)
		}
		if len(err.Error()) > 1000 {
			t.Fatalf("error message of %d bytes: a server's text is not clipped", len(err.Error()))
		}
	})
}

// Whatever a server answers — any status, any body — every call returns an
// error or a result without panicking.
func FuzzServerAnswers(f *testing.F) {
	enginetest.FuzzServerAnswers(f, enginetest.Answers{
		Driver:  "elasticsearch",
		Config:  engines.Config{WriteMode: engines.Searchable},
		Good:    goodAnswer,
		Header:  http.Header{"X-Elastic-Product": {"Elasticsearch"}},
		Timeout: 2 * time.Second,
		Seeds: []enginetest.Answer{
			{Status: 200, Body: `{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[{"_id":"1"}]},"count":1,"result":"created","errors":false,"items":[{"index":{"_id":"1","status":201}}],"version":{"number":"8.19.6"}}`},
			{Status: 201, Body: `{"result":"created","_shards":{"total":1,"successful":1,"failed":0}}`},
			{Status: 404, Body: `{"result":"not_found"}`},
			{Status: 404, Body: `{"error":{"type":"index_not_found_exception","reason":"no such index"},"status":404}`},
			{Status: 429, Body: `{"error":{"type":"es_rejected_execution_exception","reason":"full"},"status":429}`},
			{Status: 503, Body: `not json`},
			{Status: 500, Body: ``},
			{Status: 200, Body: `{"hits":{"hits":[{"_id":{}}]}}`},
		},
	})
}

// goodAnswer is a well-formed Elasticsearch answer for the requests Open
// and Create send.
func goodAnswer(r *http.Request) (int, []byte) {
	switch {
	case r.URL.Path == "/":
		return 200, []byte(`{"version":{"number":"8.19.6"}}`)
	case r.Method == http.MethodDelete:
		return 404, []byte(`{"error":{"type":"index_not_found_exception","reason":"no such index [fuzz]"},"status":404}`)
	}
	return 200, []byte(`{"acknowledged":true,"shards_acknowledged":true,"index":"fuzz"}`)
}

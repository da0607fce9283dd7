package elasticsearch_test

import (
	"net/http"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest"
)

// Each unexpected status fails in the class it does for every HTTP driver;
// a delete's 404 with result "not_found" is a missing document.
func TestStatusClasses(t *testing.T) {
	enginetest.StatusClasses(t, enginetest.Answers{
		Driver:  "elasticsearch",
		Header:  http.Header{"X-Elastic-Product": {"Elasticsearch"}},
		Good:    goodAnswer, // fuzz_test.go
		Missing: &enginetest.Answer{Status: 404, Body: `{"_index":"fuzz","_id":"1","_version":1,"result":"not_found","_shards":{"total":1,"successful":1,"failed":0}}`},
	})
}

package elasticsearch_test

import (
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
)

// TestMain checks every request this package's tests make the driver send
// to the fake, and every answer the fake gives, against Elasticsearch's
// published OpenAPI document (package apispec).
func TestMain(m *testing.M) {
	os.Exit(apispec.Main(m, apispec.Elasticsearch,
		apispec.Allow{Operation: "indices-create", Contains: `property "number_of_shards" is not declared by indices._types.IndexSettings`,
			Reason: "the serverless variant leaves out the settings only a self-managed cluster takes; the stack document (branch 8.17, the newest stored, indices._types:IndexSettings) declares number_of_shards"},
		apispec.Allow{Operation: "indices-create", Contains: `property "number_of_replicas" is not declared by indices._types.IndexSettings`,
			Reason: "as number_of_shards: the stack document (branch 8.17, indices._types:IndexSettings) declares number_of_replicas"},
	))
}

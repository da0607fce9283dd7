package elasticsearch_test

import (
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// The official image (docker.elastic.co/elasticsearch/elasticsearch:8.19.6,
// the launcher's definition) runs the same conformance suite, or the server
// named by SEARCHBENCH_ELASTICSEARCH_URL (with SEARCHBENCH_USERNAME and
// SEARCHBENCH_PASSWORD when it asks for them; see containertest.Server). It skips with one line where
// the image cannot be pulled.
func TestLive(t *testing.T) {
	url, _ := containertest.Server(t, "elasticsearch", container.Options{CPUs: 2})
	cfg := engines.Config{
		URL:      url,
		Username: os.Getenv("SEARCHBENCH_USERNAME"),
		Password: engines.Secret(os.Getenv("SEARCHBENCH_PASSWORD")),
	}
	// Searchable writes wait for the periodic refresh: 100ms keeps the
	// suite's concurrent phase to seconds instead of minutes.
	conformance(t, cfg, map[string]string{"refresh_interval": "100ms"})
}

package valkey_test

import (
	"time"

	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

func conformance(t *testing.T, url, password string, opts map[string]string) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			return open(t, engines.Config{URL: url, Password: engines.Secret(password), Options: opts})
		},
		Visibility: engines.Searchable,
	})
}

func TestConformanceFake(t *testing.T) {
	s := startFake(t, valkeyfake.Options{})
	conformance(t, s.URL(), "", nil)
}

// The same suite with the index work slowed down: a write must still be
// searchable when it returns, because the fake (like valkey-search) holds
// the reply until every matching index has applied it.
func TestConformanceFakeSlowIndexing(t *testing.T) {
	s := startFake(t, valkeyfake.Options{IndexDelay: 200 * time.Microsecond, WriterThreads: 1})
	conformance(t, s.URL(), "", map[string]string{"matching_indexes": "2"})
}

// The suite against the official bundle (Valkey 9.1.0 + valkey-search
// 1.2.0), wherever Docker can pull it.
func TestConformanceBundle(t *testing.T) {
	c := containertest.Start(t, "valkey", container.Options{CPUs: 2})
	conformance(t, c.URL, c.Secret, map[string]string{"reader_threads": "2", "writer_threads": "2"})
}

package valkey_test

import (
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
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

// conformanceContract is the engines' conformance suite as a contract: on
// the fake and on the module.
func conformanceContract(t *testing.T, tg target) { conformance(t, tg.url, tg.password, nil) }

// The same suite with the index work slowed down: a write must still be
// searchable when it returns, because the fake (like valkey-search) holds
// the reply until every matching index has applied it.
func TestConformanceFakeSlowIndexing(t *testing.T) {
	s := startFake(t, valkeyfake.Options{IndexDelay: 200 * time.Microsecond, WriterThreads: 1})
	conformance(t, s.URL(), "", map[string]string{"matching_indexes": "2"})
}

package valkey_test

import (
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// conformance runs the suite with the visibility the driver claims for
// opts (engines.WriteMode).
func conformance(t *testing.T, url, password string, opts map[string]string) {
	cfg := engines.Config{URL: url, Password: engines.Secret(password), Options: opts}
	enginetest.Run(t, enginetest.Options{
		Open:       func(t *testing.T) engines.Engine { return open(t, cfg) },
		Visibility: engines.WriteMode("valkey", cfg),
	})
}

// conformanceContract is the engines' conformance suite as a contract: on
// the fake and on the module.
func conformanceContract(t *testing.T, tg target) { conformance(t, tg.url, tg.password, nil) }

// The same suite with the index work slowed down: under one index a write
// must still be searchable when it returns, as the fake (like
// valkey-search) holds the reply until the index has applied it; under
// two the fake, as the module may, replies once the first index has it,
// the writes are acknowledged and the suite's Refresh waits for the
// other (settings.writeMode).
func TestConformanceFakeSlowIndexing(t *testing.T) {
	s := startFake(t, valkeyfake.Options{IndexDelay: 200 * time.Microsecond, WriterThreads: 1})
	for _, matching := range []string{"1", "2"} {
		t.Run("matching_indexes="+matching, func(t *testing.T) {
			conformance(t, s.URL(), "", map[string]string{"matching_indexes": matching})
		})
	}
}

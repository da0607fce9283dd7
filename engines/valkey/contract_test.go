package valkey_test

import (
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/engines/valkey/valkeytest"
)

// contracts are what the driver's tests assert of the server, each run
// against the wire-contract fake (TestContracts) and against valkey-search
// itself (TestContractsModule): an assertion that holds on the fake and
// fails on the module is a difference of the fake's, to be fixed there.
// fake is the fake's configuration for the contract.
var contracts = []struct {
	name string
	fake valkeyfake.Options
	run  func(*testing.T, target)
}{
	{"Conformance", valkeyfake.Options{}, conformanceContract},
	{"ProductQueries", valkeyfake.Options{}, productQueries},
	{"HybridPair", valkeyfake.Options{}, hybridPair},
	{"FieldsOption", valkeyfake.Options{}, fieldsOption},
	// The fake's index work slowed, so that its queues can be seen filling.
	{"Presets", valkeyfake.Options{IndexDelay: 2 * time.Millisecond, WriterThreads: 2}, presets},
	{"NoIndexPreset", valkeyfake.Options{}, noIndexPreset},
	{"ThreadsReachServer", valkeyfake.Options{}, threadsReachServer},
	{"TieredAllWordsFirst", valkeyfake.Options{}, tieredAllWordsFirst},
	{"StatsReportThreads", valkeyfake.Options{}, statsReportThreads},
	{"CheckQueryAgreesWithSearch", valkeyfake.Options{}, checkQueryAgreesWithSearch},
	{"MaxIndexesAttached", valkeyfake.Options{}, maxIndexesAttached},
	{"CreateCountsOtherIndexes", valkeyfake.Options{}, createCountsOtherIndexes},
	{"SaturatedTotals", valkeyfake.Options{}, saturatedTotals},
	{"TagFieldsExplicit", valkeyfake.Options{}, tagFieldsExplicit},
	{"Get", valkeyfake.Options{}, getProductsContract},
	{"AttachLayouts", valkeyfake.Options{}, attachLayouts},
	{"Knob", valkeyfake.Options{}, knobContract},
	{"Metrics", valkeyfake.Options{}, metricsContract},
}

func TestContracts(t *testing.T) {
	for _, c := range contracts {
		t.Run(c.name, func(t *testing.T) { c.run(t, fakeTargetWith(t, c.fake)) })
	}
}

// TestContractsModule holds the fake to the module: every contract against
// valkey-search 1.2.1 (the launcher's image, 2 CPUs; or the server
// SEARCHBENCH_VALKEY_URL names), on a server emptied before each.
func TestContractsModule(t *testing.T) {
	tg := moduleTarget(t)
	for _, c := range contracts {
		t.Run(c.name, func(t *testing.T) { c.run(t, tg.again(t)) })
	}
}

// moduleTarget is valkey-search in the launcher's container with a 2-CPU
// limit (its pools sized to it), or the server SEARCHBENCH_VALKEY_URL
// names; the test is skipped, in one line, without Docker.
func moduleTarget(t *testing.T) target {
	t.Helper()
	m := valkeytest.StartModule(t, 2)
	tg := target{url: m.URL, addr: m.Addr, password: m.Secret}
	tg.again = func(t *testing.T) target {
		t.Helper()
		m.Empty(t)
		return tg
	}
	return tg
}

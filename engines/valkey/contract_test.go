package valkey_test

import (
	"context"
	"strings"
	"testing"
	"time"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
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

// moduleSettings are the module settings the contracts change, put back
// as they were when the server started before each contract.
var moduleSettings = []string{
	"search.max-indexes", "search.max-nonvector-search-results-fetched",
	"search.reader-threads", "search.writer-threads", "search.info-developer-visible",
}

// moduleTarget is valkey-search in the launcher's container with a 2-CPU
// limit (its pools sized to it), or the server SEARCHBENCH_VALKEY_URL
// names; the test is skipped, in one line, without Docker.
func moduleTarget(t *testing.T) target {
	t.Helper()
	url, secret := containertest.Server(t, "valkey", container.Options{CPUs: 2})
	tg := target{url: url, addr: strings.TrimPrefix(url, "redis://"), password: secret}
	raw := rawClient(t, tg.addr, secret)
	start, err := raw.Do(context.Background(), raw.B().ConfigGet().Parameter(moduleSettings...).Build()).AsStrMap()
	if err != nil || len(start) != len(moduleSettings) {
		t.Fatalf("CONFIG GET %v = %v, %v; is the search module loaded?", moduleSettings, start, err)
	}
	tg.again = func(t *testing.T) target {
		t.Helper()
		emptyModule(t, raw, start)
		return tg
	}
	return tg
}

// emptyModule drops every index, deletes every key and puts the settings
// back to start.
func emptyModule(t *testing.T, raw vk.Client, start map[string]string) {
	t.Helper()
	ctx := context.Background()
	names, err := raw.Do(ctx, raw.B().Arbitrary("FT._LIST").Build()).AsStrSlice()
	if err != nil {
		t.Fatalf("FT._LIST: %v", err)
	}
	for _, n := range names {
		if err := raw.Do(ctx, raw.B().Arbitrary("FT.DROPINDEX").Args(n).Build()).Error(); err != nil {
			t.Fatalf("FT.DROPINDEX %s: %v", n, err)
		}
	}
	// Every key, page by page (SCAN and UNLINK rather than FLUSHALL, so
	// that the same reset runs on a fake named by SEARCHBENCH_VALKEY_URL):
	// SCAN returns every key present from the first call to the last.
	for cursor := uint64(0); ; {
		entry, err := raw.Do(ctx, raw.B().Scan().Cursor(cursor).Count(1000).Build()).AsScanEntry()
		if err != nil {
			t.Fatalf("SCAN: %v", err)
		}
		if len(entry.Elements) > 0 {
			if err := raw.Do(ctx, raw.B().Unlink().Key(entry.Elements...).Build()).Error(); err != nil {
				t.Fatalf("UNLINK: %v", err)
			}
		}
		if cursor = entry.Cursor; cursor == 0 {
			break
		}
	}
	for _, name := range moduleSettings {
		if err := raw.Do(ctx, raw.B().ConfigSet().ParameterValue().ParameterValue(name, start[name]).Build()).Error(); err != nil {
			t.Fatalf("CONFIG SET %s %s: %v", name, start[name], err)
		}
	}
}

package valkeytest

import (
	"context"
	"strings"
	"testing"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	// The launcher's definition of "valkey": its image and recipe.
	_ "github.com/searchbench/searchbench/engines/valkey"
)

// Module is a Valkey server with the valkey-search module for a live test.
type Module struct {
	URL, Addr, Secret string
	raw               vk.Client
	start             map[string]string
}

// ModuleSettings are the module settings tests change; Empty puts them
// back as they were when the server started.
var ModuleSettings = []string{
	"search.max-indexes", "search.max-nonvector-search-results-fetched",
	"search.reader-threads", "search.writer-threads", "search.info-developer-visible",
}

// StartModule is valkey-search in the launcher's container (the official
// bundle, or the image its recipe builds where that cannot be pulled) with
// a limit of cpus CPUs, its thread pools sized to it, removed when the test
// ends; or the server SEARCHBENCH_VALKEY_URL names. Without Docker, or
// without either image, the test is skipped with one line: a test never
// builds the recipe's image (about 25 minutes, past go test's default
// timeout, which would leave the build running orphaned) —
// `bash compose/images/valkey/build.sh` does, or the image test
// (compose/images TestValkeySearchImage).
func StartModule(t *testing.T, cpus float64) *Module {
	t.Helper()
	url, secret := containertest.Server(t, "valkey", container.Options{CPUs: cpus, NoBuild: true})
	m := &Module{URL: url, Addr: strings.TrimPrefix(url, "redis://"), Secret: secret}
	raw, err := vk.NewClient(vk.ClientOption{InitAddress: []string{m.Addr}, Password: secret, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	m.raw = raw
	m.start, err = raw.Do(context.Background(), raw.B().ConfigGet().Parameter(ModuleSettings...).Build()).AsStrMap()
	if err != nil || len(m.start) != len(ModuleSettings) {
		t.Fatalf("CONFIG GET %v = %v, %v; is the search module loaded?", ModuleSettings, m.start, err)
	}
	return m
}

// Empty drops every index, deletes every key and puts ModuleSettings back
// to their values at the start, so that each test finds the server as it
// started.
func (m *Module) Empty(t testing.TB) {
	t.Helper()
	ctx, raw := context.Background(), m.raw
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
	for _, name := range ModuleSettings {
		if err := raw.Do(ctx, raw.B().ConfigSet().ParameterValue().ParameterValue(name, m.start[name]).Build()).Error(); err != nil {
			t.Fatalf("CONFIG SET %s %s: %v", name, m.start[name], err)
		}
	}
}

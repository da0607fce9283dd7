package valkeytest

import (
	"testing"

	vk "github.com/valkey-io/valkey-go"
)

// Client is a valkey-go client on one connection, closed when the test
// ends, for a test that reads what it has just written.
//
// valkey-search indexes a write on its writer threads and holds the
// writing connection, not the server, until it has (it blocks the client
// from the keyspace notification: src/index_schema.cc, TrackMutatedRecord,
// 1.2.1), and the write's reply is sent before that. valkey-go spreads
// keyed commands over 2^PipelineMultiplex connections at random and sends
// a keyless one (FT.SEARCH) on the first (mux.go, slotfn, v1.0.80), so a
// search after a DEL on another connection may run before the DEL is
// indexed. One connection keeps a test's commands in order behind it.
func Client(t testing.TB, addr, password string, resp2 bool) vk.Client {
	t.Helper()
	c, err := vk.NewClient(vk.ClientOption{
		InitAddress: []string{addr}, Password: password, DisableCache: true,
		ForceSingleClient: true, PipelineMultiplex: -1, AlwaysRESP2: resp2,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

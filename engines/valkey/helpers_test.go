package valkey_test

import (
	"context"
	"testing"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/engines/valkey/valkeytest"
)

// startFake starts a wire-contract fake for one test.
func startFake(t *testing.T, opts valkeyfake.Options) *valkeyfake.Server {
	t.Helper()
	s, err := valkeyfake.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// target is a server the contract tests run against: the wire-contract
// fake, or valkey-search itself (moduleTarget). fake is nil for the module.
type target struct {
	url, addr, password string
	fake                *valkeyfake.Server
	// again gives the same kind of target with nothing on it: a new fake,
	// or the module's server emptied (no index, no key, its settings as
	// they were at the start), for a contract that needs a second one.
	again func(t *testing.T) target
}

func fakeTarget(t *testing.T) target { return fakeTargetWith(t, valkeyfake.Options{}) }

func fakeTargetWith(t *testing.T, opts valkeyfake.Options) target {
	s := startFake(t, opts)
	return target{url: s.URL(), addr: s.Addr(), fake: s, again: func(t *testing.T) target { return fakeTargetWith(t, opts) }}
}

func (tg target) open(t *testing.T, opts map[string]string) engines.Engine {
	t.Helper()
	return open(t, engines.Config{URL: tg.url, Password: engines.Secret(tg.password), Options: opts})
}

func (tg target) raw(t *testing.T) vk.Client {
	t.Helper()
	return rawClient(t, tg.addr, tg.password)
}

// open opens the driver; it fails the test on error.
func open(t *testing.T, cfg engines.Config) engines.Engine {
	t.Helper()
	e, err := engines.Open(context.Background(), "valkey", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// rawClient is a plain valkey-go client for looking at what the driver did.
func rawClient(t *testing.T, addr, password string) vk.Client {
	t.Helper()
	c, err := vk.NewClient(vk.ClientOption{InitAddress: []string{addr}, Password: password, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func do(t *testing.T, c vk.Client, args ...string) vk.ValkeyResult {
	t.Helper()
	return c.Do(context.Background(), c.B().Arbitrary(args[0]).Args(args[1:]...).Build())
}

// realServer starts Debian's valkey-server (a real Valkey without the
// search module) for one test.
func realServer(t *testing.T, extra ...string) string { return valkeytest.Server(t, extra...) }

func vkToVector32(s string) []float32 { return vk.ToVector32(s) }

package valkey_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
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
// search module) on a free port below 32768 and stops it at cleanup. A
// missing binary fails the test: CI installs it.
func realServer(t *testing.T, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("valkey-server")
	if err != nil {
		t.Fatal("valkey-server not found: install it with `apt-get install -y -t bookworm-backports valkey-server` (bookworm-backports in the apt sources)")
	}
	port := freePort(t)
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir()}, extra...)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("valkey-server on %s did not start: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort finds a free TCP port in 20000–32767 (the machine's rule: below
// 32768).
func freePort(t *testing.T) int {
	t.Helper()
	for p := 20000 + int(time.Now().UnixNano()%10000); p < 32768; p++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			l.Close()
			return p
		}
	}
	t.Fatal("no free port below 32768")
	return 0
}

func vkToVector32(s string) []float32 { return vk.ToVector32(s) }

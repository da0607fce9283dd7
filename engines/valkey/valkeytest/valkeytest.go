// Package valkeytest starts a real Valkey for tests: Debian's
// valkey-server (bookworm-backports, 8.0, without the search module), on a
// free port below 32768 (found as the fake finds its own), stopped when the
// test ends. The Valkey driver's
// tests and the command's end-to-end tests share it.
package valkeytest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// Server starts valkey-server with persistence off and returns its
// host:port. extra are further server flags (--requirepass …). A missing
// binary fails the test: CI installs it.
func Server(t testing.TB, extra ...string) string {
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

// freePort is a port below 32768 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := valkeyfake.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

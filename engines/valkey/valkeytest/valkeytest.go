// Package valkeytest starts a real Valkey for tests: Debian's
// valkey-server (bookworm-backports, 8.0, without the search module), on a
// free port below 32768 (found as the fake finds its own), stopped when the
// test ends. The Valkey driver's tests and the command's end-to-end tests
// share it.
package valkeytest

import (
	"errors"
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
	return Start(t, extra...).Addr
}

// Process is a running valkey-server that a fault test can kill and start
// again on the same port.
type Process struct {
	Addr string
	args []string
	cmd  *exec.Cmd
}

// Start starts valkey-server as Server does and returns the process; it
// is stopped when the test ends.
func Start(t testing.TB, extra ...string) *Process {
	t.Helper()
	port := freePort(t)
	p := &Process{
		Addr: fmt.Sprintf("127.0.0.1:%d", port),
		args: append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir()}, extra...),
	}
	t.Cleanup(p.Kill)
	if err := p.Restart(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Kill kills the server with SIGKILL, as a crash would, and waits for it.
func (p *Process) Kill() {
	if p.cmd != nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		p.cmd = nil
	}
}

// Restart starts the server (again, after Kill) on its port, empty, and
// waits until it accepts connections. It may be called from any goroutine.
func (p *Process) Restart() error {
	bin, err := exec.LookPath("valkey-server")
	if err != nil {
		return errors.New("valkey-server not found: install it with `apt-get install -y -t bookworm-backports valkey-server` (bookworm-backports in the apt sources)")
	}
	p.Kill()
	p.cmd = exec.Command(bin, p.args...)
	if err := p.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", p.Addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("valkey-server on %s did not start: %w", p.Addr, err)
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

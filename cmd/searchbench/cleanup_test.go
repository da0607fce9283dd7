package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/container"
)

// A run that crashes (SIGKILL: nothing of its own runs after) leaves its
// container and no result file, not a truncated one. The next run warns
// about the leftover; `searchbench cleanup` removes it, found by its
// label, and then finds nothing more.
func TestCrashedRunIsCleanedUp(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	crashed := runName(dir)
	t.Cleanup(func() { // whatever happens below
		if pool, err := container.Pool(); err == nil {
			container.Cleanup(pool, crashed)
		}
	})
	p := startProcess(t, measuring, pgArgs(dir, "--measure", "10m", "--users", "2")...)
	p.cmd.Process.Kill()
	p.wait(t)
	if n := leftovers(t, crashed); n != 1 {
		t.Fatalf("%d containers of the crashed run; want the 1 it left", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "result.json")); !os.IsNotExist(err) {
		t.Errorf("the crashed run left a result.json (%v); it measured nothing to completion", err)
	}

	// The next run says so before it starts its own container (which
	// fails its readiness at once here: this test needs only the warning).
	next := t.TempDir()
	_, _, log := runCLI(t, context.Background(), pgArgs(next, "--ready-timeout", "1ms")...)
	if !strings.Contains(log, "container(s) of earlier searchbench runs are still there") || !strings.Contains(log, "searchbench cleanup") {
		t.Errorf("no warning about the leftover:\n%s", log)
	}
	if n := leftovers(t, runName(next)); n != 0 {
		t.Errorf("the next run left %d containers", n)
	}

	code, stdout, errOut := runCLI(t, context.Background(), "cleanup", "--run-name", crashed)
	if code != exitOK || !strings.HasPrefix(stdout, "removed 1 container(s): ") {
		t.Fatalf("cleanup: exit %d, %q %q", code, stdout, errOut)
	}
	if n := leftovers(t, crashed); n != 0 {
		t.Fatalf("%d containers left after cleanup", n)
	}
	if code, stdout, _ := runCLI(t, context.Background(), "cleanup", "--run-name", crashed); code != exitOK || stdout != "no searchbench containers found\n" {
		t.Errorf("second cleanup: exit %d, %q", code, stdout)
	}
}

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A destination that cannot be made is found by making it, not by looking
// at the nearest part of the path that exists: /proc is a directory, but
// nothing can be made in it, root or not. A check that passes leaves no
// trace of itself.
func TestCheckDirMakesTheDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/proc/x", "/proc/x cannot be made"},
		{"/proc/x/out", "/proc/x/out cannot be made"},
		{file, file + " is not a directory"},
		{filepath.Join(file, "x", "out"), "cannot be made"},
	} {
		err := CheckDir(c.path, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckDir(%s): %v; want an error saying %q", c.path, err, c.want)
		}
	}
	base := t.TempDir()
	for _, p := range []string{base, filepath.Join(base, "new", "results")} {
		if err := CheckDir(p, true); err != nil {
			t.Errorf("CheckDir(%s): %v", p, err)
		}
	}
	if entries, err := os.ReadDir(base); err != nil || len(entries) != 0 {
		t.Errorf("the checks left %v behind in %s (%v)", entries, base, err)
	}
}

// A directory is held by one LockDir at a time, even within one process
// (flock locks per open file); the one turned away learns the holder's
// pid. Once released, the lock file is gone and the directory can be taken
// again.
func TestLockDirHoldsTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	release, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir)
	want := fmt.Sprintf("%s is in use by another searchbench run (pid %d)", dir, os.Getpid())
	if err == nil || err.Error() != want {
		t.Errorf("second LockDir: %v; want %q", err, want)
	}
	release()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after release (%v)", err)
	}
	again, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir after release: %v", err)
	}
	again()
}

package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// checkWritableDir makes path and its missing parents, writes a file in it,
// and removes again what it made. Making it is the only sure test: walking
// up to the nearest existing parent passes /proc/x, and /etc/x/out for a
// user who may not write in /etc, and the run would learn only at its end.
// Leaving nothing behind keeps a dry run, or input rejected for another
// reason, from making directories.
func checkWritableDir(path string) error {
	path = filepath.Clean(path)
	var made []string // the directories that are not there yet, deepest first
	for p := path; p != filepath.Dir(p); p = filepath.Dir(p) {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, p)
	}
	defer func() {
		for _, d := range made {
			// Remove, not RemoveAll: another run may have begun using it.
			if os.Remove(d) != nil {
				break
			}
		}
	}()
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	if err := os.MkdirAll(path, 0o777); err != nil {
		return fmt.Errorf("%s cannot be made: %w", path, err)
	}
	f, err := os.CreateTemp(path, ".searchbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// LockFile is the file in an output directory that LockDir locks.
const LockFile = ".searchbench.lock"

// LockDir makes dir and takes it for this process until the returned
// function is called: two runs writing one directory at once would leave a
// mixture of their files (one's result.json beside the other's report).
// The lock is an flock on LockFile, which the kernel drops when the process
// dies however it dies, so a crashed run never blocks the next one. The
// file holds the holder's pid, for the message of the run turned away.
func LockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("%s cannot be made: %w", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				holder := ""
				// The holder writes its pid just after it locks: it may
				// not be there yet.
				if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b))); perr == nil {
					holder = fmt.Sprintf(" (pid %d)", pid)
				}
				return nil, fmt.Errorf("%s is in use by another searchbench run%s", dir, holder)
			}
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		// The holder before us removes the file before it unlocks; if it
		// did so after we opened it, our lock is on a file nobody else
		// will open, and a third run could lock the new one: start over.
		fi, ferr := f.Stat()
		pi, perr := os.Stat(path)
		if ferr != nil || perr != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
		}
		return func() {
			// Removed while still locked (see above), so the directory
			// holds only the run's outputs once it is done.
			os.Remove(path)
			f.Close()
		}, nil
	}
}

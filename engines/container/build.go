package container

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/searchbench/searchbench/engines/launch"
	"golang.org/x/sys/unix"
)

// Image returns the image Start would run for s with o — present, pulled,
// or built now from its recipe — without starting it.
func Image(ctx context.Context, s launch.Spec, o Options) (string, error) {
	pool, err := Pool()
	if err != nil {
		return "", err
	}
	return resolveImage(ctx, pool, s, o)
}

// resolveImage picks the image to run: an explicit one, the spec's official
// image if present or pullable, else the locally built fallback — built
// now by the spec's Recipe when it is absent too, unless o.NoBuild.
func resolveImage(ctx context.Context, pool *dockertest.Pool, s launch.Spec, o Options) (string, error) {
	explicit := o.Image
	try := func(image string) error {
		if _, err := pool.Client.InspectImage(image); err == nil {
			return nil
		}
		repo, tag, _ := strings.Cut(image, ":")
		if err := pool.Client.PullImage(dc.PullImageOptions{Repository: repo, Tag: tag}, dc.AuthConfiguration{}); err != nil {
			return fmt.Errorf("image %s is not present and cannot be pulled: %v", image, firstLine(err.Error()))
		}
		return nil
	}
	if explicit != "" {
		return explicit, try(explicit)
	}
	err := try(s.Image)
	if err == nil {
		return s.Image, nil
	}
	if s.Fallback == "" {
		return "", err
	}
	if _, ferr := pool.Client.InspectImage(s.Fallback); ferr == nil {
		return s.Fallback, nil
	}
	if s.Recipe == nil {
		return "", fmt.Errorf("%w; nor is the local %s", err, s.Fallback)
	}
	if o.NoBuild {
		return "", fmt.Errorf("%w; nor is the local %s (build it without --no-build, or with %s in searchbench's repository)", err, s.Fallback, s.Recipe.Command(s.Fallback))
	}
	logf := o.Log
	if logf == nil {
		logf = func(string) {}
	}
	if berr := build(ctx, pool, s, func() {
		logf(fmt.Sprintf("%s; building %s from searchbench's recipe %s (--no-build to stop this)", firstLine(err.Error()), s.Fallback, s.Recipe.Path))
	}, logf); berr != nil {
		return "", berr
	}
	return s.Fallback, nil
}

// buildTail is how many of a failed build's last log lines its error shows.
const buildTail = 10

// build runs s.Recipe, its output to logf line by line, and checks that it
// made s.Fallback. One build of a tag runs at a time on a machine: runs (or
// test packages) that start together wait for the first one's image rather
// than build it twice over each other's temporary tags; starting is called
// only when this process builds. On failure — the recipe's, or no image —
// the error is one line of reason followed by the log's last lines, and
// whatever image the build tagged is removed: nothing is left behind (the
// recipe cleans its own temporary files).
func build(ctx context.Context, pool *dockertest.Pool, s launch.Spec, starting func(), logf func(string)) error {
	unlock, err := lockBuild(ctx, s.Fallback)
	if err != nil {
		return fmt.Errorf("building %s: %w", s.Fallback, err)
	}
	defer unlock()
	if _, err := pool.Client.InspectImage(s.Fallback); err == nil {
		return nil // another process built it while this one waited
	}
	starting()
	dir, err := os.MkdirTemp("", "searchbench-recipe-")
	if err != nil {
		return fmt.Errorf("building %s: %w", s.Fallback, err)
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, s.Recipe.Files); err != nil {
		return fmt.Errorf("building %s: write the recipe: %w", s.Fallback, err)
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(dir, "build.sh"), s.Fallback)
	cmd.Dir = dir
	// Its own process group, so that a canceled run ends the whole recipe
	// (debootstrap, docker import), not just the shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &lineLog{log: logf}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	out.flush()
	if err == nil {
		if _, ierr := pool.Client.InspectImage(s.Fallback); ierr == nil {
			return nil
		}
		err = fmt.Errorf("it finished without making %s", s.Fallback)
	}
	_ = pool.Client.RemoveImageExtended(s.Fallback, dc.RemoveImageOptions{Force: true})
	msg := fmt.Sprintf("building %s from the recipe %s failed: %v", s.Fallback, s.Recipe.Path, firstLine(err.Error()))
	if tail := out.tail(); tail != "" {
		msg += "; its log's last lines:\n" + tail
	}
	return errors.New(msg)
}

// lockBuild takes the machine-wide lock on building tag: an flock on a file
// in the temporary directory, released by the kernel if the process dies.
// It waits until the lock is free or ctx ends.
func lockBuild(ctx context.Context, tag string) (func(), error) {
	name := strings.NewReplacer("/", "_", ":", "_").Replace(tag)
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "searchbench-build-"+name+".lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lineLog passes a command's output on line by line and keeps the last
// buildTail lines.
type lineLog struct {
	mu      sync.Mutex
	log     func(string)
	partial []byte
	last    []string
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *lineLog) line(s string) {
	s = strings.TrimRight(s, "\r")
	if s == "" {
		return
	}
	l.log(s)
	l.last = append(l.last, s)
	if len(l.last) > buildTail {
		l.last = l.last[1:]
	}
}

func (l *lineLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(string(l.partial))
	l.partial = nil
}

func (l *lineLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.last, "\n")
}

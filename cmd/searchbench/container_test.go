package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dc "github.com/ory/dockertest/v3/docker"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
)

// testRuns holds every run name the tests gave, for TestMain's last check.
var testRuns sync.Map

// runName is a run name unique to a test's directory.
func runName(dir string) string {
	name := "test-" + filepath.Base(filepath.Dir(dir)) + "-" + filepath.Base(dir)
	testRuns.Store(name, true)
	return name
}

// TestMain lets the test binary act as searchbench itself, so the interrupt
// test can send a real SIGINT to a real process. After the tests it fails
// the package if any run of theirs left a container, and removes it.
func TestMain(m *testing.M) {
	if os.Getenv("SEARCHBENCH_TEST_MAIN") == "1" {
		main()
		return
	}
	code := m.Run()
	if left := removeLeftovers(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: runs left containers behind (removed now): %s\n", strings.Join(left, ", "))
		code = max(code, 1)
	}
	os.Exit(code)
}

// removeLeftovers removes the containers of the tests' runs and names the
// runs that had any.
func removeLeftovers() []string {
	pool, err := container.Pool()
	if err != nil {
		return nil // no Docker: no test started a container
	}
	var left []string
	testRuns.Range(func(k, _ any) bool {
		name := k.(string)
		if removed, err := container.Cleanup(pool, name); len(removed) > 0 || err != nil {
			left = append(left, fmt.Sprintf("%s (%d, %v)", name, len(removed), err))
		}
		return true
	})
	return left
}

// needPostgres skips with one line where no PostgreSQL container can run
// (no Docker), and otherwise makes sure its image is here: pulled, or built
// from the launcher's recipe as a run would (once per machine, a few
// minutes), so that the runs the tests start find it.
func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := container.Pool(); err != nil {
		t.Skipf("postgres: %v", err)
	}
	spec, _ := launch.Lookup("postgres")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if _, err := container.Image(ctx, spec, container.Options{Log: func(l string) { t.Log(l) }}); err != nil {
		t.Fatalf("postgres image: %v", err)
	}
}

// startPostgres starts a PostgreSQL container for a test to attach to,
// labelled with a run name of the test's, and removes it when the test ends.
func startPostgres(t *testing.T) *container.Container {
	t.Helper()
	needPostgres(t)
	spec, _ := launch.Lookup("postgres")
	c, err := container.Start(context.Background(), spec, container.Options{ReadyTimeout: 90 * time.Second, Run: runName(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// process is searchbench as a child process (this test binary acting as
// it, see TestMain), so that a test can signal or kill a real process.
type process struct {
	cmd     *exec.Cmd
	stdout  strings.Builder
	log     strings.Builder // its stderr; whole once done is closed
	written time.Time       // when it said it wrote result.json; read once done is closed
	reached chan struct{}   // closed when a line of its stderr first holds the phrase
	done    chan struct{}   // closed when its stderr ends
}

// startProcess starts searchbench with args and waits, up to three minutes,
// for its stderr to show phrase.
func startProcess(t *testing.T, phrase string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(os.Args[0], args...), reached: make(chan struct{}), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "SEARCHBENCH_TEST_MAIN=1")
	p.cmd.Stdout = &p.stdout
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			p.log.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), phrase) {
				once = true
				close(p.reached)
			}
			if strings.Contains(sc.Text(), "result.json") {
				p.written = time.Now()
			}
		}
	}()
	select {
	case <-p.reached:
	case <-time.After(3 * time.Minute):
		p.cmd.Process.Kill()
		p.cmd.Wait()
		t.Fatalf("the run never wrote %q", phrase)
	}
	return p
}

// wait waits up to a minute for the process to end and returns how.
func (p *process) wait(t *testing.T) error {
	t.Helper()
	ended := make(chan error, 1)
	go func() {
		<-p.done // Wait closes the pipe: read it all first
		ended <- p.cmd.Wait()
	}()
	select {
	case err := <-ended:
		return err
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		t.Fatalf("searchbench did not end within a minute:\n%s", p.log.String())
		return nil
	}
}

// runContainers lists the containers of one named run (other packages'
// tests run containers of their own at the same time).
func runContainers(run string) ([]dc.APIContainers, error) {
	pool, err := container.Pool()
	if err != nil {
		return nil, err
	}
	return container.Leftovers(pool, run)
}

// leftovers counts the containers of one named run.
func leftovers(t *testing.T, run string) int {
	t.Helper()
	list, err := runContainers(run)
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func pgArgs(dir string, extra ...string) []string {
	return append([]string{"run", "--engine", "postgres", "--ids", "3000", "--users", "4,8", "--run-name", runName(dir),
		"--spawn-rate", "1000", "--settle", "200ms", "--measure", "1s", "--out", dir}, extra...)
}

func TestPostgresInACPULimitedContainer(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), pgArgs(dir, "--cpus", "1")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := readResult(t, dir)
	e := r.Engines[0]
	if e.Mode != "container" || e.CPULimit != 1 || e.Image == "" || e.ImageDigest == "" || !strings.HasPrefix(e.Version, "PostgreSQL") {
		t.Errorf("provenance: mode %q cpus %v image %q digest %q version %q", e.Mode, e.CPULimit, e.Image, e.ImageDigest, e.Version)
	}
	if !e.Preload.CountOK {
		t.Errorf("preload %+v", e.Preload)
	}
	if s, _ := e.Levels[1].Op("search"); s.Count == 0 || !strings.Contains(stdout, "| postgres") {
		t.Errorf("no searches measured:\n%s", stdout)
	}
	if n := leftovers(t, runName(dir)); n != 0 {
		t.Fatalf("%d containers of the run are left", n)
	}
	if strings.Contains(stderr+stdout, "password=") {
		t.Error("a password appears in the output")
	}
}

// --url attaches to a PostgreSQL that is already running: nothing is
// started or stopped.
func TestPostgresAttach(t *testing.T) {
	t.Parallel()
	c := startPostgres(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), pgArgs(dir, "--url", c.URL, "--password", c.Secret)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if r := readResult(t, dir); r.Engines[0].Mode != "attached" || r.Engines[0].Image != "" {
		t.Fatalf("mode %q image %q; want attached, no image", r.Engines[0].Mode, r.Engines[0].Image)
	}
	if st, err := c.HostConfig(); err != nil || st == nil {
		t.Fatalf("the attached container is gone: %v", err)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(out, c.Secret) {
			t.Errorf("%s shows the password", name)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	if strings.Contains(string(raw), c.Secret) {
		t.Error("result.json holds the password")
	}
}

// A signal to a real searchbench process — SIGINT (Ctrl-C) or SIGTERM, while
// the container starts, while it pre-populates or while it measures: the
// process stops within seconds, writes the partial result (marked partial)
// and the tables, removes its container and exits 1.
func TestInterruptRemovesTheContainer(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		at    string // the log line after which the signal is sent
		delay time.Duration
		ids   string
		stop  string // how the engine's error says it stopped; empty: no error, the level is partial
	}{
		{"SIGINT while measuring", syscall.SIGINT, measuring, time.Second, "3000", ""},
		{"SIGTERM while measuring", syscall.SIGTERM, measuring, time.Second, "3000", ""},
		{"SIGINT while the container starts", syscall.SIGINT, "starting a container", 300 * time.Millisecond, "3000", "postgres: context canceled"},
		{"SIGTERM while pre-populating", syscall.SIGTERM, "pre-populating", 200 * time.Millisecond, "100000", "pre-population interrupted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := startProcess(t, c.at, pgArgs(dir, "--ids", c.ids, "--measure", "10m", "--users", "4")...)
			time.Sleep(c.delay)
			if err := p.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			err := p.wait(t)
			// The load stops, the container goes and the result is written
			// within seconds (under a second here; 20 s allows for -race on
			// a loaded machine); the charts then take what they take.
			took := p.written.Sub(sent)
			t.Logf("result written %v after the signal, exit %v after it", took.Round(time.Millisecond), time.Since(sent).Round(time.Millisecond))
			if p.written.IsZero() || took > 20*time.Second {
				t.Errorf("searchbench took %v to stop and write its result after %v:\n%s", took, c.sig, p.log.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitFailed {
				t.Errorf("exit %v after %v; want code %d\n%s", err, c.sig, exitFailed, p.log.String())
			}
			r := readResult(t, dir)
			if !r.Partial || r.Reason != "interrupted" || len(r.Engines) != 1 {
				t.Fatalf("result partial %v reason %q engines %d", r.Partial, r.Reason, len(r.Engines))
			}
			if e := r.Engines[0]; !strings.HasPrefix(e.Error, c.stop) || (c.stop == "") != (len(e.Levels) == 1 && e.Levels[0].Partial) {
				t.Errorf("engine error %q, levels %+v; want the error to start %q, or the interrupted level marked partial", e.Error, e.Levels, c.stop)
			}
			tables, err := os.ReadFile(filepath.Join(dir, "tables.md"))
			if err != nil || !strings.Contains(p.stdout.String(), string(tables)) || !strings.Contains(string(tables), "partial") {
				t.Errorf("tables.md (%v) is not printed or not marked partial:\n%s", err, p.stdout.String())
			}
			if n := leftovers(t, runName(dir)); n != 0 {
				t.Fatalf("%d containers of the interrupted run are left", n)
			}
		})
	}
}

func TestContainerBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--engine", "postgres", "--cpus", "9999"},
		{"run", "--engine", "postgres", "--cpus", "-1"},
		{"run", "--engine", "bleve", "--cpus", "1"},
		{"run", "--engine", "postgres", "--url", "postgres://x@127.0.0.1:1/x", "--cpus", "1"},
		{"run", "--engine", "postgres", "--ready-timeout", "0s"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append(args, "--out", t.TempDir())...)
		if code != exitBadInput {
			t.Errorf("%q: exit %d (%s); want 2", args, code, stderr)
		}
	}
}

// Slow start: a container that is not ready in time is removed; the run
// still writes its result and tables and exits 1. The final line names the
// engine and the timeout in one line; the container's log is in the log
// above it and in the result.
func TestReadinessTimeoutLeavesNothing(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), pgArgs(dir, "--ready-timeout", "50ms")...)
	r := checkFinished(t, dir, code, stdout, stderr, "(postgres: not ready within 50ms: ")
	if !strings.Contains(stderr, "postgres: stopped: postgres: not ready within 50ms: ") {
		t.Errorf("the log does not say why the engine stopped:\n%s", stderr)
	}
	if e := r.Engines[0].Error; !strings.Contains(e, "\nlast lines of its log:\n") {
		t.Errorf("engine error %q lacks the container's log", e)
	}
	if n := leftovers(t, runName(dir)); n != 0 {
		t.Fatalf("%d containers of the run are left", n)
	}
}

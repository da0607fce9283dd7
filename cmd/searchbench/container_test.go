package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/postgres"
)

// runName is a run name unique to a test's directory.
func runName(dir string) string {
	return "test-" + filepath.Base(filepath.Dir(dir)) + "-" + filepath.Base(dir)
}

// TestMain lets the test binary act as searchbench itself, so the interrupt
// test can send a real SIGINT to a real process.
func TestMain(m *testing.M) {
	if os.Getenv("SEARCHBENCH_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// needPostgres skips with one line where no PostgreSQL container can run.
func needPostgres(t *testing.T) {
	t.Helper()
	pool, err := container.Pool()
	if err != nil {
		t.Skipf("postgres: %v", err)
	}
	if _, err := pool.Client.InspectImage(postgres.Image); err == nil {
		return
	}
	if _, err := pool.Client.InspectImage(postgres.FallbackImage); err != nil {
		t.Skipf("postgres: neither %s nor %s is present (bash compose/images/postgres/build.sh builds the second)", postgres.Image, postgres.FallbackImage)
	}
}

// leftovers counts the containers of one named run (other packages' tests
// run containers of their own at the same time).
func leftovers(t *testing.T, run string) int {
	t.Helper()
	pool, err := container.Pool()
	if err != nil {
		t.Fatal(err)
	}
	list, err := container.Leftovers(pool, run)
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
	needPostgres(t)
	spec, _ := container.Lookup("postgres")
	c, err := container.Start(context.Background(), spec, container.Options{ReadyTimeout: 90 * time.Second, Run: "test-attach"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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

// SIGINT to a real searchbench process mid-run: it stops, writes partial
// results, removes its container and exits non-zero.
func TestInterruptRemovesTheContainer(t *testing.T) {
	needPostgres(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], pgArgs(dir, "--measure", "10m", "--users", "4")...)
	cmd.Env = append(os.Environ(), "SEARCHBENCH_TEST_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	measuring := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "measure") {
				once = true
				close(measuring)
			}
		}
	}()
	select {
	case <-measuring:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the run never reached its measure phase")
	}
	time.Sleep(time.Second)
	// The container is there and carries the run's name, so the check after
	// the interrupt looks at the right thing.
	if n := leftovers(t, runName(dir)); n != 1 {
		_ = cmd.Process.Kill()
		t.Fatalf("%d containers labelled with the run's name while it runs; want 1", n)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("searchbench did not stop within a minute of SIGINT")
	}
	if err == nil {
		t.Fatal("an interrupted run exited 0")
	}
	r := readResult(t, dir)
	if !r.Partial || len(r.Engines) != 1 || len(r.Engines[0].Levels) != 1 || !r.Engines[0].Levels[0].Partial {
		t.Fatalf("result partial %v, engines %d", r.Partial, len(r.Engines))
	}
	if n := leftovers(t, runName(dir)); n != 0 {
		t.Fatalf("%d containers of the interrupted run are left", n)
	}
}

func TestContainerBadInput(t *testing.T) {
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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/searchbench/searchbench/runner"
)

// tiny is the shortest run on the embedded engine that writes every output.
func tiny(dir string) []string {
	return []string{"run", "--ids", "300", "--users", "2", "--spawn-rate", "1000", "--settle", "0s", "--measure", "300ms", "--out", dir}
}

// oneLine fails the test unless the command was turned away as bad input:
// exit 2, nothing printed, one line on stderr starting with prefix.
func oneLine(t *testing.T, what string, code int, stdout, stderr, prefix string) {
	t.Helper()
	if code != exitBadInput || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "searchbench: "+prefix) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", what, code, stdout, stderr, prefix)
	}
}

// A run owns its --out from before it starts to its end: a second run given
// the same directory meanwhile is turned away before it starts, naming the
// first one's pid, and the directory holds the first run's files alone.
func TestOutIsHeldByOneRunAtATime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inUse := fmt.Sprintf("out: %s is in use by another searchbench run (pid %d)", dir, os.Getpid())

	// Held by someone else (this test) before the run: nothing starts.
	release, err := runner.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), tiny(dir)...)
	release()
	oneLine(t, "run into a held directory", code, stdout, stderr, inUse)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the run turned away wrote %v", entries)
	}

	// Held by a run: a second one, started while the first measures.
	var second struct {
		code           int
		stdout, stderr string
	}
	var w watched
	w.on(measuring, func() {
		second.code, second.stdout, second.stderr = runCLI(t, context.Background(), tiny(dir)...)
	})
	code, _, stderr = runWatched(t, context.Background(), &w, tiny(dir)...)
	if code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	oneLine(t, "second run while the first measures", second.code, second.stdout, second.stderr, inUse)
	if _, err := os.Stat(filepath.Join(dir, runner.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left after the run (%v)", err)
	}
	if res := readResult(t, dir); len(res.Engines) != 1 {
		t.Errorf("result.json holds %d engines", len(res.Engines))
	}
}

// An --out that cannot be made is bad input for every command that writes
// one, found before anything starts: /proc/x (which root cannot make
// either), and a path under a regular file.
func TestOutThatCannotBeMadeIsBadInput(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), tiny(src)...); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	res := filepath.Join(src, "result.json")
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deploy := func(out string) []string {
		return []string{"deploy", "kubernetes", "--shards", "3", "--image", "img:1", "--out", out,
			"--", "run", "--engine", "meilisearch", "--url", "http://engine:7700"}
	}
	for _, out := range []string{"/proc/x", filepath.Join(file, "x", "out")} {
		for _, args := range [][]string{
			tiny(out),
			{"ladder", "--ids", "300", "--start", "50", "--stop", "50", "--duration", "300ms", "--repeat", "1", "--workers", "2", "--out", out},
			{"coordinate", "--listen", "127.0.0.1:0", "--shards", "1", "--register-timeout", "1s", "--out", out},
			{"merge", res, "--out", out},
			{"report", res, "--out", out},
			deploy(filepath.Join(out, "k8s.yaml")),
		} {
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			oneLine(t, strings.Join(args, " "), code, stdout, stderr, "out: ")
		}
	}
	// deploy writes a file: a directory there is bad input too, not a
	// failed rename once the definition is made.
	code, stdout, stderr := runCLI(t, context.Background(), deploy(src)...)
	oneLine(t, "deploy --out DIR", code, stdout, stderr, "out: "+src+" is a directory")
}

// /etc/x/out, for a user who may not write in /etc: its nearest existing
// parent is a directory, and a check of that alone would let the run
// measure, then write its results to a temporary directory and exit 0.
// As root, the test runs its own binary as nobody.
func TestOutAnUnprivilegedUserCannotMakeIsBadInput(t *testing.T) {
	t.Parallel()
	const out = "/etc/searchbench-x/out"
	args := tiny(out)
	if os.Geteuid() != 0 {
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		oneLine(t, "run --out "+out, code, stdout, stderr, "out: "+out+" cannot be made")
		return
	}
	// nobody must be able to reach the binary: a copy in a directory of
	// its own, open to all.
	bin := filepath.Join(t.TempDir(), "searchbench.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(bin); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(), "SEARCHBENCH_TEST_MAIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run a process as nobody here: %v", err)
	}
	oneLine(t, "run --out "+out+" as nobody", cmd.ProcessState.ExitCode(), stdout.String(), stderr.String(), "out: "+out+" cannot be made")
	if !strings.Contains(stderr.String(), "permission denied") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}

// A result file cut short (a copy or a write that did not finish) is said
// to be truncated, at its length, naming the file; other text that is not
// JSON names the byte where it goes wrong. Neither is "not a searchbench
// result", which would send the user looking for another file.
func TestTruncatedResultIsSaidToBe(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile("../../runner/report/testdata/v1-slash-mix.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, append([]byte(`{"schema_version": 1,, `), whole[1:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", cut, "--out", t.TempDir()}, fmt.Sprintf("%s: truncated JSON: it ends at byte %d", cut, len(whole)/2)},
		{[]string{"merge", cut, "--out", t.TempDir()}, fmt.Sprintf("%s: truncated JSON: it ends at byte %d", cut, len(whole)/2)},
		{[]string{"report", bad, "--out", t.TempDir()}, bad + ": invalid JSON at byte 22"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), c.args...)
		oneLine(t, strings.Join(c.args, " "), code, stdout, stderr, c.want)
	}
}

// Results and reports are meant to be shared (their secrets are scrubbed):
// every file a run writes, report.html and the charts included, is 0666
// less the umask, not 0600.
func TestOutputsAreWrittenForSharing(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	code, _, stderr := runCLI(t, context.Background(), tiny(dir)...)
	syscall.Umask(old)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		fi, err := d.Info()
		if err == nil && fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %03o, want 644", path, fi.Mode().Perm())
		}
		return err
	})
	if err != nil || files < 5 {
		t.Errorf("%d files (%v); want result.json, tables.md, figures.csv, report.html and charts", files, err)
	}
}

// An --out that holds someone else's files is refused before anything
// starts, by every command that writes one: a link to /etc got
// result.json, report.html and charts in /etc. "Someone else's": not
// empty, and neither a searchbench result.json nor a report's tables.md
// there. A link is judged by where it points. --force writes anyway; a
// directory of an earlier run or report is written again as before.
func TestOutHoldingOthersFilesIsRefused(t *testing.T) {
	t.Parallel()
	fixture := "../../runner/report/testdata/v1-timeline.json"
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(foreign, link); err != nil {
		t.Fatal(err)
	}
	onlyNotes := func(what string) {
		t.Helper()
		if entries, _ := os.ReadDir(foreign); len(entries) != 1 || entries[0].Name() != "notes.txt" {
			t.Errorf("%s: the directory now holds %v", what, entries)
		}
	}
	for _, c := range []struct{ out, says string }{
		{foreign, foreign},
		{link, link + " (a link to " + foreign + ")"},
	} {
		for _, args := range [][]string{
			tiny(c.out),
			append(tiny(c.out), "--dry-run"),
			{"ladder", "--ids", "300", "--start", "50", "--stop", "50", "--duration", "300ms", "--repeat", "1", "--workers", "2", "--out", c.out},
			{"coordinate", "--listen", "127.0.0.1:0", "--shards", "1", "--register-timeout", "1s", "--out", c.out},
			{"merge", fixture, "--out", c.out},
			{"report", fixture, "--out", c.out},
		} {
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			oneLine(t, strings.Join(args, " "), code, stdout, stderr, "out: "+c.says+" holds files searchbench did not write (notes.txt)")
			onlyNotes(strings.Join(args, " "))
		}
	}
	// --force: the files go there, beside the others.
	if code, _, stderr := runCLI(t, context.Background(), "report", fixture, "--out", link, "--force"); code != exitOK {
		t.Fatalf("report --force: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(foreign, "report.html")); err != nil {
		t.Errorf("report --force: %v", err)
	}
	// A report's directory, and a run's (its result.json), are
	// searchbench's: written again without --force, whatever else is there.
	reportDir := t.TempDir()
	for range 2 {
		if code, _, stderr := runCLI(t, context.Background(), "report", fixture, "--out", reportDir); code != exitOK {
			t.Fatalf("report into a report's directory: exit %d\n%s", code, stderr)
		}
	}
	runDir := t.TempDir()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"result.json": b, "notes.txt": []byte("mine")} {
		if err := os.WriteFile(filepath.Join(runDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, context.Background(), "report", fixture, "--out", runDir); code != exitOK {
		t.Errorf("report into a run's directory: exit %d\n%s", code, stderr)
	}
	// Another tool's result.json is not searchbench output.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "result.json"), []byte(`{"tool": {"name": "k6"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "report", fixture, "--out", other)
	oneLine(t, "report into another tool's results", code, stdout, stderr, "out: "+other+" holds files searchbench did not write (result.json)")
}

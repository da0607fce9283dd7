package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as a writer that a test kills
// mid-write: with RESULT_TEST_WRITE=path it writes two large results to
// path, in turn, until it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("RESULT_TEST_WRITE"); path != "" {
		a, b := bigJSON('a'), bigJSON('b')
		for {
			if err := WriteAtomic(path, a); err != nil {
				os.Exit(3)
			}
			if err := WriteAtomic(path, b); err != nil {
				os.Exit(3)
			}
		}
	}
	os.Exit(m.Run())
}

// bigJSON is a valid JSON document of 16 MB, its padding made of fill:
// large enough that a kill lands while it is being written.
func bigJSON(fill byte) []byte {
	b, _ := json.Marshal(map[string]string{"pad": strings.Repeat(string(fill), 16<<20)})
	return b
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".result.json.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A writer killed (SIGKILL: no deferred clean-up runs) while it writes
// result.json leaves the previous file whole, or no file when there was
// none — never a truncated one. The kill lands while a temporary file is
// open at least once in a few tries, or the test says it proved nothing.
func TestWriteAtomicSurvivesAKillMidWrite(t *testing.T) {
	for _, existing := range []bool{true, false} {
		name := "no previous file"
		if existing {
			name = "over a previous file"
		}
		t.Run(name, func(t *testing.T) {
			a, b := bigJSON('a'), bigJSON('b')
			caught := 0
			for try := 0; try < 5 && caught < 2; try++ {
				dir := t.TempDir()
				path := filepath.Join(dir, "result.json")
				if existing {
					if err := WriteAtomic(path, a); err != nil {
						t.Fatal(err)
					}
				}
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "RESULT_TEST_WRITE="+path)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Kill it as soon as its first temporary file appears, or a
				// little later on the later tries.
				deadline := time.Now().Add(10 * time.Second)
				for len(temps(t, dir)) == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(time.Duration(try) * 7 * time.Millisecond)
				cmd.Process.Kill()
				cmd.Wait()
				if len(temps(t, dir)) > 0 {
					caught++ // killed between the temporary file's creation and its rename
				}
				got, err := os.ReadFile(path)
				switch {
				case errors.Is(err, os.ErrNotExist) && !existing:
				case err != nil:
					t.Fatalf("try %d: %v", try, err)
				case !bytes.Equal(got, a) && !bytes.Equal(got, b):
					t.Fatalf("try %d: result.json holds %d bytes that are neither write (valid JSON: %v)", try, len(got), json.Valid(got))
				}
			}
			if caught == 0 {
				t.Fatal("no kill landed during a write: the test proved nothing")
			}
		})
	}
}

// A write that fails (here the rename: the path is a directory) returns the
// error, leaves what was at the path alone and removes its temporary file.
func TestWriteAtomicFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(path, []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v; want a failure naming the path", err)
	}
	if _, err := os.Stat(filepath.Join(path, "keep")); err != nil {
		t.Errorf("the directory at the path was touched: %v", err)
	}
	if n := len(temps(t, dir)); n != 0 {
		t.Errorf("%d temporary files left", n)
	}
}

// ReadFile turns a truncated result into an error naming the file.
func TestReadFileRejectsATruncatedResult(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := WriteFile(path, &Result{SchemaVersion: SchemaVersion, Engines: []EngineRun{{Name: "x"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v; want an error naming %s", err, path)
	}
}

// Results and reports are meant to be shared: WriteAtomic makes a file
// 0666 less the umask, as a shell's redirection would, not 0600 (the mode
// of os.CreateTemp).
func TestWriteAtomicHonoursTheUmask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ umask, want os.FileMode }{{0o022, 0o644}, {0o027, 0o640}, {0o002, 0o664}} {
		old := syscall.Umask(int(c.umask))
		path := filepath.Join(dir, "charts", "x.svg")
		err := WriteAtomic(path, []byte("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("umask %03o: mode %03o, want %03o", c.umask, got, c.want)
		}
		if err := os.RemoveAll(filepath.Dir(path)); err != nil {
			t.Fatal(err)
		}
	}
}

package result

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ReadFile says a file cut short is truncated, and where other text stops
// being JSON, naming the file.
func TestReadFileSaysTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := WriteFile(path, &Result{SchemaVersion: SchemaVersion}); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{whole[:len(whole)-3], "read result: " + path + ": truncated JSON: it ends at byte " + strconv.Itoa(len(whole)-3)},
		{nil, "read result: " + path + " is empty, not JSON"},
		{[]byte(`{"schema_version": 1} x`), "read result: " + path + ": invalid JSON at byte 23: "},
	} {
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q…", c.data, err, c.want)
		}
	}
}

// A path that names an endless or huge file (/dev/zero, a disk image given
// by mistake) is refused once the bound is passed, not read until the
// machine runs out of memory.
func TestReadBoundedStopsAtTheBound(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	_, err := ReadBounded("/dev/zero", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: larger than 1 MiB") {
		t.Fatalf("ReadBounded(/dev/zero) = %v; want it refused at 1 MiB", err)
	}
	path := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadBounded(path, 5); err != nil || string(b) != "12345" {
		t.Fatalf("ReadBounded of a file at the bound = %q, %v; want it whole", b, err)
	}
}

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

package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// createTemp is os.CreateTemp with mode 0666 (the kernel applies the
// umask) instead of 0600: the mode a file is made with is the one way to
// honour the umask without reading it, which only changing it can do.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no unused temporary name %s* in %s", prefix, dir)
}

// DecodeError says why data, the contents of the file at path, did not
// decode (err, from json.Unmarshal) in the terms a user can act on: a file
// cut short (a copy or a write that never finished) is "truncated", other
// text that is not JSON is "invalid JSON at byte N"; either names the file.
// A file that is JSON but not a result is left to the caller to say.
func DecodeError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %w", path, err)
	}
	// Unmarshal says "unexpected end of JSON input" in a SyntaxError alone;
	// a Decoder tells the end of the input apart as an error of its own.
	var raw json.RawMessage
	switch derr := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); {
	case errors.Is(derr, io.EOF):
		return fmt.Errorf("%s is empty, not JSON", path)
	case errors.Is(derr, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: truncated JSON: it ends at byte %d, inside a value", path, len(data))
	}
	return fmt.Errorf("%s: invalid JSON at byte %d: %w", path, se.Offset, err)
}

// MaxFileSize bounds what ReadFile and the report's Load read of a result:
// far above any result (a level's histograms are kilobytes), far below
// what would exhaust the machine when the path names /dev/zero or a
// multi-gigabyte file by mistake.
const MaxFileSize = 512 << 20

// ReadBounded reads the file at path, failing without reading further
// when it holds more than limit bytes.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB, more than this file can hold", path, limit>>20)
	}
	return b, nil
}

// Probe is what says a JSON document is a searchbench result, and of
// which schema version, without decoding the rest: enough to tell a
// result of another version, or another tool's JSON, from a corrupt one.
type Probe struct {
	SchemaVersion *int `json:"schema_version"`
	Tool          struct {
		Name string `json:"name"`
	} `json:"tool"`
}

// Searchbench says whether the document is a searchbench result (of any
// schema version).
func (p Probe) Searchbench() bool { return p.SchemaVersion != nil && p.Tool.Name == "searchbench" }

// ProbeFile probes the file at path; false when it cannot be read or is
// not a searchbench result.
func ProbeFile(path string) bool {
	b, err := ReadBounded(path, MaxFileSize)
	if err != nil {
		return false
	}
	var p Probe
	return json.Unmarshal(b, &p) == nil && p.Searchbench()
}

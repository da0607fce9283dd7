package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// withIntervalP99 is the timeline fixture with its first interval's search
// p99 (and every interval's maximum) set to v, written to a file.
func withIntervalP99(t *testing.T, v float64) string {
	t.Helper()
	b, err := os.ReadFile("testdata/v1-timeline.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	level := doc["engines"].([]any)[0].(map[string]any)["levels"].([]any)[0].(map[string]any)
	for _, iv := range level["timeline"].(map[string]any)["intervals"].([]any) {
		for _, o := range iv.(map[string]any)["ops"].([]any) {
			o.(map[string]any)["max"] = v
		}
	}
	op := level["timeline"].(map[string]any)["intervals"].([]any)[0].(map[string]any)["ops"].([]any)[0].(map[string]any)
	op["p99"] = v
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An interval value near the largest float made the over-time chart panic
// ("Values must be greater than 0 for a log scale") after the tables were
// written. It is refused when the file is read; the largest value the
// reader accepts renders.
func TestAbsurdValueIsRefusedAtLoadAndTheLargestAcceptedRenders(t *testing.T) {
	t.Parallel()
	_, err := Load(withIntervalP99(t, 1.7e308))
	if err == nil || !strings.Contains(err.Error(), "engines[0].levels[0].timeline.intervals[0].ops[0].p99: 1.7e+308 is out of range") {
		t.Errorf("an interval value of 1.7e308: %v; want it refused naming the field", err)
	}
	in, err := Load(withIntervalP99(t, result.MaxValue))
	if err != nil {
		t.Fatalf("an interval value of %g: %v", result.MaxValue, err)
	}
	dir := t.TempDir()
	if _, err := New(in).Write(dir); err != nil {
		t.Fatalf("write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, HTMLFile)); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// A report that cannot be written whole leaves nothing of itself: every
// output is rendered, and every destination checked, before the first
// file is written. Here the charts' directory cannot be made (a file has
// its name), which used to leave tables.md and figures.csv behind.
func TestAFailedWriteLeavesNoFiles(t *testing.T) {
	t.Parallel()
	in, err := Load("testdata/v1-timeline.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ChartDir), []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	written, err := New(in).Write(dir)
	if err == nil {
		t.Fatal("the report was written though its charts' directory is a file")
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("a message of several lines: %q", err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != ChartDir || len(written) != 0 {
		t.Errorf("after a failed write, %s holds %v (written %v); want only the file that was there", dir, names, written)
	}
}

package report

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Whatever Load accepts, every output renders without a panic: the tables,
// the CSV, the charts, the HTML page and a comparison with itself. A file
// the reports cannot draw is refused when read (result.Validate), as bad
// input, not found halfway through writing.
func FuzzReportRendersWhatLoadAccepts(f *testing.F) {
	for _, name := range []string{"testdata/v1-timeline.json", "testdata/v1-slash-mix.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "result.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Load(path)
		if err != nil {
			return
		}
		if _, err := New(in).Write(filepath.Join(dir, "report")); err != nil {
			t.Errorf("a result Load accepted did not render: %v", err)
		}
		if err := Compare(io.Discard, []Input{in}, []Input{in}); err != nil {
			t.Errorf("a result Load accepted did not compare: %v", err)
		}
	})
}

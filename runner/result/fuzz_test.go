package result

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The report and compare commands read results that may have been edited or
// cut short: a malformed histogram is an error, never a panic, and one that
// decodes can be summarized.
func FuzzDecodeHistogram(f *testing.F) {
	h := hdrhistogram.New(1, 300_000_000, 3)
	for _, v := range []int64{1, 250, 1200, 99_000} {
		h.RecordValue(v)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(enc)
	f.Add(enc)
	f.Add(enc[:len(enc)/2])
	f.Add(base64.StdEncoding.EncodeToString(raw[:len(raw)-3]))
	f.Add("")
	f.Add("!!")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHistogram(s)
		if err != nil {
			return
		}
		Summarize(h)
	})
}

// A malformed result file is an error, never a panic.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"engines":[{"name":"x","levels":[{"users":2,"window":"1s","ops":[{"op":"search","count":3}]}]}]}`))
	f.Add([]byte(`{"schema_version":1,"config":{"measure":"1m"}}`))
	f.Add([]byte(`{"schema_version":1,"config":{"measure":17}}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`{"schema_ver`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "result.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadFile(path)
		if err != nil {
			return
		}
		// What the reader accepts, the hlog writer and a merge read too
		// (the reports' own rendering is fuzzed in runner/report).
		if _, err := WriteHlog(filepath.Join(t.TempDir(), HlogName), r); err != nil {
			t.Errorf("a result ReadFile accepted: hlog: %v", err)
		}
		Merge(r)
	})
}

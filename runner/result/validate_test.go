package result

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// validResult is a result as the runner writes one: a level with a search
// and its histogram, a timeline of two intervals, a ladder of one rung.
func validResult(t *testing.T) *Result {
	t.Helper()
	h := hdrhistogram.New(1, 300_000_000, 3)
	for _, v := range []int64{200, 900, 4000} {
		h.RecordValue(v)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	iv := func(start time.Duration) Interval {
		o := IntervalOp{Op: "search", Count: 3}
		if err := o.SetLatency(h); err != nil {
			t.Fatal(err)
		}
		return Interval{Start: Duration(start), Length: Duration(time.Second), Ops: []IntervalOp{o}}
	}
	op := OpStats{Op: "search", Count: 3, RPS: 1.5, Latency: Summarize(h), Histogram: enc,
		Kinds: []KindStats{{Kind: "knn", Count: 3, RPS: 1.5, Latency: Summarize(h), Histogram: enc}}}
	rep := Rep{Offered: 10, Duration: Duration(time.Second), Sent: 3, Achieved: 3, Latency: Summarize(h),
		Ops: []OpenOp{{OpStats: op, ServiceHistogram: enc}}}
	return &Result{SchemaVersion: SchemaVersion, Tool: Tool{Name: "searchbench"},
		Config: Config{Mix: "search=100", MixWeights: []float64{1, 0, 0, 0}, Measure: Duration(2 * time.Second)},
		Engines: []EngineRun{{Name: "bleve", Label: "bleve", Preload: Preload{Count: -1}, Relevance: &Relevance{},
			Levels: []Level{{Users: 2, Window: Duration(2 * time.Second), Ops: []OpStats{op}, TotalRPS: 1.5,
				Timeline: &Timeline{Interval: Duration(time.Second), Offset: Duration(-time.Millisecond),
					Intervals: []Interval{iv(0), iv(time.Second)}}}},
			Ladder: &Ladder{Step: 2, Rungs: []Rung{{Offered: 10, Reps: []Rep{rep}, QueueDepth: -1}}},
		}},
		Shard: &Shard{Starts: []ShardStart{{Offset: Duration(-3 * time.Millisecond), Late: Duration(-time.Microsecond)}}},
	}
}

// A result file is checked when it is read: a value no run can have
// written (a negative count, a histogram that is not base64 or does not
// decode, an interval of no length, one interval twice, a value that is
// not finite or absurdly large) is an error naming the file and the
// field, never a panic or a chart drawn from it later.
func TestReadFileRefusesImpossibleValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.json")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	encode := func(r *Result) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write(encode(validResult(t)))
	if _, err := ReadFile(path); err != nil {
		t.Fatalf("a valid result: %v", err)
	}
	level := func(r *Result) *Level { return &r.Engines[0].Levels[0] }
	for _, c := range []struct {
		name   string
		change func(*Result)
		want   string
	}{
		{"negative count", func(r *Result) { level(r).Ops[0].Count = -3 }, "engines[0].levels[0].ops[0].count: -3 is negative"},
		{"negative error count", func(r *Result) { level(r).Ops[0].Errors = map[string]int64{"timeout": -1} }, "engines[0].levels[0].ops[0].errors[timeout]: -1 is negative"},
		{"negative kind count", func(r *Result) { level(r).Ops[0].Kinds[0].Count = -1 }, "engines[0].levels[0].ops[0].kinds[0].count: -1 is negative"},
		{"not base64", func(r *Result) { level(r).Ops[0].Histogram = "!!not base64" }, "engines[0].levels[0].ops[0].histogram: decode histogram: illegal base64"},
		{"undecodable", func(r *Result) { level(r).Ops[0].Histogram = "SElTVA==" }, "engines[0].levels[0].ops[0].histogram: decode histogram"},
		{"undecodable service", func(r *Result) { r.Engines[0].Ladder.Rungs[0].Reps[0].Ops[0].ServiceHistogram = "AAAA" }, "engines[0].ladder.rungs[0].reps[0].ops[0].service_histogram: decode histogram"},
		{"undecodable interval", func(r *Result) { level(r).Timeline.Intervals[1].Ops[0].Histogram = "AAAA" }, "engines[0].levels[0].timeline.intervals[1].ops[0].histogram: decode histogram"},
		{"zero length", func(r *Result) { level(r).Timeline.Intervals[1].Length = 0 }, "engines[0].levels[0].timeline.intervals[1].length: 0s is not positive"},
		{"negative length", func(r *Result) { level(r).Timeline.Intervals[0].Length = Duration(-time.Second) }, "engines[0].levels[0].timeline.intervals[0].length: -1s is not positive"},
		{"zero interval", func(r *Result) { level(r).Timeline.Interval = 0 }, "engines[0].levels[0].timeline.interval: 0s is not positive"},
		{"duplicate interval", func(r *Result) { level(r).Timeline.Intervals[1].Start = 0 }, "engines[0].levels[0].timeline.intervals[1]: a second interval at 0s"},
		{"absurd interval value", func(r *Result) { level(r).Timeline.Intervals[0].Ops[0].P99 = 1.7e308 }, "engines[0].levels[0].timeline.intervals[0].ops[0].p99: 1.7e+308 is out of range"},
		{"absurd rate", func(r *Result) { level(r).TotalRPS = -1e300 }, "engines[0].levels[0].total_rps: -1e+300 is out of range"},
		{"negative latency", func(r *Result) { level(r).Ops[0].Latency.P50 = -2 }, "engines[0].levels[0].ops[0].latency_ms.p50: -2 is negative"},
		{"negative window", func(r *Result) { level(r).Window = Duration(-time.Second) }, "engines[0].levels[0].window: -1s is negative"},
		{"negative users", func(r *Result) { level(r).Users = -2 }, "engines[0].levels[0].users: -2 is negative"},
		{"rung without reps", func(r *Result) { r.Engines[0].Ladder.Rungs[0].Reps = nil }, "engines[0].ladder.rungs[0].reps: none"},
	} {
		r := validResult(t)
		c.change(r)
		write(encode(r))
		_, err := ReadFile(path)
		want := "read result " + path + ": " + c.want
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line starting %q", c.name, err, want)
		}
	}
	// What JSON can say and the types cannot hold.
	valid := encode(validResult(t))
	for _, c := range []struct {
		name, old, new, want string
	}{
		// A null interval decodes as one of no length.
		{"null interval", `"intervals":[{`, `"intervals":[null,{`, "engines[0].levels[0].timeline.intervals[0].length: 0s is not positive"},
		{"null kind", `"by_kind":null`, `"by_kind":{"name":null}`, "engines[0].relevance.by_kind[name]: null"},
		{"NaN-like", `"total_rps":1.5`, `"total_rps":1e999`, ""},
	} {
		b := bytes.Replace(valid, []byte(c.old), []byte(c.new), 1)
		if bytes.Equal(b, valid) {
			t.Fatalf("%s: %q not in the file", c.name, c.old)
		}
		write(b)
		_, err := ReadFile(path)
		if err == nil || (c.want != "" && !strings.HasPrefix(err.Error(), "read result "+path+": "+c.want)) {
			t.Errorf("%s: %v; want an error %q", c.name, err, c.want)
		}
	}
}

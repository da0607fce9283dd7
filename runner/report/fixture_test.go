package report

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// sampleOp is an operation (with its facts, as the runner writes them)
// whose latencies are n draws from a log-normal
// distribution with the given median (ms), recorded into an HDR histogram as
// the runner does, so the summary and the histogram agree. Each is drawn
// once per test binary: the draws and the histogram's encoding are most of
// what sampleResult costs (seconds under -race, and most tests call it),
// and the OpStats returned holds no map or slice a caller could change in
// another's copy.
func sampleOp(t testing.TB, op string, n int, medianMS float64, seed uint64, window time.Duration) result.OpStats {
	t.Helper()
	key := sampleKey{op, n, medianMS, seed, window}
	if o, ok := sampleOps.Load(key); ok {
		return o.(result.OpStats)
	}
	o := drawOp(t, op, n, medianMS, seed, window)
	sampleOps.Store(key, o)
	return o
}

type sampleKey struct {
	op       string
	n        int
	medianMS float64
	seed     uint64
	window   time.Duration
}

// sampleOps holds the operations sampleOp drew, by their arguments.
var sampleOps sync.Map

// drawOp draws the operation sampleOp describes.
func drawOp(t testing.TB, op string, n int, medianMS float64, seed uint64, window time.Duration) result.OpStats {
	t.Helper()
	h := hdrhistogram.New(1, 300_000_000, 3)
	rng := rand.New(rand.NewPCG(seed, 7))
	for range n {
		us := int64(medianMS * 1000 * (1 + 0.5*rng.ExpFloat64()))
		if err := h.RecordValue(max(us, 1)); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	o, err := workload.ParseOp(op)
	if err != nil {
		t.Fatal(err)
	}
	return result.OpStats{Op: op, Count: int64(n), RPS: float64(n) / window.Seconds(), Latency: result.Summarize(h), Histogram: enc,
		Writes: o.Writes(), NotFoundDone: o.NotFoundDone()}
}

// sampleLevel is a closed-loop level: search, upsert and delete in the
// search=80,upsert=19,delete=1 mix, searches at the given median.
func sampleLevel(t testing.TB, users, searches int, searchMS float64, seed uint64) result.Level {
	window := 15 * time.Second
	l := result.Level{Users: users, Window: result.Duration(window), ClientCPU: 0.4, Ops: []result.OpStats{
		sampleOp(t, "search", searches, searchMS, seed, window),
		sampleOp(t, "upsert", searches*19/80, searchMS*2, seed+1, window),
		sampleOp(t, "delete", max(searches/80, 1), searchMS*1.5, seed+2, window),
	}}
	for _, o := range l.Ops {
		l.TotalRPS += o.RPS
	}
	return l
}

// sampleResult is a result of two engines at three user levels and one
// ladder, with a warning of each kind the report shows.
func sampleResult(t testing.TB) *result.Result {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	alpha := result.EngineRun{Name: "alpha", Label: "alpha", Mode: "embedded", Visibility: "searchable", Version: "2.6.3",
		Preload: result.Preload{Documents: 950, DocsPerS: 12000, Count: 950, CountOK: true, Bulk: true}}
	beta := result.EngineRun{Name: "beta", Label: "beta", Mode: "container", Visibility: "acknowledged", Version: "1.0",
		Image: "beta:1", CPULimit: 4, Preload: result.Preload{Documents: 950, DocsPerS: 800, Count: 950, CountOK: true}}
	for i, u := range []int{10, 100, 500} {
		alpha.Levels = append(alpha.Levels, sampleLevel(t, u, 4000*(i+1), 2+float64(i), uint64(10+i)))
		beta.Levels = append(beta.Levels, sampleLevel(t, u, 3000*(i+1), 5+40*float64(i*i), uint64(20+i)))
	}
	beta.Levels[2].Warnings = result.Warnings{{Kind: result.WarningClientBound, Text: "the searchbench process used 95% of its CPUs while measuring"}}
	beta.Levels[2].Ops[1].Errors = map[string]int64{"timeout": 3}
	ladder := result.EngineRun{Name: "gamma", Label: "gamma", Mode: "attached", Visibility: "acknowledged",
		Ladder: &result.Ladder{Arrival: "constant", Workers: 384, Start: 2000, Step: 1.4, Stop: 8000,
			Duration: result.Duration(25 * time.Second), Repeat: 3, Factor: 5, MinAchieved: 0.99, Reference: 2000,
			Rule: "p99 ≤ 5 × the first rung's p99 and achieved ≥ 99% of offered", Sustainable: 3920}}
	for i, off := range []float64{2000, 2800, 3920, 5488} {
		p99 := 2.0 * float64(1+i*i*i)
		r := result.Rung{Offered: off, Achieved: off * (1 - 0.02*float64(i*i)), P50: p99 / 3, P99: p99,
			P99Min: p99 * 0.9, P99Max: p99 * 1.2, P99CV: 0.1, QueueDepth: -1, Sustainable: i < 3}
		r.AchievedMin, r.AchievedMax = r.Achieved*0.99, r.Achieved*1.01
		for k := range 3 {
			r.Reps = append(r.Reps, result.Rep{Offered: off, Achieved: r.Achieved, Sent: int64(off * 25),
				Latency: result.Latency{P50: r.P50 * (0.95 + 0.05*float64(k)), P99: p99}})
		}
		ladder.Ladder.Rungs = append(ladder.Ladder.Rungs, r)
	}
	ladder.Ladder.Rungs[0].Warnings = result.Notes("loaded first rung: p99 is 12× the median service time")
	return &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "searchbench", Version: "v0.1.0+abc", GoVersion: "go1.26"},
		StartedAt:     start, FinishedAt: start.Add(5 * time.Minute),
		Config: result.Config{Engines: []string{"alpha", "beta", "gamma"}, Users: []int{10, 100, 500}, Mix: "search=80,upsert=19,delete=1",
			MixWeights: []float64{80, 19, 1, 0}, Seed: 42, SpawnRate: 100, Settle: result.Duration(10 * time.Second),
			Measure: result.Duration(15 * time.Second), RequestTimeout: result.Duration(30 * time.Second), K: 10,
			Histogram: "microseconds"},
		Corpus: result.Corpus{Generator: "faker-lorem-v1", Seed: 42, IDs: 1000, Prepopulate: 0.95, Prepopulated: 950,
			Hash: "sha256:0123456789abcdef0123456789abcdef"},
		Host:    result.Host{OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2, CPUModel: "Test CPU"},
		Engines: []result.EngineRun{alpha, beta, ladder},
	}
}

package loopback_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
)

// BenchmarkLadderRates is an open-loop rung of searches at 1,000, 5,000
// and 10,000 calls/s with one and two Ps (client and target in this
// process): p50 and p99 from the intended time, the service time p50, the
// scheduler's lag p99 and the process's CPU — the one-CPU scheduler's
// figures, rate by rate.
func BenchmarkLadderRates(b *testing.B) {
	_, url := start(b)
	for _, procs := range []int{1, 2} {
		for _, rate := range []float64{1000, 5000, 10000} {
			b.Run(fmt.Sprintf("procs=%d/rate=%.0f", procs, rate), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				for b.Loop() {
					l := runPlan(b, url, runner.Plan{Ladder: &loops.LadderConfig{
						Open:  loops.OpenConfig{Workers: 64, Arrival: "constant", Calls: searches()},
						Rates: workload.Ladder{Start: rate, Step: 2, Stop: rate}, Duration: 2 * time.Second, Repeat: 1,
						Factor: loops.DefaultFactor, MinAchieved: loops.DefaultMinAchieved, Explode: loops.DefaultExplode,
					}}).Ladder
					rep := l.Rungs[0].Reps[0]
					b.ReportMetric(rep.Achieved, "achieved/s")
					b.ReportMetric(rep.Latency.P50, "p50-ms")
					b.ReportMetric(rep.Latency.P99, "p99-ms")
					b.ReportMetric(rep.Service.P50, "service-p50-ms")
					b.ReportMetric(rep.GeneratorLagP99, "lag-p99-ms")
					b.ReportMetric(rep.ClientCPU*float64(procs), "cpu-cores")
				}
			})
		}
	}
}

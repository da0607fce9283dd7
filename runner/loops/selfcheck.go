package loops

import (
	"fmt"
	"math"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
)

// The harness checks itself while it measures: its CPU share (record.CPUShare) and
// how long its goroutines waited to run. Either one high means the load
// generator, not the engine, may have set the figures.

// schedLate: a scheduler latency p99 beyond this means users were runnable
// but not running for long enough to distort millisecond latencies.
const schedLate = time.Millisecond

// The harness's own checks, as the ladder's rule and the calibration apply
// them.
const (
	generatorLate  = result.GeneratorLate
	clientBoundCPU = result.ClientBoundCPU
)

// schedHist is a snapshot of the Go scheduler's latency histogram: the time
// goroutines spent runnable before they ran, since the process started.
type schedHist struct {
	counts  []uint64
	buckets []float64 // seconds; len(counts)+1 boundaries
}

const schedMetric = "/sched/latencies:seconds"

func schedLatencies() schedHist {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return schedHist{}
	}
	h := s[0].Value.Float64Histogram()
	return schedHist{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// since is the histogram of the latencies recorded after prev.
func (h schedHist) since(prev schedHist) schedHist {
	if len(prev.counts) != len(h.counts) {
		return h
	}
	d := schedHist{counts: make([]uint64, len(h.counts)), buckets: h.buckets}
	for i := range h.counts {
		d.counts[i] = h.counts[i] - prev.counts[i]
	}
	return d
}

// quantileMS is the q-quantile in milliseconds: the upper boundary of the
// bucket it falls in (the runtime's buckets are a few percent wide), or 0
// when nothing was recorded.
func (h schedHist) quantileMS(q float64) float64 {
	var total uint64
	for _, c := range h.counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(q * float64(total))
	var acc uint64
	for i, c := range h.counts {
		acc += c
		if acc > rank {
			if math.IsInf(h.buckets[i+1], 1) {
				return h.buckets[i] * 1000
			}
			return h.buckets[i+1] * 1000
		}
	}
	return h.buckets[len(h.buckets)-2] * 1000
}

// measureSelf starts a window of the harness's self-check; the function it
// returns ends it and gives the process's CPU share and its goroutines'
// scheduler latency p99 (ms) over the window. It is a variable so that a
// test can inject the readings: how busy the machine is belongs to no test.
var measureSelf = func() (end func() (cpu, schedP99 float64)) {
	cpu0, wall0, sched0 := cpuTime(), time.Now(), schedLatencies()
	return func() (float64, float64) {
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		return record.CPUShare(cpu, wall), schedLatencies().since(sched0).quantileMS(0.99)
	}
}

// clientBound is the warning for a window in which the harness was short of
// CPU or slow to schedule its goroutines, or none.
func clientBound(cpu, schedP99 float64) result.Warnings {
	var why string
	switch {
	case cpu > clientBoundCPU && schedP99 > ms(schedLate):
		why = fmt.Sprintf("the searchbench process used %.0f%% of its CPUs and its goroutines waited up to %.2f ms (p99) to run", 100*cpu, schedP99)
	case cpu > clientBoundCPU:
		why = fmt.Sprintf("the searchbench process used %.0f%% of its CPUs", 100*cpu)
	case schedP99 > ms(schedLate):
		why = fmt.Sprintf("the searchbench process's goroutines waited up to %.2f ms (p99) to run", schedP99)
	default:
		return nil
	}
	return result.Warnings{result.Warn(result.WarningClientBound, "%s while measuring; the figures may describe the load generator (or an embedded engine sharing it), not only the engine", why)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

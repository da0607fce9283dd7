package loops

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/text"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// Calibration runs the harness against in-process engines whose latency
// distribution is known exactly, in closed and open loop, and compares the
// measured percentiles with the ones the distribution implies: a user can
// check the harness on their own machine before trusting it.

// Distribution is a known service-time distribution, optionally with a
// periodic freeze of the whole engine.
type Distribution struct {
	Name string
	// Fast and Slow are the two service times; a fraction SlowShare of the
	// calls take Slow (0 for a fixed service time).
	Fast, Slow time.Duration
	SlowShare  float64
	// Every Period the engine freezes for Freeze: a call that starts
	// during a freeze waits for it to end, then is served.
	Freeze, Period time.Duration
}

// Calibrations are the distributions `searchbench calibrate` checks. The
// freezing engine's period leaves the closed loop well under 1% slow calls
// ((10 s − 1 s) / 40 ms = 225 calls per user per period, then one held by
// the freeze), so its closed-loop p99 is the service time: the closed loop
// hides the freezes. A window of whole periods (the default 20 s) holds the
// same share of freeze as the truth assumes.
func Calibrations() []Distribution {
	return []Distribution{
		{Name: "fixed 50 ms", Fast: 50 * time.Millisecond},
		{Name: "bimodal 90% 40 ms, 10% 400 ms", Fast: 40 * time.Millisecond, Slow: 400 * time.Millisecond, SlowShare: 0.1},
		{Name: "40 ms, frozen 1 s every 10 s", Fast: 40 * time.Millisecond, Freeze: time.Second, Period: 10 * time.Second},
	}
}

// Truth is the q-quantile (0 < q < 1) a loop should measure on d.
//
// Closed loop measures each call from its start. A fixed or bimodal
// service time is its own distribution. Under freezes each user is held
// once per period, for about the freeze, and makes (Period−Freeze)/Fast
// calls in the rest of it, so only a fraction 1/((P−F)/S + 1) of the calls
// is slow: the closed loop barely sees the stall (coordinated omission).
//
// Open loop at a constant rate measures from each call's intended time: a
// fraction F/P of the calls is due during a freeze, at a uniform point of
// it, and waits for the rest of it, so above the 1−F/P quantile latency is
// S + F·(q − (1 − F/P))/(F/P): the stall is charged to every call it held.
func (d Distribution) Truth(closed bool, q float64) time.Duration {
	if d.Period == 0 {
		if d.SlowShare > 0 && q > 1-d.SlowShare {
			return d.Slow
		}
		return d.Fast
	}
	if closed {
		slow := 1 / (float64(d.Period-d.Freeze)/float64(d.Fast) + 1)
		if q > 1-slow {
			return d.Fast + d.Freeze
		}
		return d.Fast
	}
	share := float64(d.Freeze) / float64(d.Period)
	if q <= 1-share {
		return d.Fast
	}
	return d.Fast + time.Duration(float64(d.Freeze)*(q-(1-share))/share)
}

// knownEngine realises a Distribution. It keeps no documents: every call is
// only its service time. It times itself too, inside the engine: each
// call's service time as it realised it, from the moment the call reached
// it to its return, and how late that return was against the deadline the
// distribution set — so that calibrate can tell the engine's error from the
// harness's.
type knownEngine struct {
	d     Distribution
	t0    time.Time
	calls atomic.Uint64
	seed  uint64
	// overshoot is added to every deadline without counting as part of it:
	// a controlled lateness for tests of the accounting.
	overshoot time.Duration

	// recording: calls that reach the engine now are timed. The harness
	// times only the calls its window holds (not the closed loop's ramp
	// and settle), so the engine times the same calls (a freeze in the
	// settle would otherwise weigh in the engine's tail, not the harness's).
	recording atomic.Bool

	mu  sync.Mutex
	own engineTimes
}

// engineTimes are a known engine's own timings of its calls, in µs.
type engineTimes struct {
	served *hdrhistogram.Histogram // each call's service time as the engine realised it
	late   *hdrhistogram.Histogram // how far past its deadline each call returned
}

func newEngineTimes() engineTimes {
	return engineTimes{served: record.NewHistogram(), late: record.NewHistogram()}
}

func newKnownEngine(d Distribution, seed uint64, overshoot time.Duration) *knownEngine {
	return &knownEngine{d: d, t0: time.Now(), seed: seed, overshoot: overshoot, own: newEngineTimes()}
}

// times are the engine's own timings since the last call, and start a new
// count.
func (k *knownEngine) times() engineTimes {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.own
	k.own = newEngineTimes()
	return t
}

func (k *knownEngine) serve(ctx context.Context) error {
	start := time.Now()
	timed := k.recording.Load()
	n := k.calls.Add(1)
	wait := k.d.Fast
	if k.d.SlowShare > 0 {
		r := dataset.NewRand(k.seed, n)
		if r.Float64() < k.d.SlowShare {
			wait = k.d.Slow
		}
	}
	if k.d.Period > 0 {
		if phase := start.Sub(k.t0) % k.d.Period; phase < k.d.Freeze {
			wait += k.d.Freeze - phase
		}
	}
	// The engine waits as the open loop's scheduler does (pace.Waiter): on a
	// kernel timer the runtime's network poller watches, so its answer
	// wakes the process as a real engine's answer does, within
	// microseconds. Go's timers would fire up to a millisecond late on an
	// idle process (the poller's epoll_wait has millisecond resolution).
	// Spinning through the last milliseconds would not do either: spinning
	// Ps yield to the global run queue, which the runtime's findRunnable
	// serves before it polls the network (proc.go, Go 1.26), so while two
	// calls spun at once the harness's own timer would go unseen until
	// sysmon's 10 ms poll, and the open loop's tail would read high by the
	// calibration engine's doing, not the harness's. What a kernel timer's
	// wake-up costs is the engine's own lateness, which calibrate measures
	// and nets out.
	deadline := start.Add(wait)
	w := pace.New(ctx, runtime.GOMAXPROCS(0))
	ok := w.Until(deadline.Add(k.overshoot))
	w.Close()
	if !ok {
		return ctx.Err()
	}
	if !timed {
		return nil
	}
	end := time.Now()
	served, _ := record.Micros(end.Sub(start))
	late, _ := record.Micros(end.Sub(deadline))
	k.mu.Lock()
	_ = k.own.served.RecordValue(served)
	_ = k.own.late.RecordValue(late)
	k.mu.Unlock()
	return nil
}

func (k *knownEngine) Create(context.Context, engines.Schema) error { return nil }
func (k *knownEngine) Upsert(ctx context.Context, _ engines.Document) error {
	return k.serve(ctx)
}
func (k *knownEngine) Delete(ctx context.Context, _ string) error { return k.serve(ctx) }
func (k *knownEngine) Search(ctx context.Context, _ engines.Query) (engines.Hits, error) {
	return engines.Hits{Total: -1}, k.serve(ctx)
}
func (k *knownEngine) Close() error { return nil }

// CalibrationConfig sizes a calibration.
type CalibrationConfig struct {
	Measure time.Duration // each loop's measured window
	Users   int           // closed loop
	Rate    float64       // open loop, calls/s
	Workers int           // open loop
	// Tolerance is the largest relative error (Worst) the verdict accepts.
	Tolerance float64

	overshoot time.Duration // tests: every engine call returns this late
}

// DefaultCalibration: 8 users and 100 calls/s keep the harness far from
// its limits on two cores, so the figures are the harness's precision; 256
// workers hold every call due during a 1 s freeze (100) with room; 20 s
// windows hold two whole freeze periods.
var DefaultCalibration = CalibrationConfig{Measure: 20 * time.Second, Users: 8, Rate: 100, Workers: 256, Tolerance: 0.05}

// Validate reports the first field out of range for the distributions
// calibrate checks (Calibrations), as a *field.Error whose Flag is the
// calibrate command's: the window must hold whole periods of the freezing
// engine (the truth assumes them), and the workers every call due during a
// freeze.
func (c CalibrationConfig) Validate() error {
	var period time.Duration
	for _, d := range Calibrations() {
		period = max(period, d.Period)
	}
	need := func() int {
		n := 0
		for _, d := range Calibrations() {
			n = max(n, d.Workers(c.Rate))
		}
		return n
	}
	switch {
	case c.Measure < period || c.Measure%period != 0:
		return field.New("Measure", "measure", "%v is not a whole number of the freezing engine's %v periods (the truth assumes whole periods)", c.Measure, period)
	case c.Users < 1 || c.Users > 1000:
		return field.New("Users", "users", "%d is out of range (1 to 1000)", c.Users)
	case !(c.Rate >= 1 && c.Rate <= 10_000):
		return field.New("Rate", "rate", "%v is out of range (1 to 10000 calls/s)", c.Rate)
	case c.Workers < 1 || c.Workers > 10_000:
		return field.New("Workers", "workers", "%d is out of range (1 to 10000)", c.Workers)
	case c.Workers < need():
		return field.New("Workers", "workers", "%d cannot hold every call due during a freeze at %v calls/s; give at least %d", c.Workers, c.Rate, need())
	case !(c.Tolerance > 0):
		return field.New("Tolerance", "tolerance", "%v must be > 0", c.Tolerance)
	}
	return nil
}

// CalibrationRow is one percentile of one distribution in one loop.
type CalibrationRow struct {
	Distribution string
	Loop         string // closed or open
	Percentile   string // p50, p95, p99
	True         float64
	Measured     float64 // ms
	Error        float64 // (measured − true) / true
	// EngineLate is the engine's own error at this percentile (ms): the
	// same percentile of the service times the engine realised, timed
	// inside it, less the truth. HarnessError is what the harness added,
	// (measured − the engine's own percentile) / true: both percentiles are
	// of the same calls, one timed by the harness, one by the engine, so
	// the difference is the harness's (its clock starting before the call
	// reached the engine: in the open loop, from the intended send time).
	// The measured error less a percentile of the engine's lateness would
	// not do: the percentile of a sum is not the sum of percentiles (where
	// a freeze holds 0.4% of the calls, the closed loop's p99 sits at the
	// non-held calls' 99.4th lateness percentile, and the engine's tail
	// would be charged to the harness). EngineSpread
	// is the engine's lateness against its deadlines, p50–max (ms).
	EngineLate   float64
	HarnessError float64
	EngineSpread [2]float64
	// HarnessLate is the harness's lateness in that loop as it measured
	// itself (ms): the open loop's generator lag p99, the closed loop's
	// scheduler latency p99. A harness error of about this size is the
	// load generator's, shown rather than hidden in the tolerance.
	HarnessLate float64
}

var calibrationQuantiles = []struct {
	name string
	q    float64
}{{"p50", 0.50}, {"p95", 0.95}, {"p99", 0.99}}

// Calibrate measures every distribution in both loops and returns, beside
// the rows, every warning the runs raised (a client-bound window, a late
// generator, calls left unsent): a calibration under those is not one. It
// stops early, returning what it measured, when ctx ends.
func Calibrate(ctx context.Context, d []Distribution, cfg CalibrationConfig) ([]CalibrationRow, []string, error) {
	src, err := text.New(dataset.Config{Seed: 1, IDs: 1000, Prepopulate: 1})
	if err != nil {
		return nil, nil, err
	}
	calls := Calls{Timeout: 30 * time.Second, Mix: workload.Presets["search"], Seed: 1, K: 10}
	var rows []CalibrationRow
	var warnings []string
	for i, dist := range d {
		e := newKnownEngine(dist, uint64(i)+1, cfg.overshoot)
		for _, loop := range []loopCalibration{calibrateClosed, calibrateOpen} {
			r, w, ok := loop(ctx, e, src, calls, dist, cfg)
			if !ok {
				return rows, warnings, ctx.Err()
			}
			rows, warnings = append(rows, r...), append(warnings, w...)
		}
	}
	return rows, warnings, nil
}

// loopCalibration measures a known engine with one loop: its rows and
// warnings; false when ctx ended it.
type loopCalibration func(ctx context.Context, e *knownEngine, src corpus.Source, calls Calls, dist Distribution, cfg CalibrationConfig) ([]CalibrationRow, []string, bool)

// loopWarnings are a loop's warnings, each naming the distribution and the loop.
func loopWarnings(dist Distribution, loop string, w ...string) []string {
	out := make([]string, 0, len(w))
	for _, x := range w {
		out = append(out, dist.Name+", "+loop+" loop: "+x)
	}
	return out
}

// calibrateClosed measures e (distribution dist) with the closed loop: its
// rows and warnings; false when ctx ended it.
func calibrateClosed(ctx context.Context, e *knownEngine, src corpus.Source, calls Calls, dist Distribution, cfg CalibrationConfig) ([]CalibrationRow, []string, bool) {
	// The engine times the calls that start in the window, as the
	// users record them (closed.go, user.run).
	window := Emitter{Observer: event.ObserverFunc(func(ev event.Event) {
		if ev.Kind != event.Phase {
			return
		}
		switch ev.Phase {
		case "measure":
			e.recording.Store(true)
		case "drain":
			e.recording.Store(false)
		}
	})}
	closed := ClosedLoop(ctx, e, src, Config{Users: []int{cfg.Users}, SpawnRate: 1000, Settle: time.Second,
		Measure: cfg.Measure, Freshness: checks.FreshnessConfig{Off: true}, Calls: calls}, window, nil)
	if ctx.Err() != nil || len(closed) == 0 {
		return nil, nil, false
	}
	s, _ := closed[0].Op("search")
	return calibrationRows(dist, true, e.times(), closed[0].SchedLatencyP99, s.Latency.P50, s.Latency.P95, s.Latency.P99),
		loopWarnings(dist, "closed", closed[0].Warnings.Texts()...), true
}

// calibrateOpen measures e (distribution dist) with the open loop: its
// rows and warnings; false when ctx ended it.
func calibrateOpen(ctx context.Context, e *knownEngine, src corpus.Source, calls Calls, dist Distribution, cfg CalibrationConfig) ([]CalibrationRow, []string, bool) {
	// The truth assumes calls due at uniform phases of a freeze. A
	// rate whose calls per period are a whole number would hit the same
	// phases every period, so the rate is nudged to leave half a call
	// over: successive periods then interleave their phases.
	rate := cfg.Rate
	if dist.Period > 0 {
		per := rate * dist.Period.Seconds()
		rate = (math.Floor(per) + 0.5) / dist.Period.Seconds()
	}
	sched := workload.Constant{PerSecond: rate, Duration: cfg.Measure}
	e.recording.Store(true) // the open loop records every call it makes
	rep := OpenLoop(ctx, e, src, OpenConfig{Workers: cfg.Workers, Arrival: "constant", Calls: calls}, sched, checks.NewVersions(src.IDs()+1, shard.Share{}))
	if ctx.Err() != nil {
		return nil, nil, false
	}
	w := rep.Warnings.Texts()
	if rep.Unsent > 0 || rep.Errors > 0 {
		w = append(w, fmt.Sprintf("%d calls unsent, %d failed", rep.Unsent, rep.Errors))
	}
	if rep.GeneratorLagP99 > ms(generatorLate) {
		w = append(w, fmt.Sprintf("the scheduler was late (lag p99 %.2f ms)", rep.GeneratorLagP99))
	}
	if rep.ClientCPU > clientBoundCPU {
		w = append(w, result.Warn(result.WarningClientBound, "%.0f%% CPU", 100*rep.ClientCPU).String())
	}
	return calibrationRows(dist, false, e.times(), rep.GeneratorLagP99, rep.Latency.P50, rep.Latency.P95, rep.Latency.P99),
		loopWarnings(dist, "open", w...), true
}

// Workers is how many open-loop workers d needs at rate: every call due
// during a freeze (or a slow call) is held at once, and half as many again
// for Poisson-like bunching.
func (d Distribution) Workers(rate float64) int {
	hold := d.Freeze + max(d.Fast, d.Slow)
	return int(math.Ceil(1.5 * rate * hold.Seconds()))
}

// calibrationRows are one loop's rows: the percentiles it measured against
// the truth, the engine's own timings over that loop (own) and the
// harness's lateness (harnessLate, ms).
func calibrationRows(d Distribution, closed bool, own engineTimes, harnessLate float64, measured ...float64) []CalibrationRow {
	loop := "open"
	if closed {
		loop = "closed"
	}
	msOf := func(us int64) float64 { return float64(us) / 1000 }
	late, served := own.late, own.served
	spread := [2]float64{msOf(late.ValueAtQuantile(50)), msOf(late.Max())}
	if late.TotalCount() == 0 {
		spread = [2]float64{}
	}
	rows := make([]CalibrationRow, len(calibrationQuantiles))
	for i, q := range calibrationQuantiles {
		truth := float64(d.Truth(closed, q.q)) / float64(time.Millisecond)
		own := truth // an engine that recorded nothing: the truth
		if served.TotalCount() > 0 {
			own = msOf(served.ValueAtQuantile(100 * q.q))
		}
		rows[i] = CalibrationRow{Distribution: d.Name, Loop: loop, Percentile: q.name, True: truth, Measured: measured[i],
			Error: (measured[i] - truth) / truth, EngineLate: own - truth, HarnessError: (measured[i] - own) / truth,
			EngineSpread: spread, HarnessLate: harnessLate}
	}
	return rows
}

// Worst is the largest relative error of rows that the harness is to
// answer for (net of the engines' own lateness), as a fraction.
func Worst(rows []CalibrationRow) float64 {
	var w float64
	for _, r := range rows {
		w = max(w, math.Abs(r.HarnessError))
	}
	return w
}

// CalibrationVerdict is what a calibration's rows say of the harness.
type CalibrationVerdict struct {
	Worst     float64 // Worst(rows)
	Tolerance float64 // the largest relative error accepted
	// EngineLate is the latest any in-process engine returned against its
	// own deadlines, in milliseconds: the engines' spread, stated beside
	// the verdict.
	EngineLate float64
}

// Verdict judges rows against cfg's tolerance.
func (cfg CalibrationConfig) Verdict(rows []CalibrationRow) CalibrationVerdict {
	v := CalibrationVerdict{Worst: Worst(rows), Tolerance: cfg.Tolerance}
	for _, r := range rows {
		v.EngineLate = max(v.EngineLate, r.EngineSpread[1])
	}
	return v
}

// Within reports whether every figure is within the tolerance.
func (v CalibrationVerdict) Within() bool { return v.Worst <= v.Tolerance }

func (v CalibrationVerdict) String() string {
	if !v.Within() {
		return fmt.Sprintf("a figure is %.1f%% from the engine's own figure for the same calls (tolerance %.1f%%; the engines were up to %.2f ms late): the harness's figures are less precise than that on this machine", 100*v.Worst, 100*v.Tolerance, v.EngineLate)
	}
	return fmt.Sprintf("every figure within %.1f%% of the engine's own figure for the same calls (worst %.1f%%; the engines were up to %.2f ms late)", 100*v.Tolerance, 100*v.Worst, v.EngineLate)
}

func (r CalibrationRow) String() string {
	return fmt.Sprintf("%s %s %s: true %.2f ms, measured %.2f ms (%+.1f%%), the engine's own error %+.2f ms (late p50–max %.2f–%.2f), harness %+.1f%% (its own lateness p99 %.2f ms)",
		r.Distribution, r.Loop, r.Percentile, r.True, r.Measured, 100*r.Error, r.EngineLate, r.EngineSpread[0], r.EngineSpread[1], 100*r.HarnessError, r.HarnessLate)
}

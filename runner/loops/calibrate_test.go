package loops

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/field"
)

// quickCalibrations are shorter versions of Calibrations, for a test of a
// few seconds: the same shapes, with a 2 s freeze period.
func quickCalibrations() []Distribution {
	return []Distribution{
		{Name: "fixed 20 ms", Fast: 20 * time.Millisecond},
		{Name: "bimodal 90% 10 ms, 10% 100 ms", Fast: 10 * time.Millisecond, Slow: 100 * time.Millisecond, SlowShare: 0.1},
		{Name: "10 ms, frozen 200 ms every 2 s", Fast: 10 * time.Millisecond, Freeze: 200 * time.Millisecond, Period: 2 * time.Second},
	}
}

// The derived truths: the formulas, checked at points worked by hand.
func TestCalibrationTruths(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	d := quickCalibrations()
	cases := []struct {
		d      Distribution
		closed bool
		q      float64
		want   time.Duration
	}{
		{d[0], true, 0.99, ms(20)}, {d[0], false, 0.5, ms(20)},
		{d[1], true, 0.5, ms(10)}, {d[1], true, 0.89, ms(10)}, {d[1], false, 0.95, ms(100)},
		// Freeze 200 ms every 2 s, 10 ms calls: open loop p95 = 10 + 200·(0.05/0.1),
		// p99 = 10 + 200·0.9; closed loop: 1 call in 181 per user is slow.
		{d[2], false, 0.9, ms(10)}, {d[2], false, 0.95, ms(110)}, {d[2], false, 0.99, ms(190)},
		{d[2], true, 0.99, ms(10)}, {d[2], true, 0.996, ms(210)},
	}
	for _, c := range cases {
		if got := c.d.Truth(c.closed, c.q); math.Abs(float64(got-c.want)) > float64(time.Microsecond) {
			t.Errorf("%s closed=%v q=%v: %v, want %v", c.d.Name, c.closed, c.q, got, c.want)
		}
	}
}

// The harness measures every known distribution near its truth, and the
// open loop charges the freezes that the closed loop hides. (`searchbench
// calibrate` runs the same with longer windows and judges the tails.) The
// bounds allow for what the run measured of its own lateness — the engine's
// against its deadlines, the harness's generator lag or scheduler latency —
// so a busy machine widens them by what it did, not by a guess.
func TestCalibrate(t *testing.T) {
	cfg := DefaultCalibration
	cfg.Measure = 4 * time.Second // two freeze periods
	rows, warnings, err := Calibrate(context.Background(), quickCalibrations(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Log("warning: ", w)
	}
	if len(rows) != 3*2*3 {
		t.Fatalf("%d rows; want 18", len(rows))
	}
	for _, r := range rows {
		t.Log(r)
		if r.Percentile == "p50" && math.Abs(r.Measured-r.True-r.EngineLate) > medianSlack(r) {
			t.Errorf("%v", r)
		}
		if r.EngineSpread[1] < r.EngineSpread[0] || r.EngineSpread[0] < 0 {
			t.Errorf("%v: the engine's lateness is not a distribution", r)
		}
		// The closed loop's users time each call around the engine's own
		// timing of it, with no queue between: the same percentile of the
		// same calls differs by the histograms' resolution and by the
		// scheduler, which may hold a user between its clock and the
		// engine's. That hold is what the run measured of its own
		// scheduler latency (HarnessLate, its p99), capped at 10% of the
		// truth so that a harness adding a tenth to every call still fails.
		if r.Loop == "closed" && math.Abs(r.HarnessError)*r.True > 0.01*r.True+0.2+min(r.HarnessLate, 0.10*r.True) {
			t.Errorf("%v: the closed loop's figure is not the engine's own", r)
		}
	}
	frozen := quickCalibrations()[2]
	row := func(loop, p string) CalibrationRow {
		for _, r := range rows {
			if r.Distribution == frozen.Name && r.Loop == loop && r.Percentile == p {
				return r
			}
		}
		t.Fatalf("no %s-loop %s row", loop, p)
		return CalibrationRow{}
	}
	// A busy machine makes calls later, never earlier: the open loop's p95
	// and p99 have floors near their truths (110 and 190 ms). The closed
	// loop holds each user once per freeze; its users' calls slow down on a
	// busy machine, so fewer calls share each freeze and its p99 (where the
	// freeze is 1 call in 181 per user when calm) may reach the freeze, but
	// its p95, net of the engine's own lateness, stays far below it.
	for _, r := range []CalibrationRow{row("open", "p95"), row("open", "p99")} {
		if r.Measured < 0.8*r.True {
			t.Errorf("stall: %v; the open loop must charge the freeze to every call it held", r)
		}
	}
	if r := row("closed", "p95"); r.Measured-r.EngineLate > ms(frozen.Freeze)/2 {
		t.Errorf("stall: %v; the closed loop hides the freeze from all but one call per user", r)
	}
}

// medianSlack is how far a median may be from its truth net of the
// engine's own lateness (ms): 10%, plus what the harness measured of its own
// lateness. The closed loop's users make their calls themselves, so only
// their scheduler latency (which overstates the median's) can widen it,
// by at most another 10%: a harness that adds a quarter to every call
// fails. The open loop's calls leave when its generator sends them, and a
// busy machine's generator lag (its p99, measured in the run) is charged to
// them by design: there the slack is the lag.
func medianSlack(r CalibrationRow) float64 {
	if r.Loop == "closed" {
		return 0.10*r.True + min(r.HarnessLate, 0.10*r.True)
	}
	return 0.10*r.True + r.HarnessLate
}

// An engine that returns late by a controlled amount: its own histogram
// shows the lateness, the raw error carries it, and the harness's error net
// of it does not, so the verdict (Worst) is on the harness.
func TestCalibrateNetsTheEnginesLateness(t *testing.T) {
	const over = 6 * time.Millisecond
	cfg := CalibrationConfig{Measure: time.Second, Users: 2, Rate: 50, Workers: 8, overshoot: over}
	d := []Distribution{{Name: "fixed 20 ms", Fast: 20 * time.Millisecond}}
	rows, _, err := Calibrate(context.Background(), d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows; want 6", len(rows))
	}
	for _, r := range rows {
		t.Log(r)
		if r.EngineLate < ms(over) || r.EngineSpread[0] < ms(over) {
			t.Errorf("%v: the engine returned at least %v late and should say so", r, over)
		}
		if r.Percentile != "p50" {
			continue
		}
		// The raw median is off by the overshoot (30%); net of the
		// engine's own lateness it is the harness's part, within 10% beside
		// the harness's measured lateness.
		if r.Error < 0.25 || math.Abs(r.HarnessError)*r.True > medianSlack(r) {
			t.Errorf("%v: want the raw error to carry the engine's %v and the harness's error not to", r, over)
		}
	}
}

// The accounting, on numbers worked by hand: an engine that served every
// call in 22 ms (2 ms late) and a harness that measured 22.5 ms for a true
// 20 ms leave the harness 0.5 ms (2.5%); Worst judges that, not the raw
// 12.5%.
func TestCalibrationRowsNetTheEngine(t *testing.T) {
	own := newEngineTimes()
	for range 100 {
		_ = own.served.RecordValue(22000)
		_ = own.late.RecordValue(2000)
	}
	_ = own.served.RecordValue(29000)
	_ = own.late.RecordValue(9000)
	d := Distribution{Name: "fixed 20 ms", Fast: 20 * time.Millisecond}
	rows := calibrationRows(d, true, own, 0.7, 22.5, 22.5, 22.5)
	for _, r := range rows[:2] { // p50, p95: 2 ms late
		// (22 ms is a histogram bucket 22.015 ms wide: 3 significant digits.)
		if math.Abs(r.Error-0.125) > 1e-9 || math.Abs(r.EngineLate-2) > 0.02 || math.Abs(r.HarnessError-0.025) > 0.001 || r.HarnessLate != 0.7 {
			t.Errorf("%v; want error +12.5%%, engine 2 ms, harness +2.5%%, harness late 0.7 ms", r)
		}
	}
	if s := rows[0].EngineSpread; math.Abs(s[0]-2) > 0.01 || math.Abs(s[1]-9) > 0.01 {
		t.Errorf("engine spread %v; want 2 to 9 ms", s)
	}
	if w := Worst(rows); math.Abs(w-0.025) > 0.001 {
		t.Errorf("worst %.4f; want the harness's 0.025", w)
	}
	for _, c := range []struct {
		tol    float64
		within bool
		says   string
	}{
		{0.05, true, "every figure within 5.0% of the engine's own figure for the same calls (worst 3.0%; the engines were up to 9.00 ms late)"},
		{0.03, true, "every figure within 3.0% of the engine's own figure for the same calls (worst 3.0%; the engines were up to 9.00 ms late)"},
		{0.02, false, "a figure is 3.0% from the engine's own figure for the same calls (tolerance 2.0%; the engines were up to 9.00 ms late): the harness's figures are less precise than that on this machine"},
	} {
		judged := []CalibrationRow{{HarnessError: 0.01, EngineSpread: [2]float64{1, 9}}, {HarnessError: -0.03, EngineSpread: [2]float64{0.5, 4}}}
		v := CalibrationConfig{Tolerance: c.tol}.Verdict(judged)
		if v.Within() != c.within || v.String() != c.says {
			t.Errorf("tolerance %v: within %v, %q; want %v, %q", c.tol, v.Within(), v, c.within, c.says)
		}
	}
	if r := calibrationRows(d, false, newEngineTimes(), 0, 21, 21, 21)[0]; r.EngineLate != 0 || r.HarnessError != r.Error {
		t.Errorf("%v; an engine that recorded nothing leaves the raw error", r)
	}
}

// The percentile of a sum is not the sum of percentiles: where a few calls
// are held long (a freeze) and the rest are late by a spread of amounts,
// the harness's p99 is the engine's own p99 of the same calls, which the
// truth plus the lateness's p99 understates. Here 1 call in 100 is held
// 1 s and the rest are 0 to 4.95 ms late; a harness that adds nothing
// measures the engine's own p99 (44.9 ms, where truth 40 plus the lateness
// p99 would say 44.0) and is judged to have added nothing.
func TestCalibrationRowsNetThePercentileNotTheSum(t *testing.T) {
	own := newEngineTimes()
	for i := range 99 {
		_ = own.served.RecordValue(int64(40000 + 50*i))
		_ = own.late.RecordValue(int64(50 * i))
	}
	_ = own.served.RecordValue(1_040_000)
	_ = own.late.RecordValue(0)
	d := Distribution{Name: "40 ms", Fast: 40 * time.Millisecond}
	p99 := float64(own.served.ValueAtQuantile(99)) / 1000
	r := calibrationRows(d, true, own, 0, 40, 40, p99)[2]
	if r.HarnessError != 0 || math.Abs(r.EngineLate-(p99-40)) > 1e-9 || p99 < 44.5 {
		t.Errorf("%v; want the harness's p99 (the engine's own, %.3f ms) judged as adding nothing", r, p99)
	}
}

// A calibration's settings are checked before anything runs: each fault is
// one line naming the calibrate command's flag.
func TestCalibrationConfigValidate(t *testing.T) {
	if err := DefaultCalibration.Validate(); err != nil {
		t.Fatalf("the default: %v", err)
	}
	for _, c := range []struct {
		set  func(*CalibrationConfig)
		want string
	}{
		{func(c *CalibrationConfig) { c.Measure = 15 * time.Second }, "measure: 15s is not a whole number of the freezing engine's 10s periods (the truth assumes whole periods)"},
		{func(c *CalibrationConfig) { c.Measure = 5 * time.Second }, "measure: 5s is not a whole number"},
		{func(c *CalibrationConfig) { c.Users = 0 }, "users: 0 is out of range (1 to 1000)"},
		{func(c *CalibrationConfig) { c.Rate = 20_000 }, "rate: 20000 is out of range (1 to 10000 calls/s)"},
		{func(c *CalibrationConfig) { c.Rate = math.NaN() }, "rate: NaN is out of range"},
		{func(c *CalibrationConfig) { c.Workers = 0 }, "workers: 0 is out of range (1 to 10000)"},
		{func(c *CalibrationConfig) { c.Workers = 100 }, "workers: 100 cannot hold every call due during a freeze at 100 calls/s; give at least 156"},
		{func(c *CalibrationConfig) { c.Tolerance = 0 }, "tolerance: 0 must be > 0"},
	} {
		cfg := DefaultCalibration
		c.set(&cfg)
		err := cfg.Validate()
		var fe *field.Error
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Setting(), c.want) {
			t.Errorf("%+v: %v; want a field.Error saying %q", cfg, err, c.want)
		}
	}
}

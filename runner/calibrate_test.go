package runner

import (
	"context"
	"math"
	"testing"
	"time"
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

// The harness measures every known distribution within a few percent of its
// truth, and the open loop charges the freezes that the closed loop hides.
// (`searchbench calibrate` runs the same with longer windows.)
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
		// Medians within 10%; the tails of a test run depend on what else
		// the machine runs (the race detector, other packages' tests), so
		// they are `searchbench calibrate`'s to judge, on a quiet machine.
		if r.Percentile == "p50" && math.Abs(r.Error) > 0.10 {
			t.Errorf("%v", r)
		}
	}
	var closedP99, openP99 float64
	for _, r := range rows {
		if r.Distribution == quickCalibrations()[2].Name && r.Percentile == "p99" {
			if r.Loop == "closed" {
				closedP99 = r.Measured
			} else {
				openP99 = r.Measured
			}
		}
	}
	if openP99 < 4*closedP99 || openP99 < 0.8*float64(quickCalibrations()[2].Truth(false, 0.99))/float64(time.Millisecond) {
		t.Errorf("stall: open-loop p99 %.1f ms, closed-loop p99 %.1f ms; the open loop must show what the closed loop hides", openP99, closedP99)
	}
}

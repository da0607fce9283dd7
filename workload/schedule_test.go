package workload

import (
	"math"
	"testing"
	"time"
)

func TestConstantSchedule(t *testing.T) {
	s := Constant{PerSecond: 2000, Duration: time.Second}
	for _, n := range []uint64{0, 1, 1999} {
		at, ok := s.At(n)
		if want := time.Duration(n) * 500 * time.Microsecond; at != want || !ok {
			t.Fatalf("At(%d) = %v, %v; want %v, true", n, at, ok, want)
		}
	}
	if _, ok := s.At(2000); ok {
		t.Fatal("the schedule did not end after its duration")
	}
}

func TestPoissonSchedule(t *testing.T) {
	p := &Poisson{PerSecond: 1000, Duration: time.Hour, Seed: 3}
	const n = 100_000
	var prev time.Duration
	var sum, sumSq float64
	for i := uint64(1); i <= n; i++ {
		at, ok := p.At(i)
		if !ok || at < prev {
			t.Fatalf("At(%d) = %v, %v after %v", i, at, ok, prev)
		}
		g := (at - prev).Seconds()
		sum += g
		sumSq += g * g
		prev = at
	}
	mean := sum / n
	cv := math.Sqrt(sumSq/n-mean*mean) / mean
	if math.Abs(mean-0.001) > 0.00002 || math.Abs(cv-1) > 0.02 {
		t.Fatalf("mean interval %.6fs, CV %.3f; want 0.001s and 1 (exponential)", mean, cv)
	}
	// A function of n: asking again, out of order, gives the same times.
	again := &Poisson{PerSecond: 1000, Duration: time.Hour, Seed: 3}
	for _, i := range []uint64{5000, 17, 99_999, 0} {
		a, _ := p.At(i)
		b, _ := again.At(i)
		if a != b {
			t.Fatalf("At(%d) = %v then %v", i, a, b)
		}
	}
	other := &Poisson{PerSecond: 1000, Duration: time.Hour, Seed: 4}
	if a, _ := other.At(100); a == func() time.Duration { d, _ := p.At(100); return d }() {
		t.Fatal("seeds 3 and 4 give the same arrivals")
	}
}

func TestLadder(t *testing.T) {
	l := Ladder{Start: 2000, Step: 1.19, Stop: 4000}
	rates := l.Rates()
	if len(rates) != 4 || rates[0] != 2000 || math.Abs(rates[3]-2000*1.19*1.19*1.19) > 1e-9 {
		t.Fatalf("rates %v", rates)
	}
	if got := (Ladder{Start: 100, Step: 2, Stop: 400}).Rates(); len(got) != 3 {
		t.Fatalf("a rung equal to stop was dropped: %v", got)
	}
	for _, bad := range []Ladder{{0, 1.19, 10}, {10, 1, 100}, {10, 1.19, 5}, {1, 1.0001, 1e9}, {math.Inf(1), 2, math.Inf(1)}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := NewSchedule("bursty", 10, time.Second, 1); err == nil {
		t.Error("unknown arrival accepted")
	}
	if _, err := NewSchedule("constant", 0, time.Second, 1); err == nil {
		t.Error("rate 0 accepted")
	}
}

package workload

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/searchbench/searchbench/dataset"
)

// Schedule says when each send of an open-loop run is due. At is a
// function of n alone — the same n always gives the same time — so a
// schedule is tested without sleeping, and the runner can time every
// request from when it was supposed to be sent.
type Schedule interface {
	// At returns when send n (from 0) is due, as an offset from the start;
	// false once the schedule has ended.
	At(n uint64) (time.Duration, bool)
	// Rate is the offered rate in sends per second.
	Rate() float64
	// Length is how long the schedule offers sends.
	Length() time.Duration
}

// Constant spaces sends evenly at Rate per second for Duration.
type Constant struct {
	PerSecond float64
	Duration  time.Duration
}

// At is n / rate.
func (c Constant) At(n uint64) (time.Duration, bool) {
	at := time.Duration(float64(n) * float64(time.Second) / c.PerSecond)
	return at, at < c.Duration
}

// Rate is the configured rate.
func (c Constant) Rate() float64 { return c.PerSecond }

// Length is the configured duration.
func (c Constant) Length() time.Duration { return c.Duration }

// Poisson sends at exponentially distributed intervals (a Poisson process)
// with mean rate PerSecond for Duration. Interval n is drawn from its own
// seeded stream, so At(n) is the same on every call and every machine; the
// running sum is memoised so that consecutive calls cost O(1).
type Poisson struct {
	PerSecond float64
	Duration  time.Duration
	Seed      uint64

	mu    sync.Mutex
	n     uint64
	at    float64 // seconds, due time of send n
	valid bool
}

// poissonTag separates the arrival stream from the corpus and the users.
const poissonTag = 0x706f6973 // "pois"

func (p *Poisson) gap(n uint64) float64 {
	r := dataset.NewRand(p.Seed, poissonTag, n)
	return -math.Log(1-r.Float64()) / p.PerSecond
}

// At is the sum of the first n intervals (send 0 is due at 0).
func (p *Poisson) At(n uint64) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.valid || n < p.n {
		p.n, p.at, p.valid = 0, 0, true
	}
	for p.n < n {
		p.n++
		p.at += p.gap(p.n)
	}
	at := time.Duration(p.at * float64(time.Second))
	return at, at < p.Duration
}

// Rate is the mean rate.
func (p *Poisson) Rate() float64 { return p.PerSecond }

// Length is the configured duration.
func (p *Poisson) Length() time.Duration { return p.Duration }

// NewSchedule returns the named arrival process: "constant" or "poisson".
func NewSchedule(arrival string, rate float64, d time.Duration, seed uint64) (Schedule, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("rate: %v must be a finite number > 0", rate)
	}
	switch arrival {
	case "constant", "":
		return Constant{PerSecond: rate, Duration: d}, nil
	case "poisson":
		return &Poisson{PerSecond: rate, Duration: d, Seed: seed}, nil
	}
	return nil, fmt.Errorf("arrival: %q is neither constant nor poisson", arrival)
}

// Ladder is a sequence of offered rates: Start, Start×Step, … up to Stop.
type Ladder struct {
	Start, Step, Stop float64
}

// Validate reports the first bad field.
func (l Ladder) Validate() error {
	switch {
	case !(l.Start > 0) || math.IsInf(l.Start, 0):
		return fmt.Errorf("start: %v must be a finite rate > 0", l.Start)
	case !(l.Step > 1) || math.IsInf(l.Step, 0):
		return fmt.Errorf("step: %v must be > 1", l.Step)
	case !(l.Stop >= l.Start) || math.IsInf(l.Stop, 0):
		return fmt.Errorf("stop: %v must be a finite rate ≥ start (%v)", l.Stop, l.Start)
	case len(l.Rates()) > 200:
		return fmt.Errorf("ladder: %v to %v in steps of %v has more than 200 rungs", l.Start, l.Stop, l.Step)
	}
	return nil
}

// Rates lists the rungs. A rung is kept when it is within 0.1% of Stop, so
// that rounding never drops the last rung a user asked for.
func (l Ladder) Rates() []float64 {
	var out []float64
	for r := l.Start; r <= l.Stop*1.001 && len(out) <= 200; r *= l.Step {
		out = append(out, r)
	}
	return out
}

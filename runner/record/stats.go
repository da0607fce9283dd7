package record

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// statsEvery is how often engine-side figures are sampled while measuring:
// often enough to see a queue build within a 25 s rung, rarely enough that
// the sampling (FT.INFO per index, say) is no load.
const statsEvery = time.Second

// StatsSampler polls an engine's StatsReporter from the start of a measured
// window until Stop, once at the start, every statsEvery, and once at the
// end, so that a counter's growth covers the whole window.
type StatsSampler struct {
	src    func(context.Context) (map[string]float64, error)
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	acc    map[string]*gaugeAcc
	// points are every sample, for the timeline (a window at 1 s
	// sampling holds one per second).
	points []statsPoint
	errs   int
	last   error
}

type statsPoint struct {
	at time.Time
	v  map[string]float64
}

type gaugeAcc struct {
	n               int
	sum, max, last  float64
	first           float64
	firstAt, lastAt time.Time
}

// StartSampler starts sampling src: now, every statsEvery, and at Stop.
func StartSampler(ctx context.Context, src func(context.Context) (map[string]float64, error), timeout time.Duration) *StatsSampler {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &StatsSampler{src: src, cancel: cancel, done: make(chan struct{}), acc: map[string]*gaugeAcc{}}
	// The first sample is taken now, as the window opens, so a counter's
	// growth spans the whole window; it is bounded by a second so that a
	// slow engine does not hold the window's start.
	s.sample(ctx, min(timeout, time.Second))
	go func() {
		defer close(s.done)
		tick := time.NewTicker(statsEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			s.sample(ctx, timeout)
		}
	}()
	return s
}

func (s *StatsSampler) sample(ctx context.Context, timeout time.Duration) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	st, err := s.src(cctx)
	cancel()
	at := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			s.errs++
			s.last = err
		}
		return
	}
	s.points = append(s.points, statsPoint{at, st})
	for k, v := range st {
		a := s.acc[k]
		if a == nil {
			a = &gaugeAcc{first: v, firstAt: at, max: v}
			s.acc[k] = a
		}
		a.n++
		a.sum += v
		a.max = max(a.max, v)
		a.last, a.lastAt = v, at
	}
}

// PerInterval is, for each interval of g, the mean of each figure over
// the samples taken in it (nil where none was): the engine's figures on
// the timeline's clock. Call it after Stop.
func (s *StatsSampler) PerInterval(g Grid) []map[string]float64 {
	if s == nil {
		return nil
	}
	return s.means(g, 0, g.N)
}

// In is interval k's figures as PerInterval has them, from the samples
// taken so far: the live view's, while sampling goes on (nil when none
// was taken in it).
func (s *StatsSampler) In(g Grid, k int) map[string]float64 {
	if s == nil {
		return nil
	}
	return s.means(g, k, k+1)[0]
}

// means is, for intervals lo to hi-1 of g, the mean of each figure over
// the samples taken in each (nil where none was).
func (s *StatsSampler) means(g Grid, lo, hi int) []map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := hi - lo
	sums := make([]map[string]float64, n)
	counts := make([]map[string]int, n)
	for _, p := range s.points {
		d := p.at.Sub(g.Origin) - time.Duration(lo)*g.Every
		if d < 0 || d >= time.Duration(n)*g.Every {
			continue
		}
		k := int(d / g.Every)
		if sums[k] == nil {
			sums[k], counts[k] = map[string]float64{}, map[string]int{}
		}
		for name, v := range p.v {
			sums[k][name] += v
			counts[k][name]++
		}
	}
	for k, m := range sums {
		for name := range m {
			m[name] /= float64(counts[k][name])
		}
	}
	return sums
}

// statsEdgeTimeout bounds the last sample, as the window ends: an engine
// that stopped answering would otherwise hold the level's end (and an
// interrupted run) for the whole request timeout.
const statsEdgeTimeout = 5 * time.Second

// Stop ends sampling, takes a last sample (none when ctx, the run's, has
// ended: an interrupt waits for no engine) and returns one gauge per
// figure, and a warning when samples failed.
func (s *StatsSampler) Stop(ctx context.Context, timeout time.Duration) (map[string]result.Gauge, string) {
	if s == nil {
		return nil, ""
	}
	s.cancel()
	<-s.done
	s.sample(ctx, min(timeout, statsEdgeTimeout))
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]result.Gauge, len(s.acc))
	for k, a := range s.acc {
		g := result.Gauge{Samples: a.n, Mean: a.sum / float64(a.n), Max: a.max, Last: a.last}
		if span := a.lastAt.Sub(a.firstAt); span > 0 {
			g.PerSecond = (a.last - a.first) / span.Seconds()
		}
		out[k] = g
	}
	var warn string
	if s.errs > 0 {
		warn = fmt.Sprintf("engine stats: %d samples failed; last: %v", s.errs, s.last)
	}
	return out, warn
}

package checks

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// markerWord is the n-th marker of a run: letters only (tokenizers split
// letters from digits differently), a prefix no vocabulary word has, and
// long enough that stemmers leave it alone or shorten every form alike.
func markerWord(seed, n uint64) string {
	r := dataset.NewRand(seed, 0x6d61726b, n) // "mark"
	b := []byte("zqx")
	for range 9 {
		b = append(b, byte('a'+r.Intn(26)))
	}
	return string(b)
}

// FreshnessConfig bounds the freshness probe.
type FreshnessConfig struct {
	// Off disables the probe.
	Off bool
	// Poll is the shortest time between two searches of one probe; later
	// polls are spaced by a tenth of the time since the write, so the
	// resolution is Poll or 10% of the lag, whichever is larger, and a slow
	// engine is not flooded.
	Poll time.Duration
	// Gap is the mean pause between probes: at most one write is probed at
	// a time, and a new one is claimed after a pause drawn from an
	// exponential distribution of this mean. A fixed pause would lock onto
	// a periodic refresh (Elasticsearch's 1 s) and sample every write at
	// the same point of its cycle; random times sample it evenly. Zero is
	// the default, as for Poll; 1ns probes back to back.
	Gap time.Duration
}

// Freshness defaults.
const (
	DefaultFreshnessPoll = 25 * time.Millisecond
	DefaultFreshnessGap  = time.Second
)

// Validate reports the first bad field (a *field.Error). Zero Poll and Gap
// are the defaults.
func (c FreshnessConfig) Validate() error {
	switch {
	case !c.Off && c.Poll != 0 && c.Poll < time.Millisecond:
		return field.New("Poll", "freshness-poll", "%v must be ≥ 1ms (0: the default)", c.Poll)
	case c.Gap < 0:
		return field.New("Gap", "freshness-gap", "%v must be ≥ 0 (0: the default)", c.Gap)
	}
	return nil
}

// Prober measures freshness lag: for a sample of the run's own upserts, the
// time from the write's acknowledgement until a search first returns it.
// A user that finds the Prober wanting a sample marks its next upsert with
// a word no other document has; once the write returns, the Prober searches
// for that word, at a bounded rate, until the document comes back.
type Prober struct {
	e      engines.Engine
	m      corpus.Marker
	cfg    FreshnessConfig
	ask    workload.Ask
	seed   uint64
	vers   Versions
	want   atomic.Bool
	n      atomic.Uint64
	writes chan probeWrite
	done   chan struct{}

	mu  sync.Mutex
	res result.Freshness
	lag *hdrhistogram.Histogram
	// longest is the longest lag measured so far, in nanoseconds: the
	// window the exact checks under load excuse recent writes within.
	longest atomic.Int64
	// g is the window's interval grid (startIntervals), perIv the probes
	// that saw their write in each interval: count and longest lag.
	g     record.Grid
	perIv []result.IntervalFreshness
}

// StartIntervals gives the Prober the window's grid, before it runs.
func (p *Prober) StartIntervals(g record.Grid) {
	if p != nil {
		p.g, p.perIv = g, make([]result.IntervalFreshness, g.N)
	}
}

// OnTimeline puts on each interval of tl the probes that completed in it
// (their search that saw the write returned there). Call it once the
// Prober has stopped.
func (p *Prober) OnTimeline(tl *result.Timeline) {
	if p == nil {
		return
	}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		iv.Freshness = p.Interval(tl.Index(iv.Start))
	}
}

// Longest is the longest lag the probe has measured so far (0 for a nil
// Prober or before any probe saw its write).
func (p *Prober) Longest() time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.longest.Load())
}

// Interval is the probes that completed in interval k so far (nil when
// none did, or for a nil Prober).
func (p *Prober) Interval(k int) *result.IntervalFreshness {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k >= len(p.perIv) || p.perIv[k].Visible == 0 {
		return nil
	}
	f := p.perIv[k]
	return &f
}

type probeWrite struct {
	id      uint32
	version uint32
	word    string
	acked   time.Time
	err     error
}

// NewProber probes e with searches of k hits, its markers drawn from the
// workload's seed; nil when the source cannot mark documents or the probe
// is off: a nil Prober claims nothing.
func NewProber(e engines.Engine, src corpus.Source, cfg FreshnessConfig, ask workload.Ask, seed uint64, vers Versions) *Prober {
	m, ok := src.(corpus.Marker)
	if !ok || cfg.Off {
		return nil
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultFreshnessPoll
	}
	if cfg.Gap == 0 {
		cfg.Gap = DefaultFreshnessGap
	}
	return &Prober{e: e, m: m, cfg: cfg, ask: ask, seed: seed, vers: vers,
		writes: make(chan probeWrite, 1), done: make(chan struct{}), lag: record.NewHistogram()}
}

// Claim marks doc when the Prober wants a sample; the caller then reports
// the write's outcome with Written.
func (p *Prober) Claim(doc *engines.Document) (string, bool) {
	if p == nil || !p.want.Load() || !p.want.CompareAndSwap(true, false) {
		return "", false
	}
	w := markerWord(p.seed, p.n.Add(1))
	p.m.Mark(doc, w)
	return w, true
}

// Written hands a claimed write to the Prober.
func (p *Prober) Written(id, version uint32, word string, acked time.Time, err error) {
	p.writes <- probeWrite{id: id, version: version, word: word, acked: acked, err: err}
}

// Run probes until ctx ends; a probe in progress then ends unresolved.
func (p *Prober) Run(ctx context.Context, timeout time.Duration) {
	defer close(p.done)
	for {
		p.want.Store(true)
		var w probeWrite
		select {
		case <-ctx.Done():
			if p.want.CompareAndSwap(true, false) {
				return
			}
			// A user claimed a sample as the window closed: take its
			// outcome so it is not left blocking.
			w = <-p.writes
			p.count(func(r *result.Freshness) {
				if w.err != nil {
					r.WriteFailed++
				} else {
					r.Unresolved++
				}
			})
			return
		case w = <-p.writes:
		}
		// A write that failed is not a write to probe. The Prober pauses
		// after it as after a probe: claiming the next write at once
		// would, while the engine is down, claim every failing write.
		if w.err != nil {
			p.count(func(r *result.Freshness) { r.WriteFailed++ })
		} else {
			p.probe(ctx, w, timeout)
		}
		if !pace.Sleep(ctx, time.Now().Add(p.gap())) {
			return
		}
	}
}

// gap is the next pause between probes: exponential with mean Gap, from
// the run's seed.
func (p *Prober) gap() time.Duration {
	r := dataset.NewRand(p.seed, 0x67617073, p.n.Load()) // "gaps"
	return time.Duration(-math.Log(1-r.Float64()) * float64(p.cfg.Gap))
}

// probe polls for one write. Polls start right after the write returned,
// then are spaced by max(Poll, a tenth of the time since the write).
func (p *Prober) probe(ctx context.Context, w probeWrite, timeout time.Duration) {
	id := dataset.DocID(w.id)
	q := p.m.MarkQuery(w.word)
	p.ask.Apply(&q)
	for {
		if p.vers.Latest(w.id) != w.version {
			// Another user wrote the ID again before the probe saw this
			// version: what the probe looks for may never be visible.
			p.count(func(r *result.Freshness) { r.Superseded++ })
			return
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, timeout)
		hits, err := guard.Call(func() (engines.Hits, error) { return p.e.Search(cctx, q) })
		cancel()
		if ctx.Err() != nil {
			p.count(func(r *result.Freshness) { r.Unresolved++ })
			return
		}
		p.count(func(r *result.Freshness) { r.Searches++ })
		if err != nil {
			p.count(func(r *result.Freshness) {
				r.SearchFailed++
				r.LastError = err.Error()
			})
			return
		}
		if slices.Contains(hits.IDs, id) {
			lag := start.Sub(w.acked)
			for old := p.longest.Load(); int64(lag) > old && !p.longest.CompareAndSwap(old, int64(lag)); old = p.longest.Load() {
			}
			p.mu.Lock()
			us, _ := record.Micros(lag)
			_ = p.lag.RecordValue(us)
			p.res.Visible++
			if d := time.Since(p.g.Origin); p.perIv != nil && d >= 0 {
				f := &p.perIv[p.g.Index(d)]
				f.Visible++
				f.LagMax = max(f.LagMax, float64(us)/1000)
			}
			p.mu.Unlock()
			return
		}
		next := max(p.cfg.Poll, time.Since(w.acked)/10)
		if !pace.Sleep(ctx, start.Add(next)) {
			p.count(func(r *result.Freshness) { r.Unresolved++ })
			return
		}
	}
}

func (p *Prober) count(f func(*result.Freshness)) {
	p.mu.Lock()
	f(&p.res)
	p.mu.Unlock()
}

// Result waits for the Prober to stop and summarises it; nil for a nil
// Prober.
func (p *Prober) Result() *result.Freshness {
	if p == nil {
		return nil
	}
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.res
	r.Probes = r.Visible + r.Superseded + r.SearchFailed + r.Unresolved
	r.Poll = result.Duration(p.cfg.Poll)
	r.Lag = result.Summarize(p.lag)
	if p.lag.TotalCount() > 0 {
		r.Histogram, _ = result.EncodeHistogram(p.lag)
	}
	return &r
}

// FreshnessWarning says when the probe could not measure, or measured a
// biased sample: the writes it lost (written again before they showed, or
// still hidden when the window closed) are the slow ones, so when they are
// many the percentiles understate the lag.
func FreshnessWarning(f *result.Freshness) string {
	if f == nil {
		return ""
	}
	lost := f.Superseded + f.Unresolved
	switch {
	case f.SearchFailed > 0 && f.Visible == 0:
		return fmt.Sprintf("freshness: the probe's searches failed (%s); no lag measured", f.LastError)
	case f.Probes == 0 && f.WriteFailed > 0:
		return fmt.Sprintf("freshness: each of the %d writes sampled for a probe failed; no lag measured", f.WriteFailed)
	case f.Probes > 0 && f.Visible == 0:
		return fmt.Sprintf("freshness: none of %d probed writes became visible within the window", f.Probes)
	case lost > 0 && float64(lost) > 0.1*float64(f.Visible+lost):
		return fmt.Sprintf("freshness: %d of %d probed writes were written again or still hidden when the window closed; they are the slow ones, so the lag percentiles understate the lag", lost, f.Visible+lost)
	}
	return ""
}

package record

import (
	"context"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// Interval recording: every measured window (a closed-loop level, an
// open-loop rep) is cut into intervals of one clock, and each call's latency
// goes into its interval's histograms as well as the window's.
//
// The recording path is the window's: a worker's Recorder buffers samples
// (no lock, no allocation) and flushes them; a flush also happens when the
// worker's calls move to a new interval, so a buffer only ever holds one
// interval's samples and counts, and the flush adds them to that
// interval's histograms under the interval set's lock (about once per
// interval per worker plus once per 512 calls). An interval's dense
// histograms (4 operations × 160 KB) exist only while it is open: a
// collector closes each interval one interval after it ended, keeping its
// histograms V2-compressed (the encoding the result carries) and its
// percentiles and counts, and gives the dense ones back to a pool. A call
// that returns after its interval closed (one that took longer than an
// interval) reopens it: rare, and exact.
//
// Memory: at most about three intervals are open at once (the current one,
// the one just ended, and one being closed): 3 × 4 × 160 KB ≈ 2 MB per
// window (twice that in open loop, which keeps service times too), whatever
// the window's length, and as much again for the query kinds of a source
// that splits its searches (3 × 5 × 160 KB for the product corpus's; a
// kind's dense histogram is taken at its first success in an interval, and
// the latencies only: the window's kinds carry no service times either).
// A closed interval costs ~200 bytes of counts and percentiles plus its
// compressed histograms, which grow with the number of distinct latencies
// in it (1 KB to a few KB per operation at thousands of calls a second: see
// TestIntervalMemory), so a one-hour level at 1 s intervals with four
// operations holds 14,400 compressed histograms — ~15–60 MB, the size its
// timeline has in result.json — and the product workload's five query
// kinds add 18,000 more, each of a share of the searches.

// Grid is a window's interval clock: interval k is [origin + k·every,
// origin + (k+1)·every), k in [0, n).
type Grid struct {
	Origin time.Time // monotonic
	Every  time.Duration
	N      int
}

// NewGrid is the grid from origin covering until (at least one interval).
func NewGrid(origin time.Time, every, until time.Duration) Grid {
	n := int((until + every - 1) / every)
	return Grid{Origin: origin, Every: every, N: max(n, 1)}
}

// At is the interval t falls in, clamped to the grid.
func (g Grid) At(t time.Time) int { return g.Index(t.Sub(g.Origin)) }

// Index is the interval of offset d from the origin, clamped to the grid.
func (g Grid) Index(d time.Duration) int {
	if d < 0 {
		return 0
	}
	return min(int(d/g.Every), g.N-1)
}

// Intervals is one sink's interval histograms.
type Intervals struct {
	g     Grid
	mu    sync.Mutex
	slots []ivSlot
	pool  []*[workload.NumOps]*hdrhistogram.Histogram
	// kinds names the query kinds searches are split into (nil: none, as
	// Sink.kinds); kindPool holds the dense histograms of closed kinds.
	kinds    []string
	kindPool []*hdrhistogram.Histogram
	open     int // slots holding dense histograms now
	peak     int // the most ever open at once
	err      error
}

// ivSlot is one interval: dense histograms while open, compressed once
// closed.
type ivSlot struct {
	hist    *[workload.NumOps]*hdrhistogram.Histogram
	packed  [workload.NumOps]string
	pct     [workload.NumOps]result.Percentiles
	count   [workload.NumOps]int64
	classes [workload.NumOps][engines.NumClasses]int64
	// kinds is the searches of each query kind, once the interval has one
	// (nil: none yet), as the operations are kept.
	kinds  *[maxKinds]ivKind
	closed bool
}

// ivKind is one query kind's searches in one interval.
type ivKind struct {
	hist    *hdrhistogram.Histogram // dense, while the interval is open and the kind has a success
	packed  string
	pct     result.Percentiles
	count   int64
	classes [engines.NumClasses]int64
}

// newIntervals is the interval histograms of grid g, splitting searches
// by the query kinds named (nil: not split).
func newIntervals(g Grid, kinds []string) *Intervals {
	return &Intervals{g: g, slots: make([]ivSlot, g.N), kinds: kinds}
}

// add records a flushed buffer of interval k: its samples and its calls
// by operation and class, and by query kind and class.
func (iv *Intervals) add(k int, samples []sample, classes *[workload.NumOps][engines.NumClasses]int64, kindClasses *[maxKinds][engines.NumClasses]int64) {
	k = min(max(k, 0), len(iv.slots)-1)
	iv.mu.Lock()
	defer iv.mu.Unlock()
	s := &iv.slots[k]
	if s.hist == nil && len(samples) > 0 {
		iv.reopen(s)
	}
	for _, x := range samples {
		// In range by construction: RecordValue cannot fail.
		_ = s.hist[x.op()].RecordValue(x.micros())
		if kind := x.kind(); kind >= 0 && kind < len(iv.kinds) {
			_ = iv.kindHistogram(s, kind).RecordValue(x.micros())
		}
	}
	for op := range classes {
		for c, n := range classes[op] {
			s.classes[op][c] += n
		}
	}
	for kind := range iv.kinds {
		for c, n := range kindClasses[kind] {
			if n > 0 {
				s.kind(kind).classes[c] += n
			}
		}
	}
}

// kind is the slot's figures of query kind k, their array made at the
// slot's first call of any kind (a source of one kind never makes it).
func (s *ivSlot) kind(k int) *ivKind {
	if s.kinds == nil {
		s.kinds = new([maxKinds]ivKind)
	}
	return &s.kinds[k]
}

// kindHistogram is kind's dense histogram in open slot s, taken from the
// pool (or made) at the kind's first success there. The caller holds mu.
func (iv *Intervals) kindHistogram(s *ivSlot, kind int) *hdrhistogram.Histogram {
	sk := s.kind(kind)
	if sk.hist == nil {
		if n := len(iv.kindPool); n > 0 {
			sk.hist, iv.kindPool = iv.kindPool[n-1], iv.kindPool[:n-1]
		} else {
			sk.hist = NewHistogram()
		}
		iv.reload(sk.hist, &sk.packed)
	}
	return sk.hist
}

// reload adds to dense histogram h what a closed interval compressed into
// *packed, and empties *packed. The caller holds mu.
func (iv *Intervals) reload(h *hdrhistogram.Histogram, packed *string) {
	if *packed == "" {
		return
	}
	old, err := result.DecodeHistogram(*packed)
	if err != nil {
		iv.err = err
		return
	}
	h.Merge(old)
	*packed = ""
}

// reopen gives s dense histograms, holding what it held when it closed
// (a kind's is reloaded at its next success, kindHistogram).
func (iv *Intervals) reopen(s *ivSlot) {
	if n := len(iv.pool); n > 0 {
		s.hist, iv.pool = iv.pool[n-1], iv.pool[:n-1]
	} else {
		s.hist = new([workload.NumOps]*hdrhistogram.Histogram)
		for op := range s.hist {
			s.hist[op] = NewHistogram()
		}
	}
	iv.open++
	iv.peak = max(iv.peak, iv.open)
	for op := range s.packed {
		iv.reload(s.hist[op], &s.packed[op])
	}
	s.closed = false
}

// pack compresses dense histogram h into its summary: count, percentiles
// and encoding. The caller holds mu.
func (iv *Intervals) pack(h *hdrhistogram.Histogram) (count int64, pct result.Percentiles, packed string) {
	count, pct = h.TotalCount(), result.IntervalPercentiles(h)
	if count > 0 {
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			iv.err = err
		}
		packed = enc
	}
	h.Reset()
	return count, pct, packed
}

// close compresses slot k's histograms and returns the dense ones to the
// pools. The caller holds mu.
func (iv *Intervals) close(k int) {
	s := &iv.slots[k]
	s.closed = true
	if s.kinds != nil {
		for i := range s.kinds {
			if sk := &s.kinds[i]; sk.hist != nil {
				sk.count, sk.pct, sk.packed = iv.pack(sk.hist)
				iv.kindPool = append(iv.kindPool, sk.hist)
				sk.hist = nil
			}
		}
	}
	if s.hist == nil {
		return
	}
	for op, h := range s.hist {
		s.count[op], s.pct[op], s.packed[op] = iv.pack(h)
	}
	iv.pool = append(iv.pool, s.hist)
	s.hist = nil
	iv.open--
}

// collect closes the open intervals that ended at least one interval
// before now (offset from the origin).
func (iv *Intervals) collect(now time.Duration) (closed []int) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	for k := range iv.slots {
		s := &iv.slots[k]
		if time.Duration(k+2)*iv.g.Every > now {
			break
		}
		if s.hist != nil || !s.closed {
			iv.close(k)
			closed = append(closed, k)
		}
	}
	return closed
}

// snapshotOf is interval k of ivs (latency, and service times when there
// are two) for the live callback.
func snapshotOf(ivs []*Intervals, k int, ops []workload.Op) result.Interval {
	iv := ivs[0]
	iv.mu.Lock()
	defer iv.mu.Unlock()
	var svc *Intervals
	if len(ivs) > 1 {
		svc = ivs[1]
		svc.mu.Lock()
		defer svc.mu.Unlock()
	}
	return iv.snapshot(k, ops, svc, iv.g.Every)
}

// Finish closes every interval; call it once every recorder has flushed.
func (iv *Intervals) Finish() {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	for k := range iv.slots {
		iv.close(k)
	}
	iv.pool, iv.kindPool = nil, nil // the dense histograms are not needed any more
}

// Collector closes iv's intervals (and those of the others) as they end,
// until ctx ends, sending each to live with what more adds to it (the
// window's figures besides its calls; nil: nothing). It
// returns when it has stopped.
func Collector(ctx context.Context, live LiveFunc, more func(g Grid, k int, iv *result.Interval), ops []workload.Op, ivs ...*Intervals) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g := ivs[0].g
		tick := time.NewTicker(g.Every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				now := time.Since(g.Origin)
				var closed []int
				for _, iv := range ivs {
					closed = iv.collect(now)
				}
				if live != nil {
					for _, k := range closed {
						iv := snapshotOf(ivs, k, ops)
						if more != nil {
							more(g, k, &iv)
						}
						live(iv)
					}
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// Timeline is the intervals of iv (closed by finish) that overlap the
// window [from, end) (offsets from the grid's origin) as the result carries
// them, for ops; svc, when set, is the open loop's service times on the
// same grid. The last interval is cut at end; the first may begin before
// from (a sharded window that opened late on the shared grid), which
// Timeline.Offset says.
func (iv *Intervals) Timeline(ops []workload.Op, svc *Intervals, from, end time.Duration) (*result.Timeline, error) {
	every := iv.g.Every
	first := int(from / every)
	t := &result.Timeline{Interval: result.Duration(every), Offset: result.Duration(time.Duration(first)*every - from),
		Origin: iv.g.Origin.Round(0).UTC()}
	n := 0
	if end > from {
		n = min(int((end+every-1)/every), len(iv.slots))
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if svc != nil {
		svc.mu.Lock()
		defer svc.mu.Unlock()
	}
	for k := first; k < n; k++ {
		t.Intervals = append(t.Intervals, iv.snapshot(k, ops, svc, min(every, end-time.Duration(k)*every)))
	}
	if iv.err != nil {
		return t, iv.err
	}
	if svc != nil && svc.err != nil {
		return t, svc.err
	}
	return t, nil
}

// snapshot is closed interval k as the result carries it, of the given
// length. The caller holds mu (and svc's).
func (iv *Intervals) snapshot(k int, ops []workload.Op, svc *Intervals, length time.Duration) result.Interval {
	start := time.Duration(k) * iv.g.Every
	out := result.Interval{Start: result.Duration(start), Length: result.Duration(length)}
	s := &iv.slots[k]
	for _, op := range ops {
		o := result.IntervalOp{Op: op.String(), Count: s.count[op], NotFound: s.classes[op][engines.NotFound],
			Errors: errorCounts(op, &s.classes[op]), Histogram: s.packed[op]}
		p := s.pct[op]
		o.P50, o.P95, o.P99, o.Max = p.P50, p.P95, p.P99, p.Max
		if svc != nil {
			sv := &svc.slots[k]
			pct := sv.pct[op]
			o.Service, o.ServiceHistogram = &pct, sv.packed[op]
		}
		if op == workload.Search {
			o.Kinds = iv.kindsOf(s)
		}
		out.Ops = append(out.Ops, o)
	}
	return out
}

// kindsOf is closed slot s's searches by query kind, the kinds called in
// it in the source's order (nil when none were). The caller holds mu.
func (iv *Intervals) kindsOf(s *ivSlot) []result.IntervalKind {
	if s.kinds == nil {
		return nil
	}
	var out []result.IntervalKind
	for i, name := range iv.kinds {
		sk := &s.kinds[i]
		var calls int64
		for _, n := range sk.classes {
			calls += n
		}
		if calls == 0 {
			continue
		}
		out = append(out, result.IntervalKind{Kind: name, Count: sk.count, Errors: errorCounts(workload.Search, &sk.classes),
			Percentiles: sk.pct, Histogram: sk.packed})
	}
	return out
}

// LiveFunc receives each interval as the collector closes it (one interval
// after it ended), provisional: a call that returns after its interval
// closed reopens it, and the interval is sent again when it closes anew;
// a check answered after the interval was sent, or a sample taken late,
// is in the final one only. When the window's timeline is done, final
// sends each of its intervals once more. nil: none are sent.
type LiveFunc func(result.Interval)

// Final sends the window's finished timeline, interval by interval: the
// collector stops with the window, so its last intervals were never sent,
// and those it sent lack the window's figures (active users, known-item
// checks, freshness, engine stats). A watcher that keeps the latest of
// each interval ends with the result's timeline.
func (live LiveFunc) Final(tl *result.Timeline) {
	if live == nil || tl == nil {
		return
	}
	for _, iv := range tl.Intervals {
		live(iv)
	}
}

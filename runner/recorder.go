package runner

import (
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// Histogram geometry: microseconds from 1 µs to 5 minutes at 3 significant
// digits (0.1% resolution). Longer calls are recorded at the ceiling and
// counted as clamped; the request timeout keeps them rare.
const (
	lowestUS  = 1
	highestUS = int64(5 * time.Minute / time.Microsecond)
	sigFigs   = 3
)

// HistogramNote describes the encoded histograms in the result.
const HistogramNote = "HdrHistogram V2 compressed, base64; microseconds 1 µs to 5 min, 3 significant digits; successful calls only"

// newHistogram is an empty histogram of the shared geometry.
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(lowestUS, highestUS, sigFigs) }

// micros converts d to the histograms' unit, clamped to their range; clamped
// reports whether d was beyond the ceiling.
func micros(d time.Duration) (us int64, clamped bool) {
	us = max(int64(d/time.Microsecond), 0)
	if us > highestUS {
		return highestUS, true
	}
	return us, false
}

// cpuShare is CPU time over wall time as a fraction of the CPUs this
// process may use.
func cpuShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / (wall.Seconds() * float64(runtime.GOMAXPROCS(0)))
}

// Histograms is one set of per-operation latency histograms and failure
// counts.
type Histograms struct {
	hist    [workload.NumOps]*hdrhistogram.Histogram
	classes [workload.NumOps][engines.NumClasses]int64
	clamped int64
}

// NewHistograms allocates an empty set.
func NewHistograms() *Histograms {
	h := &Histograms{}
	for i := range h.hist {
		h.hist[i] = newHistogram()
	}
	return h
}

// Merge adds other into h.
func (h *Histograms) Merge(other *Histograms) {
	for op := range h.hist {
		h.hist[op].Merge(other.hist[op])
		for c := range h.classes[op] {
			h.classes[op][c] += other.classes[op][c]
		}
	}
	h.clamped += other.clamped
}

// Clamped is how many calls took longer than the histogram's ceiling.
func (h *Histograms) Clamped() int64 { return h.clamped }

// Stats summarises op over a window of the given length.
func (h *Histograms) Stats(op workload.Op, window time.Duration) (result.OpStats, error) {
	hist := h.hist[op]
	s := result.OpStats{
		Op:       op.String(),
		Count:    hist.TotalCount(),
		NotFound: h.classes[op][engines.NotFound],
		Latency:  result.Summarize(hist),
	}
	if window > 0 {
		s.RPS = float64(s.Count) / window.Seconds()
	}
	for c := engines.NotFound; c < engines.NumClasses; c++ {
		if succeeded(op, c) {
			continue // counted in Count, as the published method does
		}
		if n := h.classes[op][c]; n > 0 {
			if s.Errors == nil {
				s.Errors = map[string]int64{}
			}
			s.Errors[c.String()] = n
		}
	}
	if s.Count > 0 {
		enc, err := result.EncodeHistogram(hist)
		if err != nil {
			return s, err
		}
		s.Histogram = enc
	}
	return s, nil
}

// succeeded says whether a call of op that ended in class c counts as done:
// success, or a delete of a missing ID (the published method ignores those;
// they are also counted apart as not-found).
func succeeded(op workload.Op, c engines.Class) bool {
	return c == engines.OK || (c == engines.NotFound && op == workload.Delete)
}

// Sink gathers the samples of every recorder of one level. A dense HDR
// histogram at 3 significant digits is ~160 KB, so one per user and
// operation would cost ~720 MB at 1,500 users; instead each user owns a small
// buffer and folds it into one of a few shards when it fills.
type Sink struct {
	shards []shard
}

type shard struct {
	mu sync.Mutex
	h  *Histograms
	_  [40]byte // keep neighbouring shards' locks off one cache line
}

// NewSink returns a sink with n shards (at least 1).
func NewSink(n int) *Sink {
	s := &Sink{shards: make([]shard, max(n, 1))}
	for i := range s.shards {
		s.shards[i].h = NewHistograms()
	}
	return s
}

// Total merges every shard. Call it once every recorder has been flushed.
func (s *Sink) Total() *Histograms {
	t := NewHistograms()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		t.Merge(sh.h)
		sh.mu.Unlock()
	}
	return t
}

// median is the median latency across operations of what the shards hold
// so far, or -1 when they hold nothing: for live progress, not results.
func (s *Sink) median() time.Duration {
	all := newHistogram()
	for _, h := range s.Total().hist {
		all.Merge(h)
	}
	if all.TotalCount() == 0 {
		return -1
	}
	return time.Duration(all.ValueAtQuantile(50)) * time.Microsecond
}

// bufferSize is how many samples a recorder holds before it flushes: large
// enough that the shard lock is taken once per 512 calls, small enough (4 KB)
// that 1,500 users cost 6 MB.
const bufferSize = 512

// sample packs an operation and a latency in microseconds.
type sample uint64

const opShift = 56

// Recorder is one worker's recording path. Record writes into the worker's
// own buffer: no lock and no allocation; the buffer is folded into a shard
// of the sink every bufferSize samples and by Flush.
type Recorder struct {
	sink    *Sink
	shard   int
	n       int
	clamped int64
	classes [workload.NumOps][engines.NumClasses]int64
	buf     [bufferSize]sample
}

// NewRecorder returns worker i's recorder.
func (s *Sink) NewRecorder(i int) *Recorder {
	return &Recorder{sink: s, shard: i % len(s.shards)}
}

// Record adds one call of op that took d and ended in class c. Calls that
// succeeded go into the latency histogram; failures are only counted.
func (r *Recorder) Record(op workload.Op, d time.Duration, c engines.Class) {
	r.classes[op][c]++
	if !succeeded(op, c) {
		return
	}
	us, clamped := micros(d)
	if clamped {
		r.clamped++
	}
	r.buf[r.n] = sample(op)<<opShift | sample(us)
	r.n++
	if r.n == bufferSize {
		r.Flush()
	}
}

// Flush folds the buffer and the counts into the recorder's shard.
func (r *Recorder) Flush() {
	sh := &r.sink.shards[r.shard]
	sh.mu.Lock()
	for _, s := range r.buf[:r.n] {
		// In range by construction, so RecordValue cannot fail (nor
		// allocate its error).
		_ = sh.h.hist[s>>opShift].RecordValue(int64(s & (1<<opShift - 1)))
	}
	for op := range r.classes {
		for c, n := range r.classes[op] {
			sh.h.classes[op][c] += n
		}
	}
	sh.h.clamped += r.clamped
	sh.mu.Unlock()
	r.n, r.clamped, r.classes = 0, 0, [workload.NumOps][engines.NumClasses]int64{}
}

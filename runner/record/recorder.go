package record

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	HighestUS = int64(5 * time.Minute / time.Microsecond)
	sigFigs   = 3
)

// HistogramNote describes the encoded histograms in the result.
const HistogramNote = "HdrHistogram V2 compressed, base64; microseconds 1 µs to 5 min, 3 significant digits; successful calls only"

// NewHistogram is an empty histogram of the shared geometry.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(lowestUS, HighestUS, sigFigs) }

// Micros converts d to the histograms' unit, clamped to their range; clamped
// reports whether d was beyond the ceiling.
func Micros(d time.Duration) (us int64, clamped bool) {
	us = max(int64(d/time.Microsecond), 0)
	if us > HighestUS {
		return HighestUS, true
	}
	return us, false
}

// CPUShare is CPU time over wall time as a fraction of the CPUs this
// process may use.
func CPUShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / (wall.Seconds() * float64(runtime.GOMAXPROCS(0)))
}

// Histograms is one set of per-operation latency histograms and failure
// counts, and the search operation's split by query kind.
type Histograms struct {
	Hist     [workload.NumOps]*hdrhistogram.Histogram
	classes  [workload.NumOps][engines.NumClasses]int64
	examples [workload.NumOps][engines.NumClasses][]string
	clamped  int64
	// kinds names the source's query kinds when searches are split by
	// kind (nil: they are not); kindHist holds a kind's latencies once it
	// has one, kindClasses its calls by class.
	kinds       []string
	kindHist    [maxKinds]*hdrhistogram.Histogram
	kindClasses [maxKinds][engines.NumClasses]int64
}

// maxKinds bounds the query kinds a source may split its searches into
// (the sample's kind field could hold 255): each recorder counts every
// kind's calls by class.
const maxKinds = 15

// maxExamples is how many distinct error messages are kept per operation and
// class: enough to tell one failure from two, few enough that a storm of
// unique messages (IDs in them) stays small.
const maxExamples = 3

// addExample keeps msg if it is new and there is room.
func (h *Histograms) addExample(op workload.Op, c engines.Class, msg string) {
	ex := h.examples[op][c]
	if msg == "" || len(ex) >= maxExamples || slices.Contains(ex, msg) {
		return
	}
	h.examples[op][c] = append(ex, msg)
}

// newHistograms allocates an empty set.
func newHistograms() *Histograms {
	h := &Histograms{}
	for i := range h.Hist {
		h.Hist[i] = NewHistogram()
	}
	return h
}

// Merge adds other into h.
func (h *Histograms) Merge(other *Histograms) {
	for op := range h.Hist {
		h.Hist[op].Merge(other.Hist[op])
		for c := range h.classes[op] {
			h.classes[op][c] += other.classes[op][c]
			for _, msg := range other.examples[op][c] {
				h.addExample(workload.Op(op), engines.Class(c), msg)
			}
		}
	}
	h.clamped += other.clamped
	if h.kinds == nil {
		h.kinds = other.kinds
	}
	for k, o := range other.kindHist {
		if o != nil {
			h.kindHistogram(k).Merge(o)
		}
		for c, n := range other.kindClasses[k] {
			h.kindClasses[k][c] += n
		}
	}
}

// kindHistogram is kind k's histogram, made on first use: a source's kinds
// a mix never draws cost nothing.
func (h *Histograms) kindHistogram(k int) *hdrhistogram.Histogram {
	if h.kindHist[k] == nil {
		h.kindHist[k] = NewHistogram()
	}
	return h.kindHist[k]
}

// kindStats is the search operation's split by kind: the kinds that were
// called, in the source's order.
func (h *Histograms) kindStats(window time.Duration) ([]result.KindStats, error) {
	var out []result.KindStats
	for k, name := range h.kinds {
		hist := h.kindHist[k]
		var calls int64
		for _, n := range h.kindClasses[k] {
			calls += n
		}
		if calls == 0 {
			continue
		}
		ks := result.KindStats{Kind: name, Errors: errorCounts(workload.Search, &h.kindClasses[k])}
		if hist != nil && hist.TotalCount() > 0 {
			ks.Count = hist.TotalCount()
			ks.Latency = result.Summarize(hist)
			enc, err := result.EncodeHistogram(hist)
			if err != nil {
				return nil, err
			}
			ks.Histogram = enc
		}
		if window > 0 {
			ks.RPS = float64(ks.Count) / window.Seconds()
		}
		out = append(out, ks)
	}
	return out, nil
}

// Clamped is how many calls took longer than the histogram's ceiling.
func (h *Histograms) Clamped() int64 { return h.clamped }

// Stats summarises op over a window of the given length.
func (h *Histograms) Stats(op workload.Op, window time.Duration) (result.OpStats, error) {
	hist := h.Hist[op]
	s := result.OpStats{
		Op:       op.String(),
		Count:    hist.TotalCount(),
		NotFound: h.classes[op][engines.NotFound],
		Latency:  result.Summarize(hist),
		Writes:   op.Writes(), NotFoundDone: op.NotFoundDone(),
	}
	if window > 0 {
		s.RPS = float64(s.Count) / window.Seconds()
	}
	s.Errors = errorCounts(op, &h.classes[op])
	for c := engines.NotFound; c < engines.NumClasses; c++ {
		if ex := h.examples[op][c]; len(ex) > 0 && s.Errors[c.String()] > 0 {
			if s.ErrorExamples == nil {
				s.ErrorExamples = map[string][]string{}
			}
			s.ErrorExamples[c.String()] = slices.Clone(ex)
		}
	}
	if s.Count > 0 {
		enc, err := result.EncodeHistogram(hist)
		if err != nil {
			return s, err
		}
		s.Histogram = enc
	}
	if op == workload.Search {
		var err error
		if s.Kinds, err = h.kindStats(window); err != nil {
			return s, err
		}
	}
	return s, nil
}

// errorCounts is op's failed calls by class name (nil when none failed):
// the classes that count as done (see succeeded) are counted in Count, as
// the published method does.
func errorCounts(op workload.Op, classes *[engines.NumClasses]int64) map[string]int64 {
	var out map[string]int64
	for c := engines.NotFound; c < engines.NumClasses; c++ {
		if n := classes[c]; n > 0 && !Succeeded(op, c) {
			if out == nil {
				out = map[string]int64{}
			}
			out[c.String()] = n
		}
	}
	return out
}

// ErrorWarnings says, for each operation with failed calls, how many failed
// in which classes and with what messages: a count alone does not tell a
// timeout storm from a driver rejecting every document.
func ErrorWarnings(ops []result.OpStats) []string {
	var out []string
	for _, o := range ops {
		n := o.ErrorCount()
		if n == 0 {
			continue
		}
		var counts, examples []string
		for c := engines.NotFound; c < engines.NumClasses; c++ {
			name := c.String()
			if k := o.Errors[name]; k > 0 {
				counts = append(counts, fmt.Sprintf("%s %d", name, k))
			}
			if ex := o.ErrorExamples[name]; len(ex) > 0 {
				quoted := make([]string, len(ex))
				for i, msg := range ex {
					quoted[i] = strconv.Quote(shortMessage(msg))
				}
				examples = append(examples, name+": "+strings.Join(quoted, ", "))
			}
		}
		w := fmt.Sprintf("%s: %d failed calls (%s)", o.Op, n, strings.Join(counts, ", "))
		if len(examples) > 0 {
			w += ", e.g. " + strings.Join(examples, "; ")
		}
		out = append(out, w)
	}
	return out
}

// shortMessage is an error message fit for a warning line: its first line,
// at most 200 characters (the JSON keeps it whole).
func shortMessage(msg string) string {
	msg, _, cut := strings.Cut(msg, "\n")
	if r := []rune(msg); len(r) > 200 {
		msg, cut = string(r[:200]), true
	}
	if cut {
		msg += " …"
	}
	return msg
}

// Succeeded says whether a call of op that ended in class c counts as done:
// success, or a miss of an operation whose misses are done (a delete or get
// of a missing ID, see workload.OpSpec.NotFoundDone; they are also counted
// apart as not-found).
func Succeeded(op workload.Op, c engines.Class) bool {
	return c == engines.OK || (c == engines.NotFound && op.NotFoundDone())
}

// Sink gathers the samples of every recorder of one level. A dense HDR
// histogram at 3 significant digits is ~160 KB, so one per user and
// operation would cost ~720 MB at 1,500 users; instead each user owns a small
// buffer and folds it into one of a few shards when it fills.
type Sink struct {
	shards []sinkPart
	// kinds names the query kinds searches are split into (nil: none).
	kinds []string
	// iv is the window's interval histograms, once the window's grid is
	// known (StartIntervals); recorders' flushes add to them too.
	iv atomic.Pointer[Intervals]
}

// StartIntervals gives the sink its window's interval grid. Call it before
// any sample of the window is recorded.
func (s *Sink) StartIntervals(g Grid) *Intervals {
	iv := newIntervals(g, s.kinds)
	s.iv.Store(iv)
	return iv
}

type sinkPart struct {
	mu sync.Mutex
	h  *Histograms
	_  [40]byte // keep neighbouring shards' locks off one cache line
}

// NewSink returns a sink with n shards (at least 1) that splits searches
// by the query kinds named (none for fewer than two; at most maxKinds).
func NewSink(n int, kinds []string) *Sink {
	s := &Sink{shards: make([]sinkPart, max(n, 1))}
	if len(kinds) > 1 {
		s.kinds = kinds[:min(len(kinds), maxKinds)]
	}
	for i := range s.shards {
		s.shards[i].h = newHistograms()
	}
	return s
}

// Total merges every shard. Call it once every recorder has been flushed.
func (s *Sink) Total() *Histograms {
	t := newHistograms()
	t.kinds = s.kinds
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		t.Merge(sh.h)
		sh.mu.Unlock()
	}
	return t
}

// Median is the median latency across operations of what the shards hold
// so far, or -1 when they hold nothing: for live progress, not results.
func (s *Sink) Median() time.Duration {
	all := NewHistogram()
	for _, h := range s.Total().Hist {
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

// sample packs an operation, one more than its query kind (0: no kind)
// and a latency in microseconds (at most HighestUS, below 2^29).
type sample uint64

const (
	opShift   = 56
	kindShift = 48
)

func (s sample) op() workload.Op { return workload.Op(s >> opShift) }
func (s sample) kind() int       { return int(s>>kindShift&(1<<(opShift-kindShift)-1)) - 1 }
func (s sample) micros() int64   { return int64(s & (1<<kindShift - 1)) }

// Recorder is one worker's recording path. Record writes into the worker's
// own buffer: no lock and no allocation; the buffer is folded into a shard
// of the sink every bufferSize samples and by Flush.
type Recorder struct {
	sink  *Sink
	shard int
	n     int
	// k is the interval of the buffered samples and counts, calls how many
	// calls they are.
	k        int
	calls    int
	clamped  int64
	classes  [workload.NumOps][engines.NumClasses]int64
	examples [workload.NumOps][engines.NumClasses]string
	// kinds is how many query kinds searches are split into (0: none);
	// kindClasses counts their calls by class.
	kinds       int
	kindClasses [maxKinds][engines.NumClasses]int64
	buf         [bufferSize]sample
}

// NewRecorder returns worker i's recorder.
func (s *Sink) NewRecorder(i int) *Recorder {
	return &Recorder{sink: s, shard: i % len(s.shards), kinds: len(s.kinds)}
}

// Record adds one call of op that took d and ended in class c. Calls that
// succeeded go into the latency histogram; failures are only counted.
func (r *Recorder) Record(op workload.Op, d time.Duration, c engines.Class) {
	r.RecordIn(r.k, op, -1, d, c)
}

// RecordIn is Record for a call of interval k of the window's grid, of
// query kind kind when op is a search (-1: of no kind; a known-item
// check): when the worker's calls move on to another interval, the buffer
// is flushed first, so that it only ever holds one interval's calls.
func (r *Recorder) RecordIn(k int, op workload.Op, kind int, d time.Duration, c engines.Class) {
	if k != r.k {
		if r.calls > 0 {
			r.Flush()
		}
		r.k = k
	}
	r.calls++
	r.classes[op][c]++
	if op != workload.Search || kind < 0 || kind >= r.kinds {
		kind = -1
	} else {
		r.kindClasses[kind][c]++
	}
	if !Succeeded(op, c) {
		return
	}
	us, clamped := Micros(d)
	if clamped {
		r.clamped++
	}
	r.buf[r.n] = sample(op)<<opShift | sample(kind+1)<<kindShift | sample(us)
	r.n++
	if r.n == bufferSize {
		r.Flush()
	}
}

// Failed keeps err's message as an example of op failing with class c. Only
// an empty slot takes one (a slot empties at each flush), so a storm of
// failures costs an err.Error() per slot per flush, not per call.
func (r *Recorder) Failed(op workload.Op, c engines.Class, err error) {
	if err != nil && r.examples[op][c] == "" {
		r.examples[op][c] = err.Error()
	}
}

// Flush folds the buffer and the counts into the recorder's shard.
func (r *Recorder) Flush() {
	sh := &r.sink.shards[r.shard]
	sh.mu.Lock()
	for _, s := range r.buf[:r.n] {
		// In range by construction, so RecordValue cannot fail (nor
		// allocate its error).
		_ = sh.h.Hist[s.op()].RecordValue(s.micros())
		if k := s.kind(); k >= 0 {
			_ = sh.h.kindHistogram(k).RecordValue(s.micros())
		}
	}
	for k := range r.kinds {
		for c, n := range r.kindClasses[k] {
			sh.h.kindClasses[k][c] += n
		}
	}
	for op := range r.classes {
		for c, n := range r.classes[op] {
			sh.h.classes[op][c] += n
			sh.h.addExample(workload.Op(op), engines.Class(c), r.examples[op][c])
		}
	}
	sh.h.clamped += r.clamped
	sh.mu.Unlock()
	if iv := r.sink.iv.Load(); iv != nil {
		iv.add(r.k, r.buf[:r.n], &r.classes, &r.kindClasses)
	}
	r.n, r.calls, r.clamped, r.classes = 0, 0, 0, [workload.NumOps][engines.NumClasses]int64{}
	r.kindClasses = [maxKinds][engines.NumClasses]int64{}
	r.examples = [workload.NumOps][engines.NumClasses]string{}
}

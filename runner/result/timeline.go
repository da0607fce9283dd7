package result

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Timeline is one measured window (a closed-loop level, an open-loop rep)
// cut into intervals of one clock: what happened inside the window, second
// by second, where the window's figures only give its sum. Intervals are
// aligned to the window's start; in a sharded run, to the coordinator's
// synchronised start (plus the planned ramp and settle in closed loop), so
// the shards' intervals line up exactly and merge interval by interval.
// A call is in the interval in which it started (closed loop) or was due
// (open loop), as it is in the window. The intervals' histograms add up to
// the window's, bucket by bucket.
type Timeline struct {
	Interval Duration `json:"interval"`
	// Origin is the wall-clock time of the first interval's start (the
	// grid's origin; intervals are timed on the monotonic clock from it).
	Origin time.Time `json:"origin,omitzero"`
	// Offset is where the first interval starts, from the window's start:
	// zero, or negative when a shard's ramp overran the planned one and its
	// window opened after the shared grid's origin.
	Offset    Duration   `json:"offset,omitempty"`
	Intervals []Interval `json:"intervals"`
	// Merged says how a merged timeline was made (on merged results only).
	Merged string `json:"merged,omitempty"`
}

// Index is the place of an interval starting at start on the timeline's
// grid (0 for the interval at the grid's origin).
func (t *Timeline) Index(start Duration) int { return int(start / t.Interval) }

// intervals is t's intervals; none for a nil timeline.
func (t *Timeline) intervals() []Interval {
	if t == nil {
		return nil
	}
	return t.Intervals
}

// Interval is one interval of a timeline.
type Interval struct {
	Start  Duration     `json:"start"`  // from the timeline's origin
	Length Duration     `json:"length"` // Interval, or less for the last
	Ops    []IntervalOp `json:"ops"`
	// ActiveUsers (closed loop) is how many users were running, the
	// time-weighted mean over the interval.
	ActiveUsers *float64 `json:"active_users,omitempty"`
	// Scheduled (open loop) is the calls due in the interval, and
	// ScheduledRate that over Length; AchievedRate is the calls due in it
	// that succeeded, over Length (the rep's achieved rate, interval by
	// interval). Per second.
	Scheduled     int64   `json:"scheduled,omitempty"`
	ScheduledRate float64 `json:"scheduled_rate,omitempty"`
	AchievedRate  float64 `json:"achieved_rate,omitempty"`
	// SchedulerLagMax (open loop) is how late, at worst, the scheduler
	// handed over a call due in the interval while the line had room (ms).
	SchedulerLagMax float64 `json:"scheduler_lag_max_ms,omitempty"`
	// EngineStats is the engine's own figures (the driver's Stats: queue
	// depth, counters) sampled in the interval, each the mean of its
	// samples there (the sampler reads them about once a second, so an
	// interval shorter than that may have none).
	EngineStats map[string]float64 `json:"engine_stats,omitempty"`
	// KnownItems is the known-item checks among the interval's searches
	// (those whose call is in it); nil when the window made none.
	KnownItems *IntervalKnown `json:"known_items,omitempty"`
	// Freshness is the freshness probes that completed in the interval
	// (the search that saw the write returned in it).
	Freshness *IntervalFreshness `json:"freshness,omitempty"`
	// Shards (merged timelines only) is each shard's successful calls in
	// the interval, the merged counts split by the load generator that
	// made them: a sum hides a shard that fell behind while the others
	// made up for it. A shard whose timeline lacks the interval is absent.
	Shards []IntervalShard `json:"shards,omitempty"`
}

// IntervalShard is one shard's share of a merged interval.
type IntervalShard struct {
	Shard int   `json:"shard"` // Shard.Index
	Count int64 `json:"count"` // successful calls, all operations
}

// IntervalKnown is an interval's known-item checks: Found of Checks came
// back in the top k (skipped and failed checks are the window's only).
type IntervalKnown struct {
	Checks int64 `json:"checks"`
	Found  int64 `json:"found"`
	// Exact is the interval's exact-answer checks by kind (strict rule),
	// the kinds in the window's order: what KindRecall.Intervals groups.
	Exact []IntervalRecall `json:"exact,omitempty"`
}

// IntervalRecall is one kind's exact-answer checks in one interval: Found
// of the Expected documents held.
type IntervalRecall struct {
	Kind     string `json:"kind"`
	Expected int64  `json:"expected"`
	Found    int64  `json:"found"`
}

// IntervalFreshness is an interval's completed freshness probes.
type IntervalFreshness struct {
	Visible int64   `json:"visible"`
	LagMax  float64 `json:"lag_max_ms"`
}

// IntervalOp is one operation in one interval: the calls that started (were
// due) in it.
type IntervalOp struct {
	Op       string           `json:"op"`
	Count    int64            `json:"count"` // successful calls, as OpStats.Count
	NotFound int64            `json:"not_found,omitempty"`
	Errors   map[string]int64 `json:"errors,omitempty"` // by class
	// Percentiles of the successful calls' latency (open loop: from the
	// intended send time), ms.
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
	// Histogram is the interval's latency histogram, encoded as
	// OpStats.Histogram.
	Histogram string `json:"histogram,omitempty"`
	// Service (open loop) is the service time from the actual send.
	Service          *Percentiles `json:"service_ms,omitempty"`
	ServiceHistogram string       `json:"service_histogram,omitempty"`
	// Kinds splits a search interval by kind of query, as OpStats.Kinds
	// splits the window: the kinds called in the interval, latency only.
	Kinds []IntervalKind `json:"kinds,omitempty"`
}

// IntervalKind is one kind of query's searches in one interval.
type IntervalKind struct {
	Kind   string           `json:"kind"`
	Count  int64            `json:"count"`            // successful calls
	Errors map[string]int64 `json:"errors,omitempty"` // by class
	// Percentiles of the successful calls' latency, as IntervalOp's, ms
	// (in the JSON beside the count, as IntervalOp's).
	Percentiles
	// Histogram, encoded as IntervalOp.Histogram.
	Histogram string `json:"histogram,omitempty"`
}

// Percentiles is an interval's short latency summary (ms).
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// IntervalPercentiles is h's short summary (ms).
func IntervalPercentiles(h *hdrhistogram.Histogram) Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Percentiles{P50: ms(h.ValueAtQuantile(50)), P95: ms(h.ValueAtQuantile(95)), P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())}
}

// intervalLatency is h's short summary and encoding ("" for nil or empty).
func intervalLatency(h *hdrhistogram.Histogram) (Percentiles, string, error) {
	p := IntervalPercentiles(h)
	if h == nil || h.TotalCount() == 0 {
		return p, "", nil
	}
	enc, err := EncodeHistogram(h)
	return p, enc, err
}

// SetLatency sets o's percentiles and histogram from h (nil or empty: none).
func (o *IntervalOp) SetLatency(h *hdrhistogram.Histogram) error {
	p, enc, err := intervalLatency(h)
	o.P50, o.P95, o.P99, o.Max, o.Histogram = p.P50, p.P95, p.P99, p.Max, enc
	return err
}

// SetService sets o's service-time summary and histogram from h.
func (o *IntervalOp) SetService(h *hdrhistogram.Histogram) error {
	p, enc, err := intervalLatency(h)
	o.Service, o.ServiceHistogram = &p, enc
	return err
}

// SetLatency sets k's percentiles and histogram from h (nil or empty: none).
func (k *IntervalKind) SetLatency(h *hdrhistogram.Histogram) error {
	var err error
	k.Percentiles, k.Histogram, err = intervalLatency(h)
	return err
}

// Op returns the interval's figures for the named operation.
func (iv Interval) Op(name string) (IntervalOp, bool) {
	for _, o := range iv.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return IntervalOp{}, false
}

// TimelineMerged is what a merged timeline's Merged says.
const TimelineMerged = "interval by interval: the shards' interval histograms added (never percentiles averaged), counts, errors, active users, scheduled calls and rates, achieved rates, known-item checks and freshness probes summed (each shard's successful calls also kept apart), the longest freshness lag the longest shard's, scheduler lag the worst shard's, engine stats the mean of the shards' samples"

// mergeTimelines merges the shards' timelines of one window interval by
// interval: intervals are matched by their start on the shared grid;
// shards[i] is the index of the shard ts[i] came from. Timelines of other
// intervals are shards of other plans (--interval): an error naming them.
// A shard without a timeline (an older searchbench) leaves the merge
// without one, since a timeline of only some shards would read as the
// whole load's; warning then says so.
func mergeTimelines(ts []*Timeline, shards []int, where string) (_ *Timeline, warning string, _ error) {
	var first *Timeline
	var without []int
	for i, t := range ts {
		switch {
		case t == nil:
			without = append(without, shards[i])
		case first == nil:
			first = t
		case t.Interval != first.Interval:
			return nil, "", fmt.Errorf("merge: %s: timeline.interval differs: %v in shard %d, %v in shard %d: not shards of one plan",
				where, time.Duration(first.Interval), shards[slices.Index(ts, first)], time.Duration(t.Interval), shards[i])
		}
	}
	switch {
	case first == nil:
		return nil, "", nil
	case len(without) > 0:
		names := make([]string, len(without))
		for k, i := range without {
			names[k] = "shard " + strconv.Itoa(i)
		}
		verb := " has"
		if len(names) > 1 {
			verb = " have"
		}
		return nil, strings.Join(names, ", ") + verb + " no timeline (an older searchbench wrote it): the merged window has none, as the other shards' alone would read as the whole load's", nil
	}
	out := &Timeline{Interval: ts[0].Interval, Merged: TimelineMerged}
	var accs []*intervalAcc
	at := map[Duration]*intervalAcc{}
	for i, t := range ts {
		out.Offset = min(out.Offset, t.Offset)
		if out.Origin.IsZero() || (!t.Origin.IsZero() && t.Origin.Before(out.Origin)) {
			out.Origin = t.Origin // the shards' agree within their start skew
		}
		for _, iv := range t.Intervals {
			a := at[iv.Start]
			if a == nil {
				a = newIntervalAcc(iv)
				at[iv.Start] = a
				accs = append(accs, a)
			}
			if err := a.add(iv, shards[i], where); err != nil {
				return nil, "", err
			}
		}
	}
	for _, a := range accs {
		iv, err := a.interval()
		if err != nil {
			return nil, "", err
		}
		out.Intervals = append(out.Intervals, iv)
	}
	return out, "", nil
}

// intervalAcc sums the shards' intervals that start at one time.
type intervalAcc struct {
	iv       Interval
	names    []string // the operations in the order first met
	ops      map[string]*IntervalOp
	lat, svc map[string]*hdrhistogram.Histogram
	kinds    map[string][]*ivKindAcc // by operation, in the order first met
	stats    map[string]float64
	statsN   map[string]int
}

// ivKindAcc sums the shards' searches of one query kind in one interval.
type ivKindAcc struct {
	IntervalKind
	lat *hdrhistogram.Histogram
}

func newIntervalAcc(iv Interval) *intervalAcc {
	return &intervalAcc{iv: Interval{Start: iv.Start, Length: iv.Length}, ops: map[string]*IntervalOp{},
		lat: map[string]*hdrhistogram.Histogram{}, svc: map[string]*hdrhistogram.Histogram{}}
}

// add adds shard's interval iv.
func (a *intervalAcc) add(iv Interval, shard int, where string) error {
	a.iv.Length = max(a.iv.Length, iv.Length)
	if iv.ActiveUsers != nil {
		n := *iv.ActiveUsers
		if a.iv.ActiveUsers != nil {
			n += *a.iv.ActiveUsers
		}
		a.iv.ActiveUsers = &n
	}
	for name, v := range iv.EngineStats {
		if a.stats == nil {
			a.stats, a.statsN = map[string]float64{}, map[string]int{}
		}
		a.stats[name] += v
		a.statsN[name]++
	}
	if k := iv.KnownItems; k != nil {
		if a.iv.KnownItems == nil {
			a.iv.KnownItems = &IntervalKnown{}
		}
		a.iv.KnownItems.Checks += k.Checks
		a.iv.KnownItems.Found += k.Found
		for _, x := range k.Exact {
			ex := &a.iv.KnownItems.Exact
			i := slices.IndexFunc(*ex, func(r IntervalRecall) bool { return r.Kind == x.Kind })
			if i < 0 {
				*ex = append(*ex, IntervalRecall{Kind: x.Kind})
				i = len(*ex) - 1
			}
			(*ex)[i].Expected += x.Expected
			(*ex)[i].Found += x.Found
		}
	}
	if f := iv.Freshness; f != nil {
		if a.iv.Freshness == nil {
			a.iv.Freshness = &IntervalFreshness{}
		}
		a.iv.Freshness.Visible += f.Visible
		a.iv.Freshness.LagMax = max(a.iv.Freshness.LagMax, f.LagMax)
	}
	a.iv.Scheduled += iv.Scheduled
	a.iv.ScheduledRate += iv.ScheduledRate
	a.iv.AchievedRate += iv.AchievedRate
	a.iv.SchedulerLagMax = max(a.iv.SchedulerLagMax, iv.SchedulerLagMax)
	share := IntervalShard{Shard: shard}
	for _, o := range iv.Ops {
		share.Count += o.Count
	}
	a.iv.Shards = append(a.iv.Shards, share)
	for _, o := range iv.Ops {
		if err := a.addOp(o, fmt.Sprintf("%s, interval at %v, %s", where, iv.Start, o.Op)); err != nil {
			return err
		}
	}
	return nil
}

// addOp adds one shard's figures of one operation in the interval.
func (a *intervalAcc) addOp(o IntervalOp, where string) error {
	m := a.ops[o.Op]
	if m == nil {
		m = &IntervalOp{Op: o.Op}
		a.ops[o.Op] = m
		a.names = append(a.names, o.Op)
	}
	m.Count += o.Count
	m.NotFound += o.NotFound
	addErrors(&m.Errors, o.Errors)
	if o.Histogram != "" {
		h := a.lat[o.Op]
		if err := addHistogram(&h, o.Histogram, where); err != nil {
			return err
		}
		a.lat[o.Op] = h
	}
	if o.Service != nil {
		h := a.svc[o.Op]
		if o.ServiceHistogram != "" {
			if err := addHistogram(&h, o.ServiceHistogram, where+" service time"); err != nil {
				return err
			}
		}
		if h == nil {
			h = newEmptyLike()
		}
		a.svc[o.Op] = h
	}
	for _, k := range o.Kinds {
		if err := a.addKind(o.Op, k, where+", "+k.Kind); err != nil {
			return err
		}
	}
	return nil
}

// addKind adds one shard's searches of one query kind of operation op.
func (a *intervalAcc) addKind(op string, k IntervalKind, where string) error {
	if a.kinds == nil {
		a.kinds = map[string][]*ivKindAcc{}
	}
	i := slices.IndexFunc(a.kinds[op], func(m *ivKindAcc) bool { return m.Kind == k.Kind })
	if i < 0 {
		a.kinds[op] = append(a.kinds[op], &ivKindAcc{IntervalKind: IntervalKind{Kind: k.Kind}})
		i = len(a.kinds[op]) - 1
	}
	m := a.kinds[op][i]
	m.Count += k.Count
	addErrors(&m.Errors, k.Errors)
	if k.Count > 0 {
		return addHistogram(&m.lat, k.Histogram, where)
	}
	return nil
}

// interval is the merged interval: percentiles from the summed histograms.
func (a *intervalAcc) interval() (Interval, error) {
	// Every shard sampled the one engine: its figures are the mean over the
	// shards that sampled in the interval.
	for name, v := range a.stats {
		if a.iv.EngineStats == nil {
			a.iv.EngineStats = map[string]float64{}
		}
		a.iv.EngineStats[name] = v / float64(a.statsN[name])
	}
	for _, name := range a.names {
		o := a.ops[name]
		if err := o.SetLatency(a.lat[name]); err != nil {
			return Interval{}, err
		}
		if h, ok := a.svc[name]; ok {
			if err := o.SetService(h); err != nil {
				return Interval{}, err
			}
		}
		for _, k := range a.kinds[name] {
			if err := k.SetLatency(k.lat); err != nil {
				return Interval{}, err
			}
			o.Kinds = append(o.Kinds, k.IntervalKind)
		}
		a.iv.Ops = append(a.iv.Ops, *o)
	}
	return a.iv, nil
}

// newEmptyLike is an empty histogram standing for a shard's interval with
// no successful call (its summary is all zeros).
func newEmptyLike() *hdrhistogram.Histogram { return hdrhistogram.New(1, 2, 1) }

// HlogName is the file beside result.json holding every timeline's
// interval histograms in HdrHistogram's interval-log format.
const HlogName = "intervals.hlog"

// WriteHlog writes every timeline of r, in HdrHistogram's interval-log
// format (version 1.3): one histogram per interval and operation, tagged
// "<setup>/<window>/<op>" (window: "users=50" or "level2-users=50" for a
// closed-loop level, "rung3-rep1" for a ladder's), service times as
// "<setup>/<window>/<op>-service", and a search's query kinds as
// "<setup>/<window>/search:<kind>". Times are seconds from the log's
// StartTime (and BaseTime), the run's start to the millisecond: each
// window's intervals at their own time (Timeline.Origin plus the
// interval's start, to the millisecond; a timeline without an origin
// starts at the run's start). Values are
// microseconds, and the maximum column is the writer's default
// (value / 10^6: seconds here). False when r holds no timeline.
func WriteHlog(path string, r *Result) (bool, error) {
	var buf bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&buf)
	if err := startHlog(lw, &buf, r.StartedAt.UnixMilli()); err != nil {
		return false, err
	}
	written := 0
	err := eachTimeline(r, func(tag string, t *Timeline) error {
		n, err := writeHlogTimeline(lw, tag, t, r.StartedAt)
		written += n
		return err
	})
	if err != nil {
		return false, err
	}
	if written == 0 {
		return false, nil
	}
	return true, WriteAtomic(path, buf.Bytes())
}

// startHlog writes the log's header to buf through lw: the format version,
// a comment saying what the tags and values are, the start and base time
// base (ms since the epoch), and the column legend.
func startHlog(lw *hdrhistogram.HistogramLogWriter, buf *bytes.Buffer, base int64) error {
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("searchbench interval histograms: tag <setup>/<window>/<op>, latency in microseconds (from the intended send time in open loop; <op>-service: from the actual send; search:<kind>: the searches of one query kind)"); err != nil {
		return err
	}
	lw.SetBaseTime(base)
	if err := hlogTimes(buf, base); err != nil {
		return err
	}
	return lw.OutputLegend()
}

// eachTimeline calls put with every timeline of r and its tag
// "<setup>/<window>", closed-loop levels before a setup's ladder reps, and
// stops at put's first error.
func eachTimeline(r *Result, put func(tag string, t *Timeline) error) error {
	for _, e := range r.Engines {
		var err error
		e.Loads(func(point int, levels []Level, ladder *Ladder) {
			in := func(w Window) Window { return w }
			if point > 0 {
				in = func(w Window) Window { return w.InPoint(point-1, e.Sweep.Points[point-1].Value) }
			}
			if err == nil {
				err = windowTimelines(e.Label, levels, ladder, in, put)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// windowTimelines puts the timelines of one engine's levels and ladder
// reps, each tagged by its window as in names it (within a sweep point).
func windowTimelines(label string, levels []Level, ladder *Ladder, in func(Window) Window, put func(string, *Timeline) error) error {
	for j, l := range levels {
		if l.Timeline != nil {
			if err := put(label+"/"+in(LevelWindow(j, l.Users)).Tag(), l.Timeline); err != nil {
				return err
			}
		}
	}
	if ladder == nil {
		return nil
	}
	for j, rung := range ladder.Rungs {
		for k, rep := range rung.Reps {
			if rep.Timeline != nil {
				if err := put(label+"/"+in(RepWindow(j, k)).Tag(), rep.Timeline); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// hlogSeries is one histogram of an interval's operation as the log tags
// it: suffix follows "<setup>/<window>/<op>"; enc is "" when it has none.
type hlogSeries struct{ suffix, enc string }

// writeHlogTimeline writes the interval histograms of t, tagged
// "tag/<op>…", to lw and returns how many it wrote; start is the run's,
// where a timeline without an origin starts.
func writeHlogTimeline(lw *hdrhistogram.HistogramLogWriter, tag string, t *Timeline, start time.Time) (int, error) {
	origin := start
	if !t.Origin.IsZero() {
		origin = t.Origin
	}
	// The log's unit is the millisecond: each time is the one instant
	// truncated once, not the origin and the offset each truncated.
	at := func(d Duration) int64 { return origin.Add(time.Duration(d)).UnixMilli() }
	n := 0
	for _, iv := range t.Intervals {
		for _, o := range iv.Ops {
			series := []hlogSeries{{"", o.Histogram}, {"-service", o.ServiceHistogram}}
			for _, k := range o.Kinds {
				series = append(series, hlogSeries{":" + k.Kind, k.Histogram})
			}
			for _, h := range series {
				if h.enc == "" {
					continue
				}
				hist, err := DecodeHistogram(h.enc)
				if err != nil {
					return n, fmt.Errorf("%s: %w", tag, err)
				}
				hist.SetTag(hlogTag(tag + "/" + o.Op + h.suffix))
				hist.SetStartTimeMs(at(iv.Start))
				hist.SetEndTimeMs(at(iv.Start + iv.Length))
				if err := lw.OutputIntervalHistogramWithLogOptions(hist, nil); err != nil {
					return n, err
				}
				n++
			}
		}
	}
	return n, nil
}

// hlogTimes writes the log's start and base time, base (ms since the
// epoch), in the format of HdrHistogram's Java writer ("%.3f" seconds).
// hdrhistogram-go's OutputStartTime prints whole seconds, and readers add
// each interval's offset from the base to the start time they read: a run
// that started at 12:00:00.750 would have every interval placed 750 ms
// early. The base time is written too, so that no reader has to guess
// whether the offsets are relative.
func hlogTimes(w *bytes.Buffer, base int64) error {
	secs := fmt.Sprintf("%d.%03d", base/1000, base%1000)
	iso := time.UnixMilli(base).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	_, err := fmt.Fprintf(w, "#[StartTime: %s (seconds since epoch), %s]\n#[BaseTime: %s (seconds since epoch)]\n", secs, iso, secs)
	return err
}

// hlogTag makes s a valid interval-log tag: no commas, spaces or line
// breaks.
func hlogTag(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ',', ' ', '\r', '\n', '\t':
			return '_'
		}
		return r
	}, s)
}

// MergeInterval merges the shards' intervals that start at the same point
// of one window's shared grid, as Merge merges their timelines (the same
// code: histograms added, never percentiles averaged); shards[i] is the
// index of the shard ivs[i] came from, and ivs are best in shard order, as
// Merge takes them. A coordinator's live view merges each interval as its
// shards report it.
func MergeInterval(ivs []Interval, shards []int, where string) (Interval, error) {
	if len(ivs) == 0 || len(ivs) != len(shards) {
		return Interval{}, fmt.Errorf("%s: %d intervals of %d shards", where, len(ivs), len(shards))
	}
	ts := make([]*Timeline, len(ivs))
	for i, iv := range ivs {
		if iv.Start != ivs[0].Start {
			return Interval{}, fmt.Errorf("%s: intervals at %v and %v do not merge", where, ivs[0].Start, iv.Start)
		}
		ts[i] = &Timeline{Interval: 1, Intervals: []Interval{iv}}
	}
	t, _, err := mergeTimelines(ts, shards, where) // every shard has its interval: no warning
	if err != nil {
		return Interval{}, err
	}
	return t.Intervals[0], nil
}

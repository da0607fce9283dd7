package loops

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/guard"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// Config is a closed-loop run.
type Config struct {
	Users     []int         // levels, run in order
	SpawnRate float64       // users started per second during the ramp
	Settle    time.Duration // after the ramp, before measuring
	Measure   time.Duration // the measured window
	Freshness checks.FreshnessConfig
	// Share is this process's part of the users when the run is split
	// over several load generators (Run sets it from Plan.Shard): each
	// level's users are split exactly and keep their global indices, so
	// the shards' users together are one machine's. Zero: all of them.
	Share shard.Share
	Calls
}

// Defaults of the published method where it gives one.
const (
	DefaultSpawnRate = 100
	DefaultTimeout   = 30 * time.Second
	DefaultK         = 10
	MaxUsers         = 100_000
)

// MaxRamp is the longest ramp a level may have: a day is far past any
// benchmark's, and a spawn rate that makes it longer is a typo (at 1e-300
// users/s the ramp's length would overflow and every user start at once).
const MaxRamp = 24 * time.Hour

// MinWindow is the shortest measured window (a closed-loop level's
// measure, a ladder rung's repetition). The window opens and closes on
// timers, and the users notice its end, milliseconds late on a busy load
// generator: at 100ms that is a few percent of the window, and below it a
// rate of calls per window would mostly measure the edges (at 1ns, no call
// fits at all and the level reports nothing).
const MinWindow = 100 * time.Millisecond

// Validate reports the first bad field (a *field.Error).
func (c Config) Validate() error {
	if len(c.Users) == 0 {
		return field.New("Users", "users", "at least one level is needed")
	}
	for _, u := range c.Users {
		if u < 1 || u > MaxUsers {
			return field.New("Users", "users", "%d is out of range (1 to %d)", u, MaxUsers)
		}
	}
	switch {
	case !(c.SpawnRate > 0):
		return field.New("SpawnRate", "spawn-rate", "%v must be > 0", c.SpawnRate)
	case float64(slices.Max(c.Users)-1)/c.SpawnRate > MaxRamp.Seconds():
		return field.New("SpawnRate", "spawn-rate", "%v users/s would take longer than %v to start %d users", c.SpawnRate, MaxRamp, slices.Max(c.Users))
	case c.Settle < 0:
		return field.New("Settle", "settle", "%v must be ≥ 0", c.Settle)
	case c.Measure <= 0:
		return field.New("Measure", "measure", "%v must be > 0", c.Measure)
	case c.Measure < MinWindow:
		return field.New("Measure", "measure", "%v is shorter than %v, the shortest window measured", c.Measure, MinWindow)
	}
	if err := c.Freshness.Validate(); err != nil {
		return field.In("Freshness", err)
	}
	if err := c.Share.Validate(); err != nil {
		return field.In("Share", err)
	}
	if err := c.Calls.Validate(); err != nil {
		return field.In("Calls", err)
	}
	return field.In("Calls", c.validateInterval(c.Measure, "measure"))
}

// ClosedLoop runs every level of cfg against e, in order. It returns the
// levels measured so far when ctx ends (the last one marked partial).
// Each level waits at b first (nil: none); em receives its events.
func ClosedLoop(ctx context.Context, e engines.Engine, src corpus.Source, cfg Config, em Emitter, b Barrier) []result.Level {
	// The truth that follows the writes refills its lists until the loop
	// ends; every level scores against it, as the writes accumulate.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	vers := cfg.versions(ctx, src, cfg.Share)
	var levels []result.Level
	for i, users := range cfg.Users {
		if ctx.Err() != nil {
			break
		}
		// The level is made before its start, so that its first user
		// starts at the instant the start gives (the level's origin), not
		// after its users' streams and recorders are built.
		lv := newLevelRun(e, src, cfg, vers, i, users)
		window := cfg.window(result.LevelWindow(i, users))
		t0, why := Wait(ctx, b, Start{Window: window})
		if why != nil {
			break
		}
		l := lv.run(ctx, e, src, em, vers, i, t0)
		em.warn(window, l.Warnings)
		levels = append(levels, l)
	}
	return levels
}

// user is one virtual user: one operation at a time, no think time.
type user struct {
	stream *workload.Stream
	known  dataset.Rand // which searches are known-item checks
	rec    *record.Recorder
	ops    atomic.Int64 // calls finished in the window, for live progress
	steps  int64        // steps drawn from stream, for the other shares' (foreign)
	others *foreign
	errs   atomic.Int64
	// span is when the user was running, as offsets from the level's
	// start; written by the user's goroutine, read once it has ended.
	span span
}

// span is a user's running time, [start, stop), on the monotonic clock as
// offsets from the level's start.
type span struct{ start, stop time.Duration }

// window is a level's measured window as offsets from the level's start
// (t0, monotonic). It is set once every user of the level is running;
// until then no call is measured and no user stops.
type window struct {
	t0       time.Time
	from, to atomic.Int64 // nanoseconds since t0
	// grid is the window's interval clock; set before from, so a call
	// that measured() says is in the window sees it.
	grid atomic.Pointer[record.Grid]
}

func newWindow(t0 time.Time) *window {
	w := &window{t0: t0}
	w.from.Store(math.MaxInt64)
	w.to.Store(math.MaxInt64)
	return w
}

func (w *window) set(from, to time.Duration, g record.Grid) {
	w.grid.Store(&g)
	w.to.Store(int64(to))
	w.from.Store(int64(from))
}

// interval is the interval of the window's grid a call started at t is in.
func (w *window) interval(t time.Time) int { return w.grid.Load().At(t) }

// measured says whether a call started at t is in the window.
func (w *window) measured(t time.Time) bool { return int64(t.Sub(w.t0)) >= w.from.Load() }

// over says whether the window has closed.
func (w *window) over() bool { return int64(time.Since(w.t0)) >= w.to.Load() }

// userStreams are the streams of this share's users at a level of total
// users, and the global index of the first. Each level gets fresh streams,
// so a level's operations do not depend on how far the previous level got;
// a stream is seeded by its user's global index, so a shard's users send
// what the same users of a one-machine run send.
func userStreams(cfg Config, ids, level, total int) (first int, streams []*workload.Stream) {
	first, n := cfg.Share.Users(total)
	streams = make([]*workload.Stream, n)
	for i := range streams {
		streams[i] = workload.NewStream(cfg.Seed, level<<20|(first+i), cfg.Mix, ids)
	}
	return first, streams
}

// rampSlack is how far behind its planned ramp a level may have all its
// users running before it warns (or a tenth of the ramp, if longer): the
// last user's goroutine always starts a little after its planned instant.
const rampSlack = 100 * time.Millisecond

// levelRun is one closed-loop level in progress: this share's users, what
// they record into, and the level's clock (t0, monotonic).
type levelRun struct {
	cfg   Config
	all   int           // the level's users in all shards
	first int           // the global index of this share's first user
	ramp  time.Duration // the planned ramp, the whole level's
	sink  *record.Sink
	known *checks.KnownChecks
	users []*user
	probe *checks.Prober
	t0    time.Time
	win   *window
}

// levelClock is where a level's window lies, as offsets from its t0.
type levelClock struct {
	rampTook time.Duration // when every user was running
	from, to time.Duration // the measured window as planned
	gridFrom time.Duration // where the intervals start
	g        record.Grid
}

// levelSelf is what a level's measured phase learnt besides its calls:
// the load generator's own health and the engine's stats.
type levelSelf struct {
	cpu, schedP99 float64
	engineStats   map[string]result.Gauge
	statsWarn     string
	stats         *record.StatsSampler
	live          record.LiveFunc
	stop          func() // ends the probes and the live intervals
}

// run runs the level from t0, its origin: the ramp, the window and its
// intervals are timed from it.
func (lv *levelRun) run(ctx context.Context, e engines.Engine, src corpus.Source, em Emitter, vers checks.Versions, level int, t0 time.Time) result.Level {
	cfg, all := lv.cfg, lv.all
	window := lv.cfg.window(result.LevelWindow(level, all))
	lv.t0 = t0
	lv.win = newWindow(t0)
	// The instant the run was interrupted, if it was: the window ends
	// there (calls in flight then still finish and count).
	var cut atomic.Int64
	cut.Store(math.MaxInt64)
	interrupted := func() { cut.CompareAndSwap(math.MaxInt64, int64(time.Since(lv.t0))) }
	defer context.AfterFunc(ctx, interrupted)()

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	em.phase(window, all, "ramp", lv.ramp)
	lc := lv.start(runCtx, e, src, vers, &wg)
	ivs := lv.sink.StartIntervals(lc.g)
	lv.known.StartIntervals(lc.g.N)
	lv.probe.StartIntervals(lc.g)
	lv.win.set(lc.from, lc.to, lc.g)
	em.phase(window, all, "settle", cfg.Settle)
	pace.Sleep(runCtx, lv.t0.Add(lc.from))
	em.phase(window, all, "measure", cfg.Measure)
	self := lv.measure(runCtx, e, em, level, lc, ivs)
	// Users stop issuing at lc.to; calls in flight finish (bounded by the
	// request timeout) so that the window's last calls are counted.
	em.phase(window, all, "drain", 0)
	wg.Wait()
	self.stop()

	if ctx.Err() != nil {
		interrupted() // in case the AfterFunc has not run yet
	}
	end := min(lc.to, time.Duration(cut.Load()))
	for _, u := range lv.users {
		u.rec.Flush()
	}
	ivs.Finish()
	return lv.result(lc, end, ivs, self)
}

// newLevelRun makes this share's users of a level of all users, each with
// its stream, its known-item checks and its recorder, and the level's
// freshness prober; run starts the level's clock.
func newLevelRun(e engines.Engine, src corpus.Source, cfg Config, vers checks.Versions, level, all int) *levelRun {
	lv := &levelRun{cfg: cfg, all: all, sink: record.NewSink(4*runtime.GOMAXPROCS(0), src.QueryKinds())}
	first, streams := userStreams(cfg, src.IDs(), level, all)
	lv.first = first
	lv.known = cfg.Calls.knownChecks(src, vers, uint64(level))
	lv.users = make([]*user, len(streams))
	for i := range lv.users {
		lv.users[i] = &user{stream: streams[i], known: lv.known.Stream(uint64(first + i)), rec: lv.sink.NewRecorder(i)}
	}
	// The ramp is the whole level's: global user g starts at g/spawn-rate,
	// so the shards' users start as one machine's would and every shard
	// measures the same window (unless its ramp overran: see start).
	lv.ramp = time.Duration(float64(time.Second) * float64(max(all-1, 0)) / cfg.SpawnRate)
	lv.probe = cfg.Calls.prober(e, src, cfg.Freshness, vers)
	lv.known.LagFrom(lv.probe)
	others := newForeign(cfg, src.IDs(), level, all, first, len(streams), vers)
	for _, u := range lv.users {
		u.others = others
	}
	return lv
}

// start ramps the users up, each in a goroutine wg waits for, and says
// where the level's window lies once they are all running.
func (lv *levelRun) start(ctx context.Context, e engines.Engine, src corpus.Source, vers checks.Versions, wg *sync.WaitGroup) levelClock {
	cfg := lv.cfg
	var running sync.WaitGroup
	for i, u := range lv.users {
		if !pace.Sleep(ctx, lv.t0.Add(time.Duration(float64(time.Second)*float64(lv.first+i)/cfg.SpawnRate))) {
			break
		}
		wg.Add(1)
		running.Add(1)
		go func() {
			defer wg.Done()
			u.span.start = time.Since(lv.t0)
			running.Done()
			u.run(ctx, e, src, cfg, vers, lv.probe, lv.known, lv.win)
			u.span.stop = time.Since(lv.t0)
		}()
	}
	// A load generator short of CPU starts users late: the window opens
	// only once every user is running, the settle counted from then.
	running.Wait()
	lc := levelClock{rampTook: time.Since(lv.t0)}
	lc.from = max(lv.ramp, lc.rampTook) + cfg.Settle
	lc.gridFrom, lc.to = lc.from, lc.from+cfg.Measure
	// In a sharded run the window and its intervals are the plan's: ramp +
	// settle after the synchronised start, for the measure, so that every
	// shard's intervals line up and end together. A shard whose ramp
	// overran (the one with the level's last user always does, by its
	// goroutine's start-up) opens its window late on that grid and so
	// measures less of it; its window still ends with the others', not
	// as late as it opened, which would add an interval nobody else has.
	if cfg.Share.Sharded() {
		lc.gridFrom = lv.ramp + cfg.Settle
		lc.to = lc.gridFrom + cfg.Measure
		lc.from = min(lc.from, lc.to)
	}
	lc.g = record.NewGrid(lv.t0.Add(lc.gridFrom), cfg.interval(cfg.Measure), lc.to-lc.gridFrom)
	return lc
}

// measure runs the measured phase's watchers (freshness probes, engine
// stats, the live intervals, progress) until the window's end; stop ends
// the ones still running once the users have drained.
func (lv *levelRun) measure(ctx context.Context, e engines.Engine, em Emitter, level int, lc levelClock, ivs *record.Intervals) *levelSelf {
	cfg := lv.cfg
	endSelf := measureSelf()
	probeCtx, stopProbe := context.WithCancel(ctx)
	if lv.probe != nil {
		go lv.probe.Run(probeCtx, cfg.Timeout)
	}
	s := &levelSelf{stats: sampleStats(ctx, e, cfg.Sampled, cfg.Timeout)}
	s.live = em.live(lv.cfg.window(result.LevelWindow(level, lv.all)))
	more := &liveFigures{known: lv.known, fresh: lv.probe, users: lv.liveUsers(lc)}
	more.stats.Store(s.stats)
	stopCollector := record.Collector(ctx, s.live, more.add, cfg.Mix.Ops(), ivs)
	watchProgress(ctx, em, lv.all, lv.users, lv.sink, lv.t0.Add(lc.to))
	s.cpu, s.schedP99 = endSelf()
	s.engineStats, s.statsWarn = s.stats.Stop(ctx, cfg.Timeout)
	s.stop = func() {
		stopProbe()
		stopCollector()
	}
	return s
}

// result is the level's result for a window cut short at end (lc.to when
// it was not interrupted).
func (lv *levelRun) result(lc levelClock, end time.Duration, ivs *record.Intervals, self *levelSelf) result.Level {
	cfg := lv.cfg
	n := len(lv.users)
	partial := end < lc.to
	window := max(end-lc.from, 0)
	total := lv.sink.Total()
	l := result.Level{Users: n, Window: result.Duration(window), Partial: partial}
	l.ClientCPU, l.EngineStats, l.Freshness = self.cpu, self.engineStats, lv.probe.Result()
	l.KnownItems = lv.known.Result()
	l.SchedLatencyP99 = self.schedP99
	spans := make([]span, 0, n)
	for _, u := range lv.users {
		if u.span.stop > 0 { // it was started (an interrupted ramp starts only some)
			spans = append(spans, u.span)
		}
	}
	mean, least := activeUsers(spans, lc.from, lc.from+window)
	l.Active = &result.ActiveUsers{Mean: mean, Min: least, Ramp: result.Duration(lc.rampTook)}
	l.Timeline = lv.timeline(lc, window, ivs, spans, self, &l.Warnings)
	l.KnownItems.GroupByInterval(l.Timeline)
	for _, w := range []string{rampWarning(n, lv.all, lv.ramp, lc.rampTook, cfg.SpawnRate), self.statsWarn, checks.FreshnessWarning(l.Freshness)} {
		if w != "" {
			l.Warnings = append(l.Warnings, result.Note(w))
		}
	}
	l.Warnings = append(l.Warnings, clientBound(l.ClientCPU, l.SchedLatencyP99)...)
	l.Warnings = append(l.Warnings, l.KnownItems.Warnings()...)
	if w := lv.known.ForeignNote(); w != "" {
		l.Warnings = append(l.Warnings, result.Note(w))
	}
	for _, op := range cfg.Mix.Ops() {
		s, err := total.Stats(op, window)
		if err != nil {
			l.Warnings = append(l.Warnings, result.Note(err.Error()))
		}
		l.Ops = append(l.Ops, s)
		l.TotalRPS += s.RPS
	}
	l.Warnings = append(l.Warnings, result.Notes(record.ErrorWarnings(l.Ops)...)...)
	if k := total.Clamped(); k > 0 {
		l.Warnings = append(l.Warnings, result.Notef("%d calls took longer than %v and were recorded at that ceiling", k, time.Duration(record.HighestUS)*time.Microsecond))
	}
	if partial {
		l.Warnings = append(l.Warnings, result.Notef("interrupted after %v of the %v window: the window is shorter than configured", window.Round(time.Millisecond), cfg.Measure))
	}
	return l
}

// timeline is the level's timeline over the window's first length, each
// interval with its active users, known-item checks, freshness probes and
// engine stats; a problem building it is added to warnings.
func (lv *levelRun) timeline(lc levelClock, length time.Duration, ivs *record.Intervals, spans []span, self *levelSelf, warnings *result.Warnings) *result.Timeline {
	tl, err := ivs.Timeline(lv.cfg.Mix.Ops(), nil, lc.from-lc.gridFrom, lc.from+length-lc.gridFrom)
	if err != nil {
		*warnings = append(*warnings, result.Note("timeline: "+err.Error()))
	}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		m := lc.usersIn(spans, time.Duration(iv.Start), time.Duration(iv.Length))
		iv.ActiveUsers = &m
		iv.KnownItems = lv.known.Interval(tl.Index(iv.Start))
	}
	lv.probe.OnTimeline(tl)
	setEngineStats(tl, self.stats.PerInterval(lc.g))
	self.live.Final(tl)
	return tl
}

// usersIn is the users of spans running in the part inside the window of
// the interval at start (from the grid's origin) of the given length: the
// time-weighted mean.
func (lc levelClock) usersIn(spans []span, start, length time.Duration) float64 {
	from := lc.gridFrom + start
	m, _ := activeUsers(spans, max(from, lc.from), from+length)
	return m
}

// liveUsers is interval k's active users as the live view is sent them
// while the window is open, by the timeline's rule (usersIn) over the
// interval cut at the window's planned end. Every user started is running
// until then: a user stops only when the window is over or the run is
// interrupted, and an interruption stops the collector too. Call it once
// the users are running (start has returned).
func (lv *levelRun) liveUsers(lc levelClock) func(k int) float64 {
	spans := make([]span, len(lv.users))
	for i, u := range lv.users {
		spans[i] = span{start: u.span.start, stop: math.MaxInt64}
	}
	every := lc.g.Every
	return func(k int) float64 {
		start := time.Duration(k) * every
		return lc.usersIn(spans, start, min(every, lc.to-lc.gridFrom-start))
	}
}

// rampWarning says when the users were all running materially later than
// the ramp planned: the window then began late too, and the spawn rate was
// more than the load generator could start.
func rampWarning(n, all int, ramp, took time.Duration, rate float64) string {
	late := took - ramp
	if late <= max(rampSlack, ramp/10) {
		return ""
	}
	users, then := fmt.Sprintf("all %d users", n), "the settle and the window began only then"
	if n != all {
		users = fmt.Sprintf("all %d users of this shard (%d in all)", n, all)
		then += ", and the window ended with the other shards': this shard measured less of it"
	}
	return fmt.Sprintf("ramp overran: %s were running only %v after the level began, %v later than planned at %g users/s (the load generator could not start them that fast); %s",
		users, took.Round(time.Millisecond), late.Round(time.Millisecond), rate, then)
}

// activeUsers is how many of the spans cover [from, to): the time-weighted
// mean and the minimum. An empty window has the users running at from.
func activeUsers(spans []span, from, to time.Duration) (mean float64, least int) {
	type edge struct {
		at    time.Duration
		delta int
	}
	at := 0 // running at from
	var edges []edge
	var sum time.Duration
	for _, s := range spans {
		if s.start <= from && s.stop > from {
			at++
		}
		if lo, hi := max(s.start, from), min(s.stop, to); hi > lo {
			sum += hi - lo
		}
		if s.start > from && s.start < to {
			edges = append(edges, edge{s.start, 1})
		}
		if s.stop > from && s.stop < to {
			edges = append(edges, edge{s.stop, -1})
		}
	}
	if to <= from {
		return float64(at), at
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	least = at
	for i, e := range edges {
		at += e.delta
		// Only the count that holds for a while counts: edges at one
		// instant are applied together.
		if i+1 < len(edges) && edges[i+1].at == e.at {
			continue
		}
		least = min(least, at)
	}
	return float64(sum) / float64(to-from), least
}

func (u *user) run(ctx context.Context, e engines.Engine, src corpus.Source, cfg Config, vers checks.Versions, probe *checks.Prober,
	known *checks.KnownChecks, win *window) {
	for {
		req := prepare(src, cfg.Ask(), vers, u.stream.Next())
		u.steps++
		u.others.ahead(u.steps)
		chk := known.Pick(&u.known, &req)
		if ctx.Err() != nil {
			return
		}
		// The timeout's context is made before the clock starts, too.
		callCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		if win.over() {
			cancel()
			return
		}
		// A probed write of a document (an upsert) is marked (a word
		// appended) before the clock starts and reported, whatever its
		// outcome, as soon as it returns.
		word, probed := "", false
		if req.Doc.ID != "" {
			word, probed = probe.Claim(&req.Doc)
		}
		vers.Sending(&req)
		start := time.Now()
		hits, err := invoke(callCtx, e, &req, chk)
		took := time.Since(start)
		cancel()
		// A write enters the exact checks' truth once it returns, before
		// this user's next call and before the outcome is judged.
		vers.Returned(&req, start.Add(took), err)
		if probed {
			probe.Written(req.Num, req.Version, word, start.Add(took), err)
		}
		class := engines.Classify(err)
		if class == engines.Canceled && ctx.Err() != nil {
			return // the run was interrupted; the call did not fail on its own
		}
		if !win.measured(start) {
			continue // ramp and settle are not measured
		}
		// The check of a known item's answer, after the clock stopped.
		k := win.interval(start)
		if chk.Interval, chk.Sent = k, start; chk.On && known.Check(chk, hits, err) {
			continue
		}
		u.rec.RecordIn(k, req.Op, req.Kind, took, class)
		u.ops.Add(1)
		if !record.Succeeded(req.Op, class) {
			u.rec.Failed(req.Op, class, err)
			u.errs.Add(1)
		}
	}
}

// prepare builds st's call before the clock starts (generating the document
// or query is the harness's cost, not the engine's latency). A write takes
// the ID's next version, so that a freshness probe waiting for the ID's
// previous write knows it may never be seen.
func prepare(src corpus.Source, ask workload.Ask, vers checks.Versions, st workload.Step) workload.Call {
	var version uint32
	if st.Op.Writes() {
		version = vers.Next(st.ID)
	}
	return workload.Prepare(st, src, ask, version)
}

// do makes the call. The caller times it. A panicking driver's call fails
// (see guard.PanicError) instead of ending the process.
func do(ctx context.Context, e engines.Engine, c *workload.Call) (err error) {
	defer guard.Recover(&err)
	return c.Invoke(ctx, e)
}

// watchProgress reports live counts (event.Progress: calls and failures so
// far, and the median of the latencies recorded so far across operations,
// which users fold in every 512 calls; -1 before any has) about once a
// second until the window ends or ctx is done.
func watchProgress(ctx context.Context, em Emitter, n int, users []*user, sink *record.Sink, until time.Time) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	deadline := time.NewTimer(time.Until(until))
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
			if em.Observer == nil {
				continue
			}
			var ops, errs int64
			for _, u := range users {
				ops += u.ops.Load()
				errs += u.errs.Load()
			}
			em.emit(event.Event{Kind: event.Progress, Users: n, Ops: ops, Errs: errs, P50: sink.Median()})
		}
	}
}

// invoke makes the call; the caller times it. A check's search keeps its
// hits for KnownChecks.Check, which runs after the clock stops; any other call is made
// as do makes it.
func invoke(ctx context.Context, e engines.Engine, c *workload.Call, chk checks.KnownCheck) (h engines.Hits, err error) {
	if !chk.On {
		return h, do(ctx, e, c)
	}
	defer guard.Recover(&err)
	return e.Search(ctx, c.Query)
}

package loops

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// OpenConfig is an open-loop run: calls are sent on a schedule, whatever the
// engine's state, and each is timed from when it was supposed to be sent, so
// a stall is charged to every call that should have gone out during it (no
// coordinated omission).
type OpenConfig struct {
	Workers int    // connections/workers serving the schedule (Study B: 384)
	Arrival string // constant or poisson
	// Share is this process's part of the schedule when the run is split
	// over several load generators (Run sets it from Plan.Shard): shard i
	// of N sends arrivals k with k%N == i, each with the operation a
	// one-machine run sends for k. Zero: every arrival.
	Share shard.Share
	Calls
}

// DefaultWorkers is Study B's connection count.
const DefaultWorkers = 384

// lateStart is how far behind its intended time a call may leave before it
// counts as a late start.
const lateStart = time.Millisecond

// Validate reports the first bad field (a *field.Error).
func (c OpenConfig) Validate() error {
	switch {
	case c.Workers < 1 || c.Workers > MaxUsers:
		return field.New("Workers", "workers", "%d is out of range (1 to %d)", c.Workers, MaxUsers)
	case c.Arrival != "constant" && c.Arrival != "poisson":
		return field.New("Arrival", "arrival", "%q is neither constant nor poisson", c.Arrival)
	}
	if err := c.Share.Validate(); err != nil {
		return field.In("Share", err)
	}
	return field.In("Calls", c.Calls.Validate())
}

// ticket is one scheduled call.
type ticket struct {
	due  time.Time
	k    uint64 // the arrival's index in the schedule
	step workload.Step
}

// arrivals are a share's arrivals of a schedule, in order. Every arrival's
// step is drawn, this share's or not, so arrival k has the operation of the
// one-machine run's arrival k and the shards' arrivals together are that run.
type arrivals struct {
	sched  workload.Schedule
	stream *workload.Stream
	share  shard.Share
	k      uint64
	// vers follows this share's writes for the exact checks: the other
	// shares' writes are marked in it (Versions.Foreign) as they are
	// passed, at or before their due time, since this share never learns
	// when they are acknowledged.
	vers checks.Versions
}

func newArrivals(cfg OpenConfig, ids int, sched workload.Schedule, vers checks.Versions) *arrivals {
	return &arrivals{sched: sched, stream: workload.NewStream(cfg.Seed, -1, cfg.Mix, ids), share: cfg.Share, vers: vers}
}

// next is this share's next arrival: its index in the schedule, when it is
// due and what it does; false once the schedule has ended.
func (a *arrivals) next() (k uint64, at time.Duration, st workload.Step, ok bool) {
	for ; ; a.k++ {
		at, ok = a.sched.At(a.k)
		if !ok {
			return a.k, 0, workload.Step{}, false
		}
		st = a.stream.Next()
		if a.share.Mine(a.k) {
			a.k++
			return a.k - 1, at, st, true
		}
		a.vers.Foreign(st)
	}
}

// openRun is the shared state of one open-loop rep.
type openRun struct {
	e      engines.Engine
	src    corpus.Source
	cfg    OpenConfig
	sched  workload.Schedule
	arr    *arrivals
	vers   checks.Versions
	known  *checks.KnownChecks
	lat    *record.Sink // from the intended time
	svc    *record.Sink // from the actual send
	late   atomic.Int64
	sent   atomic.Int64
	okDone atomic.Int64
	last   atomic.Int64 // latest completion, ns since start
	unsent atomic.Int64 // taken from the line too late to send
}

// OpenLoop runs one schedule against e, from now, and returns what it
// measured. Calls still waiting in line when the schedule's end plus one
// request timeout has passed are counted as unsent.
func OpenLoop(ctx context.Context, e engines.Engine, src corpus.Source, cfg OpenConfig, sched workload.Schedule, vers checks.Versions) result.Rep {
	return newOpenRun(e, src, cfg, sched, vers).run(ctx, time.Now(), nil)
}

// newOpenRun makes a rep of sched: its recorders and its arrivals; run
// starts its clock.
func newOpenRun(e engines.Engine, src corpus.Source, cfg OpenConfig, sched workload.Schedule, vers checks.Versions) *openRun {
	shards := 4 * runtime.GOMAXPROCS(0)
	// Service times are not split by query kind: a kind's figures are its
	// latencies from the intended send time, as the window's are.
	return &openRun{e: e, src: src, cfg: cfg, sched: sched, vers: vers, lat: record.NewSink(shards, src.QueryKinds()), svc: record.NewSink(shards, nil),
		known: cfg.Calls.knownChecks(src, vers, scheduleKey(sched)...), arr: newArrivals(cfg, src.IDs(), sched, vers)}
}

// run runs the rep from start, its origin: the schedule and its intervals
// are timed from it (in a sharded run, the coordinator's synchronised
// start, so the shards' intervals line up), each interval passed to live
// as it closes.
func (r *openRun) run(ctx context.Context, start time.Time, live record.LiveFunc) result.Rep {
	cfg, sched := r.cfg, r.sched
	// The line holds what the workers cannot take yet. It is large (a few
	// seconds at high rates) so that queueing shows as latency; when it is
	// full the scheduler waits, and the wait is still charged to each call
	// because latency runs from the intended time.
	queue := make(chan ticket, 1<<16)
	// The engine's stats are first sampled as the schedule begins, not
	// before it: a sample (a call to the engine, up to a second) must not
	// hold the first arrivals, whose latency runs from their due times.
	more := &liveFigures{known: r.known}
	statsC := r.startStats(ctx, more)
	cpu0 := cpuTime()
	drainBy := start.Add(sched.Length() + cfg.Timeout)
	// A call is in the interval it was due in.
	g := record.NewGrid(start, cfg.interval(sched.Length()), sched.Length())
	latIv, svcIv := r.lat.StartIntervals(g), r.svc.StartIntervals(g)
	r.known.StartIntervals(g.N) // before the collector reads them
	stopCollector := record.Collector(ctx, live, more.add, cfg.Mix.Ops(), latIv, svcIv)
	sl := newSchedLog(g.N)

	var wg sync.WaitGroup
	r.startWorkers(ctx, queue, start, drainBy, g, &wg)
	partial := r.schedule(ctx, r.arr, queue, start, g, sl)
	close(queue)
	// Engine stats describe the schedule's window, not the drain after it.
	stats := <-statsC
	engineStats, statsWarn := stats.Stop(ctx, cfg.Timeout)
	wg.Wait()
	stopCollector()
	latIv.Finish()
	svcIv.Finish()
	rep := r.newRep(partial, cpuTime()-cpu0, time.Since(start), sl)
	rep.EngineStats = engineStats
	rep.KnownItems = r.known.Result()
	if w := r.known.ForeignNote(); w != "" {
		rep.Warnings = append(rep.Warnings, result.Note(w))
	}
	rep.Timeline = r.timeline(&rep, latIv, svcIv, sl, sched.Length())
	rep.KnownItems.GroupByInterval(rep.Timeline)
	setEngineStats(rep.Timeline, stats.PerInterval(g))
	live.Final(rep.Timeline)
	if statsWarn != "" {
		rep.Warnings = append(rep.Warnings, result.Note(statsWarn))
	}
	return rep
}

// startStats starts sampling the engine's stats, beside the first
// arrivals, and gives the sampler to more (the live intervals) and to the
// channel once it exists.
func (r *openRun) startStats(ctx context.Context, more *liveFigures) <-chan *record.StatsSampler {
	statsC := make(chan *record.StatsSampler, 1)
	go func() {
		s := sampleStats(ctx, r.e, r.cfg.Sampled, r.cfg.Timeout)
		more.stats.Store(s)
		statsC <- s
	}()
	return statsC
}

// newRep is the rep's figures once every call has returned: what was
// offered, sent and achieved, the scheduler's lag (sl), the client's CPU
// share (cpu over wall) and the calls' statistics.
func (r *openRun) newRep(partial bool, cpu, wall time.Duration, sl *schedLog) result.Rep {
	elapsed := time.Duration(r.last.Load())
	rep := result.Rep{
		Offered: r.cfg.Share.Rate(r.sched.Rate()), Sent: r.sent.Load(), Unsent: r.unsent.Load(), Partial: partial,
		LateStarts: r.late.Load(),
		ClientCPU:  record.CPUShare(cpu, wall),
	}
	if elapsed > 0 {
		rep.Achieved = float64(r.okDone.Load()) / elapsed.Seconds()
	}
	rep.GeneratorLagP99 = float64(sl.lag.ValueAtQuantile(99)) / 1000
	rep.GeneratorLagMax = float64(sl.lag.Max()) / 1000
	rep.Duration = result.Duration(r.sched.Length())
	r.summarize(&rep)
	return rep
}

// schedLog is the scheduler's own record of a rep: the calls due in each
// interval, its worst lag in each, and its lag over the rep.
type schedLog struct {
	scheduled, lagMax []int64
	lag               *hdrhistogram.Histogram
}

func newSchedLog(intervals int) *schedLog {
	return &schedLog{scheduled: make([]int64, intervals), lagMax: make([]int64, intervals), lag: record.NewHistogram()}
}

// startWorkers starts the workers serving the line, each in a goroutine wg
// waits for. A call taken from the line after drainBy, or once ctx has
// ended, is counted as unsent.
func (r *openRun) startWorkers(ctx context.Context, queue <-chan ticket, start, drainBy time.Time, g record.Grid, wg *sync.WaitGroup) {
	for w := range r.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, svc := r.lat.NewRecorder(w), r.svc.NewRecorder(w)
			defer lat.Flush()
			defer svc.Flush()
			for t := range queue {
				if ctx.Err() != nil || time.Now().After(drainBy) {
					r.unsent.Add(1)
					continue
				}
				r.serve(ctx, start, g.At(t.due), t, lat, svc)
			}
		}()
	}
}

// schedule hands each of this share's arrivals to the line at its due
// time, logging its own lag in sl; true (partial) when ctx ended first.
func (r *openRun) schedule(ctx context.Context, arr *arrivals, queue chan<- ticket, start time.Time, g record.Grid, sl *schedLog) (partial bool) {
	wait := pace.New(ctx, runtime.GOMAXPROCS(0))
	defer wait.Close()
	for {
		k, at, step, ok := arr.next()
		if !ok {
			return false
		}
		due := start.Add(at)
		ik := g.Index(at)
		sl.scheduled[ik]++
		if !wait.Until(due) {
			return true
		}
		t := ticket{due: due, k: k, step: step}
		select {
		case queue <- t:
			// Only hand-overs with room in the line measure the scheduler;
			// a full line is the engine's backlog, not generator lag.
			us, _ := record.Micros(time.Since(due))
			_ = sl.lag.RecordValue(us)
			sl.lagMax[ik] = max(sl.lagMax[ik], us)
		default:
			select {
			case queue <- t:
			case <-ctx.Done():
				return true
			}
		}
	}
}

// summarize sets the rep's per-operation figures, its overall latency and
// service time and its error warnings over the rep's Duration.
func (r *openRun) summarize(rep *result.Rep) {
	latT, svcT := r.lat.Total(), r.svc.Total()
	window := time.Duration(rep.Duration)
	allLat, allSvc := record.NewHistogram(), record.NewHistogram()
	var latOps []result.OpStats // for the error warnings
	for _, op := range r.cfg.Mix.Ops() {
		s, _ := latT.Stats(op, window)
		sv, _ := svcT.Stats(op, window)
		latOps = append(latOps, s)
		o := result.OpenOp{OpStats: s, Service: sv.Latency, ServiceHistogram: sv.Histogram}
		rep.Errors += s.ErrorCount()
		rep.Ops = append(rep.Ops, o)
		allLat.Merge(latT.Hist[op])
		allSvc.Merge(svcT.Hist[op])
	}
	rep.Latency, rep.Service = result.Summarize(allLat), result.Summarize(allSvc)
	rep.Warnings = append(rep.Warnings, result.Notes(record.ErrorWarnings(latOps)...)...)
}

// timeline is the rep's timeline over the schedule's length, each interval
// with its scheduled and achieved rates, the scheduler's worst lag and the
// known-item checks; a problem building it is added to the rep's warnings.
func (r *openRun) timeline(rep *result.Rep, latIv, svcIv *record.Intervals, sl *schedLog, length time.Duration) *result.Timeline {
	tl, err := latIv.Timeline(r.cfg.Mix.Ops(), svcIv, 0, length)
	if err != nil {
		rep.Warnings = append(rep.Warnings, result.Note("timeline: "+err.Error()))
	}
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		k := tl.Index(iv.Start)
		iv.Scheduled = sl.scheduled[k]
		if secs := time.Duration(iv.Length).Seconds(); secs > 0 {
			var ok int64
			for _, o := range iv.Ops {
				ok += o.Count
			}
			iv.ScheduledRate, iv.AchievedRate = float64(iv.Scheduled)/secs, float64(ok)/secs
		}
		iv.SchedulerLagMax = float64(sl.lagMax[k]) / 1000
		iv.KnownItems = r.known.Interval(k)
	}
	return tl
}

// serve makes one scheduled call, due in interval k, and records both
// latencies.
func (r *openRun) serve(ctx context.Context, start time.Time, k int, t ticket, lat, svc *record.Recorder) {
	req := prepare(r.src, r.cfg.Ask(), r.vers, t.step)
	kr := r.known.Stream(t.k)
	chk := r.known.Pick(&kr, &req)
	callCtx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	r.vers.Sending(&req)
	sent := time.Now()
	hits, err := invoke(callCtx, r.e, &req, chk)
	done := time.Now()
	cancel()
	r.vers.Returned(&req, done, err)
	r.sent.Add(1)
	class := engines.Classify(err)
	if class == engines.Canceled && ctx.Err() != nil {
		return // interrupted by the run, not failed by the engine
	}
	// The check of a known item's answer, after the clock stopped.
	if chk.Interval, chk.Sent = k, sent; chk.On && r.known.Check(chk, hits, err) {
		return
	}
	if sent.Sub(t.due) > lateStart {
		r.late.Add(1)
	}
	lat.RecordIn(k, req.Op, req.Kind, done.Sub(t.due), class)
	svc.RecordIn(k, req.Op, req.Kind, done.Sub(sent), class)
	if record.Succeeded(req.Op, class) {
		r.okDone.Add(1)
	} else {
		lat.Failed(req.Op, class, err)
	}
	for ns := int64(done.Sub(start)); ; {
		prev := r.last.Load()
		if ns <= prev || r.last.CompareAndSwap(prev, ns) {
			break
		}
	}
}

// scheduleKey keys an open-loop rep's checks by its schedule: the rate,
// the length and the first arrival's time (which a Poisson schedule's seed
// moves).
func scheduleKey(s workload.Schedule) []uint64 {
	at, _ := s.At(0)
	return []uint64{math.Float64bits(s.Rate()), uint64(s.Length()), uint64(at)}
}

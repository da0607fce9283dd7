package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// Observer receives what a run is doing, as it happens: the one stream of
// a run's events. Run's own steps and the loops (through an Emitter) send
// every event to it; the CLI draws its log lines and progress bars from
// it, the live view serves it, and a library caller gets all of it too. Observe may be called
// from several of the run's goroutines at once (a level's phases and its
// live progress), so it must be safe for concurrent use, and it must return
// quickly: it is never inside a timed call, but a slow one delays the loop
// that reports.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// EventKind says what an Event reports and which of its members are set.
type EventKind uint8

const (
	// EventLog: a line of what the run is doing (Text), about Setup when
	// it is set ("pre-populating 95000 documents").
	EventLog EventKind = iota
	// EventPreload: pre-population progress, Done of Total documents.
	EventPreload
	// EventPreloadDone: pre-population ended (however it ended).
	EventPreloadDone
	// EventPhase: a closed-loop level (Users) enters Phase (ramp, settle,
	// measure, drain) for Duration.
	EventPhase
	// EventProgress: about once a second while measuring, the calls (Ops)
	// and failures (Errs) so far at the level, and their median latency
	// (P50; negative before any is known).
	EventProgress
	// EventRung: an open-loop rung's repetition Rep of Reps starts at Rate.
	EventRung
	// EventSetupDone: every setup sends one. After its loops it comes
	// as its containers and connections are being released; a setup that
	// failed before its loops sends it once released.
	EventSetupDone
	// EventInterval: an interval of a measured window (Phase: "level 2
	// users=50", "rung 3 rep 1") closed, one interval after it ended;
	// Interval holds its calls' figures, provisional (see liveFunc: the
	// result's timeline is the final word). When the window ends, each
	// of its intervals is sent once more as the result's timeline has it
	// (with active users, checks and engine stats): a later Event for the
	// same Setup, Phase and Interval.Start replaces an earlier one.
	EventInterval
	// EventWarning: a warning (Text) of a measured window (Phase: "level 2
	// users=50", "rung 3", "ladder"), sent as soon as the window's figures
	// are final; the same warning is in the result.
	EventWarning
)

// Event is one report to an Observer. Setup is the setup's label, empty
// for events about the whole run.
type Event struct {
	Kind     EventKind
	Setup    string
	Text     string
	Done     int
	Total    int
	Users    int
	Phase    string
	Duration time.Duration
	Ops      int64
	Errs     int64
	P50      time.Duration
	Rate     float64
	Rep      int
	Reps     int
	Interval *result.Interval
}

// Tool is the name every result of this package carries (report.Load
// accepts results by it).
const Tool = "searchbench"

// Run runs the plan: for each setup in turn, it starts the engine's
// container (or attaches, or opens the embedded engine), creates the index,
// pre-populates it, checks relevance, runs the closed loop or the ladder and
// releases everything it started. obs may be nil.
//
// A plan with a Shard runs this process's share of the load; with a
// coordinator, Run registers with it first, waits at each synchronised
// start, and sends it the result at the end (the result is returned too).
//
// The error is non-nil only when the plan is invalid, or the coordinator
// refused this shard (another plan, a taken index: a *shard.Refused), and
// then nothing started. Anything that goes wrong after that — a setup that cannot start,
// a driver that panics, ctx ending — is in the result: that setup's Error,
// and the result marked Partial with the Reason; what was measured is kept.
// The result carries its provenance (tool, host, versions, images, seeds,
// the corpus hash), and no secret of any setup appears in its messages.
func Run(ctx context.Context, plan Plan, obs Observer) (*result.Result, error) {
	now := time.Now()
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	p := plan.withDefaults(now)
	if obs == nil {
		obs = ObserverFunc(func(Event) {})
	}
	r := &run{plan: p, obs: obs}
	calls := p.Calls()
	res := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: Tool, Version: Version(), GoVersion: runtime.Version()},
		StartedAt:     now.UTC(),
		Config: result.Config{
			Scenario: p.Scenario, Mix: calls.Mix.String(), MixWeights: calls.Mix[:],
			Seed: calls.Seed, WriteMode: p.writeMode(), Histogram: HistogramNote,
			RequestTimeout: result.Duration(calls.Timeout), K: calls.K,
		},
		Host: HostInfo(),
	}
	// The drivers, one per setup (Study B: valkey four times); the labels
	// are each EngineRun's.
	for _, s := range p.Setups {
		res.Config.Engines = append(res.Config.Engines, s.Driver)
	}
	if c := p.Closed; c != nil {
		res.Config.Users, res.Config.SpawnRate = c.Users, c.SpawnRate
		res.Config.Settle, res.Config.Measure = result.Duration(c.Settle), result.Duration(c.Measure)
	}
	r.logf("", "corpus: %s, %d IDs, %d pre-populated, seed %d; hashing…", p.Source.Schema().Name, p.Source.IDs(), p.Source.PrepopulatedCount(), calls.Seed)
	res.Corpus = p.Source.Provenance()

	r.warnLeftovers()
	if p.Shard != nil {
		res.Shard = &result.Shard{Index: p.Shard.Index, Count: p.Shard.Count, Coordinator: p.Shard.Coordinator, Prepared: p.Shard.Index == 0}
		if err := r.register(ctx, res.Host.Hostname); err != nil {
			var refused *shard.Refused
			if errors.As(err, &refused) {
				return nil, err
			}
			res.FinishedAt = time.Now().UTC()
			res.Partial, res.Reason = true, firstLine(err.Error())
			return res, nil
		}
		defer r.submit(ctx, res)
	}
	var failures []string
	for _, s := range p.Setups {
		if ctx.Err() != nil {
			break
		}
		er := r.setup(ctx, s)
		res.Engines = append(res.Engines, er)
		if er.Error != "" {
			// The whole error (a container's log among it) goes to the log
			// and the JSON; the reason names the setup in one line.
			r.logf(s.Name(), "stopped: %s", er.Error)
			failures = append(failures, s.Name()+": "+firstLine(strings.TrimPrefix(er.Error, s.Name()+": ")))
		}
	}
	res.FinishedAt = time.Now().UTC()
	if ctx.Err() != nil {
		res.Partial, res.Reason = true, "interrupted"
	} else if len(failures) > 0 {
		res.Partial, res.Reason = true, strings.Join(failures, "; ")
	}
	if res.Shard != nil {
		res.Shard.Starts = r.starts
	}
	return res, nil
}

// Run's share of a sharded plan.
type sharding struct {
	coord  *shard.Client // nil: unsynchronised
	starts []result.ShardStart
	// broken is set once the coordinator cannot be reached: every later
	// start stops at once, with this reason.
	broken string
	// stopped is the latest reason a start was called off.
	stopped string
}

// register connects to the plan's coordinator, if it has one, and waits
// for every shard to register.
func (r *run) register(ctx context.Context, host string) error {
	sp := r.plan.Shard
	if sp.Coordinator == "" {
		r.logf("", "shard %s: no coordinator; running unsynchronised", sp.Share())
		return nil
	}
	r.logf("", "shard %s: registering with the coordinator at %s", sp.Share(), sp.Coordinator)
	c, err := shard.Dial(ctx, sp.Coordinator, shard.Hello{Index: sp.Index, Count: sp.Count, Digest: r.plan.Digest(), Plan: r.plan.DigestFields(), Host: host}, sp.RegisterTimeout)
	if err != nil {
		return err
	}
	r.logf("", "shard %s: all %d shards registered", sp.Share(), sp.Count)
	r.coord = c
	r.obs = Observers(r.obs, coordinatorObserver(c)) // the coordinator's live view (shardlive.go)
	return nil
}

// submit sends the result to the coordinator. It runs after an interrupt
// too (the coordinator keeps what a shard measured), bounded on its own.
func (r *run) submit(ctx context.Context, res *result.Result) {
	if r.coord == nil {
		return
	}
	defer r.coord.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := r.coord.Submit(sctx, res)
	if n := r.coord.Dropped(); n > 0 {
		r.logf("", "the coordinator's live view missed %d of this shard's events (the link was slow; the result is whole)", n)
	}
	if err != nil {
		w := "the coordinator did not receive this shard's result: " + err.Error()
		res.Warnings = append(res.Warnings, w)
		r.logf("", "%s", w)
		return
	}
	r.logf("", "sent the result to the coordinator")
}

// barrier is the loops' Barrier for one setup: nil when the run is not
// synchronised.
func (r *run) barrier(setup string) Barrier {
	if r.coord == nil {
		return nil // not a nil BarrierFunc: the loops test for no barrier
	}
	return BarrierFunc(func(ctx context.Context, at Start) (why *StopReason) {
		defer func() {
			if why != nil {
				r.stopped = why.Why
			}
		}()
		name := setup + " " + at.Phase
		if r.broken != "" {
			return &StopReason{r.broken}
		}
		own := "" // the coordinator's protocol: "" is ready
		if at.Stop != nil {
			own = at.Stop.Why
		}
		s, err := r.coord.Start(ctx, name, own)
		switch {
		case ctx.Err() != nil:
			return &StopReason{"interrupted"}
		case err != nil:
			r.broken = "coordinator: " + firstLine(err.Error())
			return &StopReason{r.broken}
		case s.Stop != "":
			return &StopReason{s.Stop}
		}
		pace.Until(ctx, s.At)
		late := time.Since(s.At)
		if ctx.Err() != nil {
			return &StopReason{"interrupted"}
		}
		r.starts = append(r.starts, result.ShardStart{Phase: name, Offset: result.Duration(s.Offset), RTT: result.Duration(s.RTT), Late: result.Duration(late)})
		st := r.starts[len(r.starts)-1]
		r.coord.Report(shard.Report{Kind: shard.ReportStart, Setup: setup, Phase: at.Phase, Start: &st}) // shardlive.go
		r.logf(setup, "%s: started with the other shards (clock offset %v ± %v, %v late)", at.Phase, s.Offset, s.RTT/2, late.Round(time.Microsecond))
		return nil
	})
}

// writeMode is the write mode every setup asks for, recorded in the result's
// configuration; empty when they differ or none asks.
func (p Plan) writeMode() string {
	mode := ""
	for i, s := range p.Setups {
		if i > 0 && string(s.Config.WriteMode) != mode {
			return ""
		}
		mode = string(s.Config.WriteMode)
	}
	return mode
}

// run is one Run's state.
type run struct {
	plan Plan
	obs  Observer
	sharding
}

func (r *run) logf(setup, format string, args ...any) {
	r.obs.Observe(Event{Kind: EventLog, Setup: setup, Text: fmt.Sprintf(format, args...)})
}

// setup opens, creates, pre-populates and runs one setup, always closing
// it. Errors are recorded in the returned run, not returned, so the other
// setups still run and everything measured is kept. The result is named
// because the deferred closes add their warnings to it after a return.
func (r *run) setup(ctx context.Context, s Setup) (er result.EngineRun) {
	p := r.plan
	calls := p.Calls()
	d, _ := engines.Lookup(s.Driver) // validated in Plan.Validate
	desc := d.Describe()
	name, cfg := s.Name(), s.Config
	// Registered first, so it runs last: after the deferred closes have
	// added their warnings (and removed the container), and with the
	// launcher's secret, set below. A driver that panics while opening,
	// creating or closing (the loops guard the calls they make) fails its
	// setup; the other setups still run and the results are written.
	defer func() {
		if v := recover(); v != nil {
			er.Error = Recovered(v).Error()
		}
		RedactMessages(&er, cfg.Secrets())
	}()
	done := false
	setupDone := func() {
		if !done {
			done = true
			r.obs.Observe(Event{Kind: EventSetupDone, Setup: name})
		}
	}
	defer setupDone() // a setup that failed before its loops
	// A shard that fails before its first start still goes there, saying
	// why, so that the others stop this setup with it instead of waiting.
	em, b := r.emitter(name, cfg.Secrets()), r.barrier(name)
	prepared := false
	if b != nil {
		defer func() {
			if !prepared {
				b.Wait(ctx, Start{Phase: "prepared", Stop: &StopReason{"failed: " + firstLine(cmp.Or(er.Error, "panicked"))}})
			}
		}()
	}
	er = result.EngineRun{Name: s.Driver, Label: name, Visibility: string(desc.Visibility), Options: cfg.Options}
	if cfg.WriteMode != "" {
		er.Visibility = string(cfg.WriteMode)
	}
	var sampled func(context.Context) (map[string]float64, error) // the container's CPU and memory
	switch spec, hasSpec := container.Lookup(s.Driver); {
	case desc.Embedded:
		er.Mode = "embedded"
	case cfg.URL != "":
		er.Mode = "attached"
	case hasSpec:
		er.Mode = "container"
		r.logf(name, "starting a container (CPU limit %v)", CPUText(p.Launch.CPUs))
		launch := p.Launch
		launch.Log = func(line string) { r.logf(name, "%s", line) } // a local image's build, when one is needed
		c, err := container.Start(ctx, spec, launch)
		if err != nil {
			er.Error = err.Error()
			return er
		}
		defer func() {
			if err := c.Close(); err != nil {
				er.Warnings = append(er.Warnings, err.Error())
			} else {
				r.logf(name, "removed container %s", c.ID[:12])
			}
		}()
		// The launcher's generated secret is a password to some engines and an
		// API key to others; each driver reads the one it uses.
		cfg.URL, cfg.Password, cfg.APIKey = c.URL, engines.Secret(c.Secret), engines.Secret(c.Secret)
		er.Image, er.ImageDigest, er.CPULimit, er.CPUSet = c.Image, c.Digest, p.Launch.CPUs, p.Launch.CPUSet
		er.ContainerEnv, er.DockerVersion = c.Env, c.Docker
		sampled = c.Stats
		r.logf(name, "%s ready at %s", c.Image, c.URL)
	}
	// Opening is a connection and a request or two, and asking the version
	// one request: each is bounded by the request timeout, so an engine
	// that accepts connections and never answers fails the setup instead
	// of holding the run.
	octx, cancel := context.WithTimeout(ctx, calls.Timeout)
	e, err := engines.Open(octx, s.Driver, cfg)
	cancel()
	if err != nil {
		er.Error = err.Error()
		return er
	}
	defer func() {
		if err := e.Close(); err != nil {
			er.Warnings = append(er.Warnings, "close: "+err.Error())
		}
	}()
	// The plan checked the driver's Description; this checks the engine
	// itself, so a driver that claims an operation it lacks fails here,
	// before anything is loaded or measured.
	if err := calls.Mix.CheckEngine(s.Driver, e); err != nil {
		er.Error = err.Error()
		return er
	}
	if v, ok := e.(engines.Versioner); ok {
		vctx, cancel := context.WithTimeout(ctx, calls.Timeout)
		s, err := v.Version(vctx)
		cancel()
		if err == nil {
			er.Version = s
		} else {
			er.Warnings = append(er.Warnings, "the engine did not say its version: "+err.Error())
		}
	}
	attacher, canAttach := e.(engines.Attacher)
	if p.Shard == nil || p.Shard.Index == 0 {
		if !r.prepare(ctx, e, name, &er) {
			return er
		}
	} else if !canAttach {
		er.Error = fmt.Sprintf("%s cannot use an index another shard created (its driver has no Attach); run it unsharded", s.Driver)
		return er
	} else {
		r.logf(name, "shard %s: shard 0 creates, pre-populates and checks the index", p.Shard.Share())
	}
	prepared = true
	if why := wait(ctx, b, Start{Phase: "prepared"}); why != nil {
		if ctx.Err() == nil {
			er.Error = "stopped with the other shards: " + why.Why
		}
		return er
	}
	if p.Shard != nil && p.Shard.Index > 0 {
		// The index is there now: shard 0 made it before the start above.
		if err := attacher.Attach(ctx, p.Source.Schema()); err != nil {
			er.Error = fmt.Sprintf("attach to the index shard 0 created: %v", err)
		}
	}
	attached := Start{Phase: "attached"}
	if er.Error != "" {
		attached.Stop = &StopReason{firstLine(er.Error)}
	}
	if why := wait(ctx, b, attached); why != nil || er.Error != "" {
		if ctx.Err() == nil && er.Error == "" {
			er.Error = "stopped with the other shards: " + why.Why
		}
		return er
	}
	if p.Closed != nil {
		cfg := *p.Closed
		cfg.Share = p.Shard.Share()
		cfg.Known.Idle = er.Relevance
		cfg.Sampled = sampled
		er.Levels = ClosedLoop(ctx, e, p.Source, cfg, em, b)
		if n := len(er.Levels); n < len(cfg.Users) && ctx.Err() == nil {
			er.Error = "stopped with the other shards: " + r.stopped
		}
	} else {
		cfg := *p.Ladder
		cfg.Open.Share = p.Shard.Share()
		cfg.Open.Known.Idle = er.Relevance
		cfg.Open.Sampled = sampled
		l := RunLadder(ctx, e, p.Source, cfg, em, b)
		er.Ladder = &l
		if r.broken != "" {
			er.Error = r.broken
		}
	}
	setupDone()
	return er
}

// prepare creates the index, pre-populates it and checks relevance; false
// when the setup failed (er.Error says why).
func (r *run) prepare(ctx context.Context, e engines.Engine, name string, er *result.EngineRun) bool {
	p := r.plan
	calls := p.Calls()
	if err := e.Create(ctx, p.Source.Schema()); err != nil {
		er.Error = fmt.Sprintf("create index: %v", err)
		return false
	}
	r.logf(name, "pre-populating %d documents", p.Source.PrepopulatedCount())
	var err error
	er.Preload, err = Prepopulate(ctx, e, p.Source, calls.Timeout, func(done, total int) {
		r.obs.Observe(Event{Kind: EventPreload, Setup: name, Done: done, Total: total})
	})
	r.obs.Observe(Event{Kind: EventPreloadDone, Setup: name})
	if err != nil {
		er.Error = err.Error()
		return false
	}
	r.logf(name, "loaded %d documents in %.1fs (%.0f docs/s), engine count %d",
		er.Preload.Documents, er.Preload.Duration.Seconds(), er.Preload.DocsPerS, er.Preload.Count)
	if rel := CheckRelevance(ctx, e, p.Source, p.Relevance, calls.K, calls.Timeout); rel != nil {
		er.Relevance = rel
		if rel.Queries > 0 {
			r.logf(name, "recall@%d %.3f over %d known-item searches", rel.K, rel.Recall, rel.Queries)
		} else {
			r.logf(name, "no known-item search could run (the configuration cannot answer them; see relevance in result.json)")
		}
	}
	return true
}

// emitter is the loops' Emitter for one setup: its events go to the run's
// Observer, warnings scrubbed of the setup's secrets as the result's
// messages are when the setup ends.
func (r *run) emitter(setup string, secrets []string) Emitter {
	return Emitter{Setup: setup, Observer: r.obs, scrub: newScrubber(secrets)}
}

// warnLeftovers says when containers of earlier runs are still there: they
// take CPUs from the engine under test.
func (r *run) warnLeftovers() {
	needed := false
	for _, s := range r.plan.Setups {
		d, _ := engines.Lookup(s.Driver)
		needed = needed || (!d.Describe().Embedded && s.Config.URL == "")
	}
	if !needed {
		return
	}
	pool, err := container.Pool()
	if err != nil {
		return // Start reports it, naming the engine
	}
	if list, err := container.Leftovers(pool); err == nil && len(list) > 0 {
		r.logf("", "warning: %d container(s) of earlier searchbench runs are still there and may take CPUs from the engine; `searchbench cleanup` removes them", len(list))
	}
}

// CPUText is a CPU limit as the log and the plan print it.
func CPUText(cpus float64) string {
	if cpus == 0 {
		return "none"
	}
	return fmt.Sprint(cpus)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/record"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// Tool is the name every result of this package carries (report.Load
// accepts results by it).
const Tool = "searchbench"

// Run runs the plan: for each setup in turn, it starts the engine with the
// plan's Launcher (or attaches, or opens the embedded engine), creates the
// index, pre-populates it, checks relevance, runs the closed loop or the
// ladder (once per knob value with a Sweep) and releases everything it
// started. obs may be nil.
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
func Run(ctx context.Context, plan Plan, obs event.Observer) (*result.Result, error) {
	now := time.Now()
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	p := plan.withDefaults(now)
	if obs == nil {
		obs = event.ObserverFunc(func(event.Event) {})
	}
	r := &run{plan: p, obs: obs}
	res := newResult(p, now)
	if err := r.readCorpus(ctx, res); err != nil { // only ctx ends it
		r.logf("", "interrupted before any engine started")
		res.FinishedAt = time.Now().UTC()
		res.Partial, res.Reason = true, "interrupted"
		return res, nil
	}

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
		var stop context.CancelFunc
		ctx, stop = r.heed(ctx)
		defer stop()
	}
	r.runSetups(ctx, res)
	if res.Shard != nil {
		res.Shard.Starts = r.coord.starts
	}
	return res, nil
}

// newResult is the result's header for plan p started at now: the tool,
// the host and the configuration, before anything has run.
func newResult(p Plan, now time.Time) *result.Result {
	calls := p.Calls()
	res := &result.Result{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: Tool, Version: Version(), GoVersion: runtime.Version()},
		StartedAt:     now.UTC(),
		Config: result.Config{
			Scenario: p.Scenario, Mix: calls.Mix.String(), MixWeights: calls.Mix[:],
			Seed: calls.Seed, WriteMode: p.writeMode(), Histogram: record.HistogramNote,
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
	return res
}

// readCorpus hashes the corpus into res and computes the exact answers of
// the sample queries (r.truth). Both read every pre-populated document
// before anything starts (a minute or more for a large corpus): an
// interrupt ends them, and the run, at once; the error is ctx's.
func (r *run) readCorpus(ctx context.Context, res *result.Result) error {
	p, calls := r.plan, r.plan.Calls()
	r.logf("", "corpus: %s, %d IDs, %d pre-populated, seed %d; hashing…", p.Source.Schema().Name, p.Source.IDs(), p.Source.PrepopulatedCount(), calls.Seed)
	var err error
	res.Corpus, err = p.Source.Provenance(ctx)
	if n := calls.Known.ExactQueries(); n > 0 && err == nil {
		if _, ok := p.Source.(corpus.Exact); ok {
			r.logf("", "computing the exact answers of %d sample queries…", n)
		}
		var truth *corpus.Truth
		if truth, err = corpus.NewTruth(ctx, p.Source, n, calls.K); truth != nil {
			r.truth = truth
			c := r.truth.Cost
			res.GroundTruth = &c
			r.logf("", "exact answers of %d sample queries over %d documents (%d dimensions): %.1fs, %.0f MB allocated",
				c.Queries, c.Documents, c.Dim, c.Seconds, float64(c.Bytes)/1e6)
			r.stated(res, truth.Stated)
		}
	}
	return err
}

// runSetups runs the plan's setups in turn until ctx ends, and finishes
// res: its end, and why it is partial (an interrupt, or the setups that
// stopped, one line each).
func (r *run) runSetups(ctx context.Context, res *result.Result) {
	var failures []string
	for _, s := range r.plan.Setups {
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
		res.Partial, res.Reason = true, interruptReason(ctx)
	} else if len(failures) > 0 {
		res.Partial, res.Reason = true, strings.Join(failures, "; ")
	}
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
	plan  Plan
	obs   event.Observer
	coord coordination
	truth *corpus.Truth // the exact-answer checks' sample, nil without
}

func (r *run) logf(setup, format string, args ...any) {
	r.obs.Observe(event.Event{Kind: event.Log, Setup: setup, Text: fmt.Sprintf(format, args...)})
}

// emitter is the loops' Emitter for one setup: its events go to the run's
// Observer, warnings scrubbed of the setup's secrets as the result's
// messages are when the setup ends.
func (r *run) emitter(setup string, secrets []string) loops.Emitter {
	return loops.NewEmitter(setup, r.obs, secrets...)
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

// stated logs how the exact answers compare with the corpus's stated
// truth (an embedding file's neighbours), and warns in the result when
// they disagree: then either the file or the harness is wrong, and the
// recall figures say nothing until it is known which.
func (r *run) stated(res *result.Result, s *corpus.Stated) {
	switch {
	case s == nil:
	case s.Skipped != "":
		r.logf("", "the exact answers were not compared with %s's neighbours: %s", s.Source, s.Skipped)
	case s.Disagree == 0:
		r.logf("", "the exact answers agree with %s's neighbours (%d answers compared)", s.Source, s.Compared)
	default:
		w := result.Notef("the exact answers disagree with %s's own neighbours in %d of %d answers compared: %s",
			s.Source, s.Disagree, s.Compared, strings.ReplaceAll(s.Detail, "\n", "; "))
		res.Warnings = append(res.Warnings, w)
		r.logf("", "%s", w.Text)
	}
}

package loops

import (
	"context"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
)

// Calls is what every mode needs to make calls.
type Calls struct {
	Timeout time.Duration // per request
	Mix     workload.Mix
	Seed    uint64 // the workload's seed
	K       int    // hits per search
	// Knob is the driver's search-time knob on every vector search, the
	// load's and the checks' (engines.Query.Knob; 0: the engine's
	// default). A sweep sets it per point.
	Knob  int `json:",omitempty"`
	Known checks.KnownConfig
	// Point is the sweep point the calls are made at (from 1; 0: no
	// sweep): the loops' windows carry it and Knob, so that the events,
	// the .hlog tags and the live page say which point runs.
	Point int `json:"-"`
	// Versions, when set, are the IDs' versions as earlier loads on the
	// same index left them (a sweep's earlier points): a load goes on
	// from them, so its checks know what was written before it. nil: the
	// load is the first on the index.
	Versions *checks.Versions `json:"-"`
	// Interval is the timeline's interval within each window (at least
	// MinInterval, at most the window); zero: DefaultInterval, or the
	// whole window when it is shorter.
	Interval time.Duration
	// Sampled, when set, is read with the engine's own stats, on the same
	// clock, into EngineStats and the timeline: Run sets it to a launched
	// container's CPU and memory (container.Container.Stats).
	Sampled func(context.Context) (map[string]float64, error) `json:"-"`
}

// Validate reports the first bad field (a *field.Error).
func (c Calls) Validate() error {
	switch {
	case c.Timeout <= 0:
		return field.New("Timeout", "timeout", "%v must be > 0", c.Timeout)
	case c.Timeout < MinTimeout:
		return field.New("Timeout", "timeout", "%v is shorter than %v: every call would fail", c.Timeout, MinTimeout)
	case c.Timeout > MaxTimeout:
		return field.New("Timeout", "timeout", "%v is longer than %v: a hung engine would hold the run that long per call", c.Timeout, MaxTimeout)
	case c.K < 1:
		return field.New("K", "k", "%d must be ≥ 1", c.K)
	case c.Knob < 0:
		return field.New("Knob", "sweep", "%d must be ≥ 0 (0: the engine's default)", c.Knob)
	}
	if err := c.Known.Validate(); err != nil {
		return field.In("Known", err)
	}
	return field.In("Mix", c.Mix.Validate())
}

// MinTimeout is the shortest request timeout: below it no call over a
// network (nor most in-process ones) can finish.
const MinTimeout = time.Millisecond

// MaxTimeout is the longest request timeout: a call to an engine that
// stopped answering holds what waits on it (a pre-population batch, a
// level's drain) this long, and past ten minutes a benchmark's call is not
// slow but lost: the value is a typo (1h for 1s).
const MaxTimeout = 10 * time.Minute

const (
	// DefaultInterval is the timeline's interval when none is given.
	DefaultInterval = time.Second
	// MinInterval is the shortest interval: as the shortest window, the
	// timers that open and close it are milliseconds late on a busy load
	// generator.
	MinInterval = 100 * time.Millisecond
)

// interval is c's interval in a window of the given length: the default
// (DefaultInterval, or the whole window when it is shorter) when none is set.
func (c Calls) interval(window time.Duration) time.Duration {
	if c.Interval == 0 {
		return min(DefaultInterval, window)
	}
	return c.Interval
}

// validateInterval checks the interval against the window it cuts.
func (c Calls) validateInterval(window time.Duration, windowFlag string) error {
	switch iv := c.Interval; {
	case iv == 0:
		return nil
	case iv < MinInterval:
		return field.New("Interval", "interval", "%v is shorter than %v, the shortest interval recorded", iv, MinInterval)
	case iv > window:
		return field.New("Interval", "interval", "%v is longer than the window it cuts (%s %v)", iv, windowFlag, window)
	}
	return nil
}

// Ask is how c's searches ask: K hits, the knob on vector searches.
func (c Calls) Ask() workload.Ask { return workload.Ask{K: c.K, Knob: c.Knob} }

// window is w at c's sweep point, w itself outside a sweep.
func (c Calls) window(w result.Window) result.Window {
	if c.Point == 0 {
		return w
	}
	return w.InPoint(c.Point-1, c.Knob)
}

// versions are the IDs' versions the load starts from: Versions (a
// sweep's, which the top follows across its points), or fresh ones for
// this share that follow the load's acknowledged writes until ctx ends.
func (c Calls) versions(ctx context.Context, src corpus.Source, s shard.Share) checks.Versions {
	if c.Versions != nil {
		return *c.Versions
	}
	return c.Known.Follow(ctx, checks.NewVersions(src.IDs()+1, s))
}

// knownChecks are the known-item checks of one level or rep, keyed by key,
// for c's searches.
func (c Calls) knownChecks(src corpus.Source, vers checks.Versions, key ...uint64) *checks.KnownChecks {
	return checks.NewKnownChecks(src, c.Known, c.Ask(), c.Seed, vers, key...)
}

// prober is the freshness probe of one level, for c's searches.
func (c Calls) prober(e engines.Engine, src corpus.Source, cfg checks.FreshnessConfig, vers checks.Versions) *checks.Prober {
	return checks.NewProber(e, src, cfg, c.Ask(), c.Seed, vers)
}

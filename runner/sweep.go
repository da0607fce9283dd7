package runner

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// Sweep moves each setup's search-time knob (engines.Knob: HNSW's
// ef_search, Elasticsearch's num_candidates) over Values on one index:
// the index is built and checked once, then each value has its idle
// recall against the exact answers and its load, a closed-loop level or
// an open-loop ladder. The result is the setup's result.Sweep, from which
// the reports draw recall against QPS.
type Sweep struct {
	// Knob, when set, is the knob's name, which each setup's driver must
	// have ("hnsw.ef_search"); empty: each driver's own.
	Knob string
	// Values are the knob's values, in the order run; each is checked
	// against each setup's knob. A driver without a knob runs one point
	// at its default.
	Values []int
	// Load says which loads each value runs (SweepBoth, SweepSearch,
	// SweepMix); empty: both when the mix writes, else searches only.
	Load SweepLoad
}

// SweepLoad is which loads a sweep runs at each value.
type SweepLoad string

const (
	// SweepSearch runs the mix's searches only: the engine as idle of
	// writes as a load can be.
	SweepSearch SweepLoad = "search"
	// SweepMix runs the whole mix, its writes included.
	SweepMix SweepLoad = "mix"
	// SweepBoth runs both, so the tables put idle and under writes side
	// by side.
	SweepBoth SweepLoad = "both"
)

// ParseSweep reads "[KNOB=]V1,V2,…", the --sweep setting.
func ParseSweep(s string) (*Sweep, error) {
	sw := &Sweep{}
	list := s
	if name, values, ok := strings.Cut(s, "="); ok {
		sw.Knob, list = strings.TrimSpace(name), values
		if sw.Knob == "" {
			return nil, errors.New("sweep: the knob's name before = is empty; give KNOB=V1,V2,… or V1,V2,…")
		}
	}
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, errors.New("sweep: " + strconv.Quote(f) + " is not a whole number; give [KNOB=]V1,V2,…")
		}
		sw.Values = append(sw.Values, v)
	}
	return sw, nil
}

// Loads are the writes of each load the sweep runs at a value, in order:
// searches only first.
func (s *Sweep) Loads(mix workload.Mix) []bool {
	switch s.Load {
	case SweepSearch:
		return []bool{false}
	case SweepMix:
		return []bool{true}
	case SweepBoth:
		return []bool{false, true}
	}
	if mix.Writes() {
		return []bool{false, true}
	}
	return []bool{false}
}

// searchesOnly is the mix of a sweep's load without writes: its searches.
func searchesOnly() workload.Mix {
	var m workload.Mix
	m[workload.Search] = 1
	return m
}

// validate checks the sweep against the plan: values given, once each;
// one closed-loop level (a point holds one Level); vector searches in
// the corpus; a mix that searches,
// and that writes when the loads ask for writes; and each value within
// each setup's knob, whose name is Knob when given.
func (s *Sweep) validate(p Plan) error {
	calls := p.Calls()
	switch {
	case len(s.Values) == 0:
		return field.New("Values", "sweep", "no value; give [KNOB=]V1,V2,…")
	case p.Closed != nil && len(p.Closed.Users) != 1:
		return field.New("Values", "sweep", "%d user levels; a sweep runs one level at each value (give one --users level, or a ladder)", len(p.Closed.Users))
	case calls.Mix.Fraction(workload.Search) == 0:
		return field.New("Values", "sweep", "the mix %s has no searches for the knob to move", calls.Mix)
	case !slices.ContainsFunc(p.Source.Schema().Fields, func(f engines.FieldSpec) bool { return f.Type == engines.Vector }):
		return field.New("Values", "sweep", "the %s corpus has no vector searches for the knob to move (the product corpus has)", p.Source.Schema().Name)
	case calls.Knob != 0:
		return field.New("Values", "sweep", "the calls set the knob already (%d); the sweep sets it at each value", calls.Knob)
	}
	switch s.Load {
	case "", SweepSearch, SweepBoth:
	case SweepMix:
		if !calls.Mix.Writes() {
			return field.New("Load", "sweep-load", "mix: the mix %s does not write", calls.Mix)
		}
	default:
		return field.New("Load", "sweep-load", "%q is none of search, mix, both", s.Load)
	}
	if s.Load == SweepBoth && !calls.Mix.Writes() {
		return field.New("Load", "sweep-load", "both: the mix %s does not write; give search", calls.Mix)
	}
	for i, v := range s.Values {
		if slices.Index(s.Values, v) < i {
			return field.New("Values", "sweep", "%d is given twice", v)
		}
	}
	for _, st := range p.Setups {
		if err := s.checkKnob(st, calls.K); err != nil {
			return err
		}
	}
	return nil
}

// checkKnob checks the sweep against setup st's driver's knob, for
// searches of k hits: the name, when given, and each value.
func (s *Sweep) checkKnob(st Setup, k int) error {
	d, err := engines.Lookup(st.Driver)
	if err != nil {
		return nil // validateSetups names it
	}
	knob := d.Describe().Knob
	switch {
	case knob == nil && s.Knob != "":
		return field.New("Knob", "sweep", "%s has no search-time knob (it would run one point at its default); leave out %q", st.Name(), s.Knob)
	case knob == nil:
		return nil
	case s.Knob != "" && s.Knob != knob.Name:
		return field.New("Knob", "sweep", "%s's knob is %s, not %s", st.Name(), knob.Name, s.Knob)
	}
	for _, v := range s.Values {
		q := engines.Query{Vector: []float32{0}, K: k, Knob: v}
		if err := knob.Check(st.Driver, q); err != nil {
			return &field.Error{Field: "Values", Flag: "sweep", Err: err, Msg: err.Error()}
		}
	}
	return nil
}

// sweep runs the plan's sweep on the setup's prepared engine. Every value
// has its idle check and its searches-only load first, while the index
// holds the pre-populated documents only; then every value has its load
// with the mix's writes. What was measured is kept when a load is cut
// short.
func (st *setupRun) sweep(ctx context.Context, e engines.Engine) error {
	sw := st.plan.Sweep
	d, _ := engines.Lookup(st.s.Driver) // validated in Plan.Validate
	knob := d.Describe().Knob
	st.er.Sweep = &result.Sweep{}
	values := sw.Values
	if knob == nil {
		values = []int{0}
		st.logf(st.name, "%s has no search-time knob: the sweep is one point, at the engine's default", st.s.Driver)
	} else {
		st.er.Sweep.Knob = knob.Name
	}
	calls := st.plan.Calls()
	// The points share the versions and the truth that follows their
	// writes: the index keeps what the earlier points wrote.
	ctx, unfollow := context.WithCancel(ctx)
	defer unfollow()
	vers := calls.Known.WithTruth(st.truth).Follow(ctx, checks.NewVersions(st.plan.Source.IDs()+1, st.plan.Shard.Share()))
	idle := map[int][]result.KindRecall{}
	for _, writes := range sw.Loads(calls.Mix) {
		for _, v := range values {
			if ctx.Err() != nil {
				return errInterrupted
			}
			if _, ok := idle[v]; !ok {
				idle[v] = st.idleAt(ctx, e, v)
			}
			if err := st.point(ctx, e, sweepPoint{v: v, writes: writes, idle: idle[v], vers: &vers}); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepPoint is one point of a sweep as it is run.
type sweepPoint struct {
	v      int
	writes bool
	idle   []result.KindRecall
	vers   *checks.Versions // shared by the points: what the earlier ones wrote
}

// idleAt is recall against the exact answers on the idle engine at knob
// value v; nil without exact answers, and on the shards other than 0,
// which leave the idle checks to it as they leave it the index's.
func (st *setupRun) idleAt(ctx context.Context, e engines.Engine, v int) []result.KindRecall {
	if st.truth == nil || (st.plan.Shard != nil && st.plan.Shard.Index != 0) {
		return nil
	}
	calls := st.plan.Calls()
	calls.Knob = v
	out := checks.CheckExact(ctx, e, st.truth, calls.Ask(), calls.Timeout)
	for _, x := range out {
		if x.Expected > 0 {
			st.logf(st.name, "value %d: %s: idle recall@%d %.3f against exact answers (%d queries)", v, x.Kind, calls.K, x.Recall, x.Checks)
		}
	}
	return out
}

// point runs one sweep point's load and adds the point to the setup's
// sweep, when anything of it was measured.
func (st *setupRun) point(ctx context.Context, e engines.Engine, sp sweepPoint) error {
	p := st.plan
	i := len(st.er.Sweep.Points)
	pt := result.SweepPoint{Value: sp.v, Idle: sp.idle, Writes: sp.writes}
	set := func(c *loops.Calls) {
		c.Knob, c.Point, c.Versions = sp.v, i+1, sp.vers
		if !sp.writes {
			c.Mix = searchesOnly()
		}
		// The load's recall is read beside this value's idle recall.
		if rel := st.er.Relevance; rel != nil || sp.idle != nil {
			idle := result.Relevance{K: c.K}
			if rel != nil {
				idle = *rel
			}
			idle.Exact = sp.idle
			c.Known.Idle = &idle
		}
		c.Known = c.Known.WithTruth(st.truth)
		c.Sampled = st.sampled
	}
	at := "the engine's default"
	if k := st.er.Sweep.Knob; k != "" {
		at = k + "=" + strconv.Itoa(sp.v)
	}
	st.logf(st.name, "sweep point %d: %s, %s", i+1, at, map[bool]string{false: "searches only", true: "with the mix's writes"}[sp.writes])
	var err error
	if p.Closed != nil {
		cfg := *p.Closed
		cfg.Share = p.Shard.Share()
		set(&cfg.Calls)
		levels := loops.ClosedLoop(ctx, e, p.Source, cfg, st.em, st.shards.barrier())
		if len(levels) == 0 {
			return st.shards.stopped(ctx)
		}
		pt.Level = &levels[0]
	} else {
		cfg := *p.Ladder
		cfg.Open.Share = p.Shard.Share()
		set(&cfg.Open.Calls)
		l := loops.RunLadder(ctx, e, p.Source, cfg, st.em, st.shards.barrier())
		pt.Ladder = &l
		err = st.shards.lost()
	}
	st.er.Sweep.Points = append(st.er.Sweep.Points, pt)
	return err
}

package result

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Merge combines the results of the shards of one sharded run (each with
// Shard set) into the result one machine sending the whole load would have
// written, so that reports, compare and the exit code treat it as one run.
//
// The error is bad input, one line: results of different plans (naming the
// field that differs and the shards: timelines of other intervals too), two results of one index, an index
// outside the count, a result that is not a shard's, or histograms that
// cannot be merged without dropping values. Shards that are missing (fewer
// results than Shard.Count) are not an error: the merge holds the others,
// is Partial, and its Reason and Shards name the missing ones.
//
// How each figure is merged:
//   - Latency: the shards' HDR histograms are added (per operation, and
//     for a ladder's service time too) and every percentile is computed
//     from the sum; no percentile is ever averaged. A merge that would drop
//     a value (histograms of different ranges) is an error.
//   - Counts (calls, not-found, errors by class, sent, unsent, late starts,
//     freshness probes) are summed; error examples are the union, at most
//     three per class.
//   - Rates: each shard measured its own window, starting together within
//     the skew its Starts record; an operation's RPS is Σ count_i/window_i,
//     the sum of the shards' rates. Dividing the summed count by one
//     "common" window instead would charge every shard with the shortest
//     (or longest) shard's window. Level.Window is the shortest shard
//     window: the time every shard was measuring; Level.ShardWindows is
//     each shard's, so a shard that stopped early is named with its window.
//   - Active users: the shards' means and minimums are summed (the sum of
//     minimums is a lower bound: the shards' need not coincide), the ramp
//     is the longest shard's; a shard without them (an older searchbench)
//     leaves the merged level without them.
//   - Closed-loop users are summed; a ladder rep's offered and achieved
//     rates are summed, and the rungs' medians and the sustainable rate are
//     recomputed from the merged reps by the runner's own rule
//     (Rung.Summarize, Ladder.Judge).
//   - The load generator's health (ClientCPU, SchedLatencyP99, a rep's
//     generator lag) is the worst shard's — the bound that matters for
//     "was the harness the bottleneck"; each shard's own CPU is in Shards.
//   - EngineStats describe the one engine every shard drove: samples
//     summed, Mean weighted by samples, Max the highest, Last and
//     PerSecond the mean over the shards.
//   - Timelines are merged interval by interval (the shards' intervals
//     lie on one grid from the synchronised start): the interval
//     histograms are added and each interval's percentiles computed from
//     the sum, never averaged; counts, errors, active users and scheduled
//     calls are summed, the scheduler's lag is the worst shard's. Shards
//     whose timelines have other intervals ran other plans: an error. When
//     a shard has no timeline (an older searchbench) the merged window has
//     none, and a warning says so.
//   - Warnings are the union, each prefixed "shard i: ".
func Merge(shards ...*Result) (*Result, error) {
	parts, count, err := order(shards)
	if err != nil {
		return nil, err
	}
	if err := samePlan(parts); err != nil {
		return nil, err
	}
	base := parts[0].r
	out := &Result{
		SchemaVersion: SchemaVersion, Tool: base.Tool, Config: base.Config, Corpus: base.Corpus, Host: base.Host,
		StartedAt: base.StartedAt, FinishedAt: base.FinishedAt,
	}
	present := map[int]bool{}
	for _, p := range parts {
		present[p.idx] = true
		r := p.r
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		if r.Shard.Coordinator == "" {
			out.Warnings = append(out.Warnings, Note(p.name()+": ran without a coordinator: its starts were not synchronised with the other shards', so their windows may not overlap"))
		}
		if r.Tool != base.Tool {
			out.Warnings = append(out.Warnings, Notef("%s: ran searchbench %s (%s), %s ran %s (%s)", p.name(), r.Tool.Version, r.Tool.GoVersion, parts[0].name(), base.Tool.Version, base.Tool.GoVersion))
		}
		if r.Host.CPUs != base.Host.CPUs || r.Host.GOMAXPROCS != base.Host.GOMAXPROCS {
			out.Warnings = append(out.Warnings, Notef("%s: its load generator has %d CPUs (GOMAXPROCS %d), %s's %d (%d); the host shown is %s's", p.name(), r.Host.CPUs, r.Host.GOMAXPROCS, parts[0].name(), base.Host.CPUs, base.Host.GOMAXPROCS, parts[0].name()))
		}
		out.Warnings = append(out.Warnings, r.Warnings.In(p.name())...)
	}
	missing := 0
	for i := range count {
		if !present[i] {
			missing++
			out.Shards = append(out.Shards, ShardSummary{Index: i, Missing: true})
			continue
		}
		out.Shards = append(out.Shards, summary(parts[slices.IndexFunc(parts, func(p part) bool { return p.idx == i })]))
	}
	if reason := ShardsReason(out.Shards); reason != "" {
		out.Partial, out.Reason = true, reason
	}
	engines := 0
	for _, p := range parts {
		engines = max(engines, len(p.r.Engines))
	}
	for e := range engines {
		er, err := mergeEngine(parts, e, missing == 0)
		if err != nil {
			return nil, err
		}
		out.Engines = append(out.Engines, er)
	}
	return out, nil
}

// ShardsReason is why a merged run with the shards ss (Result.Shards) is
// partial, or "" when it is not: first the shards whose result is missing,
// those without a Reason together ("missing shard(s) 1, 3 of 4: no
// result"), those with one each with it (the coordinator knows why: "shard
// 2: its connection closed, …"); then each present shard that is partial,
// with its own reason ("shard 0: interrupted"). Merge sets the merged
// Reason to it; a caller that learns why a shard is missing sets that
// shard's Reason and asks again.
func ShardsReason(ss []ShardSummary) string {
	var unknown, missing, partial []string
	for _, s := range ss {
		name := "shard " + strconv.Itoa(s.Index)
		switch {
		case s.Missing && s.Reason == "":
			unknown = append(unknown, strconv.Itoa(s.Index))
		case s.Missing:
			missing = append(missing, name+": "+s.Reason)
		case s.Partial:
			partial = append(partial, name+": "+s.Reason)
		}
	}
	var reasons []string
	if len(unknown) > 0 {
		reasons = append(reasons, fmt.Sprintf("missing shard(s) %s of %d: no result", strings.Join(unknown, ", "), len(ss)))
	}
	return strings.Join(slices.Concat(reasons, missing, partial), "; ")
}

// part is one shard's result.
type part struct {
	idx int
	r   *Result
}

func (p part) name() string { return "shard " + strconv.Itoa(p.idx) }

// order checks the shards' indices and sorts them by index.
func order(shards []*Result) ([]part, int, error) {
	if len(shards) == 0 {
		return nil, 0, errors.New("merge: no shard results given")
	}
	var parts []part
	count := 0
	for i, r := range shards {
		switch {
		case r == nil || r.Shard == nil:
			return nil, 0, fmt.Errorf("merge: result %d of %d is not a shard's result (it has no shard)", i+1, len(shards))
		case r.Shard.Count < 1:
			return nil, 0, fmt.Errorf("merge: result %d of %d: shard count %d must be ≥ 1", i+1, len(shards), r.Shard.Count)
		case r.Shard.Index < 0 || r.Shard.Index >= r.Shard.Count:
			return nil, 0, fmt.Errorf("merge: result %d of %d: shard index %d is outside 0…%d (count %d)", i+1, len(shards), r.Shard.Index, r.Shard.Count-1, r.Shard.Count)
		}
		if i == 0 {
			count = r.Shard.Count
		} else if r.Shard.Count != count {
			return nil, 0, fmt.Errorf("merge: shard.count differs: %d in result 1 (shard %d), %d in result %d (shard %d)", count, shards[0].Shard.Index, r.Shard.Count, i+1, r.Shard.Index)
		}
		if j := slices.IndexFunc(parts, func(p part) bool { return p.idx == r.Shard.Index }); j >= 0 {
			return nil, 0, fmt.Errorf("merge: shard %d is given twice (results %d and %d)", r.Shard.Index, j+1, i+1)
		}
		parts = append(parts, part{idx: r.Shard.Index, r: r})
	}
	slices.SortFunc(parts, func(a, b part) int { return a.idx - b.idx })
	return parts, count, nil
}

// planField is one figure that every shard of a plan shares.
type planField struct {
	name string
	get  func(*Result) any
}

var planFields = []planField{
	{"config.engines", func(r *Result) any { return r.Config.Engines }},
	{"config.users", func(r *Result) any { return r.Config.Users }},
	{"config.mix", func(r *Result) any { return r.Config.Mix }},
	{"config.mix_weights", func(r *Result) any { return r.Config.MixWeights }},
	{"config.seed", func(r *Result) any { return r.Config.Seed }},
	{"config.spawn_rate_per_s", func(r *Result) any { return r.Config.SpawnRate }},
	{"config.settle", func(r *Result) any { return time.Duration(r.Config.Settle) }},
	{"config.measure", func(r *Result) any { return time.Duration(r.Config.Measure) }},
	{"config.request_timeout", func(r *Result) any { return time.Duration(r.Config.RequestTimeout) }},
	{"config.k", func(r *Result) any { return r.Config.K }},
	{"config.write_mode", func(r *Result) any { return r.Config.WriteMode }},
	{"config.histogram", func(r *Result) any { return r.Config.Histogram }},
	{"corpus.generator", func(r *Result) any { return r.Corpus.Generator }},
	{"corpus.seed", func(r *Result) any { return r.Corpus.Seed }},
	{"corpus.ids", func(r *Result) any { return r.Corpus.IDs }},
	{"corpus.prepopulate_fraction", func(r *Result) any { return r.Corpus.Prepopulate }},
	{"corpus.queries", func(r *Result) any { return r.Corpus.Queries }},
	{"corpus.hash", func(r *Result) any { return r.Corpus.Hash }},
}

// setupFields are the fields of one engine run that every shard shares.
var setupFields = []struct {
	name string
	get  func(EngineRun) any
}{
	{"name", func(e EngineRun) any { return e.Name }},
	{"label", func(e EngineRun) any { return e.Label }},
	{"options", func(e EngineRun) any { return e.Options }},
	{"closed loop or ladder", func(e EngineRun) any {
		switch {
		case e.Ladder != nil:
			return "ladder"
		case len(e.Levels) > 0:
			return "closed loop"
		}
		return "" // it stopped before either ran
	}},
}

// ladderFields are the ladder's parameters.
var ladderFields = []struct {
	name string
	get  func(*Ladder) any
}{
	{"arrival", func(l *Ladder) any { return l.Arrival }},
	{"workers", func(l *Ladder) any { return l.Workers }},
	{"start_rate", func(l *Ladder) any { return l.Start }},
	{"step", func(l *Ladder) any { return l.Step }},
	{"stop_rate", func(l *Ladder) any { return l.Stop }},
	{"rung_duration", func(l *Ladder) any { return time.Duration(l.Duration) }},
	{"repeat", func(l *Ladder) any { return l.Repeat }},
	{"p99_factor", func(l *Ladder) any { return l.Factor }},
	{"min_achieved", func(l *Ladder) any { return l.MinAchieved }},
	{"explode_factor", func(l *Ladder) any { return l.ExplodeFactor }},
	{"reference_rate", func(l *Ladder) any { return l.Reference }},
}

// samePlan refuses shards of different plans, naming the first field that
// differs and the two shards.
func samePlan(parts []part) error {
	a := parts[0]
	differs := func(field string, b part, va, vb any) error {
		return fmt.Errorf("merge: %s differs: %v in %s, %v in %s: not shards of one plan", field, va, a.name(), vb, b.name())
	}
	for _, b := range parts[1:] {
		for _, f := range planFields {
			if va, vb := f.get(a.r), f.get(b.r); !reflect.DeepEqual(va, vb) {
				return differs(f.name, b, va, vb)
			}
		}
		for e := range min(len(a.r.Engines), len(b.r.Engines)) {
			ea, eb := a.r.Engines[e], b.r.Engines[e]
			for _, f := range setupFields {
				va, vb := f.get(ea), f.get(eb)
				if va == "" || vb == "" {
					continue // a setup that stopped early ran neither
				}
				if !reflect.DeepEqual(va, vb) && !(f.name == "options" && len(ea.Options)+len(eb.Options) == 0) {
					return differs(fmt.Sprintf("engines[%d].%s", e, f.name), b, va, vb)
				}
			}
			if field, va, vb, ok := sameLadder(ea.Ladder, eb.Ladder); !ok {
				return differs(fmt.Sprintf("engines[%d] (%s) %s", e, ea.Label, field), b, va, vb)
			}
		}
	}
	return nil
}

// sameLadder says whether two shards' ladders are one plan's (either nil:
// nothing to compare), and if not the first field that differs.
func sameLadder(a, b *Ladder) (field string, va, vb any, ok bool) {
	if a == nil || b == nil {
		return "", nil, nil, true
	}
	for _, f := range ladderFields {
		if va, vb := f.get(a), f.get(b); va != vb {
			return "ladder." + f.name, va, vb, false
		}
	}
	for j := range min(len(a.Rungs), len(b.Rungs)) {
		if va, vb := a.Rungs[j].Offered, b.Rungs[j].Offered; va != vb {
			return fmt.Sprintf("ladder rung %d offered_rate", j), va, vb, false
		}
	}
	return "", nil, nil, true
}

// summary is one present shard as the merged result lists it.
func summary(p part) ShardSummary {
	r := p.r
	s := ShardSummary{Index: p.idx, Hostname: r.Host.Hostname, Partial: r.Partial, Reason: r.Reason, Starts: r.Shard.Starts}
	for _, e := range r.Engines {
		e.Loads(func(point int, levels []Level, ladder *Ladder) {
			for _, l := range shardLevels(e.Label, levels, ladder) {
				if point > 0 {
					l.Point, l.Value = point, e.Sweep.Points[point-1].Value
				}
				s.Levels = append(s.Levels, l)
			}
		})
	}
	return s
}

// shardLevels is a shard's own throughput in each of levels and each rung
// of ladder.
func shardLevels(label string, levels []Level, ladder *Ladder) []ShardLevel {
	var out []ShardLevel
	for j, l := range levels {
		out = append(out, ShardLevel{Engine: label, Level: j, Users: l.Users, TotalRPS: l.TotalRPS, ClientCPU: l.ClientCPU})
	}
	if ladder == nil {
		return out
	}
	for j, rung := range ladder.Rungs {
		if len(rung.Reps) == 0 {
			continue
		}
		offered := make([]float64, len(rung.Reps))
		cpu := 0.0
		for k, rep := range rung.Reps {
			offered[k], cpu = rep.Offered, max(cpu, rep.ClientCPU)
		}
		out = append(out, ShardLevel{Engine: label, Level: j, Offered: median(offered), TotalRPS: rung.Achieved, ClientCPU: cpu})
	}
	return out
}

// mergeEngine merges engine run e of every shard that has it. complete
// says no shard is missing, so the users must add up to the plan's.
func mergeEngine(parts []part, e int, complete bool) (EngineRun, error) {
	var runs []part // the shards that have engine e, each's run at runs[i].engine(e)
	for _, p := range parts {
		if e < len(p.r.Engines) {
			runs = append(runs, p)
		}
	}
	out := mergeEngineSetup(parts, runs, e)
	where := fmt.Sprintf("engine %s", out.Label)
	var err error
	if out.Levels, err = mergeLevels(runs, e, where, complete); err != nil {
		return out, err
	}
	var ladders []shardLadder
	for _, p := range runs {
		if l := p.engine(e).Ladder; l != nil {
			ladders = append(ladders, shardLadder{p, l})
		}
	}
	if len(ladders) > 0 {
		l, err := mergeLadder(ladders, where)
		if err != nil {
			return out, err
		}
		out.Ladder = l
	}
	var sweeps []shardSweep
	for _, p := range runs {
		if s := p.engine(e).Sweep; s != nil {
			sweeps = append(sweeps, shardSweep{p, s})
		}
	}
	if len(sweeps) > 0 {
		if out.Sweep, err = mergeSweep(sweeps, where); err != nil {
			return out, err
		}
	}
	return out, nil
}

// engine is the shard's engine run e (e < len(p.r.Engines)).
func (p part) engine(e int) EngineRun { return p.r.Engines[e] }

// mergeEngineSetup is engine run e without its measured windows (levels,
// ladder): what the shards in runs share, the errors and warnings of each,
// and a warning for each shard of parts that stopped before it.
func mergeEngineSetup(parts, runs []part, e int) EngineRun {
	out := runs[0].engine(e)
	out.Levels, out.Ladder, out.Sweep, out.Warnings, out.Error = nil, nil, nil, nil, ""
	// Pre-population and the relevance check ran on one shard (shard 0);
	// the others skipped them.
	for _, p := range runs {
		if er := p.engine(e); er.Preload.Documents > 0 || er.Relevance != nil {
			out.Preload, out.Relevance = er.Preload, er.Relevance
			break
		}
	}
	var errs []string
	for _, p := range runs {
		er := p.engine(e)
		if out.Version == "" {
			out.Version = er.Version
		}
		if er.Error != "" {
			errs = append(errs, p.name()+": "+er.Error)
		}
		out.Warnings = append(out.Warnings, er.Warnings.In(p.name())...)
	}
	out.Error = strings.Join(errs, "; ")
	for _, p := range parts {
		if e >= len(p.r.Engines) {
			out.Warnings = append(out.Warnings, Note(p.name()+": stopped before this engine ran"))
		}
	}
	return out
}

// mergeLevels merges the closed-loop levels of engine run e of the shards
// in runs, level j of each shard that ran it; on an error, the levels
// merged before it. complete: as mergeEngine's.
func mergeLevels(runs []part, e int, where string, complete bool) ([]Level, error) {
	levels := 0
	for _, p := range runs {
		levels = max(levels, len(p.engine(e).Levels))
	}
	var out []Level
	for j := range levels {
		var ls []shardLevel
		var lacking []string
		for _, p := range runs {
			if j < len(p.engine(e).Levels) {
				ls = append(ls, shardLevel{p, p.engine(e).Levels[j]})
			} else {
				lacking = append(lacking, p.name())
			}
		}
		l, err := mergeLevel(ls, fmt.Sprintf("%s, level %d", where, j))
		if err != nil {
			return out, err
		}
		if len(lacking) > 0 {
			l.Partial = true
			l.Warnings = append(l.Warnings, Note(strings.Join(lacking, ", ")+": did not run this level; the figures are the other shards' only"))
		}
		// With a shard missing the others' users cannot add up to the plan's.
		cfg := runs[0].r.Config
		if complete && len(lacking) == 0 && j < len(cfg.Users) && l.Users != cfg.Users[j] {
			l.Warnings = append(l.Warnings, Notef("the shards ran %d users in all; the plan's level has %d", l.Users, cfg.Users[j]))
		}
		out = append(out, l)
	}
	return out, nil
}

type shardLevel struct {
	p part
	l Level
}

// mergeLevel merges one closed-loop level of several shards.
func mergeLevel(ls []shardLevel, where string) (Level, error) {
	out := Level{Window: ls[0].l.Window, Active: &ActiveUsers{}}
	ops := newOpMerger(where, false)
	var fresh []shardFreshness
	var stats []map[string]Gauge
	var tls []*Timeline
	var tlShards []int
	for _, s := range ls {
		l := s.l
		tls, tlShards = append(tls, l.Timeline), append(tlShards, s.p.idx)
		out.Users += l.Users
		out.Window = min(out.Window, l.Window)
		out.ShardWindows = append(out.ShardWindows, ShardWindow{Shard: s.p.idx, Window: l.Window, Partial: l.Partial})
		if a := l.Active; a != nil && out.Active != nil {
			out.Active.Mean += a.Mean
			out.Active.Min += a.Min
			out.Active.Ramp = max(out.Active.Ramp, a.Ramp)
		} else {
			out.Active = nil
		}
		out.Partial = out.Partial || l.Partial
		out.ClientCPU = max(out.ClientCPU, l.ClientCPU)
		out.SchedLatencyP99 = max(out.SchedLatencyP99, l.SchedLatencyP99)
		if l.Freshness != nil {
			fresh = append(fresh, shardFreshness{s.p, l.Freshness})
		}
		if l.EngineStats != nil {
			stats = append(stats, l.EngineStats)
		}
		out.KnownItems = SumKnownItems(out.KnownItems, l.KnownItems)
		// The merge warns from the shards' summed checks instead.
		out.Warnings = append(out.Warnings, l.Warnings.Without(WarningKnownItems).In(s.p.name())...)
		for _, o := range l.Ops {
			if err := ops.add(s.p, o, ""); err != nil {
				return out, err
			}
		}
	}
	merged, _, _, err := ops.result()
	if err != nil {
		return out, err
	}
	for _, o := range merged {
		out.Ops = append(out.Ops, o.OpStats)
		out.TotalRPS += o.RPS
	}
	out.EngineStats = mergeGauges(stats)
	var w string
	if out.Timeline, w, err = mergeTimelines(tls, tlShards, where); err != nil {
		return out, err
	} else if w != "" {
		out.Warnings = append(out.Warnings, Note(w))
	}
	out.KnownItems.GroupByInterval(out.Timeline)
	out.Warnings = append(out.Warnings, out.KnownItems.Warnings()...)
	if out.Freshness, err = mergeFreshness(fresh, where); err != nil {
		return out, err
	}
	return out, nil
}

// opMerger adds the operations of several shards, by name, in the order
// they first appear.
type opMerger struct {
	where string
	open  bool // a ladder rep's: service-time histograms too
	names []string
	ops   map[string]*opAcc
}

type opAcc struct {
	OpenOp
	lat, svc *hdrhistogram.Histogram
	kinds    []kindAcc // in the order they first appear
}

type kindAcc struct {
	KindStats
	lat *hdrhistogram.Histogram
}

func newOpMerger(where string, open bool) *opMerger {
	return &opMerger{where: where, open: open, ops: map[string]*opAcc{}}
}

// add adds one shard's operation; svc is its service-time histogram (open
// loop only).
func (m *opMerger) add(p part, o OpStats, svc string) error {
	acc := m.ops[o.Op]
	if acc == nil {
		acc = &opAcc{OpenOp: OpenOp{OpStats: OpStats{Op: o.Op, Writes: o.Writes, NotFoundDone: o.NotFoundDone}}}
		m.ops[o.Op] = acc
		m.names = append(m.names, o.Op)
	}
	where := fmt.Sprintf("%s, %s, %s", m.where, o.Op, p.name())
	if o.Count > 0 {
		if err := addHistogram(&acc.lat, o.Histogram, where); err != nil {
			return err
		}
		if m.open {
			if err := addHistogram(&acc.svc, svc, where+" service time"); err != nil {
				return err
			}
		}
	}
	if err := acc.addKinds(o.Kinds, where); err != nil {
		return err
	}
	a := &acc.OpStats
	a.Count += o.Count
	a.RPS += o.RPS // count_i / window_i: the shards' rates add
	a.NotFound += o.NotFound
	addErrors(&a.Errors, o.Errors)
	for class, msgs := range o.ErrorExamples {
		for _, msg := range msgs {
			ex := a.ErrorExamples[class]
			if len(ex) >= maxExamples || slices.Contains(ex, msg) {
				continue
			}
			if a.ErrorExamples == nil {
				a.ErrorExamples = map[string][]string{}
			}
			a.ErrorExamples[class] = append(ex, msg)
		}
	}
	return nil
}

// addKinds adds one shard's split of the operation by query kind.
func (acc *opAcc) addKinds(kinds []KindStats, where string) error {
	for _, k := range kinds {
		i := slices.IndexFunc(acc.kinds, func(a kindAcc) bool { return a.Kind == k.Kind })
		if i < 0 {
			acc.kinds = append(acc.kinds, kindAcc{KindStats: KindStats{Kind: k.Kind}})
			i = len(acc.kinds) - 1
		}
		a := &acc.kinds[i]
		if k.Count > 0 {
			if err := addHistogram(&a.lat, k.Histogram, where+", "+k.Kind); err != nil {
				return err
			}
		}
		a.Count += k.Count
		a.RPS += k.RPS
		addErrors(&a.Errors, k.Errors)
	}
	return nil
}

// addErrors adds the failed calls by class of src to *dst, which is made
// at the first class to add (an operation without failures keeps none).
func addErrors(dst *map[string]int64, src map[string]int64) {
	for class, n := range src {
		if *dst == nil {
			*dst = map[string]int64{}
		}
		(*dst)[class] += n
	}
}

// maxExamples is how many error messages an operation keeps per class (the
// runner keeps as many).
const maxExamples = 3

// result is the merged operations, in order, with every operation's
// latency and service histograms merged into one each (for a rep's
// all-operation figures).
func (m *opMerger) result() ([]OpenOp, *hdrhistogram.Histogram, *hdrhistogram.Histogram, error) {
	var out []OpenOp
	var allLat, allSvc *hdrhistogram.Histogram
	for _, name := range m.names {
		acc := m.ops[name]
		o := acc.OpenOp
		var err error
		if o.Latency, o.Histogram, err = summarize(acc.lat, &allLat, m.where+", all operations"); err != nil {
			return nil, nil, nil, err
		}
		if o.Service, o.ServiceHistogram, err = summarize(acc.svc, &allSvc, m.where+", all operations' service time"); err != nil {
			return nil, nil, nil, err
		}
		o.Kinds = nil
		for _, k := range acc.kinds {
			ks := k.KindStats
			if ks.Latency, ks.Histogram, err = summarize(k.lat, nil, m.where); err != nil {
				return nil, nil, nil, err
			}
			o.Kinds = append(o.Kinds, ks)
		}
		out = append(out, o)
	}
	return out, allLat, allSvc, nil
}

// summarize is a merged histogram's summary and encoding (none for a nil
// one); it also adds h to *all, when all is not nil.
func summarize(h *hdrhistogram.Histogram, all **hdrhistogram.Histogram, where string) (Latency, string, error) {
	if h == nil {
		return Latency{}, "", nil
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		return Latency{}, "", err
	}
	if all != nil {
		if err := mergeInto(all, h, where); err != nil {
			return Latency{}, "", err
		}
	}
	return Summarize(h), enc, nil
}

// addHistogram decodes enc and adds it to *dst.
func addHistogram(dst **hdrhistogram.Histogram, enc, where string) error {
	if enc == "" {
		return fmt.Errorf("merge: %s: calls were counted but no histogram was kept, so no percentile can be merged", where)
	}
	h, err := DecodeHistogram(enc)
	if err != nil {
		return fmt.Errorf("merge: %s: %w", where, err)
	}
	return mergeInto(dst, h, where)
}

// mergeInto adds h to *dst, which takes the geometry of the first histogram
// added. Values the sum cannot hold (a histogram of a wider range) would be
// dropped, and the merge would understate the tail: that is an error.
func mergeInto(dst **hdrhistogram.Histogram, h *hdrhistogram.Histogram, where string) error {
	if *dst == nil {
		*dst = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	if dropped := (*dst).Merge(h); dropped > 0 {
		d := *dst
		return fmt.Errorf("merge: %s: %d values dropped adding histograms (range %d…%d at %d digits into %d…%d at %d digits): the merge would not be exact",
			where, dropped, h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(),
			d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures())
	}
	return nil
}

type shardFreshness struct {
	p part
	f *Freshness
}

// mergeFreshness adds the shards' freshness probes: counts summed, lags
// merged as histograms.
func mergeFreshness(fs []shardFreshness, where string) (*Freshness, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	out := &Freshness{}
	var lag *hdrhistogram.Histogram
	for _, s := range fs {
		f := s.f
		out.Probes += f.Probes
		out.Visible += f.Visible
		out.Superseded += f.Superseded
		out.Unresolved += f.Unresolved
		out.WriteFailed += f.WriteFailed
		out.SearchFailed += f.SearchFailed
		out.Searches += f.Searches
		out.Poll = max(out.Poll, f.Poll)
		if f.LastError != "" {
			out.LastError = s.p.name() + ": " + f.LastError
		}
		if f.Visible > 0 {
			if err := addHistogram(&lag, f.Histogram, where+", freshness, "+s.p.name()); err != nil {
				return nil, err
			}
		}
	}
	var err error
	if out.Lag, out.Histogram, err = summarize(lag, nil, where); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeGauges combines the engine figures each shard sampled from the one
// engine they all drove.
func mergeGauges(ms []map[string]Gauge) map[string]Gauge {
	if len(ms) == 0 {
		return nil
	}
	type acc struct {
		g          Gauge
		sum        float64 // Σ mean × samples
		last, rate float64
		n          int
	}
	accs := map[string]*acc{}
	for _, m := range ms {
		for k, g := range m {
			a := accs[k]
			if a == nil {
				a = &acc{g: Gauge{Max: g.Max}}
				accs[k] = a
			}
			a.g.Samples += g.Samples
			a.sum += g.Mean * float64(g.Samples)
			a.g.Max = max(a.g.Max, g.Max)
			a.last += g.Last
			a.rate += g.PerSecond
			a.n++
		}
	}
	out := make(map[string]Gauge, len(accs))
	for _, k := range slices.Sorted(maps.Keys(accs)) {
		a := accs[k]
		g := a.g
		if g.Samples > 0 {
			g.Mean = a.sum / float64(g.Samples)
		}
		g.Last, g.PerSecond = a.last/float64(a.n), a.rate/float64(a.n)
		out[k] = g
	}
	return out
}

type shardLadder struct {
	p part
	l *Ladder
}

// mergeLadder rebuilds the ladder from the shards' reps: rep k of rung j is
// the sum of every shard's rep k of rung j, and the rungs and the
// sustainable rate follow from the merged reps by the runner's rule.
func mergeLadder(ls []shardLadder, where string) (*Ladder, error) {
	out := *ls[0].l
	out.Rungs, out.Sustainable = nil, 0
	out.Warnings, out.StoppedEarly = ladderShardNotes(ls)
	rungs := 0
	for _, s := range ls {
		rungs = max(rungs, len(s.l.Rungs))
	}
	for j := range rungs {
		rung, err := mergeRung(ls, j, where)
		if err != nil {
			return nil, err
		}
		if len(rung.Reps) == 0 {
			continue
		}
		rung.Summarize()
		out.Rungs = append(out.Rungs, rung)
	}
	out.Judge()
	return &out, nil
}

// ladderShardNotes is what the shards' ladders said that the merged ladder
// keeps: each shard's warnings other than its own verdict (prefixed with
// its name), and why the shards stopped early, each reason once.
func ladderShardNotes(ls []shardLadder) (Warnings, string) {
	var warnings Warnings
	var stops []string
	for _, s := range ls {
		if s.l.StoppedEarly != "" && !slices.Contains(stops, s.l.StoppedEarly) {
			stops = append(stops, s.l.StoppedEarly)
		}
		// The shard's own verdict on its share of the load is not the
		// run's: what Judge said about it is left out (the merge judges
		// again); anything else it warned about is kept.
		own := *s.l
		own.Rungs, own.Warnings = slices.Clone(s.l.Rungs), nil
		own.Judge()
		judged := own.Warnings.Texts() // as a shard's file has them
		for _, w := range s.l.Warnings {
			if !slices.Contains(judged, w.String()) {
				warnings = append(warnings, w.In(s.p.name()))
			}
		}
	}
	return warnings, strings.Join(stops, "; ")
}

// mergeRung merges rung j of the shards' ladders rep by rep, not yet
// summarized; no reps when no shard ran it.
func mergeRung(ls []shardLadder, j int, where string) (Rung, error) {
	rung := Rung{QueueDepth: -1}
	reps := 0
	for _, s := range ls {
		if j < len(s.l.Rungs) {
			rung.Offered = s.l.Rungs[j].Offered
			reps = max(reps, len(s.l.Rungs[j].Reps))
		}
	}
	for k := range reps {
		rep, err := mergeRungRep(ls, j, k, rung.Offered, where)
		if err != nil {
			return rung, err
		}
		rung.Reps = append(rung.Reps, rep)
	}
	return rung, nil
}

// mergeRungRep merges rep k of rung j, offered per second, of every shard
// that ran it.
func mergeRungRep(ls []shardLadder, j, k int, offered float64, where string) (Rep, error) {
	var rs []shardRep
	var lacking []string
	for _, s := range ls {
		if j < len(s.l.Rungs) && k < len(s.l.Rungs[j].Reps) {
			rs = append(rs, shardRep{s.p, s.l.Rungs[j].Reps[k]})
		} else {
			lacking = append(lacking, s.p.name())
		}
	}
	rep, err := mergeRep(rs, fmt.Sprintf("%s, rung %d rep %d", where, j, k+1))
	if err != nil {
		return rep, err
	}
	if len(lacking) > 0 {
		// A rep some shards did not run was not held at its rate.
		rep.Partial = true
		rep.Warnings = append(rep.Warnings, Note(strings.Join(lacking, ", ")+": did not run this rep"))
	}
	if offered > 0 && len(lacking) == 0 && !near(rep.Offered, offered) {
		rep.Warnings = append(rep.Warnings, Notef("the shards offered %.6g/s in all; the rung's rate is %.6g/s", rep.Offered, offered))
	}
	return rep, nil
}

// near: within 1% (a Poisson schedule's share is not exact).
func near(a, b float64) bool { return a >= 0.99*b && a <= 1.01*b }

type shardRep struct {
	p part
	r Rep
}

// mergeRep adds one repetition of several shards.
func mergeRep(rs []shardRep, where string) (Rep, error) {
	out := Rep{}
	ops := newOpMerger(where, true)
	var stats []map[string]Gauge
	var tls []*Timeline
	var tlShards []int
	for _, s := range rs {
		r := s.r
		tls, tlShards = append(tls, r.Timeline), append(tlShards, s.p.idx)
		out.Offered += r.Offered
		out.Duration = max(out.Duration, r.Duration)
		out.Sent += r.Sent
		out.Unsent += r.Unsent
		out.Achieved += r.Achieved
		out.Errors += r.Errors
		out.LateStarts += r.LateStarts
		out.GeneratorLagP99 = max(out.GeneratorLagP99, r.GeneratorLagP99)
		out.GeneratorLagMax = max(out.GeneratorLagMax, r.GeneratorLagMax)
		out.ClientCPU = max(out.ClientCPU, r.ClientCPU)
		out.Partial = out.Partial || r.Partial
		if r.EngineStats != nil {
			stats = append(stats, r.EngineStats)
		}
		out.KnownItems = SumKnownItems(out.KnownItems, r.KnownItems)
		out.Warnings = append(out.Warnings, r.Warnings.In(s.p.name())...)
		for _, o := range r.Ops {
			if err := ops.add(s.p, o.OpStats, o.ServiceHistogram); err != nil {
				return out, err
			}
		}
	}
	merged, lat, svc, err := ops.result()
	if err != nil {
		return out, err
	}
	out.Ops = merged
	if lat != nil {
		out.Latency = Summarize(lat)
	}
	if svc != nil {
		out.Service = Summarize(svc)
	}
	out.EngineStats = mergeGauges(stats)
	var w string
	if out.Timeline, w, err = mergeTimelines(tls, tlShards, where); err != nil {
		return out, err
	} else if w != "" {
		out.Warnings = append(out.Warnings, Note(w))
	}
	out.KnownItems.GroupByInterval(out.Timeline)
	return out, nil
}

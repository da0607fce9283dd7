package result

import (
	"fmt"
	"slices"
	"strings"
)

// Sweep is one engine setup measured at each value of its search-time knob
// (HNSW's ef_search, Elasticsearch's num_candidates…), its index built
// once: at each value, recall per query kind on the idle engine, then load
// at that value. The reports draw recall against QPS from it and give the
// best QPS at a recall target, as ann-benchmarks and big-ann-benchmarks do.
type Sweep struct {
	// Knob is the engine's name for the knob ("hnsw.ef_search"); "" when
	// the engine has none, and the sweep is then one point.
	Knob   string       `json:"knob"`
	Points []SweepPoint `json:"points"`
}

// SweepPoint is one knob value: its idle recall and its load. A point
// holds a closed-loop Level or an open-loop Ladder, the types the runs
// without a sweep hold, so every figure of them means what it means there.
type SweepPoint struct {
	// Value is the knob's value; 0 is the engine's default.
	Value int `json:"value"`
	// Idle is recall@K against exact answers per query kind on the idle
	// engine at Value (KindRecall's figures under load are the check's).
	Idle []KindRecall `json:"idle,omitempty"`
	// Level is the closed-loop load at Value: its search operation's Kinds
	// give QPS, p50 and p99 per kind, its KnownItems.Exact the recall under
	// load. Ladder instead is an open-loop ladder at Value.
	Level  *Level  `json:"level,omitempty"`
	Ladder *Ladder `json:"ladder,omitempty"`
	// Writes: the load ran with the mix's writes, so its recall is scored
	// against a truth that follows them (KindRecall's strict and
	// lag-excused figures).
	Writes bool `json:"writes,omitempty"`
}

// Loads calls f with the engine's closed-loop levels and ladder (point
// 0), then with each sweep point's (point from 1; its level as a slice of
// one, which shares the level's operations and timeline): every measured
// window of the run, wherever it is held.
func (e EngineRun) Loads(f func(point int, levels []Level, ladder *Ladder)) {
	f(0, e.Levels, e.Ladder)
	if e.Sweep == nil {
		return
	}
	for i, p := range e.Sweep.Points {
		var levels []Level
		if p.Level != nil {
			levels = []Level{*p.Level}
		}
		f(i+1, levels, p.Ladder)
	}
}

// SearchOp is the operation whose kinds a sweep's QPS are read from.
const SearchOp = "search"

// KindLoad is one query kind's figures at a point's load: the searches of
// that kind per second (a ladder's: at its highest sustainable rung), and
// the recall under load against exact answers.
type KindLoad struct {
	QPS      float64
	P50, P99 float64
	Recall   KindRecall
	// HasRecall: the load's checks scored this kind.
	HasRecall bool
}

// Load is kind's figures at the point's load; ok is false when the load
// ran no search of the kind (or no rung of a ladder was sustainable).
func (p SweepPoint) Load(kind string) (KindLoad, bool) {
	var out KindLoad
	var known *KnownItems
	switch {
	case p.Level != nil:
		o, ok := p.Level.Op(SearchOp)
		if !ok {
			return out, false
		}
		i := slices.IndexFunc(o.Kinds, func(k KindStats) bool { return k.Kind == kind })
		if i < 0 || o.Kinds[i].Count == 0 {
			return out, false
		}
		k := o.Kinds[i]
		out.QPS, out.P50, out.P99 = k.RPS, k.Latency.P50, k.Latency.P99
		known = p.Level.KnownItems
	case p.Ladder != nil:
		r, ok := p.Ladder.sustainableRung()
		if !ok {
			return out, false
		}
		i := slices.IndexFunc(r.Kinds, func(k RungKind) bool { return k.Kind == kind })
		if i < 0 || r.Kinds[i].Measured == 0 {
			return out, false
		}
		k := r.Kinds[i]
		out.QPS, out.P50, out.P99 = k.RPS, k.P50, k.P99
		known = r.KnownItems
	default:
		return out, false
	}
	if known != nil {
		if i := slices.IndexFunc(known.Exact, func(r KindRecall) bool { return r.Kind == kind }); i >= 0 && known.Exact[i].Expected > 0 {
			out.Recall, out.HasRecall = known.Exact[i], true
		}
	}
	return out, true
}

// IdleRecall is kind's idle recall at the point; ok is false when the
// idle check did not score the kind.
func (p SweepPoint) IdleRecall(kind string) (KindRecall, bool) {
	i := slices.IndexFunc(p.Idle, func(r KindRecall) bool { return r.Kind == kind })
	if i < 0 || p.Idle[i].Expected == 0 {
		return KindRecall{}, false
	}
	return p.Idle[i], true
}

// sustainableRung is the ladder's highest rung that met its rule.
func (l *Ladder) sustainableRung() (Rung, bool) {
	for i := len(l.Rungs) - 1; i >= 0; i-- {
		if l.Rungs[i].Sustainable {
			return l.Rungs[i], true
		}
	}
	return Rung{}, false
}

// Kinds is every query kind the sweep's points measured, idle or under
// load, in the order first seen.
func (s *Sweep) Kinds() []string {
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, p := range s.Points {
		for _, r := range p.Idle {
			add(r.Kind)
		}
		if p.Level != nil {
			if o, ok := p.Level.Op(SearchOp); ok {
				for _, k := range o.Kinds {
					add(k.Kind)
				}
			}
		}
		if r, ok := p.ladderRung(); ok {
			for _, k := range r.Kinds {
				add(k.Kind)
			}
		}
	}
	return out
}

func (p SweepPoint) ladderRung() (Rung, bool) {
	if p.Ladder == nil {
		return Rung{}, false
	}
	return p.Ladder.sustainableRung()
}

// validateSweep checks what a sweep's points say together: each holds a
// level or a ladder, not both, and no value is given twice with the same
// writes (Merge matches the shards' points by them).
func validateSweep(s Sweep, at string) error {
	type key struct {
		v int
		w bool
	}
	seen := map[key]bool{}
	for i, p := range s.Points {
		if p.Level != nil && p.Ladder != nil {
			return fmt.Errorf("%s.points[%d]: both a level and a ladder", at, i)
		}
		k := key{p.Value, p.Writes}
		if seen[k] {
			return fmt.Errorf("%s.points[%d]: value %d (writes %v) is given twice", at, i, p.Value, p.Writes)
		}
		seen[k] = true
	}
	return nil
}

// shardSweep is one shard's sweep of one engine.
type shardSweep struct {
	p part
	s *Sweep
}

// mergeSweep merges the shards' sweeps of one engine point by point,
// matching points by knob value and writes: each point's idle recall sums
// add (the shards' checks together are a larger sample), its level or
// ladder merges as any other (mergeLevel, mergeLadder: histograms added,
// rates summed, the ladder re-judged). A point some shard lacks holds the
// others' figures, and says so.
func mergeSweep(ss []shardSweep, where string) (*Sweep, error) {
	out := &Sweep{Knob: ss[0].s.Knob}
	for _, s := range ss[1:] {
		if s.s.Knob != out.Knob {
			return nil, fmt.Errorf("merge: %s: sweep knob differs: %q in %s, %q in %s: not shards of one plan", where, out.Knob, ss[0].p.name(), s.s.Knob, s.p.name())
		}
	}
	for _, s := range ss {
		for _, p := range s.s.Points {
			if !slices.ContainsFunc(out.Points, func(q SweepPoint) bool { return q.Value == p.Value && q.Writes == p.Writes }) {
				out.Points = append(out.Points, SweepPoint{Value: p.Value, Writes: p.Writes})
			}
		}
	}
	for i := range out.Points {
		if err := mergePoint(ss, &out.Points[i], fmt.Sprintf("%s, sweep value %d", where, out.Points[i].Value)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergePoint fills pt (its Value and Writes set) from the shards' points.
func mergePoint(ss []shardSweep, pt *SweepPoint, where string) error {
	var levels []shardLevel
	var ladders []shardLadder
	var lacking []string
	for _, s := range ss {
		i := slices.IndexFunc(s.s.Points, func(q SweepPoint) bool { return q.Value == pt.Value && q.Writes == pt.Writes })
		if i < 0 {
			lacking = append(lacking, s.p.name())
			continue
		}
		q := s.s.Points[i]
		if len(ladders) > 0 {
			if field, va, vb, ok := sameLadder(ladders[0].l, q.Ladder); !ok {
				return fmt.Errorf("merge: %s: %s differs: %v in %s, %v in %s: not shards of one plan", where, field, va, ladders[0].p.name(), vb, s.p.name())
			}
		}
		pt.Idle = addRecall(pt.Idle, q.Idle)
		if q.Level != nil {
			levels = append(levels, shardLevel{s.p, *q.Level})
		}
		if q.Ladder != nil {
			ladders = append(ladders, shardLadder{s.p, q.Ladder})
		}
	}
	if len(levels) > 0 {
		l, err := mergeLevel(levels, where)
		if err != nil {
			return err
		}
		if len(lacking) > 0 {
			l.Partial = true
			l.Warnings = append(l.Warnings, Note(strings.Join(lacking, ", ")+": did not run this sweep point; the figures are the other shards' only"))
		}
		pt.Level = &l
	}
	if len(ladders) > 0 {
		l, err := mergeLadder(ladders, where)
		if err != nil {
			return err
		}
		pt.Ladder = l
	}
	return nil
}

package result

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/searchbench/searchbench/engines"
)

// Ladder is an open-loop rate ladder on one engine (Study B's method).
type Ladder struct {
	Arrival       string   `json:"arrival"` // constant or poisson
	Workers       int      `json:"workers"`
	Start         float64  `json:"start_rate"`
	Step          float64  `json:"step"`
	Stop          float64  `json:"stop_rate"`
	Duration      Duration `json:"rung_duration"`
	Repeat        int      `json:"repeat"`
	Factor        float64  `json:"p99_factor"`     // sustainable: p99 ≤ Factor × the first rung's p99 …
	MinAchieved   float64  `json:"min_achieved"`   // … and achieved ≥ MinAchieved × offered
	ExplodeFactor float64  `json:"explode_factor"` // the ladder stops once p99 > this × the first rung's
	Rule          string   `json:"rule"`           // the sustainable-rate rule, in words
	Reference     float64  `json:"reference_rate"` // p99 is reported at the rung nearest this rate
	Rungs         []Rung   `json:"rungs"`
	// Sustainable is the offered rate of the highest rung that meets the
	// rule, 0 when none does.
	Sustainable  float64  `json:"sustainable_rate"`
	StoppedEarly string   `json:"stopped_early,omitempty"`
	Warnings     Warnings `json:"warnings,omitempty" redact:"message"`
}

// Rung is one offered rate: its repetitions and their medians.
type Rung struct {
	Offered float64 `json:"offered_rate"`
	Reps    []Rep   `json:"reps"`
	// Medians across repetitions (ms; rates per second).
	Achieved   float64 `json:"achieved_rate"`
	P50        float64 `json:"p50"`
	P99        float64 `json:"p99"`
	ServiceP50 float64 `json:"service_p50"`
	ServiceP99 float64 `json:"service_p99"`
	// Spread of p99 and achieved rate across repetitions.
	P99Min      float64 `json:"p99_min"`
	P99Max      float64 `json:"p99_max"`
	P99CV       float64 `json:"p99_cv"`
	AchievedMin float64 `json:"achieved_min"`
	AchievedMax float64 `json:"achieved_max"`
	// QueueDepth is the engine's own queue depth where the driver reports
	// one (the median across repetitions of its mean while measuring);
	// -1 otherwise.
	QueueDepth float64 `json:"queue_depth"`
	// KnownItems sums the reps' known-item checks.
	KnownItems *KnownItems `json:"known_items,omitempty"`
	// Kinds is the reps' searches by kind of query (OpStats.Kinds), in the
	// order the reps first had them.
	Kinds       []RungKind `json:"kinds,omitempty"`
	Sustainable bool       `json:"meets_rule"`
	Warnings    Warnings   `json:"warnings,omitempty" redact:"message"`
}

// RungKind is one kind of query's searches at a rung: counts and errors
// summed over the reps, the rate the median across the reps that called
// it, p50 and p99 the medians (and extremes) across the Measured reps
// whose calls of it succeeded, as the rung's own figures are.
type RungKind struct {
	Kind     string           `json:"kind"`
	Count    int64            `json:"count"`
	Errors   map[string]int64 `json:"errors,omitempty"`
	RPS      float64          `json:"rps"`
	Measured int              `json:"measured_reps"`
	P50      float64          `json:"p50"`
	P99      float64          `json:"p99"`
	P50Min   float64          `json:"p50_min"`
	P50Max   float64          `json:"p50_max"`
	P99Min   float64          `json:"p99_min"`
	P99Max   float64          `json:"p99_max"`
}

// summarizeKinds is the reps' searches by kind.
func summarizeKinds(reps []Rep) []RungKind {
	var out []RungKind
	var rps, p50, p99 [][]float64
	for _, rep := range reps {
		for _, o := range rep.Ops {
			for _, k := range o.Kinds {
				i := slices.IndexFunc(out, func(r RungKind) bool { return r.Kind == k.Kind })
				if i < 0 {
					out = append(out, RungKind{Kind: k.Kind})
					rps, p50, p99 = append(rps, nil), append(p50, nil), append(p99, nil)
					i = len(out) - 1
				}
				r := &out[i]
				r.Count += k.Count
				addErrors(&r.Errors, k.Errors)
				rps[i] = append(rps[i], k.RPS)
				if k.Count > 0 {
					p50[i], p99[i] = append(p50[i], k.Latency.P50), append(p99[i], k.Latency.P99)
				}
			}
		}
	}
	for i := range out {
		r := &out[i]
		r.RPS, r.Measured = median(rps[i]), len(p50[i])
		if r.Measured > 0 {
			r.P50, r.P50Min, r.P50Max = median(p50[i]), slices.Min(p50[i]), slices.Max(p50[i])
			r.P99, r.P99Min, r.P99Max = median(p99[i]), slices.Min(p99[i]), slices.Max(p99[i])
		}
	}
	return out
}

// Rep is one open-loop run at one offered rate.
type Rep struct {
	Offered  float64  `json:"offered_rate"`
	Duration Duration `json:"duration"` // the schedule's length
	Sent     int64    `json:"sent"`     // calls started
	Unsent   int64    `json:"unsent"`   // due, but still in line when the drain limit passed: counted, never silently dropped
	Achieved float64  `json:"achieved_rate"`
	// Latency is measured from each call's intended send time (the
	// headline figure); Service from when it actually left.
	Latency Latency  `json:"latency_ms"`
	Service Latency  `json:"service_ms"`
	Ops     []OpenOp `json:"ops"`
	Errors  int64    `json:"errors"`
	// LateStarts counts calls that left more than 1 ms after their intended
	// time (they waited in line for a worker).
	LateStarts int64 `json:"late_starts"`
	// GeneratorLag is how late the scheduler itself handed calls over when
	// the line had room: the harness's own lateness, not the engine's.
	GeneratorLagP99 float64 `json:"generator_lag_p99_ms"`
	GeneratorLagMax float64 `json:"generator_lag_max_ms"`
	// ClientCPU is the process's CPU time over the rep, as a fraction of
	// the CPUs it may use.
	ClientCPU   float64          `json:"client_cpu"`
	EngineStats map[string]Gauge `json:"engine_stats,omitempty"`
	// KnownItems is the known-item checks among the rep's searches.
	KnownItems *KnownItems `json:"known_items,omitempty"`
	Partial    bool        `json:"partial,omitempty"`
	// Timeline is the rep cut into intervals (older results lack it).
	Timeline *Timeline `json:"timeline,omitempty"`
	Warnings Warnings  `json:"warnings,omitempty" redact:"message"`
}

// OpenOp is one operation within a rep: latency from the intended time (in
// OpStats) and service time beside it.
type OpenOp struct {
	OpStats
	Service          Latency `json:"service_ms"`
	ServiceHistogram string  `json:"service_histogram,omitempty"`
}

// Op returns the stats of the named operation. A rep, like a level, holds
// the operations its mix ran, so look them up by name, not by position.
func (r Rep) Op(name string) (OpenOp, bool) {
	for _, o := range r.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return OpenOp{}, false
}

// The ladder's checks, shared by the runner (which climbs a ladder) and
// Merge (which rebuilds the rungs of a sharded ladder from the shards'
// reps): one rule, so a merged ladder is judged exactly as one machine's.
const (
	// LoadedFirstRung: a first rung whose p99 is this many times its median
	// service time is already queueing, and grades the ladder against a
	// loaded baseline.
	LoadedFirstRung = 10
	// GeneratorLate: scheduler lag p99 beyond this means the harness, not
	// the engine, set the pace.
	GeneratorLate = time.Millisecond
	// ClientBoundCPU: a process using more than this share of its CPUs
	// may be measuring itself.
	ClientBoundCPU = 0.9
)

// Summarize computes the rung's medians and spread across its reps (which
// must not be empty) and the warnings its reps call for.
func (r *Rung) Summarize() {
	pick := func(f func(Rep) float64) []float64 {
		v := make([]float64, len(r.Reps))
		for i, rep := range r.Reps {
			v[i] = f(rep)
		}
		return v
	}
	p99 := pick(func(x Rep) float64 { return x.Latency.P99 })
	ach := pick(func(x Rep) float64 { return x.Achieved })
	r.P99, r.P99CV = median(p99), cv(p99)
	r.P99Min, r.P99Max = slices.Min(p99), slices.Max(p99)
	r.Achieved, r.AchievedMin, r.AchievedMax = median(ach), slices.Min(ach), slices.Max(ach)
	r.P50 = median(pick(func(x Rep) float64 { return x.Latency.P50 }))
	r.ServiceP50 = median(pick(func(x Rep) float64 { return x.Service.P50 }))
	r.ServiceP99 = median(pick(func(x Rep) float64 { return x.Service.P99 }))
	var depths []float64
	for _, rep := range r.Reps {
		if g, ok := rep.EngineStats[engines.StatQueueDepth]; ok {
			depths = append(depths, g.Mean)
		}
	}
	if len(depths) > 0 {
		r.QueueDepth = median(depths)
	}
	r.Kinds = summarizeKinds(r.Reps)
	// The reps' checks are summed, so the rung's recall has the power of
	// all of them; the warning is the rung's, not each rep's.
	r.KnownItems = nil
	for _, rep := range r.Reps {
		r.KnownItems = SumKnownItems(r.KnownItems, rep.KnownItems)
	}
	r.Warnings = append(r.Warnings, r.KnownItems.Warnings()...)
	for i, rep := range r.Reps {
		scope := "rep " + strconv.Itoa(i+1)
		if rep.GeneratorLagP99 > float64(GeneratorLate)/float64(time.Millisecond) {
			r.Warnings = append(r.Warnings, Notef("the generator was late (scheduler lag p99 %.2f ms): the harness, not the engine, may have set the pace", rep.GeneratorLagP99).In(scope))
		}
		if rep.ClientCPU > ClientBoundCPU {
			r.Warnings = append(r.Warnings, Warn(WarningClientBound, "the searchbench process used %.0f%% of its CPUs", 100*rep.ClientCPU).In(scope))
		}
		if rep.Unsent > 0 {
			r.Warnings = append(r.Warnings, Notef("%d due calls were still in line at the drain limit and were not sent", rep.Unsent).In(scope))
		}
		r.Warnings = append(r.Warnings, rep.Warnings.In(scope)...)
	}
}

// Judge marks the rungs that meet the rule, picks the sustainable rate and
// adds the ladder's warnings.
func (l *Ladder) Judge() {
	if len(l.Rungs) == 0 {
		l.Warnings = append(l.Warnings, Note("no rung ran"))
		return
	}
	first := l.Rungs[0]
	for i := range l.Rungs {
		r := &l.Rungs[i]
		// A rung cut short by an interrupt was not held at its rate.
		cut := slices.ContainsFunc(r.Reps, func(rep Rep) bool { return rep.Partial })
		r.Sustainable = !cut && r.P99 <= l.Factor*first.P99 && r.Achieved >= l.MinAchieved*r.Offered
		if r.Sustainable {
			l.Sustainable = r.Offered
		}
	}
	if first.ServiceP50 > 0 && first.P99 > LoadedFirstRung*first.ServiceP50 {
		l.Warnings = append(l.Warnings, Notef("the first rung (%.0f/s) already looks loaded: its p99 %.2f ms is over %d× its median service time %.3f ms; start lower", first.Offered, first.P99, LoadedFirstRung, first.ServiceP50))
	}
	if l.Sustainable == 0 {
		l.Warnings = append(l.Warnings, Note("no rung met the sustainable-rate rule"))
	} else if l.Sustainable == l.Rungs[len(l.Rungs)-1].Offered && l.StoppedEarly == "" {
		l.Warnings = append(l.Warnings, Note("the top rung still met the rule: the sustainable rate is at least this; raise --stop"))
	}
}

// median of a non-empty slice.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cv is the coefficient of variation (population standard deviation over
// the mean).
func cv(v []float64) float64 {
	var sum, sq float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	if mean == 0 {
		return 0
	}
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq/float64(len(v))) / mean
}

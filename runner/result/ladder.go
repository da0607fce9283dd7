package result

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
	Warnings     []string `json:"warnings,omitempty" redact:"message"`
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
	QueueDepth  float64  `json:"queue_depth"`
	Sustainable bool     `json:"meets_rule"`
	Warnings    []string `json:"warnings,omitempty" redact:"message"`
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
	Partial     bool             `json:"partial,omitempty"`
	Warnings    []string         `json:"warnings,omitempty" redact:"message"`
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

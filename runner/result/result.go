// Package result holds the result of a run as it is written to JSON: the
// contract between running and reporting. Reports read these types only and
// never re-run anything; every figure a table or chart shows is here.
package result

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/searchbench/searchbench/workload/ops"
)

// SchemaVersion changes when a field changes meaning.
const SchemaVersion = 1

// Result is one run: one or more engines, each at one or more user levels.
type Result struct {
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	// Partial is set when the run was interrupted or an engine failed before
	// every level ran; what was measured is still here.
	Partial  bool        `json:"partial"`
	Reason   string      `json:"reason,omitempty" redact:"message"`
	Config   Config      `json:"config"`
	Corpus   Corpus      `json:"corpus"`
	Host     Host        `json:"host"`
	Engines  []EngineRun `json:"engines"`
	Warnings Warnings    `json:"warnings,omitempty" redact:"message"`
	// Shard is set on the result of one shard of a run split over several
	// load generators (searchbench run --shard i/N): which share of the
	// load it sent and how its starts lined up with the coordinator's.
	Shard *Shard `json:"shard,omitempty"`
	// Shards is set on a merged result (searchbench merge, or the
	// coordinator): one entry per shard of the plan, in index order,
	// including those whose result is missing.
	Shards []ShardSummary `json:"shards,omitempty"`
	// GroundTruth is what the exact answers of the checks' sample queries
	// cost to compute, once per run, before any engine started.
	GroundTruth *GroundTruth `json:"ground_truth,omitempty"`
}

// GroundTruth is the brute-force computation of the exact answers the
// exact-answer checks score the engines against (KindRecall): the
// sample's size, the documents scanned, and its cost on this machine.
type GroundTruth struct {
	Queries   int `json:"queries"`   // sample queries with an exact answer
	Documents int `json:"documents"` // documents scanned: the pre-populated ones
	Dim       int `json:"dim"`
	// Depth is how many of each query's nearest are kept: more than K, so
	// that the answer is still known once some of them were written.
	Depth int `json:"depth"`
	// Seconds of wall time; Bytes allocated on the heap meanwhile (the
	// documents are generated one batch at a time, not held).
	Seconds float64 `json:"seconds"`
	Bytes   uint64  `json:"bytes_allocated"`
}

// Shard is one load generator's share of a sharded run.
type Shard struct {
	Index int `json:"index"` // 0 … Count-1
	Count int `json:"count"`
	// Coordinator is the address the shard synchronised its starts with;
	// empty when it ran unsynchronised (then merging warns).
	Coordinator string `json:"coordinator,omitempty"`
	// Prepared: this shard (shard 0) created, pre-populated and checked
	// each engine's index; the others skipped those steps and waited for
	// it at each engine's first start, so their engines' Preload and
	// Relevance are empty.
	Prepared bool `json:"prepared,omitempty"`
	// Starts has one entry per synchronised start (each level, each rung
	// repetition), in the order they happened.
	Starts []ShardStart `json:"starts,omitempty"`
}

// ShardStart is one synchronised start as one shard measured it. Offset
// is the shard's monotonic clock minus the coordinator's, estimated from a
// request/response exchange (no NTP assumed); RTT bounds its error (the
// estimate is within ±RTT/2). Late is how long after the agreed instant,
// on the shard's own clock, its load actually began.
type ShardStart struct {
	Phase  string   `json:"phase"` // e.g. "bleve users=50", "bleve rung 3 rep 1"
	Offset Duration `json:"offset"`
	RTT    Duration `json:"rtt"`
	Late   Duration `json:"late"`
}

// ShardSummary is one shard as a merged result lists it.
type ShardSummary struct {
	Index    int    `json:"index"`
	Hostname string `json:"hostname,omitempty"`
	// Missing: no result from this shard reached the merge (it died, or its
	// file was not given); the merged result is then Partial.
	Missing bool   `json:"missing,omitempty"`
	Partial bool   `json:"partial,omitempty"`
	Reason  string `json:"reason,omitempty" redact:"message"`
	// Starts are the shard's own (Shard.Starts).
	Starts []ShardStart `json:"starts,omitempty"`
	// Levels and Rungs give the shard's own throughput, in the order of the
	// merged result's engines and their levels or ladder rungs.
	Levels []ShardLevel `json:"levels,omitempty"`
}

// ShardLevel is one shard's throughput in one level or rung of one engine.
type ShardLevel struct {
	Engine string `json:"engine"` // the setup's label
	// Level is the index of the level (closed loop) or rung (ladder) in
	// the engine's Levels or Ladder.Rungs.
	Level    int     `json:"level"`
	Users    int     `json:"users,omitempty"`   // closed loop: the shard's own users
	Offered  float64 `json:"offered,omitempty"` // open loop: the shard's own offered rate (median over reps)
	TotalRPS float64 `json:"total_rps"`         // closed loop: the level's; ladder: the rung's achieved rate
	// ClientCPU is the shard's own (Level.ClientCPU; a ladder rung's
	// highest rep's): the merged level shows the highest shard's.
	ClientCPU float64 `json:"client_cpu,omitempty"`
	// Point (from 1) and Value are the sweep point the level or rung is
	// of, Level its index within the point's; Point 0: not in a sweep.
	Point int `json:"point,omitempty"`
	Value int `json:"value,omitempty"`
}

// Tool names the harness that measured.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// Host describes the load generator's machine.
type Host struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUModel   string `json:"cpu_model,omitempty"`
	Hostname   string `json:"hostname,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	MemoryMB   int64  `json:"memory_mb,omitempty"`
}

// Config is the run's configuration as given. Mix is the mix in its named
// form, percentages in table order ("search=80,upsert=19,delete=1";
// workload.Mix.String), and MixWeights its weights in table order (search,
// upsert, delete, get); older files wrote "80/19/1" and three weights, which
// ReadFile normalises.
type Config struct {
	// Scenario is the scenario file the run came from, if any.
	Scenario       string    `json:"scenario,omitempty"`
	Engines        []string  `json:"engines"`
	Users          []int     `json:"users"`
	Mix            string    `json:"mix"`
	MixWeights     []float64 `json:"mix_weights"`
	Seed           uint64    `json:"seed"`
	SpawnRate      float64   `json:"spawn_rate_per_s"`
	Settle         Duration  `json:"settle"`
	Measure        Duration  `json:"measure"`
	RequestTimeout Duration  `json:"request_timeout"`
	K              int       `json:"k"`
	WriteMode      string    `json:"write_mode,omitempty"`
	Histogram      string    `json:"histogram"` // what the encoded histograms hold
}

// Corpus identifies the exact bytes the run used.
type Corpus struct {
	Generator    string  `json:"generator"`
	Seed         uint64  `json:"seed"`
	IDs          int     `json:"ids"`
	Prepopulate  float64 `json:"prepopulate_fraction"`
	Prepopulated int     `json:"prepopulated"`
	Hash         string  `json:"hash"`
	// Queries is the product corpus's mix of query kinds (kind=weight,…);
	// empty for the text corpus's one kind.
	Queries string `json:"queries,omitempty"`
}

// EngineRun is one engine (or configuration: one column of the tables).
type EngineRun struct {
	Name       string `json:"name"`  // the driver
	Label      string `json:"label"` // the column heading
	Visibility string `json:"visibility"`
	// Options are the driver options the setup ran with.
	Options map[string]string `json:"options,omitempty"`
	Version string            `json:"version,omitempty"`
	// Where it ran: an embedded engine, an attached URL, or a container.
	Mode        string  `json:"mode"` // embedded, attached, container
	Image       string  `json:"image,omitempty"`
	ImageDigest string  `json:"image_digest,omitempty"`
	CPULimit    float64 `json:"cpu_limit,omitempty"`
	CPUSet      string  `json:"cpuset,omitempty"`
	// ContainerEnv is the container's environment (no secrets): the
	// settings it ran with, thread counts sized to the CPU limit among them.
	ContainerEnv  map[string]string `json:"container_env,omitempty"`
	DockerVersion string            `json:"docker_version,omitempty"`
	Preload       Preload           `json:"preload"`
	// Relevance is the known-item check made after pre-population.
	Relevance *Relevance `json:"relevance,omitempty"`
	Levels    []Level    `json:"levels,omitempty"`
	Ladder    *Ladder    `json:"ladder,omitempty"`
	// Sweep is set instead of Levels and Ladder when the setup was
	// measured at each value of its search-time knob.
	Sweep    *Sweep   `json:"sweep,omitempty"`
	Error    string   `json:"error,omitempty" redact:"message"` // why the engine stopped early
	Warnings Warnings `json:"warnings,omitempty" redact:"message"`
}

// Preload is the pre-population phase.
type Preload struct {
	Documents int      `json:"documents"`
	Bulk      bool     `json:"bulk"`
	Duration  Duration `json:"duration"`
	DocsPerS  float64  `json:"docs_per_s"`
	Errors    int64    `json:"errors"`
	// Count is the engine's own document count afterwards, -1 when the
	// driver cannot say; CountOK says whether it equals Documents.
	Count   int64 `json:"count"`
	CountOK bool  `json:"count_ok"`
}

// Level is one user level of one engine: the measured window only.
type Level struct {
	Users    int       `json:"users"`
	Window   Duration  `json:"window"` // the measure phase as it ran
	Partial  bool      `json:"partial,omitempty"`
	Ops      []OpStats `json:"ops"`
	TotalRPS float64   `json:"total_rps"`
	// ClientCPU is the searchbench process's CPU time over the window, as
	// a fraction of the CPUs it may use (for an embedded engine it includes
	// the engine).
	ClientCPU float64 `json:"client_cpu"`
	// Freshness is the freshness probe's figures for the level, when it ran.
	Freshness *Freshness `json:"freshness,omitempty"`
	// KnownItems is the known-item checks among the level's searches.
	KnownItems *KnownItems `json:"known_items,omitempty"`
	// SchedLatencyP99 is the 99th percentile of the Go scheduler's latency
	// (runnable → running) in the searchbench process over the window, in
	// ms: when it is high the harness itself was late to send and time.
	SchedLatencyP99 float64 `json:"sched_latency_p99_ms"`
	// EngineStats is the engine's own figures, sampled while measuring,
	// where the driver reports them (queue depths, ingest counters).
	EngineStats map[string]Gauge `json:"engine_stats,omitempty"`
	// Active is how many users were running while the window was open
	// (older results lack it).
	Active *ActiveUsers `json:"active_users,omitempty"`
	// ShardWindows is set on a level merged from shards: each shard's own
	// window, in index order. Each shard's rates are its calls over its own
	// window; Window is the shortest of them.
	ShardWindows []ShardWindow `json:"shard_windows,omitempty"`
	// Timeline is the window cut into intervals (older results lack it).
	Timeline *Timeline `json:"timeline,omitempty"`
	Warnings Warnings  `json:"warnings,omitempty" redact:"message"`
}

// ActiveUsers is the users of a level that were running (started and not
// yet stopped) over its window. The window opens only once every user is
// running, so both figures fall short of Users only when users stopped
// early.
type ActiveUsers struct {
	Mean float64 `json:"mean"` // time-weighted over the window
	Min  int     `json:"min"`
	// Ramp is how long after the level began its last user was running;
	// the planned ramp is (users − 1) / spawn rate, and when the load
	// generator could not keep that pace the settle and the window began
	// later (the level then warns).
	Ramp Duration `json:"ramp"`
}

// ShardWindow is one shard's window of a merged level.
type ShardWindow struct {
	Shard   int      `json:"shard"`
	Window  Duration `json:"window"`
	Partial bool     `json:"partial,omitempty"`
}

// Relevance is recall@K of known-item searches: queries built from one
// pre-populated document, which must come back within the top K.
type Relevance struct {
	K       int     `json:"k"`
	Queries int     `json:"queries"` // answered (errors and unsupported kinds excluded)
	Found   int     `json:"found"`
	Recall  float64 `json:"recall"`
	// ByKind splits the figures by kind of check (name words; SKU lookup,
	// KNN with the document's own embedding).
	ByKind    map[string]*RelevanceKind `json:"by_kind"`
	Misses    []string                  `json:"misses,omitempty" redact:"message"` // the first few missed checks
	LastError string                    `json:"last_error,omitempty" redact:"message"`
	// Exact is recall@K against exact answers per query kind, on the idle
	// engine (KindRecall); the same sample is checked under load.
	Exact []KindRecall `json:"exact,omitempty"`
}

// RelevanceKind is one kind of known-item check.
type RelevanceKind struct {
	Queries     int     `json:"queries"`
	Found       int     `json:"found"`
	Recall      float64 `json:"recall"`
	Errors      int     `json:"errors,omitempty"`
	Unsupported int     `json:"unsupported,omitempty"` // the engine's configuration cannot run this kind
}

// Freshness is how long acknowledged writes took to become searchable: for
// a sample of the level's own upserts, from the write's return until a
// search first returned the new version.
type Freshness struct {
	// Probes is the writes probed: Visible + Superseded + Unresolved +
	// SearchFailed. A sampled write that failed is not probed: it counts in
	// WriteFailed only (results before this rule counted it here too).
	Probes  int64 `json:"probes"`
	Visible int64 `json:"visible"` // … seen by a search (their lags are in Lag)
	// Superseded: the ID was written or deleted again before the probe
	// saw it; Unresolved: the window closed first; WriteFailed: the write
	// sampled for a probe failed; SearchFailed: a probe's search failed.
	Superseded   int64    `json:"superseded"`
	Unresolved   int64    `json:"unresolved"`
	WriteFailed  int64    `json:"write_failed"`
	SearchFailed int64    `json:"search_failed"`
	LastError    string   `json:"last_error,omitempty" redact:"message"`
	Searches     int64    `json:"searches"` // the probe's own searches: load it added
	Poll         Duration `json:"poll"`     // resolution: this or 10% of the lag, whichever is larger
	Lag          Latency  `json:"lag_ms"`
	Histogram    string   `json:"histogram,omitempty"` // of Lag, as OpStats.Histogram
}

// Gauge is one engine-side figure sampled while measuring: once when the
// window opens, about once a second, and once when it closes.
type Gauge struct {
	Samples int     `json:"samples"`
	Mean    float64 `json:"mean"`
	Max     float64 `json:"max"`
	Last    float64 `json:"last"`
	// PerSecond is (last − first) over the time between the two samples:
	// the rate of a counter (for a gauge it only says whether it grew).
	PerSecond float64 `json:"per_second"`
}

// ClientBound says whether the level carries its own client-bound warning
// (WarningClientBound: the runner writes it, the reports mark the window
// by it).
func (l Level) ClientBound() bool { return l.Warnings.Has(WarningClientBound) }

// Op returns the stats of the named operation. A level holds the
// operations its mix ran (older files: always search, upsert and delete).
func (l Level) Op(name string) (OpStats, bool) {
	for _, o := range l.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return OpStats{}, false
}

// OpStats is one operation within a level. Latency figures are of calls that
// succeeded (where NotFoundDone, a call of a missing ID counts as a success —
// a delete, as in the published method, or a get — and is also counted in
// NotFound); failures are counted by class and kept out of the latency
// histogram.
type OpStats struct {
	Op       string           `json:"op"`
	Count    int64            `json:"count"` // successful calls started in the window
	RPS      float64          `json:"rps"`   // Count / window
	NotFound int64            `json:"not_found"`
	Errors   map[string]int64 `json:"errors,omitempty"` // by class
	// ErrorExamples holds, by class, up to three distinct messages of the
	// failed calls (whichever the workers met first): what "errors 523"
	// was.
	ErrorExamples map[string][]string `json:"error_examples,omitempty" redact:"message"`
	Latency       Latency             `json:"latency_ms"`
	// Histogram is the HDR histogram of successful latencies in
	// microseconds, in the HdrHistogram compressed format, base64: any
	// percentile can be recomputed and runs can be merged from it.
	Histogram string `json:"histogram,omitempty"`
	// Writes: the operation changes the index (upsert, delete); reports
	// treat writes apart.
	Writes bool `json:"writes,omitempty"`
	// NotFoundDone: a call that found no document counts in Count (and in
	// NotFound), not among the errors.
	NotFoundDone bool `json:"not_found_done,omitempty"`
	// Kinds splits a search's figures by kind of query (the product
	// corpus's kinds, as dataset's table of kinds names them), for the
	// kinds that were called; empty for a source of one kind. Known-item checks
	// (KnownItems) are searches of the operation but of no kind: the kinds'
	// counts add up to Count less those.
	Kinds []KindStats `json:"kinds,omitempty"`
}

// KindStats is one kind of query's share of the search operation's calls.
type KindStats struct {
	Kind    string           `json:"kind"`
	Count   int64            `json:"count"` // successful calls
	RPS     float64          `json:"rps"`
	Errors  map[string]int64 `json:"errors,omitempty"` // by class
	Latency Latency          `json:"latency_ms"`
	// Histogram, as OpStats.Histogram: per-kind percentiles of a merged
	// run are recomputed from it.
	Histogram string `json:"histogram,omitempty"`
}

// ErrorCount is the number of failed calls.
func (o OpStats) ErrorCount() int64 {
	var n int64
	for _, v := range o.Errors {
		n += v
	}
	return n
}

// FailedCalls is how many calls of the run failed: every engine's levels'
// operations and ladder reps.
func (r *Result) FailedCalls() int64 {
	var n int64
	for _, e := range r.Engines {
		e.Loads(func(_ int, levels []Level, ladder *Ladder) {
			for _, l := range levels {
				for _, o := range l.Ops {
					n += o.ErrorCount()
				}
			}
			if ladder == nil {
				return
			}
			for _, rung := range ladder.Rungs {
				for _, rep := range rung.Reps {
					n += rep.Errors
				}
			}
		})
	}
	return n
}

// Latency is a summary in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// Summarize computes a latency summary from a histogram in microseconds.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		Min: ms(h.Min()), Mean: h.Mean() / 1000,
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P95: ms(h.ValueAtQuantile(95)), P99: ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
	}
}

// EncodeHistogram is the inverse of DecodeHistogram.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeHistogram reads an OpStats.Histogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Duration marshals as a Go duration string ("25s") and unmarshals from one.
type Duration time.Duration

// String is the duration as Go writes it (2s, 1m30s), so that a Duration
// printed in a table or a message never reads as raw nanoseconds.
func (d Duration) String() string { return time.Duration(d).String() }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// Seconds is the duration in seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

// WriteFile writes r as indented JSON to path atomically: to a temporary
// file in the same directory, synced, then renamed, so a crash never leaves a
// truncated result behind.
func WriteFile(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return WriteAtomic(path, append(b, '\n'))
}

// WriteAtomic writes data to path by temporary file and rename. The file
// is made 0666 less the umask, as any tool's output is: results and reports
// are meant to be shared (their secrets are scrubbed before they get here),
// and os.CreateTemp's 0600 would keep them from everyone else.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadFile reads a result written by WriteFile.
func ReadFile(path string) (*Result, error) {
	b, err := ReadBounded(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read result: %w", DecodeError(path, b, err))
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("read result %s: schema version %d, this searchbench reads %d", path, r.SchemaVersion, SchemaVersion)
	}
	r.Normalize()
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("read result %s: %w", path, err)
	}
	return &r, nil
}

// Normalize brings a result an older searchbench wrote to the current
// form, so that reports and comparisons need no case for it: the mix in
// its named form ("80/19/1" becomes "search=80,upsert=19,delete=1", so two
// runs of one mix compare as one) with a weight per operation, and each
// known operation's facts (OpStats.Writes, NotFoundDone), which older files
// lack, from the operation table. A mix it cannot parse, and operations it
// does not know (a newer searchbench's), are left as they are.
func (r *Result) Normalize() {
	// Only an older file's mix is rewritten: a current one's weights are as
	// given (1,1,1 stays 1,1,1), and its named form is already canonical.
	if len(r.Config.MixWeights) < ops.N || !strings.Contains(r.Config.Mix, "=") {
		if m, err := ops.ParseMix(r.Config.Mix); err == nil {
			r.Config.Mix, r.Config.MixWeights = m.String(), m[:]
		}
	}
	facts := func(o *OpStats) {
		if i := ops.Index(o.Op); i >= 0 {
			o.Writes, o.NotFoundDone = ops.Table[i].Writes, ops.Table[i].NotFoundDone
		}
	}
	for _, e := range r.Engines {
		// The levels' copies share their operations with the result.
		e.Loads(func(_ int, levels []Level, ladder *Ladder) {
			for j := range levels {
				for k := range levels[j].Ops {
					facts(&levels[j].Ops[k])
				}
			}
			if ladder == nil {
				return
			}
			for j := range ladder.Rungs {
				for k := range ladder.Rungs[j].Reps {
					for o := range ladder.Rungs[j].Reps[k].Ops {
						facts(&ladder.Rungs[j].Reps[k].Ops[o].OpStats)
					}
				}
			}
		})
	}
}

package result

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The runner's histogram geometry: microseconds, 1 µs to 5 minutes, 3
// significant digits.
func newTestHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 300_000_000, 3) }

// samples draws n latencies in µs around median (log-normal-ish).
func samples(n int, medianUS float64, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		out[i] = max(int64(medianUS*math.Exp(0.5*rng.NormFloat64())), 1)
	}
	return out
}

func record(t *testing.T, h *hdrhistogram.Histogram, vs []int64) *hdrhistogram.Histogram {
	t.Helper()
	for _, v := range vs {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// opOf is an operation as the runner writes it: counts, the summary and
// the encoded histogram of the given samples over window.
func opOf(t *testing.T, name string, h *hdrhistogram.Histogram, window time.Duration) OpStats {
	t.Helper()
	o := OpStats{Op: name, Count: h.TotalCount(), RPS: float64(h.TotalCount()) / window.Seconds(), Latency: Summarize(h)}
	if o.Count > 0 {
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		o.Histogram = enc
	}
	return o
}

// shardOf is shard idx of count of one closed-loop plan (users 30 at one
// level), one engine, with the given operations at its level.
func shardOf(idx, count, users int, ops ...OpStats) *Result {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	l := Level{Users: users, Window: Duration(10 * time.Second), Ops: ops, ClientCPU: 0.1 * float64(idx+1), SchedLatencyP99: float64(idx)}
	for _, o := range ops {
		l.TotalRPS += o.RPS
	}
	return &Result{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "searchbench", Version: "v1", GoVersion: "go1.26"},
		StartedAt:     start.Add(time.Duration(idx) * time.Millisecond), FinishedAt: start.Add(time.Minute + time.Duration(idx)*time.Second),
		Config: Config{Engines: []string{"bleve"}, Users: []int{30}, Mix: "search=80,upsert=19,delete=1", MixWeights: []float64{80, 19, 1, 0},
			Seed: 1, SpawnRate: 100, Settle: Duration(time.Second), Measure: Duration(10 * time.Second), RequestTimeout: Duration(30 * time.Second),
			K: 10, Histogram: "µs"},
		Corpus:  Corpus{Generator: "text-v1", Seed: 1, IDs: 1000, Prepopulate: 0.95, Prepopulated: 950, Hash: "sha256:abc"},
		Host:    Host{OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2, Hostname: "gen-" + string(rune('a'+idx))},
		Engines: []EngineRun{{Name: "bleve", Label: "bleve", Mode: "attached", Levels: []Level{l}}},
		Shard: &Shard{Index: idx, Count: count, Coordinator: "coord:7000",
			Starts: []ShardStart{{Phase: "bleve users=30", Offset: Duration(time.Duration(idx) * time.Millisecond), RTT: Duration(200 * time.Microsecond), Late: Duration(50 * time.Microsecond)}}},
	}
}

// The merged histogram is the histogram of the union of the shards'
// samples: every bucket, every percentile, the count, min, max and mean.
func TestMergedHistogramIsTheUnionOfTheShardsSamples(t *testing.T) {
	const window = 10 * time.Second
	union := newTestHist()
	var shards []*Result
	for i, med := range []float64{800, 1500, 40_000} {
		vs := samples(5000*(i+1), med, uint64(i+1))
		record(t, union, vs)
		shards = append(shards, shardOf(i, 3, 10, opOf(t, "search", record(t, newTestHist(), vs), window)))
	}
	m, err := Merge(shards[2], shards[0], shards[1]) // any order
	if err != nil {
		t.Fatal(err)
	}
	o, ok := m.Engines[0].Levels[0].Op("search")
	if !ok {
		t.Fatal("no search in the merged level")
	}
	got, err := DecodeHistogram(o.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(union) {
		t.Fatal("the merged histogram differs from the union's")
	}
	if g, w := got.Distribution(), union.Distribution(); !slices.Equal(g, w) {
		t.Fatalf("buckets differ: %d vs %d bars", len(g), len(w))
	}
	for q := 0.0; q <= 100; q += 0.1 {
		if g, w := got.ValueAtQuantile(q), union.ValueAtQuantile(q); g != w {
			t.Fatalf("p%.1f: merged %d µs, union %d µs", q, g, w)
		}
	}
	if o.Count != union.TotalCount() || o.Count != 30000 {
		t.Errorf("count %d; union %d", o.Count, union.TotalCount())
	}
	if o.Latency != Summarize(union) {
		t.Errorf("latency %+v; union's %+v", o.Latency, Summarize(union))
	}
	if want := float64(30000) / window.Seconds(); math.Abs(o.RPS-want) > 1e-9 {
		t.Errorf("rps %v; want %v (Σ count_i / window_i)", o.RPS, want)
	}
	l := m.Engines[0].Levels[0]
	if l.Users != 30 || l.TotalRPS != o.RPS {
		t.Errorf("level users %d total rps %v; want 30 users and %v", l.Users, l.TotalRPS, o.RPS)
	}
	if math.Abs(l.ClientCPU-0.3) > 1e-12 || l.SchedLatencyP99 != 2 {
		t.Errorf("client cpu %v, sched p99 %v; want the worst shard's (0.3, 2)", l.ClientCPU, l.SchedLatencyP99)
	}
	if m.Shard != nil || len(m.Shards) != 3 || m.Partial {
		t.Fatalf("shard %v, %d shards, partial %v", m.Shard, len(m.Shards), m.Partial)
	}
	for i, s := range m.Shards {
		if s.Index != i || s.Missing || s.Hostname != shards[i].Host.Hostname || len(s.Starts) != 1 ||
			len(s.Levels) != 1 || s.Levels[0].Users != 10 || s.Levels[0].TotalRPS != shards[i].Engines[0].Levels[0].TotalRPS {
			t.Errorf("shard summary %d: %+v", i, s)
		}
	}
	if !m.StartedAt.Equal(shards[0].StartedAt) || !m.FinishedAt.Equal(shards[2].FinishedAt) {
		t.Errorf("span %v – %v; want the earliest start and the latest finish", m.StartedAt, m.FinishedAt)
	}
}

// One slow shard: the mean of the shards' p99s is far from the p99 of all
// the calls; the merge gives the latter.
func TestMergedP99IsNotTheMeanOfTheShardsP99s(t *testing.T) {
	union := newTestHist()
	var shards []*Result
	var p99s []float64
	for i, med := range []float64{1000, 1000, 1000, 60_000} {
		n := 20_000
		if i == 3 {
			n = 600 // a slow shard that made few calls
		}
		vs := samples(n, med, uint64(10+i))
		record(t, union, vs)
		h := record(t, newTestHist(), vs)
		p99s = append(p99s, Summarize(h).P99)
		shards = append(shards, shardOf(i, 4, 5, opOf(t, "search", h, 10*time.Second)))
	}
	m, err := Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Engines[0].Levels[0].Ops[0].Latency.P99
	want := Summarize(union).P99
	var mean float64
	for _, p := range p99s {
		mean += p / float64(len(p99s))
	}
	if got != want {
		t.Fatalf("merged p99 %.3f ms; the union's is %.3f ms", got, want)
	}
	if math.Abs(mean-want) < 0.5*want {
		t.Fatalf("the test is not telling: mean of p99s %.3f ms vs the union's %.3f ms", mean, want)
	}
	t.Logf("p99: union %.3f ms (merged), mean of the shards' %.3f ms", want, mean)
}

// Counts, errors by class and their examples add up; warnings say which
// shard; a shard without a coordinator is named.
func TestMergeSumsCountsErrorsAndExamples(t *testing.T) {
	a := opOf(t, "upsert", record(t, newTestHist(), samples(100, 2000, 1)), 10*time.Second)
	a.Errors = map[string]int64{"timeout": 2, "other": 1}
	a.ErrorExamples = map[string][]string{"timeout": {"t1", "t2"}, "other": {"o1"}}
	a.NotFound = 3
	b := opOf(t, "upsert", record(t, newTestHist(), samples(50, 2000, 2)), 10*time.Second)
	b.Errors = map[string]int64{"timeout": 5}
	b.ErrorExamples = map[string][]string{"timeout": {"t2", "t3", "t4"}}
	empty := OpStats{Op: "delete"} // no calls, no histogram: fine
	s0, s1 := shardOf(0, 2, 15, a, empty), shardOf(1, 2, 15, b)
	s1.Shard.Coordinator = ""
	s1.Engines[0].Levels[0].Warnings = Notes("client-bound")
	// Freshness: counts add, lags merge as histograms.
	lagUnion := newTestHist()
	for i, s := range []*Result{s0, s1} {
		vs := samples(20+10*i, 50_000*float64(i+1), uint64(7+i))
		record(t, lagUnion, vs)
		h := record(t, newTestHist(), vs)
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		s.Engines[0].Levels[0].Freshness = &Freshness{Probes: int64(len(vs)) + 2, Visible: int64(len(vs)), Superseded: 2, Searches: 100,
			Poll: Duration(time.Millisecond), Lag: Summarize(h), Histogram: enc}
		s.Engines[0].Levels[0].EngineStats = map[string]Gauge{"queue_depth": {Samples: 10 * (i + 1), Mean: float64(i + 1), Max: float64(5 * (i + 1)), Last: 1, PerSecond: float64(i)}}
	}
	m, err := Merge(s0, s1)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := m.Engines[0].Levels[0].Op("upsert")
	if o.Count != 150 || o.NotFound != 3 || o.Errors["timeout"] != 7 || o.Errors["other"] != 1 {
		t.Errorf("upsert %+v", o)
	}
	if ex := o.ErrorExamples["timeout"]; !slices.Equal(ex, []string{"t1", "t2", "t3"}) {
		t.Errorf("timeout examples %q; want the first three distinct", ex)
	}
	if _, ok := m.Engines[0].Levels[0].Op("delete"); !ok {
		t.Error("an operation with no calls was lost")
	}
	f := m.Engines[0].Levels[0].Freshness
	if f == nil || f.Probes != 54 || f.Visible != 50 || f.Superseded != 4 || f.Searches != 200 || f.Lag != Summarize(lagUnion) {
		t.Errorf("freshness %+v; want the sums and the union's lag %+v", f, Summarize(lagUnion))
	}
	// Sample-weighted mean (10×1 + 20×2)/30, the higher max.
	if g := m.Engines[0].Levels[0].EngineStats["queue_depth"]; g.Samples != 30 || math.Abs(g.Mean-50.0/30) > 1e-12 || g.Max != 10 || g.PerSecond != 0.5 {
		t.Errorf("queue depth gauge %+v", g)
	}
	if w := m.Engines[0].Levels[0].Warnings; !slices.Contains(w.Texts(), "shard 1: client-bound") {
		t.Errorf("level warnings %q", w)
	}
	if !strings.Contains(strings.Join(m.Warnings.Texts(), "\n"), "shard 1: ran without a coordinator") {
		t.Errorf("warnings %q; want the unsynchronised shard named", m.Warnings)
	}
}

func TestMergeRefusesBadInput(t *testing.T) {
	op := func() OpStats {
		return opOf(t, "search", record(t, newTestHist(), samples(10, 1000, 3)), 10*time.Second)
	}
	pair := func() (*Result, *Result) { return shardOf(0, 2, 15, op()), shardOf(1, 2, 15, op()) }
	cases := []struct {
		field  string
		mutate func(b *Result)
	}{
		{"shard.count", func(b *Result) { b.Shard.Count = 3 }},
		{"config.engines", func(b *Result) { b.Config.Engines = []string{"postgres"} }},
		{"config.users", func(b *Result) { b.Config.Users = []int{40} }},
		{"config.mix", func(b *Result) { b.Config.Mix = "search=100" }},
		{"config.seed", func(b *Result) { b.Config.Seed = 2 }},
		{"config.k", func(b *Result) { b.Config.K = 20 }},
		{"config.settle", func(b *Result) { b.Config.Settle = Duration(2 * time.Second) }},
		{"config.measure", func(b *Result) { b.Config.Measure = Duration(time.Minute) }},
		{"config.write_mode", func(b *Result) { b.Config.WriteMode = "searchable" }},
		{"corpus.generator", func(b *Result) { b.Corpus.Generator = "product-v1" }},
		{"corpus.seed", func(b *Result) { b.Corpus.Seed = 9 }},
		{"corpus.ids", func(b *Result) { b.Corpus.IDs = 2000 }},
		{"corpus.queries", func(b *Result) { b.Corpus.Queries = "knn=1" }},
		{"corpus.hash", func(b *Result) { b.Corpus.Hash = "sha256:def" }},
		{"engines[0].name", func(b *Result) { b.Engines[0].Name = "other" }},
		{"engines[0].label", func(b *Result) { b.Engines[0].Label = "bleve-2" }},
		{"engines[0].options", func(b *Result) { b.Engines[0].Options = map[string]string{"shards": "2"} }},
		{"shard 0 is given twice", func(b *Result) { b.Shard.Index = 0 }},
		{"outside 0…1", func(b *Result) { b.Shard.Index = 2 }},
		{"not a shard's result", func(b *Result) { b.Shard = nil }},
	}
	for _, c := range cases {
		a, b := pair()
		c.mutate(b)
		_, err := Merge(a, b)
		if err == nil || !strings.Contains(err.Error(), c.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v; want one line naming it", c.field, err)
			continue
		}
		if c.field[0] != 's' && !strings.Contains(err.Error(), "shard 1") && !strings.Contains(err.Error(), "result 2") {
			t.Errorf("%s: %v does not say which shard", c.field, err)
		}
	}
	// The ladder's parameters, and the rung rates, must be one plan's too.
	for _, field := range []string{"step", "rung_duration", "repeat", "p99_factor", "arrival", "rung 1 offered_rate"} {
		a, b := ladderShard(t, 0, 2, nil), ladderShard(t, 1, 2, nil)
		l := b.Engines[0].Ladder
		switch field {
		case "step":
			l.Step = 1.5
		case "rung_duration":
			l.Duration = Duration(time.Second)
		case "repeat":
			l.Repeat = 5
		case "p99_factor":
			l.Factor = 10
		case "arrival":
			l.Arrival = "poisson"
		case "rung 1 offered_rate":
			l.Rungs[1].Offered = 5
		}
		if _, err := Merge(a, b); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("ladder %s: error %v; want it named", field, err)
		}
	}
	if _, err := Merge(); err == nil {
		t.Error("no results: no error")
	}
}

// A missing shard: the others are merged, the result is partial and names
// it.
func TestMergeWithAMissingShardIsPartial(t *testing.T) {
	op := func(seed uint64) OpStats {
		return opOf(t, "search", record(t, newTestHist(), samples(100, 1000, seed)), 10*time.Second)
	}
	m, err := Merge(shardOf(0, 3, 10, op(1)), shardOf(2, 3, 10, op(2)))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Partial || !strings.Contains(m.Reason, "missing shard(s) 1 of 3") {
		t.Errorf("partial %v reason %q; want shard 1 named missing", m.Partial, m.Reason)
	}
	if len(m.Shards) != 3 || !m.Shards[1].Missing || m.Shards[0].Missing || m.Shards[2].Missing {
		t.Errorf("shards %+v", m.Shards)
	}
	if l := m.Engines[0].Levels[0]; l.Users != 20 || l.Ops[0].Count != 200 {
		t.Errorf("level: %d users, %d calls; want the two present shards' 20 and 200", l.Users, l.Ops[0].Count)
	}
}

// Histograms of a wider range than the first one's would lose their
// largest values in the merge: that is an error, not a quiet undercount.
func TestMergeFailsWhenValuesWouldBeDropped(t *testing.T) {
	narrow := record(t, newTestHist(), samples(100, 1000, 1))
	wide := record(t, hdrhistogram.New(1, 3_600_000_000, 2), append(samples(100, 1000, 2), 1_000_000_000, 2_000_000_000))
	_, err := Merge(shardOf(0, 2, 15, opOf(t, "search", narrow, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", wide, 10*time.Second)))
	if err == nil || !strings.Contains(err.Error(), "2 values dropped") || !strings.Contains(err.Error(), "shard 1") {
		t.Fatalf("error %v; want the 2 dropped values and the shard named", err)
	}
	// The other way round the narrow one fits into the wide one: no drop.
	if _, err := Merge(shardOf(0, 2, 15, opOf(t, "search", wide, 10*time.Second)), shardOf(1, 2, 15, opOf(t, "search", narrow, 10*time.Second))); err != nil {
		t.Fatalf("a narrow histogram into a wide one: %v", err)
	}
	// Calls counted without a histogram cannot be merged either.
	bare := opOf(t, "search", narrow, 10*time.Second)
	bare.Histogram = ""
	if _, err := Merge(shardOf(0, 2, 15, bare), shardOf(1, 2, 15, opOf(t, "search", narrow, 10*time.Second))); err == nil || !strings.Contains(err.Error(), "no histogram") {
		t.Fatalf("error %v; want the missing histogram named", err)
	}
}

// ladderShard is shard idx of count of a 3-rung ladder (1000, 2000, 4000/s,
// 2 reps). Each shard offers and achieves its share of each rung; slow
// (rung index → median µs) makes a rung's calls slower on this shard.
func ladderShard(t *testing.T, idx, count int, slow map[int]float64) *Result {
	t.Helper()
	r := shardOf(idx, count, 0)
	r.Config.Users, r.Config.Settle, r.Config.Measure = nil, 0, 0
	l := &Ladder{Arrival: "constant", Workers: 64, Start: 1000, Step: 2, Stop: 4000, Duration: Duration(5 * time.Second),
		Repeat: 2, Factor: 5, MinAchieved: 0.99, ExplodeFactor: 50, Reference: 1000}
	for j, rate := range []float64{1000, 2000, 4000} {
		rung := Rung{Offered: rate, QueueDepth: -1}
		for k := range 2 {
			med := 1000.0
			if s, ok := slow[j]; ok {
				med = s
			}
			share := rate / float64(count)
			lat := record(t, newTestHist(), samples(int(share*5), med, uint64(100*idx+10*j+k)))
			svc := record(t, newTestHist(), samples(int(share*5), med/2, uint64(100*idx+10*j+k+5)))
			o := OpenOp{OpStats: opOf(t, "search", lat, 5*time.Second), Service: Summarize(svc)}
			enc, err := EncodeHistogram(svc)
			if err != nil {
				t.Fatal(err)
			}
			o.ServiceHistogram = enc
			rung.Reps = append(rung.Reps, Rep{Offered: share, Duration: Duration(5 * time.Second), Sent: int64(share * 5),
				Achieved: share * (1 - 0.001*float64(k)), Latency: Summarize(lat), Service: Summarize(svc), Ops: []OpenOp{o},
				LateStarts: 1, GeneratorLagP99: 0.1 * float64(idx+1)})
		}
		rung.Summarize()
		l.Rungs = append(l.Rungs, rung)
	}
	l.Judge()
	r.Engines[0].Levels, r.Engines[0].Ladder = nil, l
	return r
}

// A ladder's reps are merged, then the rungs and the sustainable rate are
// recomputed by the runner's rule: each shard alone achieves only its
// share and meets no rung; together they meet the first two, and the third
// fails because one shard was slow there.
func TestMergeLadderRecomputesTheSustainableRate(t *testing.T) {
	s0 := ladderShard(t, 0, 2, nil)
	s1 := ladderShard(t, 1, 2, map[int]float64{2: 20_000})
	if s0.Engines[0].Ladder.Sustainable != 0 {
		t.Fatalf("a shard alone met a rung (%v): the test shows nothing", s0.Engines[0].Ladder.Sustainable)
	}
	m, err := Merge(s0, s1)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Engines[0].Ladder
	if l == nil || len(l.Rungs) != 3 {
		t.Fatalf("ladder %+v", l)
	}
	if l.Sustainable != 2000 {
		t.Errorf("sustainable %v; want 2000 (the slow third rung fails the p99 rule)", l.Sustainable)
	}
	if meets := []bool{l.Rungs[0].Sustainable, l.Rungs[1].Sustainable, l.Rungs[2].Sustainable}; !slices.Equal(meets, []bool{true, true, false}) {
		t.Errorf("rungs meet the rule: %v", meets)
	}
	for j, rung := range l.Rungs {
		if len(rung.Reps) != 2 {
			t.Fatalf("rung %d: %d reps", j, len(rung.Reps))
		}
		var achieved []float64
		for k, rep := range rung.Reps {
			a, b := s0.Engines[0].Ladder.Rungs[j].Reps[k], s1.Engines[0].Ladder.Rungs[j].Reps[k]
			if rep.Offered != a.Offered+b.Offered || rep.Achieved != a.Achieved+b.Achieved || rep.Sent != a.Sent+b.Sent || rep.LateStarts != 2 {
				t.Errorf("rung %d rep %d: %+v; want the shards' sums", j, k, rep)
			}
			if rep.GeneratorLagP99 != 0.2 {
				t.Errorf("rung %d rep %d: lag p99 %v; want the worst shard's", j, k, rep.GeneratorLagP99)
			}
			// Intended-time and service-time latency: the union's.
			for _, which := range []string{"latency", "service"} {
				union := newTestHist()
				for _, sr := range []Rep{a, b} {
					enc := sr.Ops[0].Histogram
					if which == "service" {
						enc = sr.Ops[0].ServiceHistogram
					}
					h, err := DecodeHistogram(enc)
					if err != nil {
						t.Fatal(err)
					}
					union.Merge(h)
				}
				got := rep.Latency
				if which == "service" {
					got = rep.Service
				}
				if got != Summarize(union) || rep.Ops[0].Count != union.TotalCount() {
					t.Errorf("rung %d rep %d %s: %+v; the union's %+v", j, k, which, got, Summarize(union))
				}
			}
			achieved = append(achieved, rep.Achieved)
		}
		if rung.Offered != []float64{1000, 2000, 4000}[j] || rung.Achieved != median(achieved) {
			t.Errorf("rung %d: offered %v achieved %v; want the plan's rate and the median of the merged reps", j, rung.Offered, rung.Achieved)
		}
	}
	if slices.ContainsFunc(l.Warnings.Texts(), func(w string) bool { return strings.Contains(w, "no rung met") }) {
		t.Errorf("the shards' own verdicts leaked into the merge: %q", l.Warnings)
	}
	if sh := m.Shards[1].Levels; len(sh) != 3 || sh[2].Offered != 2000 || sh[2].Level != 2 {
		t.Errorf("shard 1's rungs %+v; want its share offered at each", sh)
	}
}

// A merged run's reason: the missing shards without a known reason
// together, those with one each with it, then the partial shards' own.
func TestShardsReason(t *testing.T) {
	ss := []ShardSummary{{Index: 0}, {Index: 1, Missing: true}, {Index: 2, Partial: true, Reason: "interrupted"},
		{Index: 3, Missing: true, Reason: "its connection closed"}, {Index: 4, Missing: true}, {Index: 5, Reason: "not partial"}}
	want := "missing shard(s) 1, 4 of 6: no result; shard 3: its connection closed; shard 2: interrupted"
	if got := ShardsReason(ss); got != want {
		t.Errorf("ShardsReason = %q; want %q", got, want)
	}
	if got := ShardsReason([]ShardSummary{{Index: 0}, {Index: 1}}); got != "" {
		t.Errorf("a whole run: %q", got)
	}
}

// The search's split by query kind merges as the operation does: counts
// and errors add, each kind's percentiles come from the union of the
// shards' samples; recall against exact answers adds by kind.
func TestMergeKindsAndExactRecall(t *testing.T) {
	knnUnion, skuUnion := newTestHist(), newTestHist()
	var shards []*Result
	for i, med := range []float64{2000, 9000} {
		knn := record(t, newTestHist(), samples(3000, med, uint64(20+i)))
		sku := record(t, newTestHist(), samples(500, med/4, uint64(30+i)))
		knnUnion.Merge(knn)
		skuUnion.Merge(sku)
		all := newTestHist()
		all.Merge(knn)
		all.Merge(sku)
		o := opOf(t, "search", all, 10*time.Second)
		for _, k := range []struct {
			name string
			h    *hdrhistogram.Histogram
		}{{"knn", knn}, {"sku", sku}} {
			ko := opOf(t, k.name, k.h, 10*time.Second)
			o.Kinds = append(o.Kinds, KindStats{Kind: k.name, Count: ko.Count, RPS: ko.RPS, Latency: ko.Latency, Histogram: ko.Histogram,
				Errors: map[string]int64{"timeout": int64(i + 1)}})
		}
		s := shardOf(i, 2, 5, o)
		s.Engines[0].Levels[0].KnownItems = &KnownItems{K: 10, Checks: 10, Found: 10, Recall: 1,
			Exact: []KindRecall{{Kind: "knn", Checks: 5, Expected: 50, Found: 40 + int64(i)*5, IdleExpected: 100, IdleFound: 99, IdleChecks: 10}}}
		shards = append(shards, s)
	}
	m, err := Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Engines[0].Levels[0]
	kinds := l.Ops[0].Kinds
	if len(kinds) != 2 || kinds[0].Kind != "knn" || kinds[1].Kind != "sku" {
		t.Fatalf("kinds %+v; want knn then sku", kinds)
	}
	for i, union := range []*hdrhistogram.Histogram{knnUnion, skuUnion} {
		k := kinds[i]
		if k.Count != union.TotalCount() || k.Latency != Summarize(union) || k.Errors["timeout"] != 3 {
			t.Errorf("%s: %+v; want count %d, the union's percentiles %+v and 3 timeouts", k.Kind, k, union.TotalCount(), Summarize(union))
		}
	}
	ex := l.KnownItems.Exact
	if len(ex) != 1 || ex[0].Checks != 10 || ex[0].Expected != 100 || ex[0].Found != 85 || ex[0].Recall != 0.85 || ex[0].IdleFound != 99 {
		t.Fatalf("exact recall %+v; want 85 of 100 over 10 checks, idle 99 of 100", ex)
	}
}

// A rung's searches by kind: counts and errors summed over its reps, the
// rate the median across the reps that called the kind, p50 and p99 the
// median and extremes across the reps whose calls of it succeeded.
func TestRungSummarizesKinds(t *testing.T) {
	rep := func(knnCount int64, p50, p99, rps float64) Rep {
		return Rep{Achieved: 100, Ops: []OpenOp{{OpStats: OpStats{Op: "search", Kinds: []KindStats{
			{Kind: "knn", Count: knnCount, RPS: rps, Latency: Latency{P50: p50, P99: p99}, Errors: map[string]int64{"timeout": 1}},
			{Kind: "sku", Count: 5, RPS: 5, Latency: Latency{P50: 1, P99: 2}},
		}}}}}
	}
	r := Rung{Offered: 100, Reps: []Rep{rep(10, 3, 9, 10), rep(0, 0, 0, 0), rep(30, 5, 20, 30)}}
	r.Summarize()
	if len(r.Kinds) != 2 || r.Kinds[0].Kind != "knn" || r.Kinds[1].Kind != "sku" {
		t.Fatalf("kinds %+v", r.Kinds)
	}
	k := r.Kinds[0]
	want := RungKind{Kind: "knn", Count: 40, Errors: map[string]int64{"timeout": 3}, RPS: 10, Measured: 2,
		P50: 4, P99: 14.5, P50Min: 3, P50Max: 5, P99Min: 9, P99Max: 20}
	if k.Count != want.Count || k.Errors["timeout"] != 3 || k.RPS != want.RPS || k.Measured != want.Measured ||
		k.P50 != want.P50 || k.P99 != want.P99 || k.P50Min != want.P50Min || k.P50Max != want.P50Max || k.P99Min != want.P99Min || k.P99Max != want.P99Max {
		t.Fatalf("knn %+v; want %+v", k, want)
	}
	if s := r.Kinds[1]; s.Count != 15 || s.Measured != 3 || s.P99 != 2 || s.Errors != nil {
		t.Fatalf("sku %+v", s)
	}
}

// The shards' exact checks in one interval are one cluster of the
// interval clustered by time: the merge sums them interval by interval
// and squares the sums, where adding the shards' own sums of squares
// would take each shard's moment for a moment of its own. By query within
// an interval they stay the shards' own (each shard's sample queries are
// clusters of their own). A shard whose intervals lack the figures (an
// older searchbench) leaves the merge grouped by query alone.
func TestMergeGroupsExactChecksByInterval(t *testing.T) {
	// shard i found f[i][k] of 20 in interval k, 10 expected per query
	// (queries 0 and 1 in each interval).
	f := [2][2][2]int64{{{9, 8}, {10, 6}}, {{7, 10}, {5, 5}}} // [shard][interval][query]
	build := func(withExact bool) []*Result {
		var shards []*Result
		for i := range 2 {
			s := shardOf(i, 2, 5, opOf(t, "search", record(t, newTestHist(), samples(100, 500, uint64(i))), 10*time.Second))
			l := &s.Engines[0].Levels[0]
			l.Timeline = &Timeline{Interval: Duration(5 * time.Second)}
			r := KindRecall{Kind: "knn"}
			var sums RecallSums
			for k := range 2 {
				iv := Interval{Start: Duration(time.Duration(k) * 5 * time.Second), Length: Duration(5 * time.Second), KnownItems: &IntervalKnown{}}
				var ivF int64
				for q := range 2 {
					sums.Cells.AddCluster(f[i][k][q], 10)
					ivF += f[i][k][q]
				}
				sums.Intervals.AddCluster(ivF, 20)
				if withExact {
					iv.KnownItems.Exact = []IntervalRecall{{Kind: "knn", Expected: 20, Found: ivF}}
				}
				l.Timeline.Intervals = append(l.Timeline.Intervals, iv)
			}
			for q := range 2 {
				sums.AddQuery(f[i][0][q]+f[i][1][q], 20)
			}
			sums.Checks = 4
			r.SetLoad(sums)
			l.KnownItems = &KnownItems{K: 10, Exact: []KindRecall{r}}
			shards = append(shards, s)
		}
		return shards
	}
	m, err := Merge(build(true)...)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Engines[0].Levels[0].KnownItems.Exact[0]
	// Interval 0: 9+8+7+10 = 34 of 40; interval 1: 10+6+5+5 = 26 of 40.
	wantIv := ClusterSums{N: 2, FoundSq: 34*34 + 26*26, ExpectedSq: 2 * 40 * 40, FoundExpected: 34*40 + 26*40}
	var wantCells ClusterSums
	for _, x := range []int64{9, 8, 10, 6, 7, 10, 5, 5} {
		wantCells.AddCluster(x, 10)
	}
	if got.Intervals != wantIv || got.QueryIntervals != wantCells || got.Queries != 4 || got.Found != 60 || got.Expected != 80 {
		t.Errorf("merged %+v; want by interval %+v, by query and interval %+v, 4 queries, 60 of 80", got, wantIv, wantCells)
	}
	m, err = Merge(build(false)...)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Engines[0].Levels[0].KnownItems.Exact[0]; got.Intervals != (ClusterSums{}) || got.QueryIntervals != (ClusterSums{}) || got.Queries != 4 {
		t.Errorf("merged without the intervals' figures: %+v; want grouped by query alone", got)
	}
}

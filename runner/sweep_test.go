package runner

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// knobbed is a driver with a search-time knob whose engines log the knob
// of every search they answer, by whether the query had a vector.
type knobbed struct{}

// knobsSeen is what the knobbed engines were asked; one test uses them.
var knobsSeen struct {
	sync.Mutex
	vector, other []int // distinct, in the order first seen
}

func (knobbed) Describe() engines.Description {
	return engines.Description{Summary: "test: a knob", Embedded: true, Visibility: engines.Searchable,
		Knob: &engines.Knob{Name: "ef", Min: 1, Max: 100}}
}

func (knobbed) Open(context.Context, engines.Config) (engines.Engine, error) {
	return knobbedEngine{runnertest.NewVector()}, nil
}

type knobbedEngine struct{ *runnertest.Vector }

func (e knobbedEngine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	knobsSeen.Lock()
	seen := &knobsSeen.other
	if q.Vector != nil {
		seen = &knobsSeen.vector
	}
	if !slices.Contains(*seen, q.Knob) {
		*seen = append(*seen, q.Knob)
	}
	knobsSeen.Unlock()
	return e.Vector.Search(ctx, q)
}

func init() { engines.Register("knobbed", knobbed{}) }

// A sweep asks every vector search at its point's value — the idle checks'
// and the load's — and no other search with a knob; each point's windows
// carry the point and its value; an interrupt keeps the points measured,
// the one it cut marked partial, and runs no further point.
func TestSweepAsksAtEachPointAndKeepsWhatWasMeasured(t *testing.T) {
	plan := Plan{Source: runnertest.Products(t, 300, "knn=2,sku=1"), Setups: []Setup{{Driver: "knobbed"}},
		Closed: &loops.Config{Users: []int{2}, SpawnRate: 1000, Measure: time.Second,
			Calls: loops.Calls{Timeout: time.Second, K: 10, Interval: 200 * time.Millisecond, Mix: workload.Mix{workload.Search: 1}, Known: checks.KnownConfig{Exact: 30}}},
		Sweep: &Sweep{Values: []int{10, 40, 80}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	points := map[int]int{} // point → the value its events carried
	obs := event.ObserverFunc(func(ev event.Event) {
		if ev.Kind != event.Interval || ev.Window.Point == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		points[ev.Window.Point] = ev.Window.Value
		if ev.Window.Point == 2 {
			cancel() // within point 2's window
		}
	})
	res, err := Run(ctx, plan, obs)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial || res.Reason != "interrupted" {
		t.Errorf("partial %v, reason %q; want an interrupted run", res.Partial, res.Reason)
	}
	s := res.Engines[0].Sweep
	if s == nil || s.Knob != "ef" || len(s.Points) != 2 {
		t.Fatalf("sweep %+v; want ef's points 1 and 2", s)
	}
	for i, p := range s.Points {
		if p.Value != plan.Sweep.Values[i] || p.Writes || p.Level == nil || p.Level.Partial != (i == 1) {
			t.Errorf("point %d: %+v; want value %d, searches only, a level, partial only at point 2", i+1, p, plan.Sweep.Values[i])
		}
		if r, ok := p.IdleRecall("knn"); !ok || r.Recall != 1 {
			t.Errorf("point %d: idle knn recall %+v, %v; want 1 from an exact kNN", i+1, r, ok)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !maps.Equal(points, map[int]int{1: 10, 2: 40}) {
		t.Errorf("the windows' events carried points %v; want 1 at 10, 2 at 40", points)
	}
	knobsSeen.Lock()
	defer knobsSeen.Unlock()
	// 0: the relevance and exact checks after pre-population, before the
	// sweep; SKU lookups never carry the knob.
	if !slices.Equal(knobsSeen.vector, []int{0, 10, 40}) || !slices.Equal(knobsSeen.other, []int{0}) {
		t.Errorf("vector searches asked at %v, others at %v; want [0 10 40] and [0]", knobsSeen.vector, knobsSeen.other)
	}
}

// Shards run the same points: a shard whose sweep differs has another
// digest, and the coordinator names the field.
func TestShardsOfAnotherSweepDiffer(t *testing.T) {
	t.Parallel()
	p := Plan{Source: runnertest.Products(t, 100, "knn=1"), Setups: []Setup{{Driver: "knobbed"}},
		Closed: &loops.Config{Users: []int{2}, SpawnRate: 1, Measure: time.Second, Calls: loops.Calls{Timeout: time.Second, K: 10, Mix: workload.Mix{workload.Search: 1}}},
		Sweep:  &Sweep{Values: []int{10, 40}}}
	q := p
	q.Sweep = &Sweep{Values: []int{10, 80}}
	a, b := p.DigestFields(), q.DigestFields()
	if p.Digest() == q.Digest() || a["Sweep.Values"] == "" || a["Sweep.Values"] == b["Sweep.Values"] {
		t.Errorf("digests %s, %s; Sweep.Values %q, %q; want them to differ", p.Digest(), q.Digest(), a["Sweep.Values"], b["Sweep.Values"])
	}
	q.Sweep = nil
	if _, ok := q.DigestFields()["Sweep.Values"]; ok {
		t.Error("a plan without a sweep has sweep fields in its digest")
	}
}

// A sweep whose load is an open-loop ladder: each value climbs the whole
// ladder, searches only first and then under the mix's writes, every
// vector search asked at its point's value.
func TestSweepClimbsALadderAtEachValue(t *testing.T) {
	t.Parallel()
	open := openConfig(4)
	open.Mix = workload.Mix{workload.Search: 3, workload.Upsert: 1}
	open.Known = checks.KnownConfig{Exact: 20}
	plan := Plan{Source: runnertest.Products(t, 300, "knn=1"), Setups: []Setup{{Driver: "sharedknob", Config: engines.Config{URL: uniqueURL(t)}}},
		Ladder: &loops.LadderConfig{Open: open, Rates: workload.Ladder{Start: 100, Step: 2, Stop: 200},
			Duration: 200 * time.Millisecond, Repeat: 1, Factor: 5, MinAchieved: 0.5, Explode: 1000},
		Sweep: &Sweep{Values: []int{10, 40}}}
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Engines[0].Sweep
	if res.Partial || s == nil || s.Knob != "ef" || len(s.Points) != 4 {
		t.Fatalf("partial %v (%s), sweep %+v; want ef's 4 points", res.Partial, res.Reason, s)
	}
	for i, p := range s.Points {
		value, writes := plan.Sweep.Values[i%2], i >= 2
		if p.Value != value || p.Writes != writes || p.Level != nil || p.Ladder == nil || len(p.Ladder.Rungs) != 2 {
			t.Fatalf("point %d: %+v; want value %d, writes %v, a ladder of 2 rungs", i+1, p, value, writes)
		}
		for j, r := range p.Ladder.Rungs {
			up, _ := r.Reps[0].Op("upsert")
			if (up.Count > 0) != writes {
				t.Errorf("point %d rung %d: %d upserts; want some only under writes", i+1, j+1, up.Count)
			}
		}
		if r, ok := p.IdleRecall("knn"); !ok || r.Recall != 1 {
			t.Errorf("point %d: idle knn recall %+v, %v; want 1 from an exact kNN", i+1, r, ok)
		}
	}
	if got := sharedKnobEngine(plan.Setups[0].Config.URL).valuesAsked(); !slices.Equal(got, []int{0, 10, 40}) {
		t.Errorf("vector searches asked at %v; want [0 10 40]", got)
	}
}

// A sweep split across two shards of one run: both run every point, in
// one order, each point started together; the merged sweep holds each
// point once, with the shards' calls summed, the idle recall that shard
// 0 alone checks, and the recall under writes of both, each against its
// own writes with the other's excused.
func TestShardedSweepMergesEachPoint(t *testing.T) {
	t.Parallel()
	url := uniqueURL(t)
	// Enough products that two points of writes, the other shard's
	// excused for good, leave each exact answer's list long enough.
	src := runnertest.Products(t, 3000, "knn=1")
	cfg := &loops.Config{Users: []int{4}, SpawnRate: 1000, Measure: 300 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, K: 10, Seed: 1, Mix: workload.Mix{workload.Search: 3, workload.Upsert: 1}, Known: checks.KnownConfig{Fraction: 1, Exact: 20}}}
	plans := make([]Plan, 2)
	for i := range plans {
		plans[i] = Plan{Source: src, Closed: cfg, Sweep: &Sweep{Values: []int{10, 40}},
			Setups: []Setup{{Driver: "sharedknob", Config: engines.Config{URL: url}}},
			Shard:  &ShardPlan{Index: i, Count: 2, RegisterTimeout: 30 * time.Second}}
	}
	res, o := runShards(t, plans)
	// Prepared, attached, then the 4 points.
	if o == nil || o.Partial() || o.Starts != 6 {
		t.Fatalf("coordinator: %+v; want every result and 6 starts; shard 0: %+v", o, res[0])
	}
	merged, err := result.Merge(res...)
	if err != nil {
		t.Fatal(err)
	}
	s := merged.Engines[0].Sweep
	if s == nil || len(s.Points) != 4 {
		t.Fatalf("merged sweep %+v; want 4 points", s)
	}
	for i, p := range s.Points {
		value, writes := plans[0].Sweep.Values[i%2], i >= 2
		if p.Value != value || p.Writes != writes || p.Level == nil || p.Level.Users != 4 {
			t.Fatalf("point %d: %+v; want value %d, writes %v, a level of the shards' 4 users", i+1, p, value, writes)
		}
		var calls, checks int64
		for j, r := range res {
			q := r.Engines[0].Sweep.Points[i]
			calls += opCount(q.Level.Ops)
			if k := q.Level.KnownItems; k != nil && len(k.Exact) > 0 {
				checks += k.Exact[0].Checks
			}
			if (q.Idle != nil) != (j == 0) {
				t.Errorf("shard %d point %d: idle recall %+v; only shard 0 checks it", j, i+1, q.Idle)
			}
			if k := q.Level.KnownItems; writes && (k == nil || len(k.Exact) == 0 || k.Exact[0].Checks == 0) {
				t.Errorf("shard %d point %d: known items %+v; want exact checks under writes", j, i+1, k)
			}
		}
		if got := opCount(p.Level.Ops); got != calls || calls == 0 {
			t.Errorf("point %d: %d calls merged; the shards made %d", i+1, got, calls)
		}
		if r, ok := p.IdleRecall("knn"); !ok || r.Recall != 1 || r.Checks != res[0].Engines[0].Sweep.Points[i].Idle[0].Checks {
			t.Errorf("point %d: idle knn recall %+v, %v; want shard 0's, 1 from an exact kNN", i+1, r, ok)
		}
		// Recall 1: each shard's truth follows its own writes and excuses
		// the other's (whose share the loops' tests measure with more
		// writes than a short point makes under the race detector).
		if r := p.Level.KnownItems.Exact[0]; writes && (r.Checks != checks || r.Recall != 1) {
			t.Errorf("point %d: recall under writes %+v; want 1 from an exact engine over the shards' %d checks", i+1, r, checks)
		}
	}
	if got := sharedKnobEngine(url).valuesAsked(); !slices.Equal(got, []int{0, 10, 40}) {
		t.Errorf("vector searches asked at %v; want [0 10 40]", got)
	}
}

// sharedKnob is a driver with knobbed's knob whose engines are one per
// URL, as a server is: the shards of a split run attach to one index.
type sharedKnob struct{}

var sharedKnobs sync.Map // URL → *knobCounter

type knobCounter struct {
	*runnertest.Vector
	mu     sync.Mutex
	values []int // the knob values of vector searches, distinct, as first seen
}

func sharedKnobEngine(url string) *knobCounter {
	e, _ := sharedKnobs.LoadOrStore(url, &knobCounter{Vector: runnertest.NewVector()})
	return e.(*knobCounter)
}

func (k *knobCounter) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if q.Vector != nil {
		k.mu.Lock()
		if !slices.Contains(k.values, q.Knob) {
			k.values = append(k.values, q.Knob)
		}
		k.mu.Unlock()
	}
	return k.Vector.Search(ctx, q)
}

// Attach makes the index shard 0 built usable by the other shard.
func (k *knobCounter) Attach(context.Context, engines.Schema) error { return nil }

func (k *knobCounter) valuesAsked() []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.values)
}

func (sharedKnob) Describe() engines.Description {
	return engines.Description{Summary: "test: a knob, one engine per URL", Visibility: engines.Searchable,
		Knob: &engines.Knob{Name: "ef", Min: 1, Max: 100}}
}

func (sharedKnob) Open(_ context.Context, cfg engines.Config) (engines.Engine, error) {
	return sharedKnobEngine(cfg.URL), nil
}

func init() { engines.Register("sharedknob", sharedKnob{}) }

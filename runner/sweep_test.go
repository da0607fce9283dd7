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

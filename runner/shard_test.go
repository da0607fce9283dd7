package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// sharedMem is a test driver: engines "at a URL" that are one runnertest.Mem
// per URL in this process, so that several shards' Runs share an engine
// as they would a server. It exists for the runner's shard tests only.
type sharedMem struct{}

var (
	sharedMu      sync.Mutex
	sharedEngines = map[string]*sharedEngine{}
)

type sharedEngine struct {
	*runnertest.Mem
	creates atomic.Int64

	wmu     sync.Mutex
	written map[string]int // times each document (ID and text: ID and version) was upserted
}

// Upsert counts the document written: a document is a function of its ID
// and version, so the same document written twice is one version written
// twice.
func (e *sharedEngine) Upsert(ctx context.Context, d engines.Document) error {
	e.wmu.Lock()
	e.written[fmt.Sprintf("%s|%s|%s", d.ID, d.Text("name"), d.Text("content"))]++
	e.wmu.Unlock()
	return e.Mem.Upsert(ctx, d)
}

// rewrites is how many upserts wrote a document that an earlier one wrote.
func (e *sharedEngine) rewrites() (n, writes int) {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	for _, c := range e.written {
		n += c - 1
		writes += c
	}
	return n, writes
}

func (e *sharedEngine) Create(ctx context.Context, s engines.Schema) error {
	e.creates.Add(1)
	return e.Mem.Create(ctx, s)
}

func (e *sharedEngine) Attach(context.Context, engines.Schema) error {
	if e.creates.Load() == 0 {
		return errors.New("sharedmem: no index")
	}
	return nil
}

func (sharedMem) Describe() engines.Description {
	return engines.Description{Summary: "test: an in-process engine shared by URL", Visibility: engines.Searchable}
}

func (sharedMem) Open(_ context.Context, cfg engines.Config) (engines.Engine, error) {
	if strings.Contains(cfg.URL, "broken") {
		return nil, errors.New("sharedmem: connection refused")
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	e := sharedEngines[cfg.URL]
	if e == nil {
		e = &sharedEngine{Mem: runnertest.NewMem(), written: map[string]int{}}
		sharedEngines[cfg.URL] = e
		if strings.HasSuffix(cfg.URL, "leaky") {
			pw := cfg.Password.Reveal()
			e.Fail = func(op string, _ int64) error {
				if op == "search" {
					return fmt.Errorf("sharedmem: key %s refused", pw)
				}
				return nil
			}
		}
	}
	return e, nil
}

func init() { engines.Register("sharedmem", sharedMem{}) }

// shardPlans are n plans of the same run, shard i of n each, against the
// shared engine at url.
func shardPlans(t *testing.T, n int, url string, closed *loops.Config, ladder *loops.LadderConfig) []Plan {
	plans := make([]Plan, n)
	for i := range plans {
		plans[i] = Plan{
			Source: runnertest.Text(t, 300, 0.5), Closed: closed, Ladder: ladder,
			Setups: []Setup{{Driver: "sharedmem", Config: engines.Config{URL: url}}},
			Shard:  &ShardPlan{Index: i, Count: n, RegisterTimeout: 30 * time.Second},
		}
	}
	return plans
}

// runShards runs the plans at once, each registered with one coordinator.
func runShards(t *testing.T, plans []Plan) ([]*result.Result, *shard.Outcome) {
	t.Helper()
	return runShardsWatched(t, plans, nil)
}

// runShardsWatched is runShards with the coordinator's events going to
// view (nil: none).
func runShardsWatched(t *testing.T, plans []Plan, view *ShardView) ([]*result.Result, *shard.Outcome) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return runShardsOn(t, plans, ln, view)
}

// testLead is how far ahead the test coordinator sets each start.
const testLead = 50 * time.Millisecond

// runShardsOn is runShardsWatched with the coordinator listening on ln.
func runShardsOn(t *testing.T, plans []Plan, ln net.Listener, view *ShardView) ([]*result.Result, *shard.Outcome) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan *shard.Outcome, 1)
	go func() {
		srv := &shard.Server{Shards: len(plans), Lead: testLead}
		if view != nil {
			srv.Events = view.Event
		}
		o, err := srv.Serve(ctx, ln)
		if err != nil {
			t.Error(err)
		}
		done <- o
	}()
	res := make([]*result.Result, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		p.Shard.Coordinator = ln.Addr().String()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Run(ctx, p, nil)
			if err != nil {
				t.Errorf("shard %d: %v", i, err)
			}
			res[i] = r
		}()
	}
	wg.Wait()
	return res, <-done
}

func opCount(ops []result.OpStats) (n int64) {
	for _, o := range ops {
		n += o.Count
	}
	return n
}

func TestShardedRunSplitsTheUsersAndStartsTogether(t *testing.T) {
	url := uniqueURL(t)
	res, o := runShards(t, shardPlans(t, 3, url, &loops.Config{Users: []int{2, 10}, SpawnRate: 1000, Settle: 50 * time.Millisecond,
		Measure: 300 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10}}, nil))
	if o == nil || o.Partial() || o.Starts != 4 {
		t.Fatalf("coordinator: %+v; want every result and 4 starts (prepared, attached, 2 levels); shard 0: %+v", o, res[0])
	}
	if n := sharedEngines[url].creates.Load(); n != 1 {
		t.Errorf("the index was created %d times; only shard 0 creates it", n)
	}
	// Each shard counts versions on its own; a version still names one
	// write of the whole run.
	if n, writes := sharedEngines[url].rewrites(); n > 0 || writes == 0 {
		t.Errorf("%d of %d upserts wrote a version of a document another upsert had written", n, writes)
	}
	wantUsers := [][]int{{1, 1, 0}, {4, 3, 3}}
	for i, r := range res {
		if r == nil || r.Partial || r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 3 || len(r.Engines) != 1 {
			t.Fatalf("shard %d: %+v", i, r)
		}
		e := r.Engines[0]
		if e.Error != "" || len(e.Levels) != 2 {
			t.Fatalf("shard %d: error %q, %d levels", i, e.Error, len(e.Levels))
		}
		if r.Shard.Prepared != (i == 0) || (e.Preload.Documents > 0) != (i == 0) {
			t.Errorf("shard %d: prepared %v, pre-populated %d documents; only shard 0 prepares", i, r.Shard.Prepared, e.Preload.Documents)
		}
		for l, level := range e.Levels {
			if level.Users != wantUsers[l][i] {
				t.Errorf("shard %d level %d: %d users, want %d", i, l, level.Users, wantUsers[l][i])
			}
			if calls := opCount(level.Ops); (calls > 0) != (level.Users > 0) {
				t.Errorf("shard %d level %d: %d users made %d calls", i, l, level.Users, calls)
			}
		}
		var phases []string
		for _, s := range r.Shard.Starts {
			phases = append(phases, s.Phase)
			if s.RTT <= 0 {
				t.Errorf("shard %d %s: no round trip measured", i, s.Phase)
			}
		}
		if want := []string{"sharedmem prepared", "sharedmem attached", "sharedmem level 1 users=2", "sharedmem level 2 users=10"}; !slices.Equal(phases, want) {
			t.Errorf("shard %d started %q; want %q", i, phases, want)
		}
		if o.Results[i] == nil || o.Results[i].Shard.Index != i || len(o.Results[i].Shard.Starts) != 4 {
			t.Errorf("the coordinator has shard %d's result as %+v", i, o.Results[i])
		}
	}
}

func TestAShardThatCannotOpenStopsTheOthers(t *testing.T) {
	url := uniqueURL(t)
	plans := shardPlans(t, 3, url, ptr(quickConfig(3)), nil)
	plans[1].Setups[0].Config.URL = "mem://broken"
	res, o := runShards(t, plans)
	if o == nil || o.Partial() {
		t.Fatalf("coordinator: %+v; every shard still sends its result", o)
	}
	for i, r := range res {
		e := r.Engines[0]
		want := "stopped with the other shards: shard 1: failed: open sharedmem: sharedmem: connection refused"
		if i == 1 {
			want = "sharedmem: connection refused"
		}
		if !r.Partial || !strings.Contains(e.Error, want) || len(e.Levels) != 0 {
			t.Errorf("shard %d: partial %v, error %q, %d levels; want %q and no level", i, r.Partial, e.Error, len(e.Levels), want)
		}
	}
	if n := sharedEngines[url].creates.Load(); n != 1 {
		t.Errorf("created %d times", n)
	}
}

func TestShardedLadderSplitsEveryArrival(t *testing.T) {
	url := uniqueURL(t)
	l := &loops.LadderConfig{Open: openConfig(4), Rates: workload.Ladder{Start: 200, Step: 2, Stop: 400},
		Duration: 200 * time.Millisecond, Repeat: 2, Factor: 5, MinAchieved: 0.5, Explode: 1000}
	res, o := runShards(t, shardPlans(t, 2, url, nil, l))
	if o == nil || o.Partial() || o.Starts != 2+2*2 {
		t.Fatalf("coordinator: %+v; want 6 starts (prepared, attached, 2 rungs × 2 reps)", o)
	}
	for i, r := range res {
		lad := r.Engines[0].Ladder
		if lad == nil || len(lad.Rungs) != 2 {
			t.Fatalf("shard %d: %+v", i, r.Engines[0])
		}
		for j, rung := range lad.Rungs {
			rate := 200 * float64(int(1)<<j)
			if rung.Offered != rate {
				t.Errorf("shard %d rung %d: offered %v; want the rung's %v", i, j, rung.Offered, rate)
			}
			// rate × 0.2 s arrivals, alternating between the shards.
			for _, rep := range rung.Reps {
				if rep.Offered != rate/2 {
					t.Errorf("shard %d rung %d: a rep offered %v, want half of %v", i, j, rep.Offered, rate)
				}
				if want := int64(rate * 0.2 / 2); rep.Sent+rep.Unsent != want {
					t.Errorf("shard %d rung %d: sent %d + unsent %d, want %d", i, j, rep.Sent, rep.Unsent, want)
				}
			}
		}
		if len(r.Shard.Starts) != 6 {
			t.Errorf("shard %d: %d starts", i, len(r.Shard.Starts))
		}
	}
}

func TestAShardedPlanAttachesByURL(t *testing.T) {
	p := Plan{Source: runnertest.Text(t, 100, 0.5), Closed: ptr(quickConfig(2)),
		Setups: []Setup{{Driver: "bleve"}}, Shard: &ShardPlan{Index: 0, Count: 3}}
	err := p.Validate()
	var fe *field.Error
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Setting(), "shard: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("an embedded engine in a sharded plan: %v; want one line naming shard", err)
	}
	p.Setups = []Setup{{Driver: "sharedmem", Config: engines.Config{URL: "mem://x"}}}
	for _, bad := range []ShardPlan{{Index: 3, Count: 3}, {Index: 0, Count: 0}, {Index: 0, Count: 2, Coordinator: "nohost"}, {Index: 0, Count: 2, Coordinator: "h:0"}} {
		p.Shard = &bad
		if err := p.Validate(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want a one-line error", bad, err)
		}
	}
	p.Shard = &ShardPlan{Index: 0, Count: 2, Coordinator: "coordinator:7000"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	// Shards of one run agree; another run differs.
	q := p
	q.Shard = &ShardPlan{Index: 1, Count: 2, Coordinator: "10.0.0.1:7000"}
	q.Setups = []Setup{{Driver: "sharedmem", Config: engines.Config{URL: "mem://y", Password: "other"}}}
	if p.Digest() != q.Digest() {
		t.Error("two shards of one plan have different digests")
	}
	q.Closed = ptr(quickConfig(2, 4))
	if p.Digest() == q.Digest() {
		t.Error("plans with different levels have one digest")
	}
	q.Closed, q.Shard = p.Closed, &ShardPlan{Index: 1, Count: 3}
	if p.Digest() == q.Digest() {
		t.Error("plans with different shard counts have one digest")
	}
}

var urls atomic.Int64

// uniqueURL is a shared engine of the test's own (the tests run with -count).
func uniqueURL(t *testing.T) string { return fmt.Sprintf("mem://%s/%d", t.Name(), urls.Add(1)) }

func ptr[T any](v T) *T { return &v }

func TestARefusedShardIsBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&shard.Server{Shards: 2}).Serve(ctx, ln)
	p := shardPlans(t, 3, "mem://"+t.Name(), ptr(quickConfig(2)), nil)[0]
	p.Shard.Coordinator = ln.Addr().String()
	res, err := Run(ctx, p, nil)
	var refused *shard.Refused
	if !errors.As(err, &refused) || res != nil {
		t.Errorf("shard 0/3 at a coordinator of 2: %v, %v; want a refusal", res, err)
	}
}

package loops

import (
	"slices"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// The users of N shards, each stream keyed by its global user index, are
// exactly one machine's users with the same streams.
func TestShardUsersAreOneMachinesUsers(t *testing.T) {
	cfg := quickConfig(1)
	for _, users := range []int{1, 2, 10, 37} {
		for shards := 1; shards <= 4; shards++ {
			for level := range 2 {
				_, one := userStreams(cfg, 1000, level, users)
				union := map[int][]workload.Step{}
				for i := range shards {
					c := cfg
					c.Share = shard.Share{Index: i, Count: shards}
					first, streams := userStreams(c, 1000, level, users)
					for j, s := range streams {
						if _, dup := union[first+j]; dup {
							t.Fatalf("%d users / %d shards: user %d is on two shards", users, shards, first+j)
						}
						union[first+j] = steps(s.Next, 30)
					}
				}
				if len(union) != len(one) {
					t.Fatalf("%d users / %d shards: %d users in all, want %d", users, shards, len(union), len(one))
				}
				for g, s := range one {
					if !slices.Equal(union[g], steps(s.Next, 30)) {
						t.Fatalf("%d users / %d shards, level %d: user %d's stream differs from one machine's", users, shards, level, g)
					}
				}
			}
		}
	}
}

func steps(next func() workload.Step, n int) []workload.Step {
	out := make([]workload.Step, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

func allArrivals(a *arrivals) []arrival {
	var out []arrival
	for {
		k, at, st, ok := a.next()
		if !ok {
			return out
		}
		out = append(out, arrival{k, at, st})
	}
}

// The arrivals of N shards, merged in order, are one machine's schedule
// with one machine's operations: the same (time, op, ID) for every k.
func TestShardArrivalsAreOneMachinesSchedule(t *testing.T) {
	cfg := openConfig(1)
	cfg.Mix = workload.DefaultMix
	for _, process := range []string{"constant", "poisson"} {
		sched := func() workload.Schedule {
			s, err := workload.NewSchedule(process, 3000, 500*time.Millisecond, 7)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		one := allArrivals(newArrivals(cfg, 1000, sched(), checks.Versions{}))
		if len(one) < 1000 {
			t.Fatalf("%s: %d arrivals", process, len(one))
		}
		for shards := 1; shards <= 4; shards++ {
			var union []arrival
			for i := range shards {
				c := cfg
				c.Share = shard.Share{Index: i, Count: shards}
				mine := allArrivals(newArrivals(c, 1000, sched(), checks.Versions{}))
				for _, a := range mine {
					if a.k%uint64(shards) != uint64(i) {
						t.Fatalf("%s, %d shards: shard %d sent arrival %d", process, shards, i, a.k)
					}
				}
				union = append(union, mine...)
			}
			slices.SortFunc(union, func(a, b arrival) int { return int(a.k) - int(b.k) })
			if !slices.Equal(union, one) {
				t.Fatalf("%s, %d shards: the union of the shards' arrivals is not one machine's (%d vs %d)", process, shards, len(union), len(one))
			}
		}
	}
}

type arrival struct {
	k  uint64
	at time.Duration
	st workload.Step
}

// Package shard splits a run's load over several load generators (shards)
// and synchronises their starts.
//
// The split is exact, so the union of the shards' load is one machine's:
// closed-loop users are split into contiguous ranges of global user
// indices (shard i of N gets U/N users, one more when i < U%N), and each
// user's random stream is seeded by its global index; open-loop arrivals
// k of the one-machine schedule go to shard k%N, each with the one-machine
// operation for k.
//
// The synchronised starts go through a coordinator (Server) that the
// shards (Client) register with over TCP, in line-delimited JSON. At each
// start every live shard says it is ready; when all are, the coordinator
// answers each with the same instant, a short lead ahead on its own
// monotonic clock, and each shard converts that instant to its own clock
// with an offset it estimated by a ping exchange (no NTP assumed). The
// shards then send the coordinator their results, which it collects
// (Outcome) and merges into the run's (Outcome.Merge), each missing shard
// named with the reason it saw.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Share is one shard's part of the load: shard Index of Count. The zero
// value is the whole load (one machine).
type Share struct {
	Index int // 0 … Count-1
	Count int // 0 or 1: not sharded
}

// Sharded says whether the load is split at all.
func (s Share) Sharded() bool { return s.Count > 1 }

// Validate reports a share that is not one: one line naming the setting.
func (s Share) Validate() error {
	switch {
	case s.Count < 0 || s.Count > MaxShards:
		return fmt.Errorf("shard: %d shards is out of range (1 to %d)", s.Count, MaxShards)
	case s.Count == 0 && s.Index != 0:
		return fmt.Errorf("shard: index %d without a count", s.Index)
	case s.Count > 0 && (s.Index < 0 || s.Index >= s.Count):
		return fmt.Errorf("shard: index %d is out of range (0 to %d)", s.Index, s.Count-1)
	}
	return nil
}

// MaxShards bounds the shard count (a coordinator holds a connection each).
const MaxShards = 1024

// String is the share as --shard takes it: "i/N".
func (s Share) String() string { return fmt.Sprintf("%d/%d", s.Index, s.count()) }

func (s Share) count() int { return max(s.Count, 1) }

// ParseShare reads "i/N" (0-based index).
func ParseShare(v string) (Share, error) {
	i, n, ok := strings.Cut(v, "/")
	if !ok {
		return Share{}, fmt.Errorf("shard: %q is not i/N (for example 0/3)", v)
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Share{}, fmt.Errorf("shard: %q is not i/N with whole numbers (for example 0/3)", v)
	}
	if count < 1 {
		return Share{}, fmt.Errorf("shard: %q: N must be ≥ 1", v)
	}
	s := Share{Index: index, Count: count}
	return s, s.Validate()
}

// Users is this shard's part of a level of total users: global user
// indices [first, first+n). Over the shards the ranges partition
// [0, total): U/N each, the first U%N shards one more.
func (s Share) Users(total int) (first, n int) {
	count := s.count()
	base, extra := total/count, total%count
	n = base
	if s.Index < extra {
		n++
	}
	return s.Index*base + min(s.Index, extra), n
}

// Mine says whether arrival k of the one-machine schedule is this shard's.
func (s Share) Mine(k uint64) bool { return k%uint64(s.count()) == uint64(s.Index) }

// Rate is this shard's part of an offered rate: arrivals k with k%N == i
// are 1/N of the schedule's (the shards' rates sum to the rate).
func (s Share) Rate(rate float64) float64 { return rate / float64(s.count()) }

package shard

import (
	"slices"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// PhaseSkew is how far apart the shards began one synchronised start.
// Every shard was given the same instant on the coordinator's clock, so a
// shard began at that instant plus its Late (on its own clock, converted
// with an offset whose error is at most RTT/2): the skew is the spread of
// the Lates, within ±Error of the truth.
type PhaseSkew struct {
	Phase  string
	Shards int
	Skew   time.Duration // max − min Late
	Error  time.Duration // the largest RTT/2 of two shards, summed
}

// Skews are the skews of every start the shards' results record, in the
// order the first result lists them.
func Skews(results ...*result.Result) []PhaseSkew {
	type span struct {
		lo, hi time.Duration
		rtts   []time.Duration
	}
	// A phase is its name and its occurrence, should a name repeat.
	type key struct {
		phase string
		n     int
	}
	var order []key
	spans := map[key]*span{}
	for _, r := range results {
		if r == nil || r.Shard == nil {
			continue
		}
		seen := map[string]int{}
		for _, s := range r.Shard.Starts {
			late, rtt := time.Duration(s.Late), time.Duration(s.RTT)
			k := key{s.Phase, seen[s.Phase]}
			seen[s.Phase]++
			sp := spans[k]
			if sp == nil {
				sp = &span{lo: late, hi: late}
				spans[k] = sp
				order = append(order, k)
			}
			sp.lo, sp.hi = min(sp.lo, late), max(sp.hi, late)
			sp.rtts = append(sp.rtts, rtt)
		}
	}
	out := make([]PhaseSkew, 0, len(order))
	for _, k := range order {
		sp := spans[k]
		slices.Sort(sp.rtts)
		e := sp.rtts[len(sp.rtts)-1] / 2
		if len(sp.rtts) > 1 {
			e += sp.rtts[len(sp.rtts)-2] / 2
		}
		out = append(out, PhaseSkew{Phase: k.phase, Shards: len(sp.rtts), Skew: sp.hi - sp.lo, Error: e})
	}
	return out
}

package runner

import (
	"sync/atomic"

	"github.com/searchbench/searchbench/runner/shard"
)

// versions hands out the next version of each ID, so every upsert writes a
// document that differs from what the engine holds. The shards of a split
// run write one index with counters of their own, so shard i of N hands out
// i+N, i+2N, …: a version number names one write across the whole run (the
// freshness probe's mark and the document's text follow from it), and
// version 0 stays the pre-populated one.
type versions struct {
	last []atomic.Uint32 // the version last handed out, per ID
	step uint32
}

// newVersions counts versions of IDs 0 … ids-1 for one share of the load.
func newVersions(ids int, s shard.Share) versions {
	v := versions{last: make([]atomic.Uint32, ids), step: uint32(max(s.Count, 1))}
	if s.Index > 0 {
		for i := range v.last {
			v.last[i].Store(uint32(s.Index))
		}
	}
	return v
}

func (v versions) next(id uint32) uint32 { return v.last[id].Add(v.step) }

// latest is the version of id last handed out (the pre-populated one's, or
// this shard's index, before any).
func (v versions) latest(id uint32) uint32 { return v.last[id].Load() }

// untouched says whether this share has not written or deleted id: its
// counter still holds its starting value (0, or the shard's index), which
// is below one step.
func (v versions) untouched(id uint32) bool { return v.last[id].Load() < v.step }

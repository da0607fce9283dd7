package checks

import (
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/runner/shard"
)

// Versions hands out the next version of each ID, so every upsert writes a
// document that differs from what the engine holds. The shards of a split
// run write one index with counters of their own, so shard i of N hands out
// i+N, i+2N, …: a version number names one write across the whole run (the
// freshness probe's mark and the document's text follow from it), and
// version 0 stays the pre-populated one.
type Versions struct {
	last []atomic.Uint32 // the version last handed out, per ID
	step uint32
	// follow is the truth that follows this share's acknowledged writes
	// (KnownConfig.Follow); nil when the exact checks do not follow them.
	follow corpus.Follower
}

// NewVersions counts Versions of IDs 0 … ids-1 for one share of the load.
func NewVersions(ids int, s shard.Share) Versions {
	v := Versions{last: make([]atomic.Uint32, ids), step: uint32(max(s.Count, 1))}
	if s.Index > 0 {
		for i := range v.last {
			v.last[i].Store(uint32(s.Index))
		}
	}
	return v
}

// Next hands out id's next version.
func (v Versions) Next(id uint32) uint32 { return v.last[id].Add(v.step) }

// Latest is the version of id last handed out (the pre-populated one's, or
// this shard's index, before any).
func (v Versions) Latest(id uint32) uint32 { return v.last[id].Load() }

// Untouched says whether this share has not written or deleted id: its
// counter still holds its starting value (0, or the shard's index), which
// is below one step.
func (v Versions) Untouched(id uint32) bool { return v.last[id].Load() < v.step }

// Sending is to be called before call c is sent: a write's document is
// excused from the exact checks until it returns (Returned).
func (v Versions) Sending(c *workload.Call) {
	if v.follow != nil && c.Op.Writes() {
		v.follow.Begin(c.Num)
	}
}

// Returned is to be called when call c, after Sending, returned at done
// with err: an acknowledged write enters the truth the exact checks score
// against, with done as its acknowledgement; a failed one leaves its
// document excused until a later write of it is acknowledged.
func (v Versions) Returned(c *workload.Call, done time.Time, err error) {
	switch {
	case v.follow == nil || !c.Op.Writes():
	case err != nil:
		v.follow.Failed(c.Num)
	case c.Op == workload.Upsert:
		v.follow.Upserted(c.Num, c.Version, &c.Doc, done)
	default:
		v.follow.Deleted(c.Num, done)
	}
}

// Foreign is to be called for a step of another share of a split run, at
// or before its due time: a write's document is excused from the exact
// checks from then on, as this share cannot know when, or in which order
// with its own, the engine applied it.
func (v Versions) Foreign(st workload.Step) {
	if v.follow != nil && st.Op.Writes() {
		v.follow.Foreign(st.ID)
	}
}

// Follows says whether the exact checks follow this share's writes.
func (v Versions) Follows() bool { return v.follow != nil }

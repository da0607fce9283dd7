package runner

import (
	"testing"

	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// Unsharded, an ID's versions are 1, 2, 3, … as before shards existed.
func TestVersionsUnsharded(t *testing.T) {
	for _, s := range []shard.Share{{}, {Index: 0, Count: 1}} {
		v := newVersions(3, s)
		for want := uint32(1); want <= 3; want++ {
			if got := v.next(2); got != want {
				t.Fatalf("share %v: write %d of ID 2 got version %d", s, want, got)
			}
		}
		if v.latest(1) != 0 {
			t.Fatalf("share %v: an ID never written has version %d, want 0 (pre-populated)", s, v.latest(1))
		}
	}
}

// The shards of a split run keep their own counters but write one index:
// every write of an ID, on any shard, gets a version no other write of it
// has, and none is the pre-populated 0. The writes go through prepare, as
// the closed and open loops do.
func TestVersionsUniqueAcrossShards(t *testing.T) {
	const shards, writes, id = 3, 50, 7
	c := testCorpus(t, 10, 1)
	seen := map[uint32]int{}
	for i := range shards {
		v := newVersions(11, shard.Share{Index: i, Count: shards})
		for range writes {
			call := prepare(c, 10, v, workload.Step{Op: workload.Upsert, ID: id})
			if call.Version == 0 {
				t.Fatalf("shard %d wrote version 0, the pre-populated one", i)
			}
			if other, dup := seen[call.Version]; dup {
				t.Fatalf("shards %d and %d both wrote version %d of ID %d", other, i, call.Version, id)
			}
			seen[call.Version] = i
			if v.latest(id) != call.Version {
				t.Fatalf("shard %d: latest(%d) = %d after writing version %d", i, id, v.latest(id), call.Version)
			}
		}
	}
	if len(seen) != shards*writes {
		t.Fatalf("%d distinct versions from %d writes", len(seen), shards*writes)
	}
}

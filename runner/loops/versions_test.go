package loops

import (
	"testing"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// The shards of a split run keep their own counters but write one index:
// every write of an ID, on any shard, gets a version no other write of it
// has, and none is the pre-populated 0. The writes go through prepare, as
// the closed and open loops do.
func TestVersionsUniqueAcrossShards(t *testing.T) {
	const shards, writes, id = 3, 50, 7
	c := runnertest.Text(t, 10, 1)
	seen := map[uint32]int{}
	for i := range shards {
		v := checks.NewVersions(11, shard.Share{Index: i, Count: shards})
		for range writes {
			call := prepare(c, workload.Ask{K: 10}, v, workload.Step{Op: workload.Upsert, ID: id})
			if call.Version == 0 {
				t.Fatalf("shard %d wrote version 0, the pre-populated one", i)
			}
			if other, dup := seen[call.Version]; dup {
				t.Fatalf("shards %d and %d both wrote version %d of ID %d", other, i, call.Version, id)
			}
			seen[call.Version] = i
			if v.Latest(id) != call.Version {
				t.Fatalf("shard %d: latest(%d) = %d after writing version %d", i, id, v.Latest(id), call.Version)
			}
		}
	}
	if len(seen) != shards*writes {
		t.Fatalf("%d distinct versions from %d writes", len(seen), shards*writes)
	}
}

package checks

import (
	"testing"

	"github.com/searchbench/searchbench/runner/shard"
)

// Unsharded, an ID's versions are 1, 2, 3, … as before shards existed.
func TestVersionsUnsharded(t *testing.T) {
	for _, s := range []shard.Share{{}, {Index: 0, Count: 1}} {
		v := NewVersions(3, s)
		for want := uint32(1); want <= 3; want++ {
			if got := v.Next(2); got != want {
				t.Fatalf("share %v: write %d of ID 2 got version %d", s, want, got)
			}
		}
		if v.Latest(1) != 0 {
			t.Fatalf("share %v: an ID never written has version %d, want 0 (pre-populated)", s, v.Latest(1))
		}
	}
}

package result

import (
	"testing"
	"time"
)

// Merged active users: the shards' means and minimums add up, the ramp is
// the slowest shard's; a shard that did not record them (an older
// searchbench) leaves the merged level without them rather than short.
func TestMergedActiveUsers(t *testing.T) {
	var shards []*Result
	for i := range 3 {
		r := shardOf(i, 3, 10)
		r.Engines[0].Levels[0].Active = &ActiveUsers{Mean: 10 - float64(i)/4, Min: 10 - i, Ramp: Duration(time.Duration(i+1) * time.Second)}
		shards = append(shards, r)
	}
	m, err := Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Engines[0].Levels[0]
	if a := l.Active; a == nil || a.Mean != 29.25 || a.Min != 27 || a.Ramp != Duration(3*time.Second) {
		t.Errorf("merged active users %+v; want mean 29.25, min 27, ramp 3s", l.Active)
	}
	if len(l.ShardWindows) != 3 || l.ShardWindows[2] != (ShardWindow{Shard: 2, Window: Duration(10 * time.Second)}) {
		t.Errorf("shard windows %+v; want each shard's 10s", l.ShardWindows)
	}
	shards[1].Engines[0].Levels[0].Active = nil
	if m, err = Merge(shards...); err != nil || m.Engines[0].Levels[0].Active != nil {
		t.Errorf("with a shard lacking them: active users %+v, %v; want none", m.Engines[0].Levels[0].Active, err)
	}
}

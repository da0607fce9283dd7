package shard

import (
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// The merged result names each missing shard with the reason the
// coordinator saw, after the run's own, then each present shard's own
// reason; the hosts the shards registered from fill in what their results
// do not say.
func TestOutcomeMergeNamesTheMissingShards(t *testing.T) {
	of := func(i int, partial string) *result.Result {
		return &result.Result{SchemaVersion: result.SchemaVersion, Partial: partial != "", Reason: partial,
			Shard: &result.Shard{Index: i, Count: 4, Coordinator: "c:1"}}
	}
	o := &Outcome{
		Results: []*result.Result{of(0, ""), nil, of(2, "interrupted"), nil},
		Hosts:   []string{"h0", "h1", "h2", "h3"},
		Missing: map[int]string{1: "its connection closed, after the start of \"a\"", 3: "not ready"},
		Reason:  "interrupted",
	}
	res, err := o.Merge()
	if err != nil {
		t.Fatal(err)
	}
	want := `interrupted; shard 1: its connection closed, after the start of "a"; shard 3: not ready; shard 2: interrupted`
	if !res.Partial || res.Reason != want {
		t.Errorf("partial %v, reason %q; want %q", res.Partial, res.Reason, want)
	}
	for i, s := range res.Shards {
		if s.Missing != (o.Results[i] == nil) || s.Hostname != o.Hosts[i] || (s.Missing && s.Reason != o.Missing[i]) {
			t.Errorf("shard %d: %+v", i, s)
		}
	}

	whole := &Outcome{Results: []*result.Result{of(0, ""), of(1, "")}, Hosts: []string{"a", "b"}, Missing: map[int]string{}}
	for _, r := range whole.Results {
		r.Shard.Count = 2
	}
	if res, err := whole.Merge(); err != nil || res.Partial || res.Reason != "" {
		t.Errorf("every shard: %v, %+v; want a whole run", err, res)
	}

	none := &Outcome{Results: make([]*result.Result, 2), Missing: map[int]string{0: "gone", 1: "lost"}, Reason: "interrupted"}
	if _, err := none.Merge(); err == nil || err.Error() != "no shard's result came in (shard 0: gone; shard 1: lost; interrupted)" {
		t.Errorf("no result: %v", err)
	}
}

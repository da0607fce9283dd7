package shard

import (
	"fmt"
	"strings"

	"github.com/searchbench/searchbench/runner/result"
)

// Outcome is what the coordinator collected. A shard whose result did not
// come in is in Missing with the reason, its Results entry nil.
type Outcome struct {
	Results []*result.Result // by shard index
	Hosts   []string         // by shard index, as each said at registration
	Missing map[int]string
	// Reason is set when the run as a whole ended early: "interrupted".
	Reason string
	// Starts is how many synchronised starts ran (not those called off).
	Starts int
}

// Partial says whether some shard's result is missing.
func (o *Outcome) Partial() bool { return len(o.Missing) > 0 || o.Reason != "" }

// Merge merges the results that came in (result.Merge) into the run's
// result, each missing shard named with the reason the coordinator saw
// (its ShardSummary's Reason, and in the merged Reason after the run's own,
// if it ended early) and each shard's host as it said at registration when
// its result does not say. The error is the merge's, or that no result
// came in at all.
func (o *Outcome) Merge() (*result.Result, error) {
	var got []*result.Result
	for _, r := range o.Results {
		if r != nil {
			got = append(got, r)
		}
	}
	if len(got) == 0 {
		var missing []string
		for i := range o.Results {
			if why, ok := o.Missing[i]; ok {
				missing = append(missing, fmt.Sprintf("shard %d: %s", i, why))
			}
		}
		return nil, fmt.Errorf("no shard's result came in (%s)", strings.Join(append(missing, o.Reason), "; "))
	}
	res, err := result.Merge(got...)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	for i := range res.Shards {
		s := &res.Shards[i]
		if why, ok := o.Missing[s.Index]; ok {
			s.Missing, s.Reason = true, why
		}
		if s.Hostname == "" && s.Index < len(o.Hosts) {
			s.Hostname = o.Hosts[s.Index]
		}
	}
	var reasons []string
	for _, r := range []string{o.Reason, result.ShardsReason(res.Shards)} {
		if r != "" {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		res.Partial, res.Reason = true, strings.Join(reasons, "; ")
	}
	return res, nil
}

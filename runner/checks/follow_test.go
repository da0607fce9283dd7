package checks

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/product"
)

// An upsert that puts a document at a sample query's own vector is
// expected in its answers from its acknowledgement on: an answer sent
// after it that leaves it out misses it (strictly, and under the lag rule
// when the lag is shorter than the time since), one sent before it is
// excused, and a delete takes it out of what is expected again.
func TestFollowUpsertEntersTheTruth(t *testing.T) {
	t.Parallel()
	src := runnertest.Products(t, 400, "knn=1")
	tr := runnertest.Truth(t, src, 4, 5)
	vers := KnownConfig{}.WithTruth(tr).Follow(t.Context(), NewVersions(src.IDs()+1, shard.Share{}))
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}.WithTruth(tr), workload.Ask{K: 5}, 1, vers)
	q := &tr.Queries[0]
	id := uint32(1)
	for slices.ContainsFunc(q.Want, func(n neighbours.Neighbour) bool { return n.ID == id }) {
		id++
	}
	before := time.Now()
	time.Sleep(time.Millisecond)
	up := workload.Call{Op: workload.Upsert, Num: id, Version: 1, Doc: src.Document(id, 1)}
	for i := range up.Doc.Fields {
		if up.Doc.Fields[i].Name == product.FieldEmbedding {
			up.Doc.Fields[i].Vector = q.Query.Vector
		}
	}
	vers.Sending(&up)
	vers.Returned(&up, time.Now(), nil)
	time.Sleep(time.Millisecond)
	old := engines.Hits{IDs: docIDs(q.Want[:5])} // the pre-populated answer
	kc.Check(KnownCheck{On: true, exact: q, Sent: before}, old, nil)
	kc.Check(KnownCheck{On: true, exact: q, Sent: time.Now()}, old, nil)
	del := workload.Call{Op: workload.Delete, Num: id, Version: 2, ID: dataset.DocID(id)}
	vers.Sending(&del)
	vers.Returned(&del, time.Now(), nil)
	time.Sleep(time.Millisecond)
	kc.Check(KnownCheck{On: true, exact: q, Sent: time.Now()}, old, nil)
	r := kc.Result().Exact
	if len(r) != 1 || r[0].Checks != 3 || r[0].Expected != 15 || r[0].Found != 14 {
		t.Fatalf("%+v; want 3 checks of 5, one missing the upserted document", r)
	}
	// Without a freshness probe no lag is excused: the lag rule is strict.
	if r[0].LagExpected != 15 || r[0].LagFound != 14 || r[0].RecentMisses != 0 || r[0].Lag != 0 {
		t.Errorf("%+v; want the lag rule's counts equal to the strict ones", r[0])
	}
}

func docIDs(ns []neighbours.Neighbour) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = dataset.DocID(n.ID)
	}
	return out
}

// BenchmarkFollowWrite is the truth's upkeep per acknowledged write on the
// loops' write path (Versions.Sending before the call, Returned after an
// upsert), against 100 sample queries of 1,024 dimensions, a third of
// them filtered: ns/op is per write; allocs/op must be 0.
func BenchmarkFollowWrite(b *testing.B) {
	m, err := dataset.ParseQueryMix("knn=1,knn-category=1,knn-price=1")
	if err != nil {
		b.Fatal(err)
	}
	src, err := product.New(dataset.Config{Seed: 3, IDs: 2000, Prepopulate: 0.9}, 1024, m)
	if err != nil {
		b.Fatal(err)
	}
	tr := runnertest.Truth(b, src, DefaultExactQueries, 10)
	vers := KnownConfig{}.WithTruth(tr).Follow(context.Background(), NewVersions(src.IDs()+1, shard.Share{}))
	calls := make([]workload.Call, 64)
	for i := range calls {
		id := uint32(1 + i*31)
		calls[i] = workload.Call{Op: workload.Upsert, Num: id, Version: 1, Doc: src.Document(id, 1)}
	}
	at := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := &calls[i%len(calls)]
		vers.Sending(c)
		vers.Returned(c, at, nil)
		i++
	}
}

// BenchmarkCheckFollowed is the cost of counting one answer to an exact
// check against the truth that follows the writes (scored at every lag
// rung, counted by query and by interval of a 60-interval window), after
// the call's clock stopped: 100 sample queries, k 10; allocs/op must be 0
// once each query has been counted in each interval.
func BenchmarkCheckFollowed(b *testing.B) {
	src := runnertest.Products(b, 2000, "knn=1,knn-category=1,knn-price=1")
	tr := runnertest.Truth(b, src, DefaultExactQueries, 10)
	vers := KnownConfig{}.WithTruth(tr).Follow(b.Context(), NewVersions(src.IDs()+1, shard.Share{}))
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}.WithTruth(tr), workload.Ask{K: 10}, 1, vers)
	const intervals = 60
	kc.StartIntervals(intervals)
	hits := make([]engines.Hits, len(tr.Queries))
	for i := range hits {
		hits[i] = engines.Hits{IDs: docIDs(tr.Queries[i].Want[:10])}
	}
	sent := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := i % len(hits)
		kc.Check(KnownCheck{On: true, exact: &tr.Queries[q], query: q, Sent: sent, Interval: i / len(hits) % intervals}, hits[q], nil)
		i++
	}
}

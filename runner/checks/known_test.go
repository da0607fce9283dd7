package checks

import (
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
)

// A check whose ID was written or deleted after its candidates were drawn
// proves nothing and is skipped, not counted as found or missed. (Whether a
// one-second level rewrites an ID it then checks depends on how many calls
// the machine gets through, so the skip is shown here with the write made
// on purpose, not left to the level's luck.)
func TestKnownItemWrittenSinceIsSkipped(t *testing.T) {
	src := runnertest.Text(t, 300, 1)
	vers := NewVersions(src.IDs()+1, shard.Share{})
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}, workload.Ask{K: 10}, 1, vers, 7)
	if kc == nil || len(kc.ids) < 2 {
		t.Fatalf("checks %+v; want candidates from a pre-populated corpus", kc)
	}
	kept, written := kc.ids[0], kc.ids[1]
	vers.Next(written) // an upsert lands while the check's search is out
	hits := engines.Hits{IDs: []string{dataset.DocID(kept), dataset.DocID(written)}, Total: 2}
	kc.Check(KnownCheck{On: true, id: kept, doc: dataset.DocID(kept)}, hits, nil)
	kc.Check(KnownCheck{On: true, id: written, doc: dataset.DocID(written)}, hits, nil)
	kc.Check(KnownCheck{On: true, id: written, doc: dataset.DocID(written)}, engines.Hits{}, nil)
	if r := kc.Result(); r.Checks != 1 || r.Found != 1 || r.Skipped != 2 || r.Empty != 0 {
		t.Fatalf("known items %+v; want the untouched ID checked and found, the written one skipped twice (found or not)", r)
	}
}

// Checking an answer allocates nothing: the ID's string is made with the
// query, before the clock.
func TestKnownItemCheckDoesNotAllocate(t *testing.T) {
	src := runnertest.Text(t, 500, 1)
	vers := NewVersions(src.IDs()+1, shard.Share{})
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}, workload.Ask{K: 10}, 1, vers, 0)
	r := kc.Stream(3)
	c := workload.Call{Op: workload.Search}
	chk := kc.Pick(&r, &c)
	if !chk.On || c.Query.Text == "" {
		t.Fatalf("check %+v, query %+v; want a known-item query", chk, c.Query)
	}
	hits := engines.Hits{IDs: []string{"1", "2", chk.doc}, Total: 3}
	if n := testing.AllocsPerRun(100, func() { kc.Check(chk, hits, nil) }); n != 0 {
		t.Fatalf("check allocates %v times", n)
	}
	if k := kc.Result(); k.Found != k.Checks || k.Checks < 100 {
		t.Fatalf("known items %+v; want every check found", k)
	}
	// Nor does scoring an answer against an exact one.
	q := &corpus.TruthQuery{Want: runnertest.Nearest(1, 2, 3, 4)}
	if n := testing.AllocsPerRun(100, func() { q.Score(hits.IDs, 10, func(uint32) bool { return false }) }); n != 0 {
		t.Fatalf("score allocates %v times", n)
	}
}

// The library's zero KnownConfig makes the CLI's default share of checks,
// as its zero FreshnessConfig probes; Off turns them off.
func TestKnownItemsDefaultIsTheCLIs(t *testing.T) {
	src := runnertest.Text(t, 500, 1)
	vers := NewVersions(src.IDs()+1, shard.Share{})
	var known KnownConfig
	if kc := NewKnownChecks(src, known, workload.Ask{K: 10}, 1, vers, 0); kc == nil || kc.frac != DefaultKnownItems {
		t.Errorf("zero KnownConfig: checks %+v; want the CLI's default share %v", kc, DefaultKnownItems)
	}
	known.Off = true
	if kc := NewKnownChecks(src, known, workload.Ask{K: 10}, 1, vers, 0); kc != nil {
		t.Errorf("Known.Off: checks %+v; want none", kc)
	}
	if p := NewProber(nil, src, FreshnessConfig{}, workload.Ask{K: 10}, 1, vers); p == nil {
		t.Error("zero FreshnessConfig: no probe; the CLI's default is on")
	}
}

// Once every ID has been written no known item is left to look for, but
// the exact answers still check the answers: every check is one of them
// (they were dropped with the known items, and a long run under writes
// lost its recall under load).
func TestExactChecksOutliveTheKnownItems(t *testing.T) {
	src := runnertest.Products(t, 300, "knn=1")
	tr := runnertest.Truth(t, src, 4, 10)
	vers := NewVersions(src.IDs()+1, shard.Share{})
	for id := range uint32(src.IDs()) {
		vers.Next(id + 1)
	}
	kc := NewKnownChecks(src, KnownConfig{Fraction: 1}.WithTruth(tr), workload.Ask{K: 10}, 1, vers, 0)
	if kc == nil || len(kc.ids) != 0 {
		t.Fatalf("checks %+v; want exact checks only, no known item", kc)
	}
	r := kc.Stream(1)
	for range 20 {
		c := workload.Call{Op: workload.Search}
		if chk := kc.Pick(&r, &c); !chk.On || chk.exact == nil {
			t.Fatalf("check %+v; want an exact-answer check", chk)
		}
	}
	if kc := NewKnownChecks(src, KnownConfig{Fraction: 1}, workload.Ask{K: 10}, 1, vers, 0); kc != nil {
		t.Errorf("without exact answers or known items: %+v; want no checks", kc)
	}
}

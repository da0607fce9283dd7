package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
)

// The sample's exact answers are the brute-force nearest of the
// pre-populated documents that pass the query's filter, in order; a SKU's
// is its pre-populated product; the sample and its answers follow from the
// seed; hybrid queries have none.
func TestExactTruth(t *testing.T) {
	src := runnertest.Products(t, 800, "knn=1,knn-category=1,knn-price=1,sku=1,hybrid=1")
	tr := runnertest.Truth(t, src, 60, 10)
	if tr == nil || len(tr.Queries) != 60 || tr.Cost.Queries != 60 || tr.Cost.Documents != src.PrepopulatedCount() ||
		tr.Cost.Depth != corpus.ExactDepth(10) || tr.Cost.Dim != 8 || tr.Cost.Seconds <= 0 || tr.Cost.Bytes == 0 {
		t.Fatalf("truth %+v; want 60 queries over the pre-populated documents, with their cost", tr)
	}
	e := runnertest.NewVector()
	if _, err := Prepopulate(context.Background(), e, src, loops.DefaultTimeout, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, q := range tr.Queries {
		kind := tr.Kinds[q.Kind]
		seen[kind]++
		sq := q.Query
		sq.K = len(q.Want)
		h, _ := e.Search(context.Background(), sq)
		want := make([]string, len(q.Want))
		for j, n := range q.Want {
			want[j] = dataset.DocID(n.ID)
		}
		if !slices.Equal(h.IDs, want) || len(want) == 0 {
			t.Fatalf("query %d (%s): exact answer %v; brute force over the stored documents says %v", i, kind, want, h.IDs)
		}
		if kind != "sku" && !q.Whole && len(q.Want) != corpus.ExactDepth(10) {
			t.Fatalf("query %d (%s): %d documents kept; want the depth %d", i, kind, len(q.Want), corpus.ExactDepth(10))
		}
	}
	if len(seen) != 4 || seen["hybrid"] != 0 {
		t.Fatalf("kinds sampled %v; want knn, knn-category, knn-price and sku, never hybrid", seen)
	}
	again := runnertest.Truth(t, src, 60, 10)
	for i := range tr.Queries {
		if !slices.Equal(tr.Queries[i].Want, again.Queries[i].Want) {
			t.Fatalf("query %d: a second computation gave %v, the first %v", i, again.Queries[i].Want, tr.Queries[i].Want)
		}
	}
	if runnertest.Truth(t, runnertest.Products(t, 200, "hybrid=1"), 10, 10) != nil || runnertest.Truth(t, runnertest.Text(t, 200, 1), 10, 10) != nil {
		t.Fatal("a sample of hybrid queries alone, or of the text corpus; want none")
	}
}

// score counts a document tied with the last expected one within
// neighbours.Tolerance as found, as neighbours.Recall does: in the depth
// kept, or past it (read from the corpus) when the ties reach that far;
// a farther one, one that fails the filter, and a tie with a neighbour
// the run rewrote (no longer expected) do not count.
func TestExactScoreTies(t *testing.T) {
	tied := 0.3 + neighbours.Tolerance/2
	q := &corpus.TruthQuery{Want: append(runnertest.Nearest(1, 2, 3), neighbours.Neighbour{ID: 4, Distance: tied}, neighbours.Neighbour{ID: 5, Distance: 0.5})}
	none := func(uint32) bool { return false }
	for _, c := range []struct {
		name    string
		answer  []uint32
		written func(uint32) bool
		found   int64
	}{
		{"the tie in place of the 3rd", []uint32{1, 2, 4}, none, 3},
		{"a farther one", []uint32{1, 2, 5}, none, 2},
		{"the tie and the 3rd: each counts, at most k", []uint32{1, 4, 3}, none, 3},
		{"a tie with a rewritten 3rd: the 3rd expected is now 4", []uint32{1, 2, 5}, func(id uint32) bool { return id == 3 }, 2},
	} {
		var ids []string
		for _, id := range c.answer {
			ids = append(ids, dataset.DocID(id))
		}
		if e, f, ok := q.Score(ids, 3, c.written); e != 3 || f != c.found || !ok {
			t.Errorf("%s: expected %d found %d ok %v; want 3 %d true", c.name, e, f, ok, c.found)
		}
	}
	// The depth kept ends in a tie with the 3rd: a document past it is
	// read from the corpus, and counts when it is tied too.
	third := runnertest.Nearest(1, 2, 3)[2].Distance // added at run time, as score adds
	far := map[uint32]float64{9: third + neighbours.Tolerance, 8: third + 2*neighbours.Tolerance}
	deep := &corpus.TruthQuery{Want: append(runnertest.Nearest(1, 2, 3), neighbours.Neighbour{ID: 4, Distance: tied}),
		Far: func(id uint32) (float64, bool) { d, ok := far[id]; return d, ok }}
	for _, c := range []struct {
		id    uint32
		found int64
	}{{9, 3}, {8, 2}, {7, 2}} {
		if _, f, _ := deep.Score([]string{"1", "2", dataset.DocID(c.id)}, 3, none); f != c.found {
			t.Errorf("document %d past the depth: found %d; want %d", c.id, f, c.found)
		}
	}
	// A truth that is not tied at its depth never reads the corpus.
	q.Far = func(uint32) (float64, bool) {
		t.Fatal("read the corpus for a document past an untied depth")
		return 0, false
	}
	q.Score([]string{"1", "2", "99"}, 3, none)
}

// On the product corpus, an answer that swaps the 10th neighbour for the
// 11th scores as neighbours.Recall scores it: 0.9 as it is, 1 when the
// 11th is moved to the 10th's distance (a tie). The run and the tests'
// recall are one rule.
func TestExactScoreAgreesWithRecall(t *testing.T) {
	src := runnertest.Products(t, 800, "knn=1,knn-price=1")
	tr := runnertest.Truth(t, src, 20, 10)
	for i := range tr.Queries {
		for _, tie := range []bool{false, true} {
			q := tr.Queries[i]
			q.Want = slices.Clone(q.Want)
			if tie {
				q.Want[10].Distance = q.Want[9].Distance
			}
			got := make([]uint32, 0, 10)
			for _, n := range q.Want[:10] {
				got = append(got, n.ID)
			}
			got[9] = q.Want[10].ID
			var ids []string
			for _, id := range got {
				ids = append(ids, dataset.DocID(id))
			}
			dist := func(id uint32) (float64, bool) {
				for _, n := range q.Want {
					if n.ID == id {
						return n.Distance, true
					}
				}
				return 0, false
			}
			e, f, ok := q.Score(ids, 10, func(uint32) bool { return false })
			want := neighbours.Recall(got, q.Want[:10], dist)
			if !ok || e != 10 || float64(f)/float64(e) != want || want != map[bool]float64{false: 0.9, true: 1}[tie] {
				t.Errorf("query %d, tie %v: %d of %d; neighbours.Recall says %v", i, tie, f, e, want)
			}
		}
	}
}

// Idle: an exact engine scores 1 on every kind; one that loses each
// answer's nearest neighbour scores 0.9 on the kNN kinds, 1 on SKUs.
func TestCheckExactIdle(t *testing.T) {
	src := runnertest.Products(t, 800, "")
	tr := runnertest.Truth(t, src, 40, 10)
	for _, skip := range []int{0, 1} {
		e := runnertest.NewVector()
		e.Skip = skip
		if _, err := Prepopulate(context.Background(), e, src, loops.DefaultTimeout, nil); err != nil {
			t.Fatal(err)
		}
		rs := checks.CheckExact(context.Background(), e, tr, workload.Ask{K: 10}, 5*time.Second)
		if len(rs) != 4 {
			t.Fatalf("skip %d: %+v; want the four kinds", skip, rs)
		}
		for _, r := range rs {
			want := 1.0
			if skip == 1 && r.Kind != "sku" {
				want = 0.9
			}
			if r.Checks == 0 || math.Abs(r.Recall-want) > 1e-9 || r.Skipped+r.Failed+r.Unsupported != 0 {
				t.Errorf("skip %d: %s %+v; want recall %.1f", skip, r.Kind, r, want)
			}
		}
	}
}

// hybridless is a driver whose engines cannot answer hybrid queries: the
// plan refuses a mix that draws them before anything starts.
type hybridless struct{}

func (hybridless) Describe() engines.Description {
	return engines.Description{Summary: "test: no hybrid", Embedded: true, Visibility: engines.Searchable}
}
func (hybridless) Open(context.Context, engines.Config) (engines.Engine, error) {
	return runnertest.NewVector(), nil
}
func (hybridless) CheckQuery(_ engines.Config, _ engines.Schema, q engines.Query) error {
	if q.Vector != nil && q.Text != "" {
		return fmt.Errorf("no fusion of text and vector: %w", engines.ErrUnsupported)
	}
	return nil
}

func init() { engines.Register("hybridless", hybridless{}) }

func TestPlanRefusesAQueryKindTheEngineLacks(t *testing.T) {
	plan := func(mix string, ops workload.Mix) Plan {
		return Plan{Source: runnertest.Products(t, 100, mix), Setups: []Setup{{Driver: "hybridless"}},
			Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: loops.Calls{Timeout: time.Second, K: 10, Mix: ops}}}
	}
	err := plan("knn=1,hybrid=1", workload.Mix{workload.Search: 1}).Validate()
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Flag != "queries" || !strings.Contains(err.Error(), "hybridless cannot run hybrid queries (hybrid): no fusion") {
		t.Fatalf("error %v; want the --queries refusal naming the kind", err)
	}
	if err := plan("knn=1,sku=1", workload.Mix{workload.Search: 1}).Validate(); err != nil {
		t.Fatalf("kinds it answers: %v", err)
	}
	// A mix that never searches asks no query.
	if err := plan("hybrid=1", workload.Mix{workload.Upsert: 1}).Validate(); err != nil {
		t.Fatalf("an upsert-only mix: %v", err)
	}
}

// BenchmarkExactTruth is what a run computes before its first engine: the
// exact answers of checks.DefaultExactQueries sample queries (the default mix's
// kNN and SKU kinds) at Study B's scale, 95,000 pre-populated products of
// 1,024 dimensions generated as they are read, k=10 (depth 60). Run with
// -benchtime 1x; the run's own figure is in result.json's ground_truth.
func BenchmarkExactTruth(b *testing.B) {
	src, err := product.New(dataset.Config{Seed: 1, IDs: 100_000, Prepopulate: 0.95}, dataset.ProductDim, dataset.QueryMix{})
	if err != nil {
		b.Fatal(err)
	}
	var tr *corpus.Truth
	for b.Loop() {
		tr = runnertest.Truth(b, src, checks.DefaultExactQueries, 10)
	}
	b.ReportMetric(float64(tr.Cost.Bytes)/1e6, "MB-allocated")
	b.ReportMetric(float64(tr.Cost.Documents), "docs")
}

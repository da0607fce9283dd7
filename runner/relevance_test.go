package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/bleve"
)

func openBleve(t *testing.T, src corpus.Source) engines.Engine {
	t.Helper()
	ctx := context.Background()
	e, err := engines.Open(ctx, "bleve", engines.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	return e
}

// A real engine answers name-word checks with the named document.
func TestRelevanceOnARealEngine(t *testing.T) {
	src := runnertest.Text(t, 3000, 0.95)
	e := openBleve(t, src)
	if _, err := Prepopulate(context.Background(), e, src, loops.DefaultTimeout, nil); err != nil {
		t.Fatal(err)
	}
	rel := checks.CheckRelevance(context.Background(), e, src, 100, workload.Ask{K: 10}, 5*time.Second)
	if rel == nil || rel.Queries != 100 || rel.Recall < 0.95 || rel.ByKind["name words"].Found != rel.Found {
		t.Fatalf("relevance %+v; want recall@10 ≥ 0.95 over 100 name-word checks", rel)
	}
}

// An engine that answers with the wrong documents has low recall, and the
// result names the misses; kinds an engine cannot run are counted apart.
func TestRelevanceCatchesWrongAnswers(t *testing.T) {
	src := runnertest.Text(t, 500, 1)
	rel := checks.CheckRelevance(context.Background(), runnertest.NewMem(), src, 20, workload.Ask{K: 10}, time.Second)
	if rel.Recall != 0 || rel.Queries != 20 || len(rel.Misses) != 5 || !strings.Contains(rel.Misses[0], "not in the top 10") {
		t.Fatalf("relevance %+v; want recall 0 and the misses named", rel)
	}
	p, err := dataset.NewProducts(dataset.Config{Seed: 1, IDs: 300, Prepopulate: 1}, 8, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	products := product.Products{Products: p}
	e := openBleve(t, src) // a text-only engine: neither SKU field lookups nor KNN
	rel = checks.CheckRelevance(context.Background(), e, products, 10, workload.Ask{K: 10}, time.Second)
	if rel.Queries != 0 || rel.ByKind["sku"].Unsupported != 5 || rel.ByKind["knn self"].Unsupported != 5 {
		t.Fatalf("relevance %+v; want every check counted as unsupported", rel)
	}
}

// With nothing pre-populated there is no known item to look for.
func TestRelevanceWithoutDocuments(t *testing.T) {
	if rel := checks.CheckRelevance(context.Background(), runnertest.NewMem(), runnertest.Text(t, 100, 0), 10, workload.Ask{K: 10}, time.Second); rel != nil {
		t.Errorf("relevance %+v on an empty corpus; want none", rel)
	}
}

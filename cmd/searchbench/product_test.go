package main

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// The product workload live on PostgreSQL + pgvector: every query kind
// (kNN with and without filters, SKU lookups, hybrid) under the mixed
// workload's writes, the searches' latency split by kind, and recall@10
// against the exact answers idle and under load.
func TestProductWorkloadOnPostgres(t *testing.T) {
	needPostgres(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--engine", "postgres", "--corpus", "product", "--dim", "32",
		"--ids", "3000", "--queries", "knn=3,knn-category=2,knn-price=2,sku=2,hybrid=1", "--users", "4", "--known-items", "0.2",
		"--run-name", runName(dir), "--spawn-rate", "1000", "--settle", "200ms", "--measure", "3s", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := readResult(t, dir)
	if r.Corpus.Queries != "knn=3,knn-category=2,knn-price=2,sku=2,hybrid=1" {
		t.Errorf("corpus queries %q", r.Corpus.Queries)
	}
	if g := r.GroundTruth; g == nil || g.Queries != 100 || g.Documents != r.Corpus.Prepopulated || g.Dim != 32 || g.Seconds <= 0 {
		t.Fatalf("ground truth %+v", g)
	}
	e := r.Engines[0]
	if e.Relevance == nil || len(e.Relevance.Exact) != 4 {
		t.Fatalf("idle relevance %+v; want recall against exact answers for knn, knn-category, knn-price and sku", e.Relevance)
	}
	for _, x := range e.Relevance.Exact {
		if x.Checks == 0 || x.Recall < 0.9 || (x.Kind == "sku" && x.Recall != 1) {
			t.Errorf("idle %s: %+v; want recall@10 ≥ 0.9 (1 for SKUs)", x.Kind, x)
		}
		t.Logf("idle %s: recall@10 %.3f (%d of %d)", x.Kind, x.Recall, x.Found, x.Expected)
	}
	l := e.Levels[0]
	s, _ := l.Op("search")
	var kinds []string
	for _, k := range s.Kinds {
		kinds = append(kinds, k.Kind)
		if k.Count == 0 || k.Latency.P50 <= 0 || len(k.Errors) > 0 {
			t.Errorf("kind %s: %+v; want calls, latencies and no errors", k.Kind, k)
		}
		t.Logf("%s: %d calls, p50 %.2f ms, p99 %.2f ms", k.Kind, k.Count, k.Latency.P50, k.Latency.P99)
	}
	if !slices.Equal(kinds, []string{"knn", "knn-category", "knn-price", "sku", "hybrid"}) {
		t.Errorf("kinds %v; want every kind of the mix", kinds)
	}
	if l.KnownItems == nil || len(l.KnownItems.Exact) == 0 {
		t.Fatalf("known items %+v; want checks against exact answers under load", l.KnownItems)
	}
	for _, x := range l.KnownItems.Exact {
		if x.Checks > 0 && x.Recall < 0.8 {
			t.Errorf("under load %s: %+v", x.Kind, x)
		}
		t.Logf("under load %s: recall@10 %.3f (%d of %d, %d checks, %d skipped)", x.Kind, x.Recall, x.Found, x.Expected, x.Checks, x.Skipped)
	}
	if !strings.Contains(stderr, "exact answers of 100 sample queries") {
		t.Errorf("the log does not state the ground truth's cost:\n%s", stderr)
	}
	for _, want := range []string{"latency by query kind", "Recall against exact answers", "query mix (weights)", "exact answers (ground truth)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the tables lack %q:\n%s", want, stdout)
		}
	}
}

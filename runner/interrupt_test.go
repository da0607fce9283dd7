package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/workload/corpus"
)

// The exact answers read every pre-populated document against every sample
// query (83 s for 10,000 queries of 2,048 dimensions): an ended context ends
// them with its error and no sample; the run reports no figure against a
// truth computed over part of the corpus.
func TestExactTruthStopsWhenTheContextEnds(t *testing.T) {
	src := runnertest.Products(t, 3000, "knn=1,sku=1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tr, err := corpus.NewTruth(ctx, src, 60, 10); tr != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("after the context ended: sample %v, error %v; want none and context.Canceled", tr != nil, err)
	}
	if tr := runnertest.Truth(t, src, 60, 10); tr == nil || len(tr.Queries) != 60 {
		t.Errorf("not interrupted: %+v; want the 60 queries", tr)
	}
}

// A step after the interrupt (a shard's result to the coordinator) outlives
// the run's context, and ends when its cleanup context does (a second
// Ctrl-C), not its own timeout later.
func TestAfterEndEndsWithTheCleanup(t *testing.T) {
	run, interrupt := context.WithCancel(context.Background())
	cleanup, again := context.WithCancel(context.Background())
	interrupt()
	ctx, cancel := afterEnd(WithCleanup(run, cleanup), time.Hour)
	defer cancel()
	plain, cancelPlain := afterEnd(run, time.Hour)
	defer cancelPlain()
	if ctx.Err() != nil || plain.Err() != nil {
		t.Fatalf("after the interrupt: %v, %v; want both live", ctx.Err(), plain.Err())
	}
	again()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the step outlived its cleanup context")
	}
	if plain.Err() != nil {
		t.Errorf("without a cleanup context the step ended (%v) before its timeout", plain.Err())
	}
}

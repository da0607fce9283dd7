package runner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
)

// Pre-population against a target that does not answer (stopped with
// SIGSTOP): each call ends at the request timeout and fails, class timeout,
// and the setup fails saying so, instead of waiting for the target.
func TestPrepopulateCallsEndAtTheTimeout(t *testing.T) {
	url := uniqueURL(t)
	frozen := &sharedEngine{Mem: runnertest.NewMem(), written: map[string]int{}}
	// Every call waits this long, or until its context ends: far beyond
	// the run's timeout, so the run must not wait for it.
	frozen.Delay = 10 * time.Second
	sharedMu.Lock()
	sharedEngines[url] = frozen
	sharedMu.Unlock()
	const timeout = 50 * time.Millisecond
	plan := Plan{
		Source: runnertest.Text(t, 400, 0.5),
		Setups: []Setup{{Driver: "sharedmem", Config: engines.Config{URL: url}}},
		Closed: &loops.Config{Users: []int{2}, SpawnRate: 100, Measure: 100 * time.Millisecond,
			Calls: loops.Calls{Timeout: timeout, Mix: workload.DefaultMix, Seed: 1, K: 10}},
	}
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	er := res.Engines[0]
	n := plan.Source.PrepopulatedCount()
	// The first failure stops the load: at most the calls already in
	// flight then fail (each at the timeout), the rest are not tried.
	failed := int(er.Preload.Errors)
	want := fmt.Sprintf("pre-population: %d of %d documents failed (timeout %d; a call ends at the request timeout, %v); stopped there, 0 loaded, %d not tried; first: context deadline exceeded",
		failed, n, failed, timeout, n-failed)
	if failed < 1 || failed > preloadWriters || er.Error != want || len(er.Levels) != 0 || !res.Partial {
		t.Fatalf("setup error %q, %d documents failed, %d levels, partial %v; want %q, 1 to %d failed (the calls in flight), no level, partial",
			er.Error, failed, len(er.Levels), res.Partial, want, preloadWriters)
	}
}

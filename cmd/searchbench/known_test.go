package main

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// Both loops check known items under load on the embedded engine, whose
// answers are right: recall under load beside the idle recall in the
// tables and the result, no warning; 0 turns the checks off.
func TestKnownItemsOnTheEmbeddedEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), quick(dir, "--known-items", "0.3")...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, row := range []string{"| recall@10 idle (known items)", "| recall@10 under load (checks)", "| checks empty, total < hits"} {
		if !strings.Contains(stdout, row) {
			t.Errorf("tables lack %q:\n%s", row, stdout)
		}
	}
	for _, l := range readResult(t, dir).Engines[0].Levels {
		k := l.KnownItems
		if k == nil || k.Checks == 0 || k.Recall < 0.9 || k.IdleChecks == 0 || k.Fraction != 0.3 {
			t.Errorf("%d users: known items %+v; want checks at recall ≥ 0.9 beside the idle recall", l.Users, k)
		}
		for _, w := range l.Warnings {
			if w.Kind == result.WarningKnownItems {
				t.Errorf("%d users: %q from a correct engine", l.Users, w)
			}
		}
	}

	dir = t.TempDir()
	code, stdout, stderr = runCLI(t, context.Background(), "ladder", "--ids", "2000", "--start", "100", "--step", "2",
		"--stop", "200", "--duration", "500ms", "--repeat", "1", "--workers", "8", "--known-items", "0.3", "--out", dir)
	if code != exitOK {
		t.Fatalf("ladder: exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "recall under load (checks)") || !strings.Contains(stdout, "Recall@10 idle, after pre-population") {
		t.Errorf("ladder output lacks recall under load:\n%s", stdout)
	}
	for _, r := range readResult(t, dir).Engines[0].Ladder.Rungs {
		if k := r.KnownItems; k == nil || k.Checks == 0 || k.Recall < 0.9 {
			t.Errorf("rung %v/s: known items %+v", r.Offered, k)
		}
	}

	dir = t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), quick(dir, "--known-items", "0")...); code != exitOK {
		t.Fatalf("--known-items 0: exit %d; stderr:\n%s", code, stderr)
	}
	for _, l := range readResult(t, dir).Engines[0].Levels {
		if l.KnownItems != nil {
			t.Errorf("%d users: known items %+v with --known-items 0", l.Users, l.KnownItems)
		}
	}
}

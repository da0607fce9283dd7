package report

import (
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

func level(users int, searchP50 float64, rps float64) result.Level {
	return result.Level{Users: users, TotalRPS: rps * 1.25, Ops: []result.OpStats{
		{Op: "search", Count: 100, RPS: rps, Latency: result.Latency{P50: searchP50, P95: searchP50 * 3, P99: searchP50 * 5}},
		{Op: "upsert", Count: 20, RPS: rps / 4, Latency: result.Latency{P50: 1234.4, P95: 2000}, Errors: map[string]int64{"timeout": 2, "overloaded": 5}, Writes: true},
		{Op: "delete", Count: 0, Writes: true, NotFoundDone: true},
	}}
}

func TestTablesFollowThePublishedLayout(t *testing.T) {
	t.Parallel()
	runs := []result.EngineRun{
		{Label: "alpha", Levels: []result.Level{level(10, 3.14159, 31.9), level(100, 12.3456, 300)}},
		{Label: "beta", Levels: []result.Level{level(10, 0.1234, 33.1)}},
	}
	var b strings.Builder
	if err := Tables(&b, runs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	ten, hundred, _ := strings.Cut(out, "### 100 users")
	if !strings.HasPrefix(ten, "### 10 users") {
		t.Fatalf("levels not in ascending order:\n%s", out)
	}
	// Published row order, first table of the level.
	want := []string{"search p50 (ms)", "upsert p50 (ms)", "delete p50 (ms)", "search p95 (ms)", "upsert p95 (ms)",
		"delete p95 (ms)", "search RPS", "upsert RPS", "delete RPS", "Total RPS"}
	var rows []string
	for _, line := range strings.Split(ten, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "|  ") && !strings.HasPrefix(line, "| -") {
			rows = append(rows, strings.TrimSpace(strings.Split(line, "|")[1]))
		}
	}
	if len(rows) < len(want) || strings.Join(rows[:len(want)], ",") != strings.Join(want, ",") {
		t.Fatalf("rows %q; want %q first", rows, want)
	}
	for _, cell := range []string{"| alpha |", "beta |", "3.14", "0.123", "1234", "5 overloaded, 2 timeout", "31.9", "39.9"} {
		if !strings.Contains(ten, cell) {
			t.Errorf("10-user tables lack %q:\n%s", cell, ten)
		}
	}
	// A delete that never succeeded has no latency, not a zero one.
	if _, row, _ := strings.Cut(ten, "| delete p50 (ms)"); strings.Count(strings.SplitN(row, "\n", 2)[0], "—") != 2 {
		t.Errorf("missing latency not shown as —:\n%s", ten)
	}
	if strings.Contains(hundred, "beta") || !strings.Contains(hundred, "12.3") {
		t.Errorf("100-user table should hold alpha only:\n%s", hundred)
	}
}

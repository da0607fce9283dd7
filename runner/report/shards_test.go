package report

import (
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// mergedSample is sampleResult run as shards 0 and 1 of 3 (shard 2
// missing), merged.
func mergedSample(t *testing.T) *result.Result {
	t.Helper()
	var shards []*result.Result
	for i := range 2 {
		r := sampleResult(t)
		r.Host.Hostname = []string{"gen-a", "gen-b"}[i]
		r.Shard = &result.Shard{Index: i, Count: 3, Coordinator: "10.0.0.1:7000", Starts: []result.ShardStart{
			{Phase: "alpha users=10", Offset: result.Duration(-3 * time.Millisecond * time.Duration(i+1)), RTT: result.Duration(400 * time.Microsecond), Late: result.Duration(120 * time.Microsecond)},
			{Phase: "alpha users=100", Offset: result.Duration(time.Millisecond), RTT: result.Duration(250 * time.Microsecond), Late: result.Duration(2 * time.Millisecond)},
		}}
		shards = append(shards, r)
	}
	m, err := result.Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMergedRunSaysItCameFromShards(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "merged.json", Result: mergedSample(t)})
	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.HasPrefix(out, "# searchbench results: one run merged from 3 shards (1 missing)\n") {
		t.Errorf("heading: %q", strings.SplitN(out, "\n", 2)[0])
	}
	_, shards, ok := strings.Cut(out, "## Shards\n")
	if !ok {
		t.Fatalf("no shards section:\n%s", out)
	}
	shards, _, _ = strings.Cut(shards, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(shards, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 {
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	// Shard 0: its own alpha RPS at 10 users with its users in brackets,
	// the largest |offset| (3 ms), RTT (0.4 ms) and lateness (2 ms).
	alpha10 := sampleResult(t).Engines[0].Levels[0]
	for _, cell := range []string{"gen-a", rps(alpha10.TotalRPS) + " (10)", " 3.00 |", " 0.400 |", " 2.00 |", "complete"} {
		if !strings.Contains(rows["0"], cell) {
			t.Errorf("shard 0's row lacks %q: %s", cell, rows["0"])
		}
	}
	if !strings.Contains(rows["1"], " 6.00 |") || !strings.Contains(rows["1"], "gen-b") {
		t.Errorf("shard 1's row: %s", rows["1"])
	}
	if !strings.Contains(rows["2"], "missing") || strings.Contains(rows["2"], "gen-") {
		t.Errorf("shard 2's row should say missing: %s", rows["2"])
	}
	for _, head := range []string{"alpha 20 users: RPS", "beta 1000 users: RPS", "gamma 2000/s: achieved", "max abs(offset) (ms)", "max RTT (ms)", "max late (ms)"} {
		if !strings.Contains(shards, head) {
			t.Errorf("shards table lacks the column %q:\n%s", head, shards)
		}
	}
	if !strings.Contains(shards, "> warning (shard 2): missing") {
		t.Errorf("the missing shard is not warned about:\n%s", shards)
	}
	if !strings.Contains(out, "one run merged from 3 shards (1 missing); partial: missing shard(s) 2 of 3") {
		t.Errorf("the runs table does not say what the run is:\n%s", out)
	}

	var page strings.Builder
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{"<h1>searchbench results: one run merged from 3 shards (1 missing)</h1>", "<h2>Shards</h2>", "<td>missing</td>", "<td>gen-b</td>", "<th>max abs(offset) (ms)</th>"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestOneShardsResultSaysWhichShard(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	r.Shard = &result.Shard{Index: 1, Count: 3}
	var md strings.Builder
	if err := New(Input{Name: "shard1.json", Result: r}).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# searchbench results: shard 1 of 3\n") || strings.Contains(md.String(), "## Shards") {
		t.Errorf("heading: %q", strings.SplitN(md.String(), "\n", 2)[0])
	}
	md.Reset()
	if err := New(Input{Name: "one.json", Result: sampleResult(t)}).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# searchbench results\n") || strings.Contains(md.String(), "shard") {
		t.Errorf("a one-machine run mentions shards: %q", strings.SplitN(md.String(), "\n", 2)[0])
	}
}

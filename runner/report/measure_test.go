package report

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// interruptedShards is a 12 s level of 30 users run as three shards, of
// which shard 1 was interrupted 3.937 s into its window, merged.
func interruptedShards(t *testing.T) *result.Result {
	t.Helper()
	var shards []*result.Result
	for i := range 3 {
		window := 12 * time.Second
		if i == 1 {
			window = 3937 * time.Millisecond
		}
		r := sampleResult(t)
		r.Engines = r.Engines[:1]
		l := sampleLevel(t, 10, int(1000*window.Seconds()), 2, uint64(i+1))
		// Each shard's calls over its own window, as the runner writes them.
		l.Window, l.TotalRPS = result.Duration(window), 0
		for k := range l.Ops {
			l.Ops[k].RPS = float64(l.Ops[k].Count) / window.Seconds()
			l.TotalRPS += l.Ops[k].RPS
		}
		l.Active = &result.ActiveUsers{Mean: 10, Min: 10, Ramp: result.Duration(90 * time.Millisecond)}
		if i == 1 {
			l.Partial = true
			l.Warnings = result.Notes("interrupted after 3.937s of the 12s window: the window is shorter than configured")
			r.Partial, r.Reason = true, "interrupted"
		}
		r.Engines[0].Levels = []result.Level{l}
		r.Config.Users, r.Config.Measure = []int{30}, result.Duration(12*time.Second)
		r.Shard = &result.Shard{Index: i, Count: 3, Coordinator: "10.0.0.1:7000"}
		shards = append(shards, r)
	}
	m, err := result.Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A merged level one of whose shards stopped early: the tables (Markdown
// and HTML alike) say which shard stopped when, and not that the whole
// level measured only the short window; the shard's own column says it;
// and compare's rate intervals are around the rates, each shard's calls
// over its own window.
func TestMergedLevelNamesTheShardThatStopped(t *testing.T) {
	t.Parallel()
	m := interruptedShards(t)
	l := m.Engines[0].Levels[0]
	want := []result.ShardWindow{{Shard: 0, Window: result.Duration(12 * time.Second)},
		{Shard: 1, Window: result.Duration(3937 * time.Millisecond), Partial: true}, {Shard: 2, Window: result.Duration(12 * time.Second)}}
	if fmt.Sprint(l.ShardWindows) != fmt.Sprint(want) || !l.Partial {
		t.Fatalf("shard windows %v, partial %v; want %v", l.ShardWindows, l.Partial, want)
	}
	rep := New(Input{Name: "merged.json", Result: m})
	var md, page strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	const stopped = "partial level: shard 1 stopped after 3.937s; shard(s) 0, 2 measured for 12s; each shard's rates are its calls over its own window"
	for name, out := range map[string]string{"markdown": md.String(), "html": html.UnescapeString(page.String())} {
		if !strings.Contains(out, stopped) || strings.Contains(out, "measured for 3.937s only") {
			t.Errorf("%s: want %q, and no claim that the level measured 3.937s only:\n%s", name, stopped, out)
		}
		if !strings.Contains(out, "shard 1: interrupted after 3.937s of the 12s window") {
			t.Errorf("%s: the shard's own warning is missing", name)
		}
	}
	_, shards, _ := strings.Cut(md.String(), "## Shards\n")
	rows := map[string]string{}
	for _, line := range strings.Split(shards, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 {
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	if !strings.Contains(rows["1"], "⚠ stopped after 3.937s") || strings.Contains(rows["0"]+rows["2"], "stopped") {
		t.Errorf("shard rows do not say shard 1 alone stopped:\n%s\n%s\n%s", rows["0"], rows["1"], rows["2"])
	}

	var total int64
	for _, o := range l.Ops {
		total += o.Count
	}
	figs := map[figureKey]estimate{}
	if err := runFigures(m.Engines[0], func(k figureKey, e estimate) { figs[k] = e }); err != nil {
		t.Fatal(err)
	}
	for _, k := range []figureKey{{"alpha", "30 users", "all", "total_rps"}, {"alpha", "30 users", "search", "rps"}} {
		e, ok := figs[k]
		if !ok || !(e.lo < e.v && e.v < e.hi) {
			t.Errorf("%s %s: %s; want an interval around the rate (Σ count_i/window_i)", k.op, k.metric, e)
		}
	}
	if e := figs[figureKey{"alpha", "30 users", "all", "total_rps"}]; e.v != l.TotalRPS || e.hi > 2*l.TotalRPS {
		t.Errorf("total rate %s; want %.1f/s, its interval near it, not %d calls over the 3.937s window", e, l.TotalRPS, total)
	}
}

// The users running over each level's window are in the trust rows (⚠ and
// a warning when some were not running throughout) and in the CSV; a
// result without them shows "—".
func TestActiveUsersAreShown(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	r.Engines[0].Levels[0].Active = &result.ActiveUsers{Mean: 10, Min: 10, Ramp: result.Duration(90 * time.Millisecond)}
	r.Engines[1].Levels[0].Active = &result.ActiveUsers{Mean: 7.46, Min: 3, Ramp: result.Duration(4 * time.Second)}
	rep := New(Input{Name: "r.json", Result: r})
	var md, csv strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	out := squash(md.String())
	ten, hundred, _ := strings.Cut(out, "### 100 users")
	_, ten, _ = strings.Cut(ten, "### 10 users")
	if !strings.Contains(ten, "| users running mean (min) | 10 (10) | 7.5 (3) ⚠ |") {
		t.Errorf("10-user tables lack the active users row:\n%s", ten)
	}
	if !strings.Contains(ten, "warning (beta, 10 users): only 3 of the 10 users were running at some point in the window (7.5 on average)") {
		t.Errorf("10-user tables lack the warning:\n%s", ten)
	}
	if !strings.Contains(hundred, "| users running mean (min) | — | — |") {
		t.Errorf("levels without the figures do not show —:\n%s", hundred)
	}
	for _, line := range []string{"beta,beta,10,,,all,active_users.mean,7.46", "beta,beta,10,,,all,active_users.min,3", "beta,beta,10,,,all,active_users.ramp_s,4"} {
		if !strings.Contains(csv.String(), line) {
			t.Errorf("CSV lacks %q", line)
		}
	}
}

// squash makes runs of spaces one, so that table rows read whatever the
// columns' widths.
func squash(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }

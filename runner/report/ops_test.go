package report

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// withGets is the sample result with a get in every closed-loop level:
// 37 of each level's gets found no document.
func withGets(t *testing.T) *result.Result {
	r := sampleResult(t)
	for i := range r.Engines {
		for j := range r.Engines[i].Levels {
			l := &r.Engines[i].Levels[j]
			get := sampleOp(t, "get", 500*(j+1), 0.5+float64(i), uint64(40+i+j), time.Duration(l.Window))
			get.NotFound = 37
			l.Ops = append(l.Ops, get)
			l.TotalRPS += get.RPS
		}
	}
	return r
}

// rowLabels is the first cell of every table row in md.
func rowLabels(md string) []string {
	var rows []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "|  ") && !strings.HasPrefix(line, "| -") {
			rows = append(rows, strings.TrimSpace(strings.Split(line, "|")[1]))
		}
	}
	return rows
}

// A result with gets shows them everywhere the other operations show,
// after them in table order, with no code that names get.
func TestGetIsRenderedEverywhere(t *testing.T) {
	t.Parallel()
	r := withGets(t)
	rep := New(Input{Name: "r.json", Result: r})

	var tables strings.Builder
	if err := Tables(&tables, rep.EngineRuns()); err != nil {
		t.Fatal(err)
	}
	ten, _, _ := strings.Cut(tables.String(), "### 100 users")
	rows := rowLabels(ten)
	want := []string{"search p50 (ms)", "upsert p50 (ms)", "delete p50 (ms)", "get p50 (ms)", "search p95 (ms)",
		"upsert p95 (ms)", "delete p95 (ms)", "get p95 (ms)", "search RPS", "upsert RPS", "delete RPS", "get RPS", "Total RPS"}
	if len(rows) < len(want) || !slices.Equal(rows[:len(want)], want) {
		t.Fatalf("rows %q; want %q first", rows, want)
	}
	for _, row := range []string{"get p99 (ms)", "get count", "get errors", "delete not found", "get not found"} {
		if !slices.Contains(rows, row) {
			t.Errorf("no row %q among %q", row, rows)
		}
	}
	if slices.Contains(rows, "search not found") || slices.Contains(rows, "upsert not found") {
		t.Errorf("a not-found row for an operation whose misses are errors: %q", rows)
	}
	if _, row, _ := strings.Cut(ten, "| get not found"); strings.Count(strings.SplitN(row, "\n", 2)[0], " 37 |") != 2 {
		t.Errorf("get not found row does not show 37 for both engines:\n%s", ten)
	}

	var summary strings.Builder
	if err := Summary(&summary, rep.EngineRuns()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary.String(), "| 10    |       get |") {
		t.Errorf("summary has no get row:\n%s", summary.String())
	}

	var out strings.Builder
	if err := rep.CSV(&out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs {
		if rec[2] == "alpha" && rec[4] == "10" && rec[7] == "get" {
			got = append(got, rec[8]+"="+rec[9])
		}
	}
	if !slices.Contains(got, "not_found=37") || !slices.Contains(got, "count=500") || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "p50_ms=") }) {
		t.Errorf("CSV get figures of alpha at 10 users: %q", got)
	}

	charts := map[string]Chart{}
	for _, c := range rep.Charts() {
		charts[c.Name] = c
	}
	for _, name := range []string{"latency-get", "latency-get-zoom"} {
		c, ok := charts[name]
		if !ok {
			t.Fatalf("no chart %s", name)
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(parseSVG(t, svg).texts, "|")
		for _, s := range []string{"get latency by users", "alpha p50", "beta p95"} {
			if !strings.Contains(text, s) {
				t.Errorf("%s lacks %q: %q", name, s, text)
			}
		}
	}

	cmp := compare(t, []Input{{Name: "a.json", Result: r}}, []Input{{Name: "b.json", Result: withGets(t)}})
	if row := compareRow(t, cmp, "alpha", "10 users", "get", "p50_ms"); row[7] != "noise" {
		t.Errorf("get p50 of two identical runs: %q; want noise", row)
	}
}

// A result file written before named mixes and the get operation loads in
// the current form: the mix named (so it compares equal to a new file's),
// one weight per operation, and the operations' facts filled in.
func TestOldResultIsNormalisedOnLoad(t *testing.T) {
	t.Parallel()
	in, err := Load("testdata/v1-slash-mix.json") // searchbench at 9997d7b: --mix 80/19/1, bleve
	if err != nil {
		t.Fatal(err)
	}
	c := in.Result.Config
	if c.Mix != "search=80,upsert=19,delete=1" || !slices.Equal(c.MixWeights, []float64{80, 19, 1, 0}) {
		t.Errorf("mix %q, weights %v; want the named form and four weights", c.Mix, c.MixWeights)
	}
	facts := map[string][2]bool{"search": {false, false}, "upsert": {true, false}, "delete": {true, true}}
	ops := in.Result.Engines[0].Levels[0].Ops
	for _, o := range ops {
		if got := [2]bool{o.Writes, o.NotFoundDone}; got != facts[o.Op] {
			t.Errorf("%s: writes, not-found done = %v; want %v", o.Op, got, facts[o.Op])
		}
	}
	if len(ops) != 3 {
		t.Fatalf("ops %+v; want search, upsert and delete", ops)
	}

	var tables strings.Builder
	if err := Tables(&tables, New(in).EngineRuns()); err != nil {
		t.Fatal(err)
	}
	if rows := rowLabels(tables.String()); !slices.Contains(rows, "delete not found") {
		t.Errorf("no delete not found row among %q", rows)
	}

	// A new file of the same mix writes the named form: no warning.
	b := *in.Result
	b.Config.Mix = "search=80,upsert=19,delete=1"
	if out := compare(t, []Input{in}, []Input{{Name: "new.json", Result: &b}}); strings.Contains(out, "differ in mix") {
		t.Errorf("an old and a new file of one mix compare as different mixes:\n%s", out)
	}
}

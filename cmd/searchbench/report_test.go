package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/report"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// runTwice makes two runs of the embedded engine with the same
// configuration, as a user comparing run-to-run would. They run at once,
// so that the machine's load, whatever it is, is the same for both.
func runTwice(t *testing.T) (a, b string) {
	t.Helper()
	a, b = t.TempDir(), t.TempDir()
	var wg sync.WaitGroup
	var codes [2]int
	var stderrs [2]string
	for i, dir := range []string{a, b} {
		wg.Go(func() { codes[i], _, stderrs[i] = runCLI(t, context.Background(), quick(dir)...) })
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != exitOK {
			t.Fatalf("run: exit %d\n%s", codes[i], stderrs[i])
		}
	}
	return a, b
}

func TestRunWritesEveryOutputAndReportRerendersIt(t *testing.T) {
	t.Parallel()
	a, b := runTwice(t)
	for _, name := range []string{"result.json", report.MarkdownFile, report.CSVFile, report.HTMLFile} {
		if st, err := os.Stat(filepath.Join(a, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, chart := range []string{"latency-search", "latency-search-zoom", "latency-upsert", "rps"} {
		raw, err := os.ReadFile(filepath.Join(a, report.ChartDir, chart+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Errorf("%s.png: %v", chart, err)
		}
		legend := ">bleve p50<"
		if chart == "rps" {
			legend = ">bleve<"
		}
		if svg, err := os.ReadFile(filepath.Join(a, report.ChartDir, chart+".svg")); err != nil || !bytes.Contains(svg, []byte(legend)) {
			t.Errorf("%s.svg lacks the engine's line: %v", chart, err)
		}
	}
	// The CSV's Total RPS is the result's.
	r := readResult(t, a)
	f, _ := os.Open(filepath.Join(a, report.CSVFile))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range rows {
		if row[2] == "bleve" && row[4] == "4" && row[8] == "total_rps" {
			v, _ := strconv.ParseFloat(row[9], 64)
			found = v == r.Engines[0].Levels[1].TotalRPS
		}
	}
	if !found {
		t.Errorf("figures.csv lacks bleve's 4-user total_rps %v", r.Engines[0].Levels[1].TotalRPS)
	}

	// Re-render both runs into one report: one column each, told apart.
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "report", filepath.Join(a, "result.json"), filepath.Join(b, "result.json"), "--out", out)
	if code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, "| bleve ["); n < 2 {
		t.Errorf("merged tables: %d disambiguated bleve columns:\n%s", n, stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, report.MarkdownFile))
	if string(md) != stdout {
		t.Error("tables.md is not what report printed")
	}
	html, _ := os.ReadFile(filepath.Join(out, report.HTMLFile))
	if !bytes.Contains(html, []byte("data:image/png;base64,")) || !bytes.Contains(html, []byte(filepath.Join(b, "result.json"))) {
		t.Error("report.html lacks the charts or the second run")
	}

	// Compare the two runs: every verdict follows from the intervals shown.
	code, stdout, stderr = runCLI(t, context.Background(), "compare", filepath.Join(a, "result.json"), filepath.Join(b, "result.json"))
	if code != exitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Noise: a difference is marked \"noise\" when") {
		t.Errorf("compare does not state its noise rule:\n%s", stdout)
	}
	checked, noise := 0, 0
	for _, line := range strings.Split(stdout, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 9 || strings.TrimSpace(cells[1]) != "bleve" {
			continue
		}
		loA, hiA, okA := interval(cells[5])
		loB, hiB, okB := interval(cells[6])
		v := strings.TrimSpace(cells[8])
		if !okA || !okB {
			t.Errorf("no interval in %q", line)
			continue
		}
		// The intervals are shown rounded, each bound to within half a
		// unit of its last digit (u): they surely overlap when they do
		// even narrowed by that, and surely do not when they do not even
		// widened by it; in between the shown digits cannot tell.
		u := halfUnit(cells[5]) + halfUnit(cells[6])
		surelyOverlap := hiA-u >= loB && hiB-u >= loA
		surelyApart := hiA+u < loB || hiB+u < loA
		if surelyOverlap && v != "noise" || surelyApart && v == "noise" {
			t.Errorf("verdict %q but intervals %g–%g and %g–%g: %q", v, loA, hiA, loB, hiB, line)
		}
		checked++
		if v == "noise" {
			noise++
		}
	}
	// Two levels, at least search and upsert with four figures each, and
	// Total RPS.
	if checked < 18 || noise == 0 {
		t.Errorf("%d rows checked, %d noise; want the figures of two levels and some noise between identical runs:\n%s", checked, noise, stdout)
	}
}

// interval reads "3.14 [3.05–3.22]". The cell rounds to three digits, so
// the bounds are widened by the rounding.
func interval(cell string) (lo, hi float64, ok bool) {
	_, rest, ok1 := strings.Cut(cell, "[")
	l, h, ok2 := strings.Cut(strings.TrimSuffix(strings.TrimSpace(rest), "]"), "–")
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if h == "∞" { // too few calls bound it above
		h = "+Inf"
	}
	lo, err1 := strconv.ParseFloat(l, 64)
	hi, err2 := strconv.ParseFloat(h, 64)
	return lo, hi, err1 == nil && err2 == nil
}

// halfUnit is half a unit of the last digit of the numbers in a cell
// ("41.4 [26.4–56.5]"): the most a shown bound can be off.
func halfUnit(cell string) float64 {
	_, rest, _ := strings.Cut(cell, "[")
	lo, _, _ := strings.Cut(rest, "–")
	_, frac, ok := strings.Cut(strings.TrimSpace(lo), ".")
	if !ok {
		return 0.5
	}
	return 0.5 * math.Pow(10, -float64(len(frac)))
}

func TestReportAndCompareBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notResult := filepath.Join(dir, "other.json")
	os.WriteFile(notResult, []byte(`{"name": "something else"}`), 0o644)
	notJSON := filepath.Join(dir, "notes.txt")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	otherSchema := filepath.Join(dir, "v99.json")
	os.WriteFile(otherSchema, []byte(`{"schema_version": 99, "tool": {"name": "searchbench"}}`), 0o644)
	missing := filepath.Join(dir, "missing.json")
	valid := filepath.Join(dir, "valid.json")
	if err := result.WriteFile(valid, &result.Result{SchemaVersion: result.SchemaVersion, Tool: result.Tool{Name: "searchbench"}}); err != nil {
		t.Fatal(err)
	}
	// Values no run writes: compare exited 1 on the histogram, report
	// drew the rest until a chart panicked.
	fixture, err := os.ReadFile("../../runner/report/testdata/v1-timeline.json")
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(name, old, new string) string {
		b := bytes.Replace(fixture, []byte(old), []byte(new), 1)
		if bytes.Equal(b, fixture) {
			t.Fatalf("%q is not in the fixture", old)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	badHistogram := corrupt("histogram.json", `"histogram": "SElTVEZB`, `"histogram": "!!!TVEZB`)
	negative := corrupt("negative.json", `"count": 118`, `"count": -118`)
	absurd := corrupt("absurd.json", `"p99": 148.351`, `"p99": 1.7e308`)
	// A ladder and a closed-loop run have no figure in common.
	ladder := filepath.Join(dir, "ladder.json")
	os.WriteFile(ladder, []byte(`{"schema_version": 1, "tool": {"name": "searchbench"}, "engines": [{"name": "bleve", "label": "bleve",
		"ladder": {"rungs": [{"offered_rate": 10, "p99": 2, "reps": [{"offered_rate": 10, "sent": 10, "latency_ms": {"p99": 2}}]}]}}]}`), 0o644)
	closed := filepath.Join(dir, "closed.json")
	os.WriteFile(closed, []byte(`{"schema_version": 1, "tool": {"name": "searchbench"}, "config": {"measure": "2s"}, "engines": [{"name": "bleve", "label": "bleve",
		"levels": [{"users": 2, "window": "2s", "ops": [{"op": "search", "count": 10, "rps": 5, "latency_ms": {"p99": 2}}]}]}]}`), 0o644)
	for _, args := range [][]string{
		{"compare", ladder, closed},
		{"report", badHistogram},
		{"report", absurd},
		{"compare", badHistogram, valid},
		{"compare", valid, negative},
		{"merge", negative, "--out", filepath.Join(t.TempDir(), "out")},
		{"merge", absurd, badHistogram, "--out", filepath.Join(t.TempDir(), "out")},
		{"report"},
		{"report", missing},
		{"report", notResult},
		{"report", notJSON},
		{"report", otherSchema},
		{"report", "--no-such-flag", notResult},
		{"report", "--out", "", notResult},
		{"compare"},
		{"compare", notResult},
		{"compare", missing, missing},
		{"compare", notResult, notJSON},
		{"compare", ",", ","},
		// An empty item in a side's list is a run left out, not nothing.
		{"compare", valid + ",," + valid, valid},
		{"compare", valid, valid + ","},
		{"compare", "a", "b", "c"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		if args[0] == "report" && !strings.Contains(strings.Join(args, " "), "--out") {
			args = append(args, "--out", out)
		}
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitBadInput || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: wrote %s", args, out)
		}
	}
}

// A result a Go program made through the library is one the CLI reads:
// report renders it and compare sets it beside a run of the CLI's own. The
// library sets the provenance and redacts the messages itself.
func TestLibraryResultLoadsInReportAndCompare(t *testing.T) {
	t.Parallel()
	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), runner.Plan{
		Source: src,
		Setups: []runner.Setup{{Driver: "bleve"}},
		Closed: &loops.Config{Users: []int{2, 4}, SpawnRate: 1000, Settle: 100 * time.Millisecond, Measure: 700 * time.Millisecond,
			Calls: loops.Calls{Timeout: 5 * time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10}},
		Relevance: 20,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tool.Version == "" || res.Host.CPUs == 0 || res.Corpus.Hash == "" || res.Engines[0].Relevance == nil {
		t.Errorf("provenance or checks missing: tool %+v, host %+v, corpus %+v", res.Tool, res.Host, res.Corpus)
	}
	lib := t.TempDir()
	path := filepath.Join(lib, "result.json")
	if err := result.WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "report", path, "--out", out); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if md, err := os.ReadFile(filepath.Join(out, report.MarkdownFile)); err != nil || !bytes.Contains(md, []byte("bleve")) {
		t.Errorf("tables of the library's result: %v\n%s", err, md)
	}
	cli := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), quick(cli)...); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "compare", path, filepath.Join(cli, "result.json"))
	if code != exitOK || !strings.Contains(stdout, "search") {
		t.Errorf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// An invalid plan is an error naming the field as a Go program sets it,
// and nothing starts: no result, no engine opened.
func TestLibraryRejectsAnInvalidPlan(t *testing.T) {
	t.Parallel()
	src, err := text.New(dataset.Config{Seed: 1, IDs: 100, Prepopulate: 0})
	if err != nil {
		t.Fatal(err)
	}
	calls := loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10}
	for _, c := range []struct {
		plan runner.Plan
		want string
	}{
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "bleve"}}}, "Plan.Closed: "},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "nosuch"}}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Setups[0].Driver: unknown engine"},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "bleve"}, {Driver: "bleve"}}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Setups[1].Label: \"bleve\" is listed twice"},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "bleve"}}, Closed: &loops.Config{Users: []int{0}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Closed.Users: "},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "bleve", Config: engines.Config{URL: "http://127.0.0.1:1"}}}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Setups[0].Config: bleve is embedded"},
		// Two drivers on one server, whichever setups they are.
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "meilisearch", Config: engines.Config{URL: "http://127.0.0.1:1"}}, {Driver: "typesense", Config: engines.Config{URL: "http://127.0.0.1:2", APIKey: "k"}}, {Label: "m2", Driver: "meilisearch", Config: engines.Config{URL: "http://127.0.0.1:2"}}}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Setups[2].Config.URL: one --url cannot serve both typesense and meilisearch"},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "elasticsearch", Config: engines.Config{URL: "ftp://127.0.0.1:9200"}}}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Setups[0].Config: elasticsearch: "},
		{runner.Plan{Source: src, Setups: []runner.Setup{{Driver: "postgres"}}, Launch: container.Options{CPUs: -1}, Closed: &loops.Config{Users: []int{1}, SpawnRate: 1, Measure: time.Second, Calls: calls}}, "Plan.Launch: cpus: "},
	} {
		res, err := runner.Run(context.Background(), c.plan, nil)
		if err == nil || res != nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: result %v, error %v; want one line starting %q", c.plan, res, err, c.want)
		}
	}
}

// get runs end to end on the embedded engine: a mix naming it plans, its
// calls are measured and reported with no special case; an engine without
// Getter is bad input before anything starts.
func TestGetEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Two seconds a level: a tenth of the calls are gets, and a loaded
	// machine makes few calls in quick's 700 ms (a level once had none).
	code, _, stderr := runCLI(t, context.Background(), quick(dir, "--mix", "search=70,get=10,upsert=19,delete=1", "--measure", "2s")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := readResult(t, dir)
	if r.Config.Mix != "search=70,upsert=19,delete=1,get=10" {
		t.Errorf("mix %q", r.Config.Mix)
	}
	for _, l := range r.Engines[0].Levels {
		g, ok := l.Op("get")
		if !ok || g.Count+g.NotFound == 0 || g.ErrorCount() != 0 {
			t.Errorf("%d users: get %+v", l.Users, g)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if err != nil || !bytes.Contains(md, []byte("get")) {
		t.Errorf("tables lack get: %v", err)
	}
}

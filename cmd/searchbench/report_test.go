package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/report"
)

// runTwice makes two runs of the embedded engine with the same
// configuration, as a user comparing run-to-run would.
func runTwice(t *testing.T) (a, b string) {
	t.Helper()
	a, b = t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if code, _, stderr := runCLI(t, context.Background(), quick(dir)...); code != exitOK {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
	}
	return a, b
}

func TestRunWritesEveryOutputAndReportRerendersIt(t *testing.T) {
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
		overlap := hiA >= loB && hiB >= loA
		if overlap != (v == "noise") {
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
	return lo * 0.995, hi * 1.005, err1 == nil && err2 == nil
}

func TestReportAndCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	notResult := filepath.Join(dir, "other.json")
	os.WriteFile(notResult, []byte(`{"name": "something else"}`), 0o644)
	notJSON := filepath.Join(dir, "notes.txt")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	otherSchema := filepath.Join(dir, "v99.json")
	os.WriteFile(otherSchema, []byte(`{"schema_version": 99, "tool": {"name": "searchbench"}}`), 0o644)
	missing := filepath.Join(dir, "missing.json")
	for _, args := range [][]string{
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

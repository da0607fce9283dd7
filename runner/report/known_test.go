package report

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// Recall under load shows beside the idle recall in the tables, the CSV
// and the HTML, levels and ladder rungs alike, flagged when it warns.
func TestKnownItemsAreRenderedEverywhere(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	alpha := &r.Engines[0]
	alpha.Relevance = &result.Relevance{K: 10, Queries: 100, Found: 99, Recall: 0.99}
	bad := &result.KnownItems{Fraction: 0.01, K: 10, Checks: 400, Found: 300, Recall: 0.75, Empty: 97, TotalBelowHits: 4,
		IdleRecall: 0.99, IdleChecks: 100, IdleFound: 99}
	alpha.Levels[0].KnownItems = bad
	alpha.Levels[0].Warnings = append(alpha.Levels[0].Warnings, bad.Warnings()...)
	var ladder *result.EngineRun
	for i := range r.Engines {
		if r.Engines[i].Ladder != nil {
			ladder = &r.Engines[i]
		}
	}
	ladder.Relevance = alpha.Relevance
	ladder.Ladder.Rungs[0].KnownItems = &result.KnownItems{K: 10, Checks: 250, Found: 249, Recall: 0.996, IdleRecall: 0.99, IdleChecks: 100, IdleFound: 99}
	rep := New(Input{Name: "r.json", Result: r})

	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| recall@10 under load (checks)", "0.750 (400) ⚠", "| checks empty, total < hits", "97, 4",
		"recall under load (checks)", "0.996 (250)", "Recall@10 idle, after pre-population: 0.990 (100 checks)",
		"95% Wilson interval"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	var html strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"recall@10 under load (checks)", "0.750 (400) ⚠", "0.996 (250)"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	var out strings.Builder
	if err := rep.CSV(&out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var level, rung []string
	for _, rec := range recs {
		if strings.HasPrefix(rec[8], "known_items.") {
			if rec[4] != "" {
				level = append(level, rec[4]+":"+rec[8]+"="+rec[9])
			} else if rec[5] != "" && rec[6] == "" {
				rung = append(rung, rec[8]+"="+rec[9])
			}
		}
	}
	u := "10:"
	for _, want := range []string{u + "known_items.recall=0.75", u + "known_items.idle_recall=0.99", u + "known_items.checks=400", u + "known_items.empty=97", u + "known_items.total_below_hits=4"} {
		if !slices.Contains(level, want) {
			t.Errorf("CSV level figures %q lack %q", level, want)
		}
	}
	if !slices.Contains(rung, "known_items.recall=0.996") {
		t.Errorf("CSV rung figures %q lack the recall", rung)
	}
}

package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// Messages are redacted wherever they sit in the record; names, labels and
// options are not, so the everyday password "postgres" leaves the engine's
// name alone.
func TestRedactMessagesRewritesOnlyMessages(t *testing.T) {
	run := result.EngineRun{
		Name: "postgres", Label: "postgres", Options: map[string]string{"db": "postgres"},
		Error:    "postgres: connect as postgres:postgres failed",
		Warnings: []string{"close: postgres"},
		Relevance: &result.Relevance{LastError: "postgres timeout", Misses: []string{"postgres"},
			ByKind: map[string]*result.RelevanceKind{"name": {Queries: 1}}},
		Levels: []result.Level{{Warnings: []string{"x postgres"}, Ops: []result.OpStats{{Op: "search",
			ErrorExamples: map[string][]string{"other": {"postgres said no"}}}}}},
		Ladder: &result.Ladder{Rungs: []result.Rung{{Reps: []result.Rep{{Warnings: []string{"rep postgres"}}}}}},
	}
	RedactMessages(&run, []string{"", "postgres"})
	if run.Name != "postgres" || run.Label != "postgres" || run.Options["db"] != "postgres" {
		t.Errorf("names or options rewritten: %q %q %v", run.Name, run.Label, run.Options)
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "postgres"); n != 3 {
		t.Errorf("%d occurrences of the secret left; want the 3 of name, label and option:\n%s", n, b)
	}
	if got := run.Levels[0].Ops[0].ErrorExamples["other"][0]; got != "[redacted] said no" {
		t.Errorf("error example %q", got)
	}
}

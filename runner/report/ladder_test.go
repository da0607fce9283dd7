package report

import (
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

func TestLaddersTableAndStepWarning(t *testing.T) {
	t.Parallel()
	mk := func(label string, sustainable float64) result.EngineRun {
		return result.EngineRun{Label: label, Ladder: &result.Ladder{
			Arrival: "constant", Workers: 384, Step: 1.19, Repeat: 3, Reference: 2000, Rule: "the rule",
			Sustainable: sustainable,
			Rungs: []result.Rung{
				{Offered: 2000, Achieved: 2000, P50: 1.1, P99: 2.18, QueueDepth: -1, Sustainable: true},
				{Offered: 2380, Achieved: 2379, P50: 1.2, P99: 2.5, QueueDepth: 4, Sustainable: true},
			},
		}}
	}
	var b strings.Builder
	if err := Ladders(&b, []result.EngineRun{mk("one index", 32000), mk("+50 idle", 30000), mk("vector", 2828)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"| one index |", "32000", "2.18", "Sustainable rate: 32000/s. Rule: the rule.", "| 2380 ", "|     4 |",
		"one index and +50 idle differ by ×1.067, within one ladder step"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "and vector differ") {
		t.Errorf("a difference of more than one step was flagged:\n%s", out)
	}
}

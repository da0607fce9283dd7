package result

import (
	"encoding/json"
	"slices"
	"testing"
)

// A warning is its text in result.json, as warnings always were, and
// reading that text back gives the same kind, scope and text.
func TestWarningJSONRoundTrips(t *testing.T) {
	for _, c := range []struct {
		w    Warning
		text string
	}{
		{Note("interrupted after 3s of the 12s window"), "interrupted after 3s of the 12s window"},
		{Warn(WarningKnownItems, "%d answers reported a total smaller than the hits they returned", 3), "known items: 3 answers reported a total smaller than the hits they returned"},
		{Warn(WarningClientBound, "the searchbench process used 97%% of its CPUs"), "client-bound: the searchbench process used 97% of its CPUs"},
		{Warn(WarningClientBound, "x").In("rep 2"), "rep 2: client-bound: x"},
		{Warn(WarningKnownItems, "y").In("rep 1").In("shard 3"), "shard 3: rep 1: known items: y"},
		{Note("timeline: no intervals").In("shard 0"), "shard 0: timeline: no intervals"},
	} {
		if got := c.w.String(); got != c.text {
			t.Errorf("%+v: %q; want %q", c.w, got, c.text)
		}
		b, err := json.Marshal(Level{Warnings: Warnings{c.w}})
		if err != nil {
			t.Fatal(err)
		}
		var raw struct{ Warnings []string }
		if err := json.Unmarshal(b, &raw); err != nil || !slices.Equal(raw.Warnings, []string{c.text}) {
			t.Errorf("%+v in result.json: %s; want the text as a string", c.w, b)
		}
		var back Level
		if err := json.Unmarshal(b, &back); err != nil || len(back.Warnings) != 1 || back.Warnings[0] != c.w {
			t.Errorf("%s read back as %+v (%v); want %+v", b, back.Warnings, err, c.w)
		}
	}
}

// Readers act on a warning's kind: the merge drops the known-item ones, a
// level is client-bound by its own warning (a shard's, lifted into a
// merged level, does not make it so, as before).
func TestWarningsFilteredByKind(t *testing.T) {
	ws := Warnings{
		Warn(WarningKnownItems, "recall@10 under load 0.5"),
		Note("ramp overran"),
		Warn(WarningClientBound, "x").In("shard 1"),
		Warn(WarningKnownItems, "3 answers").In("rep 1"),
	}
	if got := ws.Without(WarningKnownItems).Texts(); !slices.Equal(got, []string{"ramp overran", "shard 1: client-bound: x"}) {
		t.Errorf("without known items: %q", got)
	}
	if len(ws) != 4 {
		t.Errorf("Without changed its receiver: %q", ws.Texts())
	}
	if (Level{Warnings: ws}).ClientBound() {
		t.Error("a shard's client-bound warning made the level client-bound")
	}
	if !(Level{Warnings: append(ws, Warn(WarningClientBound, "y"))}).ClientBound() {
		t.Error("the level's own client-bound warning did not mark it")
	}
	// Text that merely mentions a label is of no kind.
	if w := ParseWarning("search: client-bound: no"); w.Kind != WarningOther || w.Scope != "" {
		t.Errorf("parsed %+v", w)
	}
}

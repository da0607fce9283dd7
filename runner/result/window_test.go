package result

import (
	"encoding/json"
	"testing"
)

// Every window reads back from its text, in JSON too, and the text is the
// one the log, result.json's start names and the page have always shown.
func TestWindowTextRoundTrips(t *testing.T) {
	for _, c := range []struct {
		w    Window
		text string
	}{
		{Window{}, ""},
		{LevelWindow(0, 50), "level 1 users=50"},
		{LevelWindow(11, 3), "level 12 users=3"},
		{RungWindow(2), "rung 3"},
		{RepWindow(2, 0), "rung 3 rep 1"},
		{RepWindow(9, 14), "rung 10 rep 15"},
		{LadderWindow, "ladder"},
		{PreparedWindow, "prepared"},
		{AttachedWindow, "attached"},
		{LevelWindow(0, 50).InPoint(1, 40), "point 2 value=40 level 1 users=50"},
		{RepWindow(2, 0).InPoint(0, 0), "point 1 value=0 rung 3 rep 1"},
		{PointWindow(4, 320), "point 5 value=320"},
	} {
		if got := c.w.String(); got != c.text {
			t.Errorf("%+v: %q; want %q", c.w, got, c.text)
		}
		back, err := ParseWindow(c.text)
		if err != nil || back != c.w {
			t.Errorf("ParseWindow(%q) = %+v, %v; want %+v", c.text, back, err, c.w)
		}
		b, err := json.Marshal(struct {
			W Window `json:"w"`
		}{c.w})
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			W Window `json:"w"`
		}
		if err := json.Unmarshal(b, &v); err != nil || v.W != c.w {
			t.Errorf("%s: read back %+v, %v", b, v.W, err)
		}
	}
	// The interval log's tags, as they always were.
	if a, b := LevelWindow(1, 50).Tag(), RepWindow(2, 0).Tag(); a != "level2-users=50" || b != "rung3-rep1" {
		t.Errorf("tags %q, %q", a, b)
	}
	if a, b := LevelWindow(1, 50).InPoint(1, 40).Tag(), PointWindow(0, 10).Tag(); a != "point2-value=40-level2-users=50" || b != "point1-value=10" {
		t.Errorf("sweep tags %q, %q", a, b)
	}
	// A sweep point's level is another key than the same level elsewhere.
	if LevelWindow(0, 5).InPoint(0, 10) == LevelWindow(0, 5).InPoint(1, 20) || LevelWindow(0, 5).InPoint(0, 10) == LevelWindow(0, 5) {
		t.Error("sweep points' levels share a key")
	}
	// Windows are map keys: two made alike are one key, different ones two.
	m := map[Window]int{LevelWindow(0, 5): 1}
	m[LevelWindow(0, 5)]++
	m[LevelWindow(0, 6)]++
	if len(m) != 2 || m[LevelWindow(0, 5)] != 2 {
		t.Errorf("keys %v", m)
	}
}

func TestParseWindowRefusesOtherText(t *testing.T) {
	for _, s := range []string{"level", "level 0 users=5", "level 1 users=", "level 1 users=5 extra", "level x users=2",
		"rung", "rung 0", "rung 1 rep 0", "rung 1 rep", "rung 1 step 2", "Ladder", "level 01 users=5", " ladder", "measure",
		"point 0 value=1", "point 1", "point 1 value=-1 level 1 users=5", "point 1 value=x", "point 1 v=3 ladder", "point 01 value=3",
		"point 1 value=3 point 2 value=4", "level 1 users=5 point 1 value=3"} {
		if w, err := ParseWindow(s); err == nil {
			t.Errorf("ParseWindow(%q) = %+v; want an error", s, w)
		}
	}
}

package result

import (
	"fmt"
	"strconv"
	"strings"
)

// WindowKind says what a Window is and which of its numbers are set.
type WindowKind uint8

const (
	// WindowNone: no window (a run's or a setup's own event).
	WindowNone WindowKind = iota
	// WindowLevel: closed-loop level Level (from 1) of Users users.
	WindowLevel
	// WindowRung: open-loop rung Rung (from 1); its repetition Rep (from
	// 1), or the whole rung when Rep is 0.
	WindowRung
	// WindowLadder: the whole open-loop ladder.
	WindowLadder
	// WindowPrepared: a sharded setup's start once shard 0 prepared the
	// index.
	WindowPrepared
	// WindowAttached: a sharded setup's start once every shard attached
	// to that index.
	WindowAttached
)

// Window is what a measured window, a warning or a synchronised start is
// of: a level, a rung or one of its repetitions, the ladder. It is a
// comparable value, the key of everything kept by window; String is its
// text wherever a window is written (the log, result.json's start names,
// the live page), and ParseWindow reads that text back.
//
// Within a knob sweep (Sweep) the same level or rung runs once per knob
// value: Point (from 1) and Value (the knob's, 0 the engine's default)
// tell them apart. Point 0 is no sweep, and the text is then what it was
// before sweeps; a window of Kind WindowNone with a Point is the point
// itself (its idle recall check).
type Window struct {
	Kind  WindowKind
	Level int // WindowLevel
	Users int // WindowLevel
	Rung  int // WindowRung
	Rep   int // WindowRung; 0: the whole rung
	Point int // the sweep point, from 1; 0: not in a sweep
	Value int // the knob's value at Point (0: the engine's default)
}

// InPoint is w within sweep point i (from 0) at knob value v.
func (w Window) InPoint(i, v int) Window {
	w.Point, w.Value = i+1, v
	return w
}

// PointWindow is sweep point i (from 0) at knob value v as a whole.
func PointWindow(i, v int) Window { return Window{}.InPoint(i, v) }

// pointText is the sweep point's part of String, "" outside a sweep.
func (w Window) pointText(sep string) string {
	if w.Point == 0 {
		return ""
	}
	return "point" + sep + strconv.Itoa(w.Point) + " value=" + strconv.Itoa(w.Value)
}

// LevelWindow is closed-loop level i (from 0) of users users.
func LevelWindow(i, users int) Window { return Window{Kind: WindowLevel, Level: i + 1, Users: users} }

// RungWindow is open-loop rung i (from 0) as a whole.
func RungWindow(i int) Window { return Window{Kind: WindowRung, Rung: i + 1} }

// RepWindow is repetition rep (from 0) of open-loop rung i (from 0).
func RepWindow(i, rep int) Window { return Window{Kind: WindowRung, Rung: i + 1, Rep: rep + 1} }

// The windows without numbers.
var (
	LadderWindow   = Window{Kind: WindowLadder}
	PreparedWindow = Window{Kind: WindowPrepared}
	AttachedWindow = Window{Kind: WindowAttached}
)

// String is the window as the log, the results and the page name it:
// "level 2 users=50", "rung 3 rep 1", "rung 3", "ladder", "prepared",
// "attached"; "" for no window. Within a sweep point it is prefixed by
// the point: "point 2 value=40 level 1 users=50"; the point alone is
// "point 2 value=40".
func (w Window) String() string {
	p, rest := w.pointText(" "), w.kindString()
	if p != "" && rest != "" {
		return p + " " + rest
	}
	return p + rest
}

// kindString is String without the sweep point.
func (w Window) kindString() string {
	switch w.Kind {
	case WindowLevel:
		return "level " + strconv.Itoa(w.Level) + " users=" + strconv.Itoa(w.Users)
	case WindowRung:
		if w.Rep == 0 {
			return "rung " + strconv.Itoa(w.Rung)
		}
		return "rung " + strconv.Itoa(w.Rung) + " rep " + strconv.Itoa(w.Rep)
	case WindowLadder:
		return "ladder"
	case WindowPrepared:
		return "prepared"
	case WindowAttached:
		return "attached"
	}
	return ""
}

// Tag is the window as the interval log (.hlog) tags it, without spaces:
// "level2-users=50", "rung3-rep1"; within a sweep point
// "point2-value=40-level2-users=50".
func (w Window) Tag() string {
	p, rest := strings.ReplaceAll(w.pointText(""), " ", "-"), w.kindTag()
	if p != "" && rest != "" {
		return p + "-" + rest
	}
	return p + rest
}

// kindTag is Tag without the sweep point.
func (w Window) kindTag() string {
	switch {
	case w.Kind == WindowLevel:
		return "level" + strconv.Itoa(w.Level) + "-users=" + strconv.Itoa(w.Users)
	case w.Kind == WindowRung && w.Rep > 0:
		return "rung" + strconv.Itoa(w.Rung) + "-rep" + strconv.Itoa(w.Rep)
	}
	return strings.ReplaceAll(w.kindString(), " ", "")
}

// ParseWindow reads a window's String.
func ParseWindow(s string) (Window, error) {
	f := strings.Fields(s)
	var point, value int
	if len(f) >= 3 && f[0] == "point" {
		var err1, err2 error
		point, err1 = strconv.Atoi(f[1])
		value, err2 = strconv.Atoi(strings.TrimPrefix(f[2], "value="))
		if err1 != nil || err2 != nil || point <= 0 || value < 0 || !strings.HasPrefix(f[2], "value=") {
			return Window{}, fmt.Errorf("window %q: not a sweep point", s)
		}
		f = f[3:]
	}
	w, err := parseKindWindow(strings.Join(f, " "))
	if err == nil && point > 0 {
		w = w.InPoint(point-1, value)
	}
	if err != nil || w.String() != s {
		return Window{}, fmt.Errorf("window %q: not a level, rung, ladder or start", s)
	}
	return w, nil
}

// parseKindWindow reads a window's String without a sweep point.
func parseKindWindow(s string) (Window, error) {
	f := strings.Fields(s)
	num := func(i int, label string) (int, bool) {
		if i >= len(f) || (label != "" && !strings.HasPrefix(f[i], label)) {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f[i], label))
		return n, err == nil && n > 0
	}
	var w Window
	var ok bool
	switch {
	case s == "":
		return Window{}, nil
	case len(f) == 1:
		for _, named := range []Window{LadderWindow, PreparedWindow, AttachedWindow} {
			if f[0] == named.String() {
				w, ok = named, true
			}
		}
	case len(f) == 3 && f[0] == "level":
		w.Kind = WindowLevel
		if w.Level, ok = num(1, ""); ok {
			w.Users, ok = num(2, "users=")
		}
	case (len(f) == 2 || len(f) == 4 && f[2] == "rep") && f[0] == "rung":
		w.Kind = WindowRung
		if w.Rung, ok = num(1, ""); ok && len(f) == 4 {
			w.Rep, ok = num(3, "")
		}
	}
	if !ok || w.String() != s {
		return Window{}, fmt.Errorf("window %q: not a level, rung, ladder or start", s)
	}
	return w, nil
}

// MarshalText writes the window as its String: the shard protocol and the
// live page carry it as text.
func (w Window) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText reads a window's String.
func (w *Window) UnmarshalText(b []byte) error {
	v, err := ParseWindow(string(b))
	if err != nil {
		return err
	}
	*w = v
	return nil
}

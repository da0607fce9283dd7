// Package ops names the runner's operations, in table order, with the
// facts a result carries of each, and reads and writes mixes of them: the
// vocabulary a result file shares with the runner. It imports nothing of
// the project, so that reading a result (package runner/result) needs
// nothing of the runner; package workload builds its operation table and
// its Mix on it, so the names, the facts and the mix grammar are written
// once.
package ops

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Facts is what a result file says of one operation.
type Facts struct {
	Name string
	// ByID: a call carries an ID, uniform over the whole ID space (some
	// never written, some deleted); otherwise the index of a query.
	ByID bool
	// Writes: the call changes the index. A write takes the ID's next
	// version, which the freshness probe uses to tell a superseded write,
	// and reports treat writes apart (Study B's per-write figures).
	Writes bool
	// NotFoundDone: a call that ends NotFound counts as done, and is also
	// counted apart as not found. For delete the published method ignores
	// misses; for get a miss is the expected answer for an ID not written.
	NotFoundDone bool
}

// Table is every operation in table order: the order of every report, and
// the order in which a stream draws an operation from a mix's cumulative
// weights. A new operation goes at the end, so that every mix without it
// draws the same steps as before it existed (workload.Op numbers them).
var Table = [...]Facts{
	{Name: "search"},
	{Name: "upsert", ByID: true, Writes: true},
	// A delete takes a version too, so that a freshness probe waiting
	// for the ID's previous write knows it may never be seen.
	{Name: "delete", ByID: true, Writes: true, NotFoundDone: true},
	{Name: "get", ByID: true, NotFoundDone: true},
}

// N is the number of operations.
const N = len(Table)

// Index is the named operation's place in Table, or -1.
func Index(name string) int {
	for i, f := range Table {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Names lists every operation's name in table order.
func Names() []string {
	names := make([]string, N)
	for i, f := range Table {
		names[i] = f.Name
	}
	return names
}

// Parse is the place of the named operation in Table, or a one-line error
// listing the names.
func Parse(name string) (int, error) {
	if i := Index(name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("unknown operation %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Mix is a mix's weights, one per operation in table order.
type Mix [N]float64

// Presets are named mixes. "mixed" is the published study's
// search=80,upsert=19,delete=1; "upsert" is its pure-upsert run.
var Presets = map[string]Mix{
	"mixed":  {80, 19, 1},
	"upsert": {0, 1},
	"search": {1},
}

// slash is the order of the slash form ("80/19/1"), the published study's
// notation: the three original operations, fixed for good so that old
// command lines and result files keep their meaning.
var slash = [...]int{0, 1, 2}

// ParseMix accepts a preset name ("mixed", "upsert", "search"), named
// weights ("search=70,get=10,upsert=19,delete=1"; operations left out
// weigh 0) or, for the three original operations only, the slash form
// ("80/19/1" is search/upsert/delete); the weights must be finite, ≥ 0 and
// of a non-zero sum.
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if m, ok := Presets[s]; ok {
		return m, nil
	}
	var m Mix
	switch {
	case strings.Contains(s, "="):
		var named [N]bool
		for _, part := range strings.Split(s, ",") {
			name, value, _ := strings.Cut(part, "=")
			op, err := Parse(strings.TrimSpace(name))
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %w", s, err)
			}
			if named[op] {
				return Mix{}, fmt.Errorf("mix %q: %s is named twice", s, Table[op].Name)
			}
			named[op] = true
			if m[op], err = parseWeight(value); err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, Table[op].Name, err)
			}
		}
	case strings.Contains(s, "/"):
		parts := strings.Split(s, "/")
		if len(parts) != len(slash) {
			return Mix{}, fmt.Errorf("mix %q: the slash form is search/upsert/delete (3 weights, got %d); name the weights instead, e.g. %s",
				s, len(parts), Mix{70, 19, 1, 10})
		}
		for i, p := range parts {
			w, err := parseWeight(p)
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, Table[slash[i]].Name, err)
			}
			m[slash[i]] = w
		}
	default:
		return Mix{}, fmt.Errorf("mix %q: want a preset (mixed, upsert, search), named weights (%s) or search/upsert/delete weights (80/19/1)", s, Presets["mixed"])
	}
	return m, m.Validate()
}

func parseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("weight %q is not a number", strings.TrimSpace(s))
	}
	return w, nil
}

// Validate rejects negative, non-finite or all-zero weights.
func (m Mix) Validate() error {
	sum := 0.0
	for i, w := range m {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("mix: %s weight %v must be a finite number ≥ 0", Table[i].Name, w)
		}
		sum += w
	}
	if sum == 0 {
		return fmt.Errorf("mix: weights sum to zero")
	}
	return nil
}

// Fraction is the share of the operation at table place op.
func (m Mix) Fraction(op int) float64 {
	sum := 0.0
	for _, w := range m {
		sum += w
	}
	return m[op] / sum
}

// String renders the mix as named percentages in table order, operations
// of weight zero left out: "search=80,upsert=19,delete=1". ParseMix reads
// it back.
func (m Mix) String() string {
	var parts []string
	for i, w := range m {
		if w > 0 {
			parts = append(parts, Table[i].Name+"="+strconv.FormatFloat(100*m.Fraction(i), 'g', 4, 64))
		}
	}
	return strings.Join(parts, ",")
}

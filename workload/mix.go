// Package workload decides what a virtual user does next: the operation mix,
// the ID and the query. It is pure: no clocks, no I/O, no shared state, so a
// user's whole sequence of steps follows from (seed, user) and is testable
// without an engine.
package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Op is one kind of operation.
type Op uint8

const (
	Search Op = iota
	Upsert
	Delete
	NumOps // the number of operations; not an operation
)

var opNames = [NumOps]string{"search", "upsert", "delete"}

func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Ops lists every operation in table order.
func Ops() []Op { return []Op{Search, Upsert, Delete} }

// ParseOp is the inverse of Op.String.
func ParseOp(s string) (Op, error) {
	for o, n := range opNames {
		if n == s {
			return Op(o), nil
		}
	}
	return 0, fmt.Errorf("unknown operation %q (want search, upsert or delete)", s)
}

// Mix holds the relative weights of the operations.
type Mix [NumOps]float64

// Presets are named mixes. "mixed" is the published study's 80/19/1; "upsert"
// is its pure-upsert run.
var Presets = map[string]Mix{
	"mixed":  {Search: 80, Upsert: 19, Delete: 1},
	"upsert": {Upsert: 1},
	"search": {Search: 1},
}

// DefaultMix is the published study's mix.
var DefaultMix = Presets["mixed"]

// ParseMix accepts a preset name ("mixed", "upsert", "search"), weights in
// table order ("80/19/1") or named weights ("search=80,upsert=19,delete=1";
// operations left out weigh 0).
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if m, ok := Presets[s]; ok {
		return m, nil
	}
	var m Mix
	switch {
	case strings.Contains(s, "="):
		for _, part := range strings.Split(s, ",") {
			name, value, _ := strings.Cut(part, "=")
			op, err := ParseOp(strings.TrimSpace(name))
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %w", s, err)
			}
			if m[op], err = parseWeight(value); err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, op, err)
			}
		}
	case strings.Contains(s, "/"):
		parts := strings.Split(s, "/")
		if len(parts) != int(NumOps) {
			return Mix{}, fmt.Errorf("mix %q: want %d weights search/upsert/delete, got %d", s, NumOps, len(parts))
		}
		for i, p := range parts {
			w, err := parseWeight(p)
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, Op(i), err)
			}
			m[i] = w
		}
	default:
		return Mix{}, fmt.Errorf("mix %q: want a preset (mixed, upsert, search), 80/19/1 or search=80,upsert=19,delete=1", s)
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
			return fmt.Errorf("mix: %s weight %v must be a finite number ≥ 0", Op(i), w)
		}
		sum += w
	}
	if sum == 0 {
		return fmt.Errorf("mix: weights sum to zero")
	}
	return nil
}

// Fraction is op's share of the mix.
func (m Mix) Fraction(op Op) float64 {
	sum := 0.0
	for _, w := range m {
		sum += w
	}
	return m[op] / sum
}

// String renders the mix as percentages in table order ("80/19/1").
func (m Mix) String() string {
	parts := make([]string, NumOps)
	for i := range m {
		parts[i] = strconv.FormatFloat(100*m.Fraction(Op(i)), 'g', 4, 64)
	}
	return strings.Join(parts, "/")
}

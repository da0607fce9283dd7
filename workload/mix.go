// Package workload decides what an open- or closed-loop run does and when:
// the operation mix (Mix), each virtual user's sequence of steps (Stream:
// the operation, and the ID or the query it acts on), the operation table
// (OpSpec: how each operation's call is built and made) and the open loop's
// arrival schedules (Schedule: Constant, Poisson; Ladder, the rates a
// ladder climbs). It reads no clock and does no I/O of its own
// (Call.Invoke calls the engine it is handed; the runner times it): a
// user's steps follow from (seed, user) and a schedule's due times from
// the send's index alone, so both are tested without an engine or a sleep.
// A Stream belongs to one user; a Poisson schedule keeps its running sum
// behind a mutex, so one schedule may be read from several goroutines.
package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
)

// Mix holds the relative weights of the operations, indexed by Op.
type Mix [NumOps]float64

// Presets are named mixes. "mixed" is the published study's
// search=80,upsert=19,delete=1; "upsert" is its pure-upsert run.
var Presets = map[string]Mix{
	"mixed":  {Search: 80, Upsert: 19, Delete: 1},
	"upsert": {Upsert: 1},
	"search": {Search: 1},
}

// DefaultMix is the published study's mix.
var DefaultMix = Presets["mixed"]

// slashOps is the order of the slash form ("80/19/1"), the published
// study's notation: the three original operations, fixed for good so that
// old command lines and result files keep their meaning.
var slashOps = [...]Op{Search, Upsert, Delete}

// ParseMix accepts a preset name ("mixed", "upsert", "search"), named
// weights ("search=70,get=10,upsert=19,delete=1"; operations left out
// weigh 0) or, for the three original operations only, the slash form
// ("80/19/1" is search/upsert/delete).
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if m, ok := Presets[s]; ok {
		return m, nil
	}
	var m Mix
	switch {
	case strings.Contains(s, "="):
		var named [NumOps]bool
		for _, part := range strings.Split(s, ",") {
			name, value, _ := strings.Cut(part, "=")
			op, err := ParseOp(strings.TrimSpace(name))
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %w", s, err)
			}
			if named[op] {
				return Mix{}, fmt.Errorf("mix %q: %s is named twice", s, op)
			}
			named[op] = true
			if m[op], err = parseWeight(value); err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, op, err)
			}
		}
	case strings.Contains(s, "/"):
		parts := strings.Split(s, "/")
		if len(parts) != len(slashOps) {
			return Mix{}, fmt.Errorf("mix %q: the slash form is search/upsert/delete (3 weights, got %d); name the weights instead, e.g. %s",
				s, len(parts), Mix{Search: 70, Get: 10, Upsert: 19, Delete: 1})
		}
		for i, p := range parts {
			w, err := parseWeight(p)
			if err != nil {
				return Mix{}, fmt.Errorf("mix %q: %s: %w", s, slashOps[i], err)
			}
			m[slashOps[i]] = w
		}
	default:
		return Mix{}, fmt.Errorf("mix %q: want a preset (mixed, upsert, search), named weights (%s) or search/upsert/delete weights (80/19/1)", s, DefaultMix)
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

// Ops lists the operations the mix runs (weight above zero), in table order.
func (m Mix) Ops() []Op {
	var ops []Op
	for i, w := range m {
		if w > 0 {
			ops = append(ops, Op(i))
		}
	}
	return ops
}

// String renders the mix as named percentages in table order, operations
// of weight zero left out: "search=80,upsert=19,delete=1". ParseMix reads
// it back.
func (m Mix) String() string {
	var parts []string
	for _, op := range m.Ops() {
		parts = append(parts, op.String()+"="+strconv.FormatFloat(100*m.Fraction(op), 'g', 4, 64))
	}
	return strings.Join(parts, ",")
}

// Check says whether driver, as d describes it, can run every operation
// of the mix: nil, or a one-line error naming the first operation it
// cannot and why. Call it before anything starts; CheckEngine is the same
// check on an opened engine.
func (m Mix) Check(driver string, d engines.Description) error {
	return m.check(driver, func(c *capability) bool { return c.offered(d) })
}

// CheckEngine is Check on an opened engine: whether e implements every
// capability the mix's operations call. It guards against a driver whose
// Description promises more than its engines do.
func (m Mix) CheckEngine(driver string, e engines.Engine) error {
	return m.check(driver, func(c *capability) bool { return c.has(e) })
}

func (m Mix) check(driver string, has func(*capability) bool) error {
	for _, op := range m.Ops() {
		if c := specs[op].need; c != nil && !has(c) {
			return fmt.Errorf("mix: %s cannot %s (no %s): leave %s out of the mix", driver, c.doing, c.iface, op)
		}
	}
	return nil
}

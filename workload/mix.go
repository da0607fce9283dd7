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
	"slices"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/workload/ops"
)

// Mix holds the relative weights of the operations, indexed by Op. Its
// grammar and its checks are ops.Mix's.
type Mix ops.Mix

// Presets are named mixes (ops.Presets). "mixed" is the published study's
// search=80,upsert=19,delete=1; "upsert" is its pure-upsert run.
var Presets = func() map[string]Mix {
	m := make(map[string]Mix, len(ops.Presets))
	for name, w := range ops.Presets {
		m[name] = Mix(w)
	}
	return m
}()

// DefaultMix is the published study's mix.
var DefaultMix = Presets["mixed"]

// ParseMix accepts a preset name ("mixed", "upsert", "search"), named
// weights ("search=70,get=10,upsert=19,delete=1"; operations left out
// weigh 0) or, for the three original operations only, the slash form
// ("80/19/1" is search/upsert/delete): ops.ParseMix.
func ParseMix(s string) (Mix, error) {
	m, err := ops.ParseMix(s)
	return Mix(m), err
}

// Validate rejects negative, non-finite or all-zero weights.
func (m Mix) Validate() error { return ops.Mix(m).Validate() }

// Fraction is op's share of the mix.
func (m Mix) Fraction(op Op) float64 { return ops.Mix(m).Fraction(int(op)) }

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

// Writes says whether the mix runs an operation that writes.
func (m Mix) Writes() bool { return slices.ContainsFunc(m.Ops(), Op.Writes) }

// String renders the mix as named percentages in table order, operations
// of weight zero left out: "search=80,upsert=19,delete=1". ParseMix reads
// it back.
func (m Mix) String() string { return ops.Mix(m).String() }

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

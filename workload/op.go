package workload

import (
	"context"
	"fmt"
	"strconv"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/workload/ops"
)

// Op is one kind of operation: its place in the table of operations
// (ops.Table), which holds their names and facts and whose order is that of
// every report and of a stream's draw.
type Op uint8

const (
	Search Op = iota
	Upsert
	Delete
	Get                // a document by ID (engines.Getter)
	NumOps = Op(ops.N) // the number of operations; not an operation
)

// OpSpec is what the harness knows about one operation, written once here
// on its facts (ops.Facts, which results carry to the reports): streams
// draw steps by it, and the runner prepares, invokes, records and keeps its
// version bookkeeping by it.
type OpSpec struct {
	ops.Facts
	// need is the optional engine capability the operation calls; nil for
	// the Engine interface's own calls.
	need *capability
	// prepare builds the call before the clock starts: generating a
	// document or a query is the harness's cost, not the engine's. Calls
	// go by value through both functions: a pointer passed to a function
	// value escapes, and would put every call on the heap.
	prepare func(c Call, m Maker, st Step, ask Ask) Call
	// invoke makes the call; the caller times it.
	invoke func(ctx context.Context, e engines.Engine, c Call) error
}

// capability is an optional engine interface an operation needs.
type capability struct {
	iface   string // how messages name it
	doing   string // what the operation does, as "… cannot <doing>"
	offered func(engines.Description) bool
	has     func(engines.Engine) bool
}

var getter = &capability{
	iface:   "engines.Getter",
	doing:   "get by ID",
	offered: func(d engines.Description) bool { return d.Getter },
	has:     func(e engines.Engine) bool { _, ok := e.(engines.Getter); return ok },
}

// specs is the operation table, indexed by Op.
var specs = [NumOps]OpSpec{
	Search: {
		Facts: ops.Table[Search],
		prepare: func(c Call, m Maker, st Step, ask Ask) Call {
			c.Query, c.Kind = m.Query(st.Query)
			ask.Apply(&c.Query)
			return c
		},
		invoke: func(ctx context.Context, e engines.Engine, c Call) error {
			_, err := e.Search(ctx, c.Query)
			return err
		},
	},
	Upsert: {
		Facts:   ops.Table[Upsert],
		prepare: func(c Call, m Maker, st Step, _ Ask) Call { c.Doc = m.Document(st.ID, c.Version); return c },
		invoke:  func(ctx context.Context, e engines.Engine, c Call) error { return e.Upsert(ctx, c.Doc) },
	},
	Delete: {
		Facts:   ops.Table[Delete],
		prepare: prepareID,
		invoke:  func(ctx context.Context, e engines.Engine, c Call) error { return e.Delete(ctx, c.ID) },
	},
	Get: {
		Facts:   ops.Table[Get],
		need:    getter,
		prepare: prepareID,
		invoke: func(ctx context.Context, e engines.Engine, c Call) error {
			g, ok := e.(engines.Getter)
			if !ok {
				// No ID in the message: every such call fails alike.
				return fmt.Errorf("get: the engine does not implement %s: %w", getter.iface, engines.ErrUnsupported)
			}
			_, err := g.Get(ctx, c.ID)
			return err
		},
	},
}

func prepareID(c Call, _ Maker, st Step, _ Ask) Call { c.ID = dataset.DocID(st.ID); return c }

// Spec is op's entry in the operation table; ok is false for a value that
// is no operation.
func (o Op) Spec() (s OpSpec, ok bool) {
	if o >= NumOps {
		return OpSpec{}, false
	}
	return specs[o], true
}

// Writes says whether op changes the index.
func (o Op) Writes() bool { return o < NumOps && specs[o].Writes }

// NotFoundDone says whether a call of op that ends NotFound counts as done.
func (o Op) NotFoundDone() bool { return o < NumOps && specs[o].NotFoundDone }

func (o Op) String() string {
	if o < NumOps {
		return specs[o].Name
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Ops lists every operation in table order.
func Ops() []Op {
	ops := make([]Op, NumOps)
	for i := range ops {
		ops[i] = Op(i)
	}
	return ops
}

// OpNames lists every operation's name in table order.
func OpNames() []string { return ops.Names() }

// ParseOp is the inverse of Op.String.
func ParseOp(s string) (Op, error) {
	i, err := ops.Parse(s)
	return Op(i), err
}

// Maker makes what calls send: corpus.Source is one. Each is a pure
// function of its arguments.
type Maker interface {
	// Query is search i, without K, and its kind: an index into the
	// maker's list of query kinds (0 where it has one kind).
	Query(i uint64) (q engines.Query, kind int)
	// Document is version v of id.
	Document(id, version uint32) engines.Document
}

// Call is one call, prepared before the clock starts.
type Call struct {
	Op      Op
	Query   engines.Query    // search
	Kind    int              // search: the query's kind (Maker.Query)
	Doc     engines.Document // upsert: the document written
	ID      string           // delete, get: the document's ID
	Num     uint32           // operations by ID: the ID as a number
	Version uint32           // writes: the version written, or superseded by a delete
}

// Prepare builds st's call: a search asks as ask says, and version the version a
// write writes (the caller keeps the versions, since they are shared state;
// ignored unless st.Op writes). A step of no operation gives a call that
// Invoke refuses.
func Prepare(st Step, m Maker, ask Ask, version uint32) Call {
	c := Call{Op: st.Op}
	s, ok := st.Op.Spec()
	if !ok {
		return c
	}
	if s.ByID {
		c.Num = st.ID
	}
	if s.Writes {
		c.Version = version
	}
	return s.prepare(c, m, st, ask)
}

// Invoke makes the call on e. A call of no operation fails with an error
// wrapping engines.ErrUnsupported, so it can never be sent as another;
// likewise a call whose capability e lacks.
func (c *Call) Invoke(ctx context.Context, e engines.Engine) error {
	s, ok := c.Op.Spec()
	if !ok {
		return fmt.Errorf("unknown operation %s: %w", c.Op, engines.ErrUnsupported)
	}
	return s.invoke(ctx, e, *c)
}

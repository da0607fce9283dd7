package workload

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
)

// callLog is an engine that records which of its methods each call reached
// and with what; getLog adds Getter.
type callLog struct {
	calls []string
	err   error // every call's answer
}

func (l *callLog) Create(context.Context, engines.Schema) error { return nil }
func (l *callLog) Upsert(_ context.Context, d engines.Document) error {
	l.calls = append(l.calls, "upsert "+d.ID+" "+d.Text("v"))
	return l.err
}
func (l *callLog) Delete(_ context.Context, id string) error {
	l.calls = append(l.calls, "delete "+id)
	return l.err
}
func (l *callLog) Search(_ context.Context, q engines.Query) (engines.Hits, error) {
	l.calls = append(l.calls, "search "+q.Text+" k"+string(rune('0'+q.K)))
	return engines.Hits{}, l.err
}
func (l *callLog) Close() error { return nil }

type getLog struct{ callLog }

func (l *getLog) Get(_ context.Context, id string) (engines.Document, error) {
	l.calls = append(l.calls, "get "+id)
	return engines.Document{ID: id}, l.err
}

// maker makes documents whose field v is the version, and queries q<i>.
type maker struct{}

func (maker) Query(i uint64) (engines.Query, int) {
	return engines.Query{Text: "q" + string(rune('0'+i))}, int(i % 2)
}
func (maker) Document(id, v uint32) engines.Document {
	return engines.Document{ID: dataset.DocID(id), Fields: []engines.Field{{Name: "v", Text: string(rune('0' + v))}}}
}

// Every operation reaches its own engine method and no other, with what
// its step and preparation say.
func TestCallsReachTheirOwnMethod(t *testing.T) {
	want := map[Op]string{
		Search: "search q5 k7",
		Upsert: "upsert " + dataset.DocID(3) + " 2",
		Delete: "delete " + dataset.DocID(3),
		Get:    "get " + dataset.DocID(3),
	}
	if len(want) != int(NumOps) {
		t.Fatalf("the test covers %d of %d operations", len(want), NumOps)
	}
	for _, op := range Ops() {
		st := Step{Op: op, ID: 3, Query: 5}
		c := Prepare(st, maker{}, Ask{K: 7, Knob: 33}, 2)
		spec, _ := op.Spec()
		if spec.Writes != (c.Version == 2) || spec.ByID != (c.Num == 3) {
			t.Errorf("%s: version %d, num %d; want the version for writes only, the ID for operations by ID only", op, c.Version, c.Num)
		}
		if wantKind := map[bool]int{true: 1}[op == Search]; c.Kind != wantKind {
			t.Errorf("%s: kind %d; want %d (the maker's kind of query 5, for searches only)", op, c.Kind, wantKind)
		}
		e := &getLog{}
		if err := c.Invoke(context.Background(), e); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if len(e.calls) != 1 || e.calls[0] != want[op] {
			t.Errorf("%s reached %q; want %q", op, e.calls, want[op])
		}
	}
}

// A value that is no operation is never sent as one.
func TestUnknownOpIsNeverInvoked(t *testing.T) {
	for _, op := range []Op{NumOps, NumOps + 1, 255} {
		if _, ok := op.Spec(); ok {
			t.Errorf("%s has a spec", op)
		}
		e := &getLog{}
		c := Prepare(Step{Op: op, ID: 3, Query: 5}, maker{}, Ask{K: 7, Knob: 33}, 2)
		err := c.Invoke(context.Background(), e)
		if !errors.Is(err, engines.ErrUnsupported) || !strings.Contains(err.Error(), op.String()) || len(e.calls) != 0 {
			t.Errorf("%s: error %v, engine saw %q; want an unsupported error and no call", op, err, e.calls)
		}
		if op.Writes() || op.NotFoundDone() {
			t.Errorf("%s: writes %v, not-found done %v; want neither", op, op.Writes(), op.NotFoundDone())
		}
	}
	// Nor is get sent to an engine without Getter, as anything else.
	e := &callLog{}
	c := Prepare(Step{Op: Get, ID: 3}, maker{}, Ask{K: 7}, 0)
	if err := c.Invoke(context.Background(), e); !errors.Is(err, engines.ErrUnsupported) || len(e.calls) != 0 {
		t.Errorf("get without Getter: error %v, engine saw %q; want unsupported and no call", err, e.calls)
	}
}

// Each Op constant is its operation's place in ops.Table: its name and
// facts are that place's.
func TestOpFacts(t *testing.T) {
	for op, want := range map[Op]struct {
		name                       string
		byID, writes, notFoundDone bool
	}{
		Search: {"search", false, false, false},
		Upsert: {"upsert", true, true, false},
		Delete: {"delete", true, true, true},
		Get:    {"get", true, false, true},
	} {
		s, ok := op.Spec()
		if !ok || op.String() != want.name || s.ByID != want.byID || s.Writes != want.writes || s.NotFoundDone != want.notFoundDone ||
			op.Writes() != want.writes || op.NotFoundDone() != want.notFoundDone {
			t.Errorf("%s: %+v; want %+v", op, s.Facts, want)
		}
	}
}

func TestMixCheck(t *testing.T) {
	withGet := Mix{Search: 70, Get: 10, Upsert: 19, Delete: 1}
	err := withGet.Check("bleve", engines.Description{Summary: "embedded"})
	if err == nil || err.Error() != "mix: bleve cannot get by ID (no engines.Getter): leave get out of the mix" {
		t.Errorf("Check of get on a driver without Getter: %v", err)
	}
	if err := withGet.Check("elasticsearch", engines.Description{Getter: true}); err != nil {
		t.Errorf("Check of get on a driver with Getter: %v", err)
	}
	for name, m := range Presets {
		if err := m.Check("bleve", engines.Description{}); err != nil {
			t.Errorf("preset %s on a driver without Getter: %v", name, err)
		}
		if err := m.CheckEngine("bleve", &callLog{}); err != nil {
			t.Errorf("preset %s on an engine without Getter: %v", name, err)
		}
	}
	if err := withGet.CheckEngine("bleve", &callLog{}); err == nil || !strings.Contains(err.Error(), "bleve cannot get by ID") {
		t.Errorf("CheckEngine of get on an engine without Getter: %v", err)
	}
	if err := withGet.CheckEngine("mem", &getLog{}); err != nil {
		t.Errorf("CheckEngine of get on an engine with Getter: %v", err)
	}
}

// nop answers every call at once, holding nothing.
type nop struct{}

func (nop) Create(context.Context, engines.Schema) error                { return nil }
func (nop) Upsert(context.Context, engines.Document) error              { return nil }
func (nop) Delete(context.Context, string) error                        { return nil }
func (nop) Search(context.Context, engines.Query) (engines.Hits, error) { return engines.Hits{}, nil }
func (nop) Get(context.Context, string) (engines.Document, error)       { return engines.Document{}, nil }
func (nop) Close() error                                                { return nil }

// Invoking a prepared call allocates nothing of the harness's own: in the
// open loop it runs after the intended send time, inside the latency.
func TestInvokeDoesNotAllocate(t *testing.T) {
	ctx := context.Background()
	var e engines.Engine = nop{}
	for op := range NumOps {
		// Declared inside, as a loop's call is: were it to escape, each
		// call would be a heap allocation.
		if n := testing.AllocsPerRun(100, func() {
			c := Call{Op: op, ID: "1", Num: 1}
			_ = c.Invoke(ctx, e)
		}); n != 0 {
			t.Errorf("%s: %.0f allocations per Invoke; want 0", op, n)
		}
	}
}

package enginetest

import (
	"context"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// Knob checks driver name's search-time knob end to end: the driver
// declares one (engines.Description.Knob); CheckQuery refuses a value past
// its bounds, naming the knob; and each value at its bounds and between,
// sent with q (a vector query e can answer), is answered — and, where seen
// is given (a fake's record of the last value it read from a request),
// arrived as it was sent. Against a real engine (seen nil) it shows that
// the declared bounds are the engine's.
func Knob(t *testing.T, name string, e engines.Engine, q engines.Query, seen func() int) {
	t.Helper()
	d, err := engines.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	k := d.Describe().Knob
	if k == nil {
		t.Fatalf("%s declares no knob", name)
	}
	lo := k.Min
	if k.AtLeastK {
		lo = max(lo, q.K)
	}
	refused := []int{k.Max + 1}
	if lo > 1 {
		refused = append(refused, lo-1)
	}
	for _, v := range refused {
		q.Knob = v
		if err := engines.CheckQuery(name, engines.Config{}, engines.Schema{}, q); err == nil || !strings.Contains(err.Error(), k.Name) {
			t.Errorf("%s: CheckQuery with %s=%d: %v, want a refusal naming the knob", name, k.Name, v, err)
		}
	}
	for _, v := range []int{lo, min(lo+40, k.Max), k.Max} {
		q.Knob = v
		if err := engines.CheckQuery(name, engines.Config{}, engines.Schema{}, q); err != nil && strings.Contains(err.Error(), k.Name) {
			t.Errorf("%s: CheckQuery refuses %s=%d: %v", name, k.Name, v, err)
		}
		h, err := e.Search(context.Background(), q)
		if err != nil {
			t.Errorf("%s: search with %s=%d: %v", name, k.Name, v, err)
			continue
		}
		if len(h.IDs) == 0 {
			t.Errorf("%s: search with %s=%d found nothing", name, k.Name, v)
		}
		if seen != nil && seen() != v {
			t.Errorf("%s: sent %s=%d, the engine read %d", name, k.Name, v, seen())
		}
	}
}

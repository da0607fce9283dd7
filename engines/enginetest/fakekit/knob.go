package fakekit

import (
	"slices"
	"sync"
)

// Knob keeps the values of a search-time knob a fake read from kNN
// requests (Elasticsearch's num_candidates, Typesense's ef, valkey-search's
// EF_RUNTIME): a driver's test reads the last to see that the value a query
// carried (engines.Query.Knob) reached the engine as the engine spells it,
// and a sweep's test reads every value seen to see that each point's did.
// The zero value is ready; it is safe for concurrent use.
type Knob struct {
	mu   sync.Mutex
	last int
	seen []int // distinct, ascending
}

// Saw records a value read from a request.
func (k *Knob) Saw(v int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.last = v
	if i, found := slices.BinarySearch(k.seen, v); !found {
		k.seen = slices.Insert(k.seen, i, v)
	}
}

// Last is the last value recorded, 0 for none.
func (k *Knob) Last() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.last
}

// Seen is every distinct value recorded, ascending; empty for none.
func (k *Knob) Seen() []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.seen)
}

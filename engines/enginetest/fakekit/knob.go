package fakekit

import "sync/atomic"

// Knob keeps the last value of a search-time knob a fake read from a kNN
// request (Elasticsearch's num_candidates, Typesense's ef, valkey-search's
// EF_RUNTIME): a driver's test reads it to see that the value a query
// carried (engines.Query.Knob) reached the engine as the engine spells it.
// 0 is none seen. The zero value is ready; it is safe for concurrent use.
type Knob struct{ v atomic.Int64 }

// Saw records a value read from a request.
func (k *Knob) Saw(v int) { k.v.Store(int64(v)) }

// Last is the last value recorded, 0 for none.
func (k *Knob) Last() int { return int(k.v.Load()) }

package workload

import "github.com/searchbench/searchbench/engines"

// Ask is how every search of a run asks: K hits and the driver's
// search-time knob (engines.Query.Knob, 0 the engine's default). The load's
// searches, the idle checks and the checks under load all set their
// queries through Apply, so a sweep point moves the knob for all of them
// at once and no search asks differently from the others.
type Ask struct {
	K    int
	Knob int
}

// Apply sets q's K, and its knob when q has a vector: the drivers' contract
// refuses a knob on a query that has none (engines.Knob.Check), and a
// sweep's text and SKU searches are not moved by it.
func (a Ask) Apply(q *engines.Query) {
	q.K = a.K
	q.Knob = 0
	if q.Vector != nil {
		q.Knob = a.Knob
	}
}

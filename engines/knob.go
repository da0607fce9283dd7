package engines

import "fmt"

// Knob is a driver's search-time knob: the one value of a vector search
// that trades recall for speed (an HNSW graph's candidate list, the
// candidates a shard gathers), set per query by Query.Knob so that a sweep
// moves it without rebuilding the index. The driver declares it in its
// Description, in the engine's own terms and with where the engine
// defines it, so that a result names what was moved.
type Knob struct {
	// Name is the engine's own name for it: "hnsw.ef_search",
	// "num_candidates", "ef", "EF_RUNTIME".
	Name string
	// Min and Max bound the values the engine accepts, inclusive.
	Min, Max int
	// AtLeastK: the engine refuses a value below the query's K
	// (Elasticsearch's num_candidates).
	AtLeastK bool
	// Default is what the engine uses when a query sets none, in its own
	// words ("40", "1.5 × k, at most 10,000").
	Default string
	// Trades says what a larger value buys and costs.
	Trades string
	// Source is where the engine defines the knob and its range, at the
	// version the driver is pinned to.
	Source string
}

// Check says whether q's knob value is one the engine of driver name takes:
// a knob needs a driver that has one (k non-nil), a vector query, and a
// value within the knob's range (and at least q.K where the engine asks
// that). A zero value is the engine's default and always passes.
func (k *Knob) Check(name string, q Query) error {
	switch {
	case q.Knob == 0:
		return nil
	case k == nil:
		return fmt.Errorf("%s: knob %d: the driver has no search-time knob (it sends the engine's default): %w", name, q.Knob, ErrUnsupported)
	case q.Vector == nil:
		return fmt.Errorf("%s: %s=%d on a %s search: the knob applies to vector searches only", name, k.Name, q.Knob, q.Shape())
	case q.Knob < k.Min || q.Knob > k.Max:
		return fmt.Errorf("%s: %s=%d: must be from %d to %d", name, k.Name, q.Knob, k.Min, k.Max)
	case k.AtLeastK && q.Knob < q.K:
		return fmt.Errorf("%s: %s=%d: must be at least k (%d)", name, k.Name, q.Knob, q.K)
	}
	return nil
}

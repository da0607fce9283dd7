package workload

import "github.com/searchbench/searchbench/dataset"

// Step is one operation to perform.
type Step struct {
	Op    Op
	ID    uint32 // for operations by ID (OpSpec.ByID): uniform over the whole ID space
	Query uint64 // for the others (search): the query index (dataset.Corpus.Query)
}

// Stream is one virtual user's sequence of steps. IDs are uniform over the
// whole ID space, as in the published method: most upserts update a document,
// some create one, and some deletes and gets miss. A Stream is not safe for concurrent
// use; each user owns one.
type Stream struct {
	rng dataset.Rand
	cum [NumOps]uint64 // cumulative thresholds over the 64-bit range
	ids int
}

// streamTag separates user streams from the corpus's streams.
const streamTag = 0x75736572 // "user"

// NewStream returns user's stream for a mix over IDs 1..ids.
func NewStream(seed uint64, user int, mix Mix, ids int) *Stream {
	s := &Stream{rng: dataset.NewRand(seed, streamTag, uint64(user)), ids: ids}
	acc := 0.0
	for i := range mix {
		acc += mix.Fraction(Op(i))
		if acc >= 1 {
			s.cum[i] = ^uint64(0)
			continue
		}
		s.cum[i] = uint64(acc * (1 << 64))
	}
	// The last operation with weight closes the range, so rounding can never
	// leave a gap that falls through to an operation of weight zero.
	for i := int(NumOps) - 1; i >= 0; i-- {
		if mix[i] > 0 {
			s.cum[i] = ^uint64(0)
			break
		}
	}
	return s
}

// Next returns the next step.
func (s *Stream) Next() Step {
	u := s.rng.Uint64()
	op := Op(0)
	for op < NumOps-1 && u > s.cum[op] {
		op++
	}
	// Skip operations of weight zero that share a threshold with the one below.
	for op < NumOps-1 && s.cum[op] == 0 {
		op++
	}
	st := Step{Op: op}
	if specs[op].ByID {
		st.ID = uint32(1 + s.rng.Intn(s.ids))
	} else {
		st.Query = s.rng.Uint64()
	}
	return st
}

package dataset

import "math/bits"

// Rand is a small deterministic generator (SplitMix64). It is used instead of
// math/rand because the corpus must be byte-identical on every machine and Go
// version for a given seed, and because every document is derived from its own
// (seed, stream, id, version) key: there is no shared generator state to lock
// or to carry between documents.
type Rand struct{ state uint64 }

// golden is SplitMix64's increment, 2^64 / φ.
const golden = 0x9e3779b97f4a7c15

// NewRand returns a generator keyed by the given values. Different keys give
// independent streams; the same keys always give the same stream.
func NewRand(keys ...uint64) Rand {
	h := uint64(0x6a09e667f3bcc908) // an arbitrary odd constant, so key 0 is not state 0
	for _, k := range keys {
		h = mix(h ^ mix(k+golden))
	}
	return Rand{state: h}
}

// mix is SplitMix64's finaliser: a bijective avalanche of 64 bits.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.state += golden
	return mix(r.state)
}

// Intn returns a uniform integer in [0, n). n must be > 0. It uses Lemire's
// multiply-shift; the bias is below n/2^64, far beneath anything measurable.
func (r *Rand) Intn(n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// IntRange returns a uniform integer in [lo, hi], like Python's randint.
func (r *Rand) IntRange(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// Float64 returns a uniform float in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

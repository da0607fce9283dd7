//go:build race

package httpwire_test

// raceEnabled: under the race detector sync.Pool drops a random share of
// what is put in it (sync/pool.go), so pooled objects are allocated again
// and allocation counts do not hold.
const raceEnabled = true

//go:build !race

package httpwire_test

const raceEnabled = false

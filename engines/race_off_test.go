//go:build !race

package engines_test

const raceEnabled = false

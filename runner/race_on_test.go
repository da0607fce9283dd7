//go:build race

package runner_test

// raceEnabled: this test binary was built with -race, so the packages it
// imports are in the build cache as -race built them.
const raceEnabled = true

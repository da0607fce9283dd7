//go:build race

package loops

// raceEnabled: under the race detector the loops run several times
// slower, and the tests whose assertions need a volume of writes and
// checks within their window get too few to test anything; they skip
// here and .ci/run runs them without it.
const raceEnabled = true

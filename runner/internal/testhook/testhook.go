// Package testhook holds the runner's rooms' hooks for tests that reach a
// room's inside through another room (a loop's test making its checks
// slow); nothing outside tests sets them.
package testhook

// AfterKnownCheck, when set, runs inside each known-item check of an
// answer, after the call's clock stopped (runner/checks): a loop's test
// makes every check slow with it to show the check is not timed.
var AfterKnownCheck func()

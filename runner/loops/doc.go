// Package loops drives an engine under load and measures it: the closed
// loop (Config, ClosedLoop: virtual users at each level through ramp,
// settle, measure), the open loop (OpenConfig, OpenLoop: calls sent on a
// schedule whatever the engine's state, each timed from when it was due),
// the rate ladder over it (LadderConfig, RunLadder), and the calibration
// of both against engines of known service times (Calibrate).
//
// What every loop needs to make calls is Calls; what a loop adds to a
// window besides its calls is here too: the harness's self-check (its CPU
// share and scheduler latency), the engine's stats sampled through the
// window, and the live figures of each interval. The loops report through
// an Emitter (an event.Observer and the setup's label) and wait at a
// Barrier before each synchronised start of a sharded run.
//
// The loops import the checks (runner/checks), the recorder
// (runner/record), the result and the events; never the runner's top,
// which drives them (runner.Run).
package loops

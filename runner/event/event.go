// Package event is a run's event: the one value that goes from the loops
// to an Observer (the CLI's log, the live page), from a shard over
// the coordinator protocol to the coordinator's merged view, and from the
// live page's server to the page's script as JSON. It sits below the
// runner, the shard protocol and the live page so that all three carry
// the same type and none translates it.
package event

import (
	"fmt"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// Kind says what an Event reports and which of its members are set.
type Kind uint8

const (
	// Log: a line of what the run is doing (Text), about Setup when it is
	// set ("pre-populating 95000 documents").
	Log Kind = iota
	// Preload: pre-population progress, Done of Total documents.
	Preload
	// PreloadDone: pre-population ended (however it ended).
	PreloadDone
	// Phase: closed-loop level Window (of Users users) enters Phase
	// (ramp, settle, measure, drain) for Duration.
	Phase
	// Progress: about once a second while measuring, the calls (Ops) and
	// failures (Errs) so far at the level, and their median latency (P50;
	// negative before any is known).
	Progress
	// Rung: the open-loop repetition Window (Rep of Reps) starts at Rate.
	Rung
	// SetupDone: every setup sends one. After its loops it comes as its
	// containers and connections are being released; a setup that failed
	// before its loops sends it once released.
	SetupDone
	// Interval: an interval of measured Window closed, one interval after
	// it ended; Interval holds its calls' figures and what is known of the
	// interval so far (active users, the known-item checks answered, the
	// freshness probes completed, the engine's stats and a launched
	// container's CPU and memory sampled in it), provisional (the result's
	// timeline is the final word). When the window ends, each of its
	// intervals is sent once more as the result's timeline has it: a later
	// Event for the same Setup, Window and Interval.Start replaces an
	// earlier one.
	Interval
	// Warning: a warning (Text) of Window ("level 2 users=50", "rung 3",
	// "ladder"), sent as soon as the window's figures are final; the same
	// warning is in the result.
	Warning
	// Start: a shard began synchronised start Window (Start: its lateness,
	// clock offset and round trip); a shard sends it to its coordinator.
	Start
	// End: the run is done (the live page's last event).
	End
	// Reset: the live page is to forget what it drew; the history follows
	// (a page that reconnects reads it from the beginning).
	Reset
)

var names = [...]string{
	Log: "log", Preload: "preload", PreloadDone: "preload-done", Phase: "phase", Progress: "progress",
	Rung: "rung", SetupDone: "setup-done", Interval: "interval", Warning: "warning", Start: "start",
	End: "end", Reset: "reset",
}

// String is the kind's name, as the protocol and the page's script read it.
func (k Kind) String() string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) >= len(names) {
		return nil, fmt.Errorf("event kind %d has no name", uint8(k))
	}
	return []byte(names[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range names {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("event kind %q: unknown", b)
}

// Event is one report of a run. Setup is the setup's label, empty for
// events about the whole run. Its JSON is what the shard protocol carries
// and the live page's script reads; durations are in nanoseconds.
type Event struct {
	Kind  Kind   `json:"kind"`
	Setup string `json:"setup,omitempty"`
	Text  string `json:"text,omitempty"`
	Done  int    `json:"done,omitempty"`
	Total int    `json:"total,omitempty"`
	Users int    `json:"users,omitempty"`
	// Phase is a closed-loop level's phase: ramp, settle, measure, drain.
	Phase string `json:"phase,omitempty"`
	// Window is the level, rung or repetition the event is of.
	Window   result.Window    `json:"window,omitzero"`
	Duration time.Duration    `json:"duration,omitempty"`
	Ops      int64            `json:"ops,omitempty"`
	Errs     int64            `json:"errs,omitempty"`
	P50      time.Duration    `json:"p50,omitempty"`
	Rate     float64          `json:"rate,omitempty"`
	Rep      int              `json:"rep,omitempty"`
	Reps     int              `json:"reps,omitempty"`
	Interval *result.Interval `json:"interval,omitempty"`
	// Start, in a Start event: the shard's record of the synchronised
	// start (its lateness, clock offset and round trip).
	Start *result.ShardStart `json:"start,omitempty"`
	// T is when the live page's server received the event, in seconds
	// from its start: the page's time axis. Only that server sets it.
	T float64 `json:"t,omitempty"`
}

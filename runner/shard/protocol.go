package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/runner/event"
)

// The protocol: one JSON object a line, each with a type. A shard speaks
// first and waits for the answer before it says anything else (events
// aside, which have none), so no message needs an ID; the coordinator
// speaks unasked only to stop the shards.
//
//	shard → coordinator         coordinator → shard
//	hello{index,count,digest,   welcome{barrier,  once every shard has registered
//	      plan,stoppable}               stream}   (stream: it takes events)
//	                            refused{reason}   another plan, a taken index …
//	                            failed{reason}    registration timed out, or the
//	                                              coordinator was interrupted
//	ping                        pong{now}         the coordinator's clock
//	ready{phase,stop}           start{at,stop}    once every live shard is ready
//	result{result}              ack
//	event{event,dropped}        (no answer; only when welcome said stream)
//	                            stop{reason}      unasked, to a shard whose hello
//	                                              said stoppable: the coordinator
//	                                              was interrupted and waits for
//	                                              what each shard measured so far
//
// An event is one of the shard's run events (a phase, an interval, a
// warning, a synchronised start's lateness) for the coordinator's live
// view. It is the one message a shard sends without waiting: its run never
// waits for the coordinator, so events go through a bounded queue that
// drops the oldest when the link is slow, and dropped counts them. The
// coordinator handles events on the connection's reader, not its loop.
const (
	msgHello   = "hello"
	msgWelcome = "welcome"
	msgRefused = "refused"
	msgFailed  = "failed"
	msgPing    = "ping"
	msgPong    = "pong"
	msgReady   = "ready"
	msgStart   = "start"
	msgResult  = "result"
	msgAck     = "ack"
	msgEvent   = "event"
	msgStop    = "stop"
)

// message is every message; each type uses some of the fields. Times are
// nanoseconds on the sender's monotonic clock (since its process's epoch).
type message struct {
	Type   string `json:"type"`
	Index  int    `json:"index,omitempty"`
	Count  int    `json:"count,omitempty"`
	Digest string `json:"digest,omitempty"`
	// Plan, in hello: the digest by field (a shard of an older version
	// sends none, and its refusal names no field).
	Plan  map[string]string `json:"plan,omitempty"`
	Host  string            `json:"host,omitempty"`
	Phase string            `json:"phase,omitempty"`
	// Stop, in ready: this shard's reason to stop ("" to go on); in start:
	// some shard's reason, and then every shard stops.
	Stop    string `json:"stop,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Now     int64  `json:"now,omitempty"`
	At      int64  `json:"at,omitempty"`
	Barrier int64  `json:"barrier,omitempty"` // welcome: the coordinator's barrier timeout
	// Stream, in welcome: the coordinator has a live view and takes
	// events (an older coordinator, or one without a view, says nothing,
	// and the shard sends none).
	Stream bool            `json:"stream,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Event  *event.Event    `json:"event,omitempty"`
	// Dropped, in event: how many events this shard dropped so far.
	Dropped int64 `json:"dropped,omitempty"`
	// Stoppable, in hello: the shard heeds a stop (an older shard does
	// not, and is sent none).
	Stoppable bool `json:"stoppable,omitempty"`
}

// epoch is this process's zero of the monotonic clock the protocol's times
// are on: time.Since(epoch) reads the monotonic clock only.
var epoch = time.Now()

// Refused is the coordinator's refusal of a shard at registration: it
// belongs to another plan, its index is out of range or taken. It is bad
// input, not a failure of the run.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return "coordinator refused this shard: " + r.Reason }

// ErrNotRegistered is the error of a registration that did not complete:
// the coordinator says which shards were missing.
var ErrNotRegistered = errors.New("registration failed")

// Indices writes shard indices as a message names them: "1, 2".
func Indices(idx []int) string {
	sort.Ints(idx)
	s := make([]string, len(idx))
	for i, v := range idx {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// missingText names shards that did not register.
func missingText(idx []int, within time.Duration) string {
	return fmt.Sprintf("%s %s did not register within %v", plural(len(idx), "shard", "shards"), Indices(idx), within)
}

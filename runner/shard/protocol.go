package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The protocol: one JSON object a line, each with a type. A shard speaks
// first and waits for the answer before it says anything else, so the
// two sides never write at once and no message needs an ID.
//
//	shard → coordinator         coordinator → shard
//	hello{index,count,digest,   welcome{barrier}  once every shard has registered
//	      plan}
//	                            refused{reason}   another plan, a taken index …
//	                            failed{reason}    registration timed out
//	ping                        pong{now}         the coordinator's clock
//	ready{phase,stop}           start{at,stop}    once every live shard is ready
//	result{result}              ack
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
	Stop    string          `json:"stop,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Now     int64           `json:"now,omitempty"`
	At      int64           `json:"at,omitempty"`
	Barrier int64           `json:"barrier,omitempty"` // welcome: the coordinator's barrier timeout
	Result  json.RawMessage `json:"result,omitempty"`
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

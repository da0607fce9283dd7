package shard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// Client is a shard's connection to the coordinator. Its methods are
// called one at a time (a shard's starts happen in order).
type Client struct {
	conn net.Conn
	enc  *json.Encoder
	// epoch is the zero of this shard's monotonic clock: the package's,
	// or another in tests that give each in-process shard its own clock.
	epoch time.Time
	wait  time.Duration // how long a start may take: the coordinator's barrier timeout and a margin
	broke error         // the connection failed; every later call fails with it
	// wmu serialises writes: the event stream writes from its own
	// goroutine (stream.go).
	wmu sync.Mutex
	// answers are the coordinator's answers as read reads them; a call
	// takes its own. The coordinator also speaks unasked (stop), which is
	// why one goroutine reads and the calls do not.
	answers chan answer
	// stale counts, by type, the answers still due to calls that gave up
	// (their context ended): the next call skips them.
	stale map[string]int
	// stopped is closed when the coordinator asks the shards to stop
	// (stopWhy says why): its run was interrupted, and it waits for what
	// each shard measured so far.
	stopped  chan struct{}
	stopWhy  string
	stopOnce sync.Once
	closed   chan struct{}
	shut     sync.Once
	stream
}

// answer is one message read, or the error that ended the reading.
type answer struct {
	m   message
	err error
}

// answerTo is the type of the coordinator's answer to each request.
var answerTo = map[string]string{msgPing: msgPong, msgReady: msgStart, msgResult: msgAck}

// Hello is what a shard says when it registers.
type Hello struct {
	Index, Count int
	// Digest identifies the plan: shards of different plans are refused.
	Digest string
	// Plan is the digest by field (runner.Plan.DigestFields): the
	// coordinator names the fields in which a refused shard's plan differs.
	Plan map[string]string
	Host string
}

// Start is the answer to a shard that is ready for a start.
type Start struct {
	// At is the agreed instant on this shard's monotonic clock.
	At time.Time
	// Stop is non-empty when the shards stop instead of starting: some
	// shard's reason to stop.
	Stop string
	// Offset is this shard's clock minus the coordinator's, from the ping
	// with the shortest round trip (RTT); its error is at most RTT/2.
	Offset, RTT time.Duration
}

// Pings is how many round trips each start's clock offset is estimated
// from; the one with the shortest round trip is kept.
const Pings = 5

// pingTimeout bounds a ping's answer, and the answer to a result.
const pingTimeout = 30 * time.Second

// Dial connects to the coordinator at addr (retrying until it listens, for
// up to timeout: the shards and the coordinator may start in any order)
// and registers. It returns once every shard has registered. A refusal is
// a *Refused; a registration the coordinator gave up on wraps
// ErrNotRegistered with its reason (the shards that were missing).
func Dial(ctx context.Context, addr string, h Hello, timeout time.Duration) (*Client, error) {
	return dial(ctx, addr, h, timeout, epoch)
}

func dial(ctx context.Context, addr string, h Hello, timeout time.Duration, clock time.Time) (*Client, error) {
	if timeout <= 0 {
		timeout = DefaultRegisterTimeout
	}
	deadline := time.Now().Add(timeout)
	var conn net.Conn
	for {
		d := net.Dialer{Timeout: min(5*time.Second, max(time.Until(deadline), time.Millisecond))}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			conn = c
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("coordinator %s: %w", addr, ctx.Err())
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("coordinator %s: not reachable within %v: %w", addr, timeout, err)
		}
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return nil, fmt.Errorf("coordinator %s: %w", addr, ctx.Err())
		}
	}
	c := &Client{conn: conn, enc: json.NewEncoder(conn), epoch: clock, answers: make(chan answer),
		stale: map[string]int{}, stopped: make(chan struct{}), closed: make(chan struct{})}
	go c.read(json.NewDecoder(conn))
	// The coordinator answers within its registration timeout; the margin
	// lets its answer, which names the missing shards, arrive first.
	m, err := c.call(ctx, message{Type: msgHello, Index: h.Index, Count: h.Count, Digest: h.Digest, Plan: h.Plan, Host: h.Host, Stoppable: true}, time.Until(deadline)+10*time.Second)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("coordinator %s: registration: %w", addr, err)
	}
	switch m.Type {
	case msgWelcome:
		c.wait = time.Duration(m.Barrier) + time.Minute
		if m.Stream {
			c.startStream()
		}
		return c, nil
	case msgRefused:
		c.Close()
		return nil, &Refused{Reason: m.Reason}
	case msgFailed:
		c.Close()
		return nil, fmt.Errorf("coordinator %s: %w: %s", addr, ErrNotRegistered, m.Reason)
	}
	c.Close()
	return nil, fmt.Errorf("coordinator %s: registration: unexpected %q", addr, m.Type)
}

// now is this shard's monotonic clock.
func (c *Client) now() time.Duration { return time.Since(c.epoch) }

// read reads the coordinator's messages until the connection ends: a stop
// closes stopped, anything else is an answer for the call waiting.
func (c *Client) read(dec *json.Decoder) {
	for {
		var m message
		err := dec.Decode(&m)
		if err == nil && m.Type == msgStop {
			c.stopOnce.Do(func() { c.stopWhy = m.Reason; close(c.stopped) })
			continue
		}
		select {
		case c.answers <- answer{m, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Stopped is closed when the coordinator asks the shards to stop: it was
// interrupted, and waits for what each shard measured so far. The shard
// ends its run as an interrupted one and sends its result (Submit).
func (c *Client) Stopped() <-chan struct{} { return c.stopped }

// StopReason is why the coordinator asked the shards to stop ("" before
// it did).
func (c *Client) StopReason() string {
	select {
	case <-c.stopped:
		return c.stopWhy
	default:
		return ""
	}
}

// call sends m and waits up to wait for the answer, or until ctx ends. A
// call whose ctx ends leaves the connection usable: its answer, when it
// comes, is skipped by the next call (a shard interrupted at a start
// still sends its result).
func (c *Client) call(ctx context.Context, m message, wait time.Duration) (message, error) {
	if c.broke != nil {
		return message{}, c.broke
	}
	if err := ctx.Err(); err != nil {
		return message{}, err // nothing sent, nothing due
	}
	if m.Type == msgReady {
		// The coordinator answers a shard's latest ready, once.
		c.stale[msgStart] = 0
	}
	if err := c.write(m, wait); err != nil {
		c.broke = fmt.Errorf("connection to the coordinator lost: %w", err)
		return message{}, c.broke
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case a := <-c.answers:
			if a.err != nil {
				c.broke = fmt.Errorf("connection to the coordinator lost: %w", a.err)
				return message{}, c.broke
			}
			if c.stale[a.m.Type] > 0 {
				c.stale[a.m.Type]--
				continue
			}
			return a.m, nil
		case <-timer.C:
			return message{}, c.fail(fmt.Errorf("connection to the coordinator lost: no answer to %q within %v", m.Type, wait))
		case <-ctx.Done():
			if t, ok := answerTo[m.Type]; ok {
				c.stale[t]++
			}
			return message{}, ctx.Err()
		}
	}
}

// Start says this shard is ready for phase, with its reason to stop (""
// to go on), and waits for every live shard to be ready. It estimates the
// clock offset first, so the agreed instant is converted with a fresh
// estimate.
func (c *Client) Start(ctx context.Context, phase, stop string) (Start, error) {
	var s Start
	// The events queued (a window's final intervals) go first, for a
	// while, so that the pings do not wait behind them on the link and
	// overstate the round trip.
	dctx, cancel := context.WithTimeout(ctx, startDrainTimeout)
	c.drain(dctx)
	cancel()
	for i := range Pings {
		sent := c.now()
		m, err := c.call(ctx, message{Type: msgPing}, pingTimeout)
		if err != nil {
			return s, err
		}
		back := c.now()
		if m.Type != msgPong {
			return s, c.fail(fmt.Errorf("unexpected %q to a ping", m.Type))
		}
		if rtt := back - sent; i == 0 || rtt < s.RTT {
			s.RTT, s.Offset = rtt, (sent+back)/2-time.Duration(m.Now)
		}
	}
	m, err := c.call(ctx, message{Type: msgReady, Phase: phase, Stop: stop}, c.wait)
	if err != nil {
		return s, err
	}
	if m.Type != msgStart {
		return s, c.fail(fmt.Errorf("unexpected %q while waiting for %q", m.Type, phase))
	}
	s.At, s.Stop = c.epoch.Add(time.Duration(m.At)+s.Offset), m.Stop
	return s, nil
}

func (c *Client) fail(err error) error {
	c.broke = err
	c.conn.Close()
	return err
}

// Submit sends this shard's result and waits for the coordinator to say
// it has it.
func (c *Client) Submit(ctx context.Context, r *result.Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// The live view's last intervals go before the result, for a while.
	dctx, cancel := context.WithTimeout(ctx, drainTimeout)
	c.drain(dctx)
	cancel()
	m, err := c.call(ctx, message{Type: msgResult, Result: b}, pingTimeout)
	if err != nil {
		return err
	}
	if m.Type != msgAck {
		return c.fail(fmt.Errorf("unexpected %q to the result", m.Type))
	}
	return nil
}

// Close ends the connection.
func (c *Client) Close() error {
	err := c.conn.Close()
	c.shut.Do(func() { close(c.closed) })
	c.stopStream()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

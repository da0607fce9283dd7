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
	dec  *json.Decoder
	enc  *json.Encoder
	// epoch is the zero of this shard's monotonic clock: the package's,
	// or another in tests that give each in-process shard its own clock.
	epoch time.Time
	wait  time.Duration // how long a start may take: the coordinator's barrier timeout and a margin
	broke error         // the connection failed; every later call fails with it
	// wmu serialises writes: the event stream writes from its own
	// goroutine (stream.go).
	wmu sync.Mutex
	stream
}

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
	c := &Client{conn: conn, dec: json.NewDecoder(conn), enc: json.NewEncoder(conn), epoch: clock}
	// The coordinator answers within its registration timeout; the margin
	// lets its answer, which names the missing shards, arrive first.
	m, err := c.call(ctx, message{Type: msgHello, Index: h.Index, Count: h.Count, Digest: h.Digest, Plan: h.Plan, Host: h.Host}, time.Until(deadline)+10*time.Second)
	if err != nil {
		conn.Close()
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
		conn.Close()
		return nil, &Refused{Reason: m.Reason}
	case msgFailed:
		conn.Close()
		return nil, fmt.Errorf("coordinator %s: %w: %s", addr, ErrNotRegistered, m.Reason)
	}
	conn.Close()
	return nil, fmt.Errorf("coordinator %s: registration: unexpected %q", addr, m.Type)
}

// now is this shard's monotonic clock.
func (c *Client) now() time.Duration { return time.Since(c.epoch) }

// call sends m and waits up to wait for the answer, or until ctx ends.
func (c *Client) call(ctx context.Context, m message, wait time.Duration) (message, error) {
	if c.broke != nil {
		return message{}, c.broke
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Now()) })
	defer stop()
	_ = c.conn.SetReadDeadline(time.Now().Add(wait))
	var answer message
	err := c.write(m, wait)
	if err == nil {
		err = c.dec.Decode(&answer)
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		c.broke = fmt.Errorf("connection to the coordinator lost: %w", err)
		if ctx.Err() != nil {
			c.broke = ctx.Err()
		}
		return message{}, c.broke
	}
	return answer, nil
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
	c.stopStream()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

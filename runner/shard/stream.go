package shard

import (
	"context"
	"github.com/searchbench/searchbench/runner/event"
	"sync"
	"time"
)

// StreamQueue is how many events a shard keeps for the coordinator while
// the link is busy; when it is full the oldest is dropped (and counted),
// so that a slow or stuck coordinator never holds the shard's run.
const StreamQueue = 1024

// drainTimeout bounds how long Submit waits for the queued events to go
// out before it sends the result.
const drainTimeout = 10 * time.Second

// startDrainTimeout bounds how long a start waits for them.
const startDrainTimeout = 2 * time.Second

// stream is a Client's event stream to the coordinator: Report queues, one
// goroutine writes.
type stream struct {
	smu     sync.Mutex
	queue   []event.Event
	busy    bool  // the writer is sending one
	dropped int64 // dropped for a full queue, or after the stream failed
	failed  bool  // a write failed: the stream is over
	wake    chan struct{}
	quit    chan struct{}
	done    sync.WaitGroup
}

// write sends m with the write deadline wait, under the write lock.
func (c *Client) write(m message, wait time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(wait))
	return c.enc.Encode(m)
}

func (c *Client) startStream() {
	c.wake, c.quit = make(chan struct{}, 1), make(chan struct{})
	c.done.Add(1)
	go c.sendEvents()
}

func (c *Client) stopStream() {
	if c.quit == nil {
		return
	}
	c.smu.Lock()
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	c.smu.Unlock()
	c.done.Wait()
}

// Report queues an event for the coordinator's live view and returns at
// once: when StreamQueue events wait already, the oldest is dropped. When
// the coordinator has no live view (its welcome did not ask for events)
// it does nothing.
func (c *Client) Report(r event.Event) {
	if c == nil || c.wake == nil {
		return
	}
	c.smu.Lock()
	switch {
	case c.failed:
		c.dropped++
	case len(c.queue) >= StreamQueue:
		c.queue = append(c.queue[1:], r)
		c.dropped++
	default:
		c.queue = append(c.queue, r)
	}
	c.smu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Dropped is how many events never reached the coordinator: dropped from
// a full queue, or queued after the stream failed.
func (c *Client) Dropped() int64 {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.dropped
}

// sendEvents writes the queued events until Close. A write that fails (or
// takes longer than pingTimeout) ends the stream and closes the
// connection, which may hold half a line: the next call fails as a lost
// coordinator.
func (c *Client) sendEvents() {
	defer c.done.Done()
	for {
		select {
		case <-c.quit:
			return
		case <-c.wake:
		}
		for {
			c.smu.Lock()
			if len(c.queue) == 0 || c.failed {
				c.smu.Unlock()
				break
			}
			r := c.queue[0]
			c.queue = c.queue[1:]
			c.busy = true
			dropped := c.dropped
			c.smu.Unlock()
			err := c.write(message{Type: msgEvent, Event: &r, Dropped: dropped}, pingTimeout)
			c.smu.Lock()
			c.busy = false
			if err != nil {
				c.failed = true
				c.dropped += int64(len(c.queue)) + 1
				c.queue = nil
			}
			c.smu.Unlock()
			if err != nil {
				c.conn.Close()
				return
			}
		}
	}
}

// drain waits until the queued events are written, the stream failed, or
// ctx ends.
func (c *Client) drain(ctx context.Context) {
	if c.wake == nil {
		return
	}
	for {
		c.smu.Lock()
		idle := c.failed || (len(c.queue) == 0 && !c.busy)
		c.smu.Unlock()
		if idle {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

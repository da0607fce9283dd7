package shard

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
)

// A coordinator that welcomes a shard and then stops reading does not hold
// the shard's run: reporting returns at once, the oldest events are
// dropped and counted, and Close does not wait for the link.
func TestAStuckCoordinatorDoesNotHoldTheShard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stuck := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		r := bufio.NewReader(c)
		if _, err := r.ReadBytes('\n'); err != nil {
			return
		}
		_ = json.NewEncoder(c).Encode(message{Type: msgWelcome, Barrier: int64(time.Minute), Stream: true})
		stuck <- c // and never read again
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := register(ctx, ln.Addr().String(), 0, 1, "d", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if sc := <-stuck; sc != nil {
			sc.Close()
		}
	}()
	big := strings.Repeat("x", 64<<10)
	const n = 20 * StreamQueue
	began := time.Now()
	for range n {
		c.Report(event.Event{Kind: event.Warning, Text: big})
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("%d reports took %v with a stuck coordinator", n, took)
	}
	// 1.3 GB cannot all be in the sockets' buffers.
	if d := c.Dropped(); d < n-2*StreamQueue-1000 {
		t.Errorf("%d of %d events dropped; the queue holds %d", d, n, StreamQueue)
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("Close waited for the stuck coordinator")
	}
}

// Events reach the coordinator's Events in the order sent, from the shard
// that sent them, before its result.
func TestEventsReachTheCoordinatorBeforeTheResult(t *testing.T) {
	// Without a live view the coordinator asks for none, and a shard
	// sends none (an unknown message would be a protocol error).
	addr, done := coordinator(t, Server{Shards: 1})
	errs := onShards(t, addr, 1, func(i int, c *Client) error {
		c.Report(event.Event{Kind: event.Warning, Text: "unseen"})
		if c.wake != nil {
			t.Error("the shard streams to a coordinator without a live view")
		}
		return c.Submit(context.Background(), shardResult(i))
	})
	if errs[0] != nil || wait(t, done).o.Partial() {
		t.Fatalf("without a live view: %v", errs[0])
	}

	// Each event as the runner made it: a level's phase apart from its
	// window, a repetition's warning, a synchronised start's record.
	sent := func(i, k int) event.Event {
		text := string(rune('a'+i)) + strings.Repeat(".", k)
		switch k % 3 {
		case 0:
			return event.Event{Kind: event.Phase, Setup: "bleve", Phase: "measure", Window: result.LevelWindow(k, 7), Users: 7, Duration: time.Duration(k) * time.Second, Text: text}
		case 1:
			return event.Event{Kind: event.Warning, Setup: "bleve", Window: result.RepWindow(k, i), Text: text}
		}
		return event.Event{Kind: event.Start, Setup: "bleve", Window: result.PreparedWindow, Text: text,
			Start: &result.ShardStart{Phase: "bleve prepared", Late: result.Duration(k)}}
	}
	var mu sync.Mutex
	got := map[int][]event.Event{}
	addr, done = coordinator(t, Server{Shards: 2, Events: func(i int, e event.Event, dropped int64) {
		mu.Lock()
		defer mu.Unlock()
		got[i] = append(got[i], e)
	}})
	errs = onShards(t, addr, 2, func(i int, c *Client) error {
		for k := range 100 {
			c.Report(sent(i, k))
		}
		return c.Submit(context.Background(), shardResult(i))
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	wait(t, done)
	mu.Lock()
	defer mu.Unlock()
	for i := range 2 {
		if len(got[i]) != 100 {
			t.Fatalf("shard %d: %d events came in, want 100", i, len(got[i]))
		}
		for k, e := range got[i] {
			want := sent(i, k)
			if e.Start != nil && want.Start != nil && *e.Start == *want.Start {
				e.Start = want.Start
			}
			if e != want {
				t.Fatalf("shard %d event %d: %+v, want %+v", i, k, e, want)
			}
		}
	}
}

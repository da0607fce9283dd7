package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
)

// `coordinate --live` serves the shards' run merged: the page's last
// intervals are the merged result's timelines interval by interval (the
// counts and the percentiles of the added histograms, each shard's
// throughput), and each shard's start lateness is in its log.
func TestCoordinateLiveShowsTheMergedRun(t *testing.T) {
	t.Parallel()
	_, url := target(t)
	coord := freePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	type stream struct {
		latest map[pageKey]result.Interval
		logs   []string
		last   string
		err    error
	}
	got := make(chan stream, 1)
	go func() {
		s := stream{latest: map[pageKey]result.Interval{}}
		s.last, s.err = followLive(ctx, addr, func(m event.Event) {
			switch {
			case m.Kind == event.Reset:
				s.latest, s.logs = map[pageKey]result.Interval{}, nil
			case m.Interval != nil:
				s.latest[pageKey{m.Setup, m.Window, m.Interval.Start}] = *m.Interval
			case m.Kind == event.Log:
				s.logs = append(s.logs, m.Text)
			}
		})
		got <- s
	}()

	log := shardedRun(t, ctx, url, dir, coord, 2, "--live", addr)
	if !strings.Contains(log, "live view at http://"+addr+"/") {
		t.Errorf("the URL is not in the log:\n%s", log)
	}
	s := <-got
	if s.err != nil || s.last != "end" {
		t.Fatalf("stream: %v, last message %q", s.err, s.last)
	}
	merged := readResult(t, filepath.Join(dir, "merged"))
	n := 0
	for _, e := range merged.Engines {
		for j, l := range e.Levels {
			if l.Timeline == nil {
				t.Fatalf("level of %d users: no timeline", l.Users)
			}
			for _, want := range l.Timeline.Intervals {
				n++
				iv, ok := s.latest[pageKey{e.Label, result.LevelWindow(j, l.Users), want.Start}]
				if !ok {
					t.Errorf("%d users at %v: not on the page", l.Users, want.Start)
					continue
				}
				if len(iv.Ops) != len(want.Ops) || len(iv.Shards) != len(want.Shards) {
					t.Errorf("%d users at %v: page %+v, merged %+v", l.Users, want.Start, iv, want)
					continue
				}
				for k, o := range want.Ops {
					p := iv.Ops[k]
					if p.Op != o.Op || p.Count != o.Count || p.P50 != o.P50 || p.P99 != o.P99 || p.Max != o.Max {
						t.Errorf("%d users at %v, %s: page %+v, merged %+v", l.Users, want.Start, o.Op, p, o)
					}
				}
				for k, sh := range want.Shards {
					if iv.Shards[k] != sh {
						t.Errorf("%d users at %v: shard throughput %+v, merged %+v", l.Users, want.Start, iv.Shards, want.Shards)
					}
				}
			}
		}
	}
	if n == 0 || len(s.latest) != n {
		t.Errorf("the page has %d intervals, the merged timelines %d", len(s.latest), n)
	}
	late := 0
	for _, l := range s.logs {
		if strings.Contains(l, " late (clock offset") {
			late++
		}
	}
	if late != 2*4 {
		t.Errorf("%d start lateness lines on the page; want 2 shards × 4 starts:\n%s", late, strings.Join(s.logs, "\n"))
	}
}

package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// wireClock is a coordinator's listener that notes, by phase, when the
// coordinator read the last shard's "ready" and when it wrote the first
// "start". The coordinator picks a start's instant after the one and
// before the other, lead ahead: the agreed instant lies in [last ready
// read + lead, first start written + lead], a truth read off the wire that
// neither the coordinator's nor the shards' code computes.
type wireClock struct {
	net.Listener
	mu    sync.Mutex
	ready map[string]time.Time // the latest read of a "ready" of the phase
	start map[string]time.Time // the earliest write of a "start" of the phase
}

func newWireClock(t *testing.T) *wireClock {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &wireClock{Listener: ln, ready: map[string]time.Time{}, start: map[string]time.Time{}}
}

func (w *wireClock) Accept() (net.Conn, error) {
	c, err := w.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &wireConn{Conn: c, w: w}, nil
}

// bounds is where the agreed instant of phase lies.
func (w *wireClock) bounds(phase string) (lo, hi time.Time, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lo, okLo := w.ready[phase]
	hi, okHi := w.start[phase]
	return lo.Add(testLead), hi.Add(testLead), okLo && okHi
}

// wireConn is one shard's connection, as the coordinator sees it.
type wireConn struct {
	net.Conn
	w    *wireClock
	part []byte // read, not yet a whole message
}

// kind is the type and phase of a protocol message (one JSON line).
func kind(line []byte) (typ, phase string) {
	var m struct{ Type, Phase string }
	if json.Unmarshal(line, &m) != nil {
		return "", ""
	}
	return m.Type, m.Phase
}

func (c *wireConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	at := time.Now() // before the coordinator has decoded what it read
	c.part = append(c.part, p[:n]...)
	for {
		i := bytes.IndexByte(c.part, '\n')
		if i < 0 {
			break
		}
		if typ, phase := kind(c.part[:i]); typ == "ready" {
			c.w.mu.Lock()
			if at.After(c.w.ready[phase]) {
				c.w.ready[phase] = at
			}
			c.w.mu.Unlock()
		}
		c.part = c.part[i+1:]
	}
	return n, err
}

func (c *wireConn) Write(p []byte) (int, error) {
	at := time.Now() // after the coordinator picked the instant
	if typ, phase := kind(bytes.TrimSpace(p)); typ == "start" {
		c.w.mu.Lock()
		if old, ok := c.w.start[phase]; !ok || at.Before(old) {
			c.w.start[phase] = at
		}
		c.w.mu.Unlock()
	}
	return c.Conn.Write(p)
}

// A sharded run's every window is anchored at the instant the coordinator
// agreed: a closed-loop level's ramp, window and intervals from it (the
// window ramp + settle after it), a ladder rep's schedule and intervals at
// it. Each shard's clock is its own estimate of the coordinator's, within
// half its round trip; these shards share one clock, so that is the whole
// error. The coordinator's skew line (the spread of the shards' lateness,
// ± the clock estimates' error) covers how far apart the windows really
// began.
func TestShardsWindowsStartAtTheAgreedInstant(t *testing.T) {
	const interval = 100 * time.Millisecond
	closed := &loops.Config{Users: []int{3, 12}, SpawnRate: 1000, Settle: 50 * time.Millisecond,
		Measure: 300 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10, Interval: interval}}
	open := openConfig(4)
	open.Interval = interval
	ladder := &loops.LadderConfig{Open: open, Rates: workload.Ladder{Start: 200, Step: 2, Stop: 400},
		Duration: 300 * time.Millisecond, Repeat: 1, Factor: 5, MinAchieved: 0.5, Explode: 1000}

	// window is one shard's window: its start's phase, its timeline, and
	// where its grid should be from the agreed instant.
	type window struct {
		phase string
		tl    *result.Timeline
		after time.Duration
	}
	for _, c := range []struct {
		name    string
		closed  *loops.Config
		ladder  *loops.LadderConfig
		windows func(e result.EngineRun) []window
	}{
		{"closed loop", closed, nil, func(e result.EngineRun) (ws []window) {
			for l, level := range e.Levels {
				all := closed.Users[l]
				ramp := time.Duration(float64(time.Second) * float64(all-1) / closed.SpawnRate)
				ws = append(ws, window{"sharedmem " + result.LevelWindow(l, all).String(), level.Timeline, ramp + closed.Settle})
			}
			return ws
		}},
		{"ladder", nil, ladder, func(e result.EngineRun) (ws []window) {
			for j, rung := range e.Ladder.Rungs {
				for k, rep := range rung.Reps {
					ws = append(ws, window{"sharedmem " + result.RepWindow(j, k).String(), rep.Timeline, 0})
				}
			}
			return ws
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wc := newWireClock(t)
			res, o := runShardsOn(t, shardPlans(t, 3, uniqueURL(t), c.closed, c.ladder), wc, nil)
			if o == nil || o.Partial() {
				t.Fatalf("coordinator: %+v", o)
			}
			skews := map[string]shard.PhaseSkew{}
			for _, s := range shard.Skews(res...) {
				skews[s.Phase] = s
			}
			anchors := map[string][]time.Time{}
			for i, r := range res {
				rtt := map[string]time.Duration{}
				for _, s := range r.Shard.Starts {
					rtt[s.Phase] = time.Duration(s.RTT)
				}
				ws := c.windows(r.Engines[0])
				if len(ws) != 2 {
					t.Fatalf("shard %d: %d windows, want 2", i, len(ws))
				}
				for _, w := range ws {
					lo, hi, ok := wc.bounds(w.phase)
					if !ok || w.tl == nil || w.tl.Origin.IsZero() {
						t.Fatalf("shard %d %s: no start on the wire (%v) or no timeline origin (%+v)", i, w.phase, ok, w.tl)
					}
					anchor := w.tl.Origin.Add(-w.after)
					anchors[w.phase] = append(anchors[w.phase], anchor)
					// The shard's estimate of the coordinator's clock is
					// within half its round trip; a microsecond for rounding.
					slack := rtt[w.phase]/2 + time.Microsecond
					if anchor.Before(lo.Add(-slack)) || anchor.After(hi.Add(slack)) {
						t.Errorf("shard %d %s: the grid is anchored %v after the earliest the coordinator can have agreed and %v after the latest (its clock estimate is good to ±%v)",
							i, w.phase, anchor.Sub(lo), anchor.Sub(hi), slack)
					}
				}
			}
			for phase, as := range anchors {
				first, last := as[0], as[0]
				for _, a := range as {
					first, last = minTime(first, a), maxTime(last, a)
				}
				sk := skews[phase]
				if spread := last.Sub(first); spread > sk.Skew+sk.Error+time.Microsecond {
					t.Errorf("%s: the shards' windows began %v apart; the coordinator's skew says %v ± %v", phase, spread, sk.Skew, sk.Error)
				}
			}
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// A sharded level's intervals and window end where the plan puts them
// (ramp + settle + measure after the agreed instant), whichever shard
// started the level's last user, and however late its goroutine began: no
// level ends with a sliver of an interval past the planned window, in a
// shard's timeline or in the merged one.
func TestShardedLevelsEndWithThePlannedWindow(t *testing.T) {
	const interval = 100 * time.Millisecond
	cfg := &loops.Config{Users: []int{3, 12}, SpawnRate: 1000, Settle: 50 * time.Millisecond,
		Measure: 300 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: loops.Calls{Timeout: time.Second, Mix: workload.DefaultMix, Seed: 1, K: 10, Interval: interval}}
	res, o := runShards(t, shardPlans(t, 3, uniqueURL(t), cfg, nil))
	if o == nil || o.Partial() {
		t.Fatalf("coordinator: %+v", o)
	}
	merged, err := o.Merge()
	if err != nil {
		t.Fatal(err)
	}
	check := func(who string, levels []result.Level) {
		if len(levels) != len(cfg.Users) {
			t.Fatalf("%s: %d levels", who, len(levels))
		}
		for l, level := range levels {
			tl := level.Timeline
			if tl == nil {
				t.Fatalf("%s level %d: no timeline", who, l+1)
			}
			if len(tl.Intervals) == 0 {
				// A ramp that overran the whole window (a loaded machine)
				// leaves nothing to measure, and no interval.
				if level.Window != 0 {
					t.Errorf("%s level %d: a %v window without intervals", who, l+1, time.Duration(level.Window))
				}
				continue
			}
			// On the grid, the window is [first.Start - Offset, that + Window).
			first, last := tl.Intervals[0], tl.Intervals[len(tl.Intervals)-1]
			if end := time.Duration(first.Start - tl.Offset + level.Window); end > cfg.Measure {
				t.Errorf("%s level %d: the window ends %v into the planned %v window", who, l+1, end, cfg.Measure)
			}
			if end := time.Duration(last.Start + last.Length); end != cfg.Measure {
				t.Errorf("%s level %d: the intervals end %v into the planned %v window; the last starts at %v, %v long, %d calls",
					who, l+1, end, cfg.Measure, time.Duration(last.Start), time.Duration(last.Length), last.Ops[0].Count+last.Ops[1].Count)
			}
			for _, iv := range tl.Intervals {
				if iv.Length != result.Duration(interval) {
					t.Errorf("%s level %d: the interval at %v is %v long, want %v", who, l+1, time.Duration(iv.Start), time.Duration(iv.Length), interval)
				}
			}
		}
	}
	for i, r := range res {
		check(fmt.Sprintf("shard %d", i), r.Engines[0].Levels)
	}
	check("merged", merged.Engines[0].Levels)
}

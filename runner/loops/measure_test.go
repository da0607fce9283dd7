package loops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
)

// A load generator that starts its users late must not measure before they
// run. Here the launcher is held at the ramp's start (by an observer, as a
// starved process holds it) for longer than ramp, settle and measure
// together: the window still opens only once every user is running, holds
// their calls, records them as active throughout, and the level warns.
func TestLateUsersDelayTheWindow(t *testing.T) {
	e := runnertest.NewMem()
	e.Delay = time.Millisecond
	cfg := quickConfig(8)
	cfg.Settle, cfg.Measure = 50*time.Millisecond, 200*time.Millisecond
	const hold = 500 * time.Millisecond
	ev := watch(event.Phase, func(e event.Event) {
		if e.Phase == "ramp" {
			time.Sleep(hold)
		}
	})
	l := ClosedLoop(context.Background(), e, runnertest.Text(t, 500, 0.5), cfg, ev, nil)[0]
	var calls int64
	for _, o := range l.Ops {
		calls += o.Count + o.ErrorCount()
	}
	if calls == 0 || l.Partial || time.Duration(l.Window) != cfg.Measure {
		t.Fatalf("%d calls measured, partial %v, window %v; want the full window of the users' calls", calls, l.Partial, time.Duration(l.Window))
	}
	if a := l.Active; a == nil || a.Min != 8 || a.Mean != 8 || time.Duration(a.Ramp) < hold {
		t.Fatalf("active users %+v; want all 8 throughout, the ramp at least the %v hold", a, hold)
	}
	if !strings.Contains(strings.Join(l.Warnings.Texts(), "\n"), "ramp overran: all 8 users were running only") {
		t.Errorf("warnings %q; want the ramp's overrun", l.Warnings)
	}
}

// A ramp on time does not warn, and its users are all active.
func TestRampOnTimeDoesNotWarn(t *testing.T) {
	l := ClosedLoop(context.Background(), runnertest.NewMem(), runnertest.Text(t, 500, 0.5), quickConfig(4), Emitter{}, nil)[0]
	if a := l.Active; a == nil || a.Min != 4 || a.Mean != 4 {
		t.Fatalf("active users %+v; want 4 throughout", a)
	}
	for _, w := range l.Warnings.Texts() {
		if strings.HasPrefix(w, "ramp overran") {
			t.Errorf("warning %q on a 4-user ramp", w)
		}
	}
}

func TestActiveUsers(t *testing.T) {
	s := time.Second
	spans := []span{{0, 10 * s}, {5 * s, 10 * s}, {0, 3 * s}, {1 * s, 2 * s}, {9 * s, 12 * s}}
	// Over [2s, 8s): two users at 2s, one from 3s, two from 5s.
	mean, least := activeUsers(spans, 2*s, 8*s)
	if least != 1 || mean != float64(6+1+3)/6 {
		t.Errorf("mean %v, min %d; want %v and 1", mean, least, float64(6+1+3)/6)
	}
	// A user stopping as another starts leaves the count unchanged.
	mean, least = activeUsers([]span{{0, 5 * s}, {5 * s, 10 * s}}, 0, 10*s)
	if least != 1 || mean != 1 {
		t.Errorf("handover: mean %v, min %d; want 1 and 1", mean, least)
	}
	if mean, least = activeUsers(spans, 4*s, 4*s); least != 1 || mean != 1 {
		t.Errorf("empty window: mean %v, min %d; want the one running then", mean, least)
	}
}

// While the engine is down every write fails: a write that failed is not
// a write to probe, so no probe is counted, and the prober pauses after it
// as after a probe instead of claiming the next failing write at once.
func TestFreshnessSkipsFailedWrites(t *testing.T) {
	e, cfg := freshnessConfig(4, 0)
	cfg.Measure = 300 * time.Millisecond
	// A mean gap this long puts the first gap's draw far beyond the window.
	cfg.Freshness.Gap = 1000 * time.Hour
	e.Fail = func(op string, _ int64) error {
		if op == "upsert" {
			return errors.New("mem: connection refused")
		}
		return nil
	}
	l := ClosedLoop(context.Background(), e, runnertest.Text(t, 5000, 0.5), cfg, Emitter{}, nil)[0]
	up, _ := l.Op("upsert")
	f := l.Freshness
	if f == nil || up.Errors["other"] < 2 {
		t.Fatalf("freshness %+v, upsert errors %v; want the failing writes counted", f, up.Errors)
	}
	if f.Probes != 0 || f.WriteFailed != 1 || f.Searches != 0 {
		t.Errorf("probes %d, write failed %d, searches %d of %d failed upserts; want no probe and one sampled write", f.Probes, f.WriteFailed, f.Searches, up.Errors["other"])
	}
	if !strings.Contains(strings.Join(l.Warnings.Texts(), "\n"), "freshness: each of the 1 writes sampled for a probe failed") {
		t.Errorf("warnings %q; want the failed samples named", l.Warnings)
	}
}

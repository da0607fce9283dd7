package runner

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// A shard streams its run to the coordinator's live view: its phases,
// rungs, intervals and warnings, and each synchronised start's lateness.
// Reporting never waits (shard.Client.Report queues, dropping the oldest
// when the link is slow), so the run never waits for the coordinator.

// coordinatorObserver forwards to c the events the coordinator's live
// view shows: phases, rungs, warnings and intervals, as they are.
func coordinatorObserver(c *shard.Client) event.Observer {
	return event.ObserverFunc(func(e event.Event) {
		switch e.Kind {
		case event.Phase, event.Rung, event.Warning:
		case event.Interval:
			if e.Interval == nil {
				return
			}
			// The queue keeps it past this call: a copy of its own.
			iv := *e.Interval
			e.Interval = &iv
		default:
			return
		}
		c.Report(e)
	})
}

// ShardView is a coordinator's live view of a sharded run: it takes the
// events the shards stream (shard.Server.Events) and passes one run's
// events to an Observer (a live.Server): each interval merged across the shards
// that reported it so far with result.MergeInterval (the shards' histograms
// added, never percentiles averaged; the merged interval replaces the
// earlier one as more shards report, and its Shards is each shard's
// throughput), each phase and rung once, each shard's warnings and start
// lateness named by the shard.
type ShardView struct {
	obs event.Observer

	mu        sync.Mutex
	intervals map[ivKey]map[int]result.Interval // by shard
	seen      map[stepKey]int                   // phase and rung events sent, by what they say
	counts    map[int]map[stepKey]int           // the same, by shard
	dropped   map[int]int64
}

type ivKey struct {
	setup  string
	window result.Window
	start  result.Duration
}

// stepKey is what a phase or rung event says: every shard sends the same.
type stepKey struct {
	kind         event.Kind
	setup, phase string
	window       result.Window
	users        int
	duration     time.Duration
	rate         float64
	rep, reps    int
}

// NewShardView returns a ShardView that passes the run's events to obs.
func NewShardView(obs event.Observer) *ShardView {
	return &ShardView{obs: obs, intervals: map[ivKey]map[int]result.Interval{}, seen: map[stepKey]int{},
		counts: map[int]map[stepKey]int{}, dropped: map[int]int64{}}
}

// Event takes one shard's event; it has shard.Server.Events' signature.
// Events are passed on in the order they arrive, under one lock, so that a
// merged interval is never overtaken by an older merge of it.
func (m *ShardView) Event(idx int, e event.Event, dropped int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if dropped > m.dropped[idx] {
		if m.dropped[idx] == 0 {
			m.obs.Observe(event.Event{Kind: event.Warning, Setup: e.Setup,
				Text: fmt.Sprintf("shard %d: the link to the coordinator is slow; the live view misses some of its events (the result will be whole)", idx)})
		}
		m.dropped[idx] = dropped
	}
	switch e.Kind {
	case event.Phase, event.Rung:
		m.step(idx, e)
	case event.Warning:
		m.obs.Observe(event.Event{Kind: event.Warning, Setup: e.Setup, Window: e.Window, Text: fmt.Sprintf("shard %d: %s", idx, e.Text)})
	case event.Start:
		if e.Start == nil {
			return
		}
		s := e.Start
		m.obs.Observe(event.Event{Kind: event.Log, Setup: e.Setup, Window: e.Window, Text: fmt.Sprintf("shard %d: %s: started %v late (clock offset %v ± %v)",
			idx, e.Window, time.Duration(s.Late).Round(time.Microsecond), time.Duration(s.Offset).Round(time.Microsecond), (time.Duration(s.RTT) / 2).Round(time.Microsecond))})
	case event.Interval:
		if e.Interval != nil {
			m.interval(idx, e)
		}
	}
}

// step passes on a phase or a rung of shard idx: every shard runs the same
// ones, and the view shows each once, when the first shard reaches it.
// m.mu is held.
func (m *ShardView) step(idx int, e event.Event) {
	what := stepKey{e.Kind, e.Setup, e.Phase, e.Window, e.Users, e.Duration, e.Rate, e.Rep, e.Reps}
	if m.counts[idx] == nil {
		m.counts[idx] = map[stepKey]int{}
	}
	m.counts[idx][what]++
	if m.counts[idx][what] <= m.seen[what] {
		return
	}
	m.seen[what]++
	m.obs.Observe(event.Event{Kind: e.Kind, Setup: e.Setup, Phase: e.Phase, Window: e.Window, Users: e.Users,
		Duration: e.Duration, Rate: e.Rate, Rep: e.Rep, Reps: e.Reps})
}

// interval passes on shard idx's interval merged with what the other
// shards sent of the same interval so far. m.mu is held.
func (m *ShardView) interval(idx int, e event.Event) {
	k := ivKey{e.Setup, e.Window, e.Interval.Start}
	by := m.intervals[k]
	if by == nil {
		by = map[int]result.Interval{}
		m.intervals[k] = by
	}
	by[idx] = *e.Interval
	shards := make([]int, 0, len(by))
	for i := range by {
		shards = append(shards, i)
	}
	slices.Sort(shards) // in shard order, as result.Merge takes them
	ivs := make([]result.Interval, len(shards))
	for i, s := range shards {
		ivs[i] = by[s]
	}
	merged, err := result.MergeInterval(ivs, shards, e.Setup+" "+e.Window.String())
	if err != nil {
		m.obs.Observe(event.Event{Kind: event.Warning, Setup: e.Setup, Window: e.Window, Text: "live view: " + err.Error()})
		return
	}
	m.obs.Observe(event.Event{Kind: event.Interval, Setup: e.Setup, Window: e.Window, Interval: &merged})
}

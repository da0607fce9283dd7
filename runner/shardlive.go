package runner

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// A shard streams its run to the coordinator's live view: its phases,
// rungs, intervals and warnings, and each synchronised start's lateness.
// Reporting never waits (shard.Client.Report queues, dropping the oldest
// when the link is slow), so the run never waits for the coordinator.

// coordinatorObserver forwards the events the coordinator's live view
// shows to c.
func coordinatorObserver(c *shard.Client) Observer {
	return ObserverFunc(func(e Event) {
		r := shard.Report{Setup: e.Setup, Phase: e.Phase, Users: e.Users, Duration: e.Duration, Text: e.Text,
			Rate: e.Rate, Rep: e.Rep, Reps: e.Reps}
		switch e.Kind {
		case EventPhase:
			r.Kind = shard.ReportPhase
		case EventRung:
			r.Kind = shard.ReportRung
		case EventWarning:
			r.Kind = shard.ReportWarning
		case EventInterval:
			if e.Interval == nil {
				return
			}
			iv := *e.Interval
			r.Kind, r.Interval = shard.ReportInterval, &iv
		default:
			return
		}
		c.Report(r)
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
	obs Observer

	mu        sync.Mutex
	intervals map[ivKey]map[int]result.Interval // by shard
	seen      map[string]int                    // phase and rung events sent, by what they say
	counts    map[int]map[string]int            // the same, by shard
	dropped   map[int]int64
}

type ivKey struct {
	setup, window string
	start         result.Duration
}

// NewShardView returns a ShardView that passes the run's events to obs.
func NewShardView(obs Observer) *ShardView {
	return &ShardView{obs: obs, intervals: map[ivKey]map[int]result.Interval{}, seen: map[string]int{},
		counts: map[int]map[string]int{}, dropped: map[int]int64{}}
}

// Event takes one shard's event; it has shard.Server.Events' signature.
// Events are passed on in the order they arrive, under one lock, so that a
// merged interval is never overtaken by an older merge of it.
func (m *ShardView) Event(idx int, r shard.Report, dropped int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if dropped > m.dropped[idx] {
		if m.dropped[idx] == 0 {
			m.obs.Observe(Event{Kind: EventWarning, Setup: r.Setup,
				Text: fmt.Sprintf("shard %d: the link to the coordinator is slow; the live view misses some of its events (the result will be whole)", idx)})
		}
		m.dropped[idx] = dropped
	}
	switch r.Kind {
	case shard.ReportPhase, shard.ReportRung:
		// Every shard runs the same phases: the view shows each once, when
		// the first shard reaches it.
		what := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%v\x00%v\x00%d\x00%d", r.Kind, r.Setup, r.Phase, r.Users, r.Duration, r.Rate, r.Rep, r.Reps)
		if m.counts[idx] == nil {
			m.counts[idx] = map[string]int{}
		}
		m.counts[idx][what]++
		if m.counts[idx][what] <= m.seen[what] {
			return
		}
		m.seen[what]++
		kind := EventPhase
		if r.Kind == shard.ReportRung {
			kind = EventRung
		}
		m.obs.Observe(Event{Kind: kind, Setup: r.Setup, Phase: r.Phase, Users: r.Users, Duration: r.Duration,
			Rate: r.Rate, Rep: r.Rep, Reps: r.Reps})
	case shard.ReportWarning:
		m.obs.Observe(Event{Kind: EventWarning, Setup: r.Setup, Phase: r.Phase, Text: fmt.Sprintf("shard %d: %s", idx, r.Text)})
	case shard.ReportStart:
		if r.Start == nil {
			return
		}
		s := r.Start
		m.obs.Observe(Event{Kind: EventLog, Setup: r.Setup, Text: fmt.Sprintf("shard %d: %s: started %v late (clock offset %v ± %v)",
			idx, r.Phase, time.Duration(s.Late).Round(time.Microsecond), time.Duration(s.Offset).Round(time.Microsecond), (time.Duration(s.RTT) / 2).Round(time.Microsecond))})
	case shard.ReportInterval:
		if r.Interval == nil {
			return
		}
		k := ivKey{r.Setup, r.Phase, r.Interval.Start}
		by := m.intervals[k]
		if by == nil {
			by = map[int]result.Interval{}
			m.intervals[k] = by
		}
		by[idx] = *r.Interval
		shards := make([]int, 0, len(by))
		for i := range by {
			shards = append(shards, i)
		}
		slices.Sort(shards) // in shard order, as result.Merge takes them
		ivs := make([]result.Interval, len(shards))
		for i, s := range shards {
			ivs[i] = by[s]
		}
		merged, err := result.MergeInterval(ivs, shards, r.Setup+" "+r.Phase)
		if err != nil {
			m.obs.Observe(Event{Kind: EventWarning, Setup: r.Setup, Phase: r.Phase, Text: "live view: " + err.Error()})
			return
		}
		m.obs.Observe(Event{Kind: EventInterval, Setup: r.Setup, Phase: r.Phase, Interval: &merged})
	}
}

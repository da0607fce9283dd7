package record

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// The stats sampler's last sample, taken as a window ends, is bounded by
// the run's context and a few seconds: an interrupt does not wait for it,
// nor does an engine that stopped answering hold the level's end for the
// whole request timeout.
func TestLastStatsSampleIsBounded(t *testing.T) {
	const timeout = 30 * time.Second
	type call struct {
		err  error
		left time.Duration
	}
	var mu sync.Mutex
	var calls []call
	src := func(ctx context.Context) (map[string]float64, error) {
		d, _ := ctx.Deadline()
		mu.Lock()
		calls = append(calls, call{ctx.Err(), time.Until(d)})
		mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return map[string]float64{"queue": 1}, nil
	}
	last := func() call {
		mu.Lock()
		defer mu.Unlock()
		return calls[len(calls)-1]
	}
	for _, interrupted := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		s := StartSampler(ctx, src, timeout)
		if interrupted {
			cancel()
		}
		_, warn := s.Stop(ctx, timeout)
		cancel()
		c := last()
		switch {
		case interrupted && !errors.Is(c.err, context.Canceled):
			t.Errorf("interrupted: the last sample's context was live (%v, %v left): it outlives the run", c.err, c.left)
		case !interrupted && (c.err != nil || c.left > statsEdgeTimeout):
			t.Errorf("the last sample had %v (%v) to answer; want at most %v", c.left, c.err, statsEdgeTimeout)
		}
		if warn != "" {
			t.Errorf("interrupted %v: warning %q; an interrupted sample is no failure", interrupted, warn)
		}
	}
}

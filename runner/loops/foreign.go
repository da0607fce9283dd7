package loops

import (
	"sync"
	"sync/atomic"

	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/workload"
)

// In a sharded closed-loop level each share follows its own writes only
// (checks.Versions), while the other shares' users write the same index.
// Their streams are seeded by their global indices, so this share can draw
// them too; only their pace is unknown. foreign draws them ahead of this
// share's own users — each user, as it draws its j-th step, has the
// others drawn to foreignAhead·j + foreignSlack — and marks each write's
// document foreign (excused for good from the exact checks) as it is
// drawn: a write is marked before it can be sent unless another share's
// users run more than foreignAhead times faster than this share's fastest
// (after the first foreignSlack steps), the shares having started
// together.
const (
	foreignAhead = 4
	foreignSlack = 64
)

// foreign is the other shares' users' streams of a level, drawn to drawn
// steps each.
type foreign struct {
	vers    checks.Versions
	mu      sync.Mutex
	streams []*workload.Stream
	drawn   atomic.Int64
}

// newForeign draws the first foreignSlack steps of the other shares' users
// of a level of all users (this share's are mine users from first); nil
// when the run is not sharded, the exact checks do not follow the writes
// or the mix does not write.
func newForeign(cfg Config, ids, level, all, first, mine int, vers checks.Versions) *foreign {
	if !cfg.Share.Sharded() || !vers.Follows() || !cfg.Mix.Writes() {
		return nil
	}
	f := &foreign{vers: vers}
	for g := range all {
		if g < first || g >= first+mine {
			f.streams = append(f.streams, workload.NewStream(cfg.Seed, level<<20|g, cfg.Mix, ids))
		}
	}
	f.ahead(0)
	return f
}

// ahead draws the streams ahead of a user of this share that has drawn j
// steps.
func (f *foreign) ahead(j int64) {
	if f == nil {
		return
	}
	to := foreignAhead*j + foreignSlack
	if f.drawn.Load() >= to {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for n := f.drawn.Load(); n < to; n++ {
		for _, s := range f.streams {
			f.vers.Foreign(s.Next())
		}
		f.drawn.Store(n + 1)
	}
}

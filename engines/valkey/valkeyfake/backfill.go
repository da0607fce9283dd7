package valkeyfake

import (
	"slices"
	"strings"
	"time"
)

// An index's backfill, its scan of the keys that were there before it, as
// valkey-search runs it (src/index_schema.cc BackfillJob, PerformBackfill,
// GetBackfillPercent, GetStateForInfo; src/schema_manager.cc
// OnServerCronCallback, 1.2.1): on the server's cron, cronPeriod apart,
// at most backfillBatch keys of the keyspace a tick over all indexes, each
// key under a prefix ingested as a write would be (backfill_hash_keys, not
// ingest_hash_keys, counts it). The scan sees the keyspace as it is at
// each tick, so it also passes keys written since the index was made. Until
// it has passed every key the index is "backfill_in_progress", with
// backfill_complete_percent the share of the keyspace scanned (a fraction,
// 1 for an empty one); a key it has not reached, and no write has touched,
// is not found.
const (
	cronPeriod    = 100 * time.Millisecond // Valkey's default hz, 10
	backfillBatch = 10240                  // search.backfill-batch-size's default
)

type backfill struct {
	done    bool
	last    string // the last key passed, in the keyspace's sorted order
	scanned int    // how many keys were passed
	dbSize  int    // the largest keyspace seen (the module keeps it monotonic)
}

func (b backfill) percent() float64 {
	if b.done || b.dbSize == 0 {
		return 1
	}
	return float64(b.scanned) / float64(b.dbSize)
}

// backfillState is FT.INFO's state by backfill.done.
var backfillState = map[bool]string{false: "backfill_in_progress", true: "ready"}

// cron runs the backfills every cronPeriod until Close.
func (s *Server) cron() {
	defer s.wg.Done()
	t := time.NewTicker(cronPeriod)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.backfillTick()
		}
	}
}

// backfillTick advances the backfills by at most backfillBatch keys in all,
// indexes in name order (the module's map order is its own).
func (s *Server) backfillTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pending []*index
	for _, ix := range s.indexes {
		if !ix.backfill.done {
			pending = append(pending, ix)
		}
	}
	if len(pending) == 0 {
		return
	}
	slices.SortFunc(pending, func(a, b *index) int { return strings.Compare(a.name, b.name) })
	keys := s.sortedKeysLocked()
	budget := backfillBatch
	for _, ix := range pending {
		b := &ix.backfill
		b.dbSize = max(b.dbSize, len(keys))
		// Past the last key passed: a key deleted meanwhile moves nothing.
		next, _ := slices.BinarySearch(keys, b.last)
		if b.scanned > 0 && next < len(keys) && keys[next] == b.last {
			next++
		}
		for ; budget > 0 && next < len(keys); next++ {
			key := keys[next]
			b.last = key
			b.scanned++
			budget--
			if ix.matches(key) {
				s.backfillKeys.Add(1)
				s.applyLocked(ix, key, s.hashes[key])
			}
		}
		if next >= len(keys) {
			b.done = true
		}
	}
}

package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Pre-population shape: bulk batches where the driver has them, else single
// upserts from a pool of writers.
const (
	preloadBatch   = 1000
	preloadWriters = 16
)

// Prepopulate loads version 0 of every pre-populated ID, waits until it is
// searchable when the driver can say so, and checks the engine's document
// count against the corpus.
func Prepopulate(ctx context.Context, e engines.Engine, src Source, progress func(done, total int)) (result.Preload, error) {
	total := src.PrepopulatedCount()
	bulk, isBulk := e.(engines.BulkUpserter)
	p := result.Preload{Documents: total, Bulk: isBulk, Count: -1}
	start := time.Now()

	// IDs are handed out in batches through a channel; each worker builds
	// its own documents, since the corpus is a pure function of the ID.
	batches := make(chan []uint32)
	go func() {
		defer close(batches)
		batch := make([]uint32, 0, preloadBatch)
		for id := uint32(1); id <= uint32(src.IDs()); id++ {
			if !src.Prepopulated(id) {
				continue
			}
			if batch = append(batch, id); len(batch) == preloadBatch {
				select {
				case batches <- batch:
				case <-ctx.Done():
					return
				}
				batch = make([]uint32, 0, preloadBatch)
			}
		}
		if len(batch) > 0 {
			select {
			case batches <- batch:
			case <-ctx.Done():
			}
		}
	}()

	var done, failed atomic.Int64
	var firstErr error
	var once sync.Once
	fail := func(err error, n int) {
		failed.Add(int64(n))
		once.Do(func() { firstErr = err })
	}
	workers := preloadWriters
	if isBulk {
		workers = 2 // bulk calls are large; a couple in flight keeps the engine busy
	}
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			docs := make([]engines.Document, 0, preloadBatch)
			for ids := range batches {
				docs = docs[:0]
				for _, id := range ids {
					docs = append(docs, src.Document(id, 0))
				}
				if isBulk {
					if err := guardErr(func() error { return bulk.UpsertBatch(ctx, docs) }); err != nil {
						fail(err, len(docs))
					}
				} else {
					for _, d := range docs {
						if err := guardErr(func() error { return e.Upsert(ctx, d) }); err != nil {
							fail(err, 1)
						}
					}
				}
				n := done.Add(int64(len(ids)))
				if progress != nil {
					// Calls are serialised so callers need no lock of their own.
					progressMu.Lock()
					progress(int(n), total)
					progressMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return p, fmt.Errorf("pre-population interrupted after %d of %d documents: %w", done.Load(), total, err)
	}
	if r, ok := e.(engines.Refresher); ok {
		if err := guardErr(func() error { return r.Refresh(ctx) }); err != nil {
			return p, fmt.Errorf("pre-population: refresh: %w", err)
		}
	}
	p.Duration = result.Duration(time.Since(start))
	p.DocsPerS = float64(total) / time.Since(start).Seconds()
	p.Errors = failed.Load()
	if firstErr != nil {
		return p, fmt.Errorf("pre-population: %d of %d documents failed; first: %w", p.Errors, total, firstErr)
	}
	if cnt, ok := e.(engines.Counter); ok {
		n, err := guard(func() (int64, error) { return cnt.Count(ctx) })
		if err != nil {
			return p, fmt.Errorf("pre-population: count: %w", err)
		}
		p.Count, p.CountOK = n, n == int64(total)
		if !p.CountOK {
			return p, fmt.Errorf("pre-population: engine holds %d documents, the corpus has %d", n, total)
		}
	}
	return p, nil
}

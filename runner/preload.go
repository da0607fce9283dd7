package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
//
// Each upsert and bulk batch is one call bounded by timeout (the
// request timeout), as every call of a run is: a call that does not return
// in time fails, class timeout, so an engine that hangs fails the
// pre-population instead of holding the run. A document whose call failed
// is not retried: the first failure fails the pre-population and stops the
// load (calls in flight finish), its error counting the failed documents
// by class. Waiting for the loaded documents to become
// searchable, and for the engine's count of them, is not one call and is
// bounded by ctx only: how long indexing takes is the engine's.
func Prepopulate(ctx context.Context, e engines.Engine, src Source, timeout time.Duration, progress func(done, total int)) (result.Preload, error) {
	total := src.PrepopulatedCount()
	bulk, isBulk := e.(engines.BulkUpserter)
	p := result.Preload{Documents: total, Bulk: isBulk, Count: -1}
	start := time.Now()

	// The first failure stops the load: the pre-population has failed, and
	// an engine that hangs would otherwise hold the run for a timeout per
	// batch left.
	pctx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
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
				case <-pctx.Done():
					return
				}
				batch = make([]uint32, 0, preloadBatch)
			}
		}
		if len(batch) > 0 {
			select {
			case batches <- batch:
			case <-pctx.Done():
			}
		}
	}()

	var done, failed, loaded atomic.Int64
	var byClass [engines.NumClasses]atomic.Int64
	var firstErr error
	var once sync.Once
	call := func(f func(context.Context) error, n int) {
		if pctx.Err() != nil {
			return // stopped: not tried
		}
		cctx, cancel := context.WithTimeout(pctx, timeout)
		err := guardErr(func() error { return f(cctx) })
		// Cut short by the stop, not failed by itself.
		cut := ctx.Err() == nil && errors.Is(cctx.Err(), context.Canceled)
		cancel()
		switch {
		case err == nil:
			loaded.Add(int64(n))
		case cut:
		default:
			failed.Add(int64(n))
			byClass[engines.Classify(err)].Add(int64(n))
			once.Do(func() { firstErr = err })
			stopLoad()
		}
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
					call(func(ctx context.Context) error { return bulk.UpsertBatch(ctx, docs) }, len(docs))
				} else {
					for _, d := range docs {
						call(func(ctx context.Context) error { return e.Upsert(ctx, d) }, 1)
					}
				}
				if pctx.Err() != nil {
					continue // stopped: the progress stays where the load ended
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
	p.Duration = result.Duration(time.Since(start))
	p.DocsPerS = float64(total) / time.Since(start).Seconds()
	p.Errors = failed.Load()
	if firstErr != nil {
		var classes []string
		for c := range engines.NumClasses {
			if k := byClass[c].Load(); k > 0 {
				classes = append(classes, fmt.Sprintf("%v %d", c, k))
			}
		}
		why := strings.Join(classes, ", ")
		if byClass[engines.Timeout].Load() > 0 {
			why += fmt.Sprintf("; a call ends at the request timeout, %v", timeout)
		}
		return p, fmt.Errorf("pre-population: %d of %d documents failed (%s); stopped there, %d loaded, %d not tried; first: %w",
			p.Errors, total, why, loaded.Load(), int64(total)-loaded.Load()-p.Errors, firstErr)
	}
	if r, ok := e.(engines.Refresher); ok {
		if err := guardErr(func() error { return r.Refresh(ctx) }); err != nil {
			return p, fmt.Errorf("pre-population: refresh: %w", err)
		}
	}
	if cnt, ok := e.(engines.Counter); ok {
		// Not bounded by the request timeout: a count may wait for the
		// engine's own count to settle (Amgix Now's doc_count is flushed by
		// a background batcher, so its Count reads until two reads agree,
		// 300 ms apart), which is no one call; like the refresh before it,
		// it is bounded by the run.
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

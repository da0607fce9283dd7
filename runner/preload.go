package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/guard"
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
func Prepopulate(ctx context.Context, e engines.Engine, src corpus.Source, timeout time.Duration, progress func(done, total int)) (result.Preload, error) {
	total := src.PrepopulatedCount()
	_, isBulk := e.(engines.BulkUpserter)
	p := result.Preload{Documents: total, Bulk: isBulk, Count: -1}
	start := time.Now()

	// The first failure stops the load: the pre-population has failed, and
	// an engine that hangs would otherwise hold the run for a timeout per
	// batch left.
	pctx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	l := &preload{ctx: ctx, pctx: pctx, stop: stopLoad, timeout: timeout}
	l.load(e, src, preloadIDs(pctx, src), progress)
	if err := ctx.Err(); err != nil {
		return p, fmt.Errorf("pre-population interrupted after %d of %d documents: %w", l.done.Load(), total, err)
	}
	p.Duration = result.Duration(time.Since(start))
	p.DocsPerS = float64(total) / time.Since(start).Seconds()
	p.Errors = l.failed.Load()
	if l.firstErr != nil {
		return p, l.failure(total)
	}
	return p, checkLoaded(ctx, e, total, &p)
}

// preloadIDs hands out the pre-populated IDs in batches until they are
// all out or ctx ends; the channel is closed then.
func preloadIDs(ctx context.Context, src corpus.Source) <-chan []uint32 {
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
	return batches
}

// preload is the state of one pre-population's load: its counts, and the
// first failure, which stops it.
type preload struct {
	ctx     context.Context // the run's
	pctx    context.Context // the load's, ended by stop
	stop    context.CancelFunc
	timeout time.Duration // each call's

	done, failed, loaded atomic.Int64
	byClass              [engines.NumClasses]atomic.Int64
	firstErr             error
	once                 sync.Once
}

// load writes every batch of IDs, each worker building its own documents
// (the corpus is a pure function of the ID): in bulk calls where the driver
// has them, else one upsert a document.
func (l *preload) load(e engines.Engine, src corpus.Source, batches <-chan []uint32, progress func(done, total int)) {
	total := src.PrepopulatedCount()
	bulk, isBulk := e.(engines.BulkUpserter)
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
					l.call(func(ctx context.Context) error { return bulk.UpsertBatch(ctx, docs) }, len(docs))
				} else {
					for _, d := range docs {
						l.call(func(ctx context.Context) error { return e.Upsert(ctx, d) }, 1)
					}
				}
				if l.pctx.Err() != nil {
					continue // stopped: the progress stays where the load ended
				}
				n := l.done.Add(int64(len(ids)))
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
}

// call makes one write of n documents, bounded by the request timeout,
// and counts it; its failure stops the load.
func (l *preload) call(f func(context.Context) error, n int) {
	if l.pctx.Err() != nil {
		return // stopped: not tried
	}
	cctx, cancel := context.WithTimeout(l.pctx, l.timeout)
	err := guard.Err(func() error { return f(cctx) })
	// Cut short by the stop, not failed by itself.
	cut := l.ctx.Err() == nil && errors.Is(cctx.Err(), context.Canceled)
	cancel()
	switch {
	case err == nil:
		l.loaded.Add(int64(n))
	case cut:
	default:
		l.failed.Add(int64(n))
		l.byClass[engines.Classify(err)].Add(int64(n))
		l.once.Do(func() { l.firstErr = err })
		l.stop()
	}
}

// failure is the error of a load that failed: the failed documents by
// class, how many were loaded and not tried, and the first failure.
func (l *preload) failure(total int) error {
	var classes []string
	for c := range engines.NumClasses {
		if k := l.byClass[c].Load(); k > 0 {
			classes = append(classes, fmt.Sprintf("%v %d", c, k))
		}
	}
	why := strings.Join(classes, ", ")
	if l.byClass[engines.Timeout].Load() > 0 {
		why += fmt.Sprintf("; a call ends at the request timeout, %v", l.timeout)
	}
	failed, loaded := l.failed.Load(), l.loaded.Load()
	return fmt.Errorf("pre-population: %d of %d documents failed (%s); stopped there, %d loaded, %d not tried; first: %w",
		failed, total, why, loaded, int64(total)-loaded-failed, l.firstErr)
}

// checkLoaded waits for the loaded documents to be searchable, where the
// driver can say so, and checks the engine's count of them (p.Count).
func checkLoaded(ctx context.Context, e engines.Engine, total int, p *result.Preload) error {
	if r, ok := e.(engines.Refresher); ok {
		if err := guard.Err(func() error { return r.Refresh(ctx) }); err != nil {
			return fmt.Errorf("pre-population: refresh: %w", err)
		}
	}
	if cnt, ok := e.(engines.Counter); ok {
		// Not bounded by the request timeout: a count may wait for the
		// engine's own count to settle (Amgix Now's doc_count is flushed by
		// a background batcher, so its Count reads until two reads agree,
		// 300 ms apart), which is no one call; like the refresh before it,
		// it is bounded by the run.
		n, err := guard.Call(func() (int64, error) { return cnt.Count(ctx) })
		if err != nil {
			return fmt.Errorf("pre-population: count: %w", err)
		}
		p.Count, p.CountOK = n, n == int64(total)
		if !p.CountOK {
			return fmt.Errorf("pre-population: engine holds %d documents, the corpus has %d", n, total)
		}
	}
	return nil
}

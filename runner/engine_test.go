package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/pace"
)

// memEngine is a small in-memory engine for the runner's tests: a map with a
// lock, an optional fixed service time, and failure injection. It is not a
// driver and is never registered.
type memEngine struct {
	mu    sync.Mutex
	docs  map[string]engines.Document
	delay time.Duration

	// fail, when set, decides per call whether it fails and how.
	fail  func(op string, call int64) error
	calls atomic.Int64
	bulk  bool // whether UpsertBatch is offered (see bulkEngine)
	drop  int  // Count under-reports by this many
	// visible is how long after an upsert returns the document becomes
	// searchable (an "acknowledged" engine); written is when each was.
	visible time.Duration
	written map[string]time.Time
	// refresh, when set, makes writes visible only at the engine's next
	// refresh, every refresh since t0 (Elasticsearch's near-real time).
	refresh time.Duration
	t0      time.Time
}

func newMem() *memEngine {
	return &memEngine{docs: map[string]engines.Document{}, written: map[string]time.Time{}}
}

func (m *memEngine) call(ctx context.Context, op string) error {
	n := m.calls.Add(1)
	if m.delay > 0 {
		t := time.NewTimer(m.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	if m.fail != nil {
		return m.fail(op, n)
	}
	return nil
}

func (m *memEngine) Create(context.Context, engines.Schema) error { return nil }

func (m *memEngine) Upsert(ctx context.Context, d engines.Document) error {
	if err := m.call(ctx, "upsert"); err != nil {
		return err
	}
	m.mu.Lock()
	m.docs[d.ID] = d
	m.written[d.ID] = time.Now()
	m.mu.Unlock()
	return nil
}

func (m *memEngine) Delete(ctx context.Context, id string) error {
	if err := m.call(ctx, "delete"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.docs[id]; !ok {
		return fmt.Errorf("mem: %s: %w", id, engines.ErrNotFound)
	}
	delete(m.docs, id)
	return nil
}

// Search finds nothing, except that a freshness marker (a word starting
// "zqx") finds the documents whose name holds it once they are visible.
func (m *memEngine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	at := time.Now() // what the search sees is decided as it starts
	if err := m.call(ctx, "search"); err != nil {
		return engines.Hits{}, err
	}
	if !strings.HasPrefix(q.Text, "zqx") {
		return engines.Hits{Total: -1}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var h engines.Hits
	for id, d := range m.docs {
		if strings.Contains(d.Text("name"), q.Text) && m.seen(m.written[id], at) {
			h.IDs = append(h.IDs, id)
		}
	}
	h.Total = int64(len(h.IDs))
	return h, nil
}

// Get makes memEngine an engines.Getter; a missing ID is NotFound.
func (m *memEngine) Get(ctx context.Context, id string) (engines.Document, error) {
	if err := m.call(ctx, "get"); err != nil {
		return engines.Document{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[id]
	if !ok {
		return engines.Document{}, fmt.Errorf("mem: %s: %w", id, engines.ErrNotFound)
	}
	return d, nil
}

func (m *memEngine) Count(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.docs) - m.drop), nil
}

func (m *memEngine) Close() error { return nil }

// bulkEngine adds the bulk capability to memEngine.
type bulkEngine struct {
	*memEngine
	batches atomic.Int64
}

func (b *bulkEngine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	b.batches.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range docs {
		b.docs[d.ID] = d
	}
	return nil
}

// seen says whether a write stored at w is visible to a search at at.
func (m *memEngine) seen(w, at time.Time) bool {
	if m.refresh > 0 {
		return at.Sub(m.t0)/m.refresh > w.Sub(m.t0)/m.refresh
	}
	return at.Sub(w) >= m.visible
}

// wordEngine is a memEngine that answers searches: the documents whose
// name holds every word of the query, by ID, at most K. Writes take
// writeDelay. With dropWhileWriting it answers empty (and says it matched
// nothing) while a write is in flight: an engine that answers 200 with hits
// missing under concurrent upserts.
type wordEngine struct {
	*memEngine
	writeDelay       time.Duration
	dropWhileWriting bool
	writing          atomic.Int64
}

func newWordEngine() *wordEngine { return &wordEngine{memEngine: newMem()} }

func (w *wordEngine) write(ctx context.Context) func() {
	w.writing.Add(1)
	if w.writeDelay > 0 {
		pace.Sleep(ctx, time.Now().Add(w.writeDelay))
	}
	return func() { w.writing.Add(-1) }
}

func (w *wordEngine) Upsert(ctx context.Context, d engines.Document) error {
	defer w.write(ctx)()
	return w.memEngine.Upsert(ctx, d)
}

func (w *wordEngine) Delete(ctx context.Context, id string) error {
	defer w.write(ctx)()
	return w.memEngine.Delete(ctx, id)
}

func (w *wordEngine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := w.call(ctx, "search"); err != nil {
		return engines.Hits{}, err
	}
	words := strings.Fields(q.Text)
	var ids []string
	w.mu.Lock()
	for id, d := range w.docs {
		name := strings.ToLower(d.Text("name"))
		all := len(words) > 0
		for _, word := range words {
			all = all && strings.Contains(name, word)
		}
		if all {
			ids = append(ids, id)
		}
	}
	w.mu.Unlock()
	if w.dropWhileWriting && w.writing.Load() > 0 {
		return engines.Hits{Total: 0}, nil
	}
	slices.Sort(ids)
	return engines.Hits{IDs: ids[:min(len(ids), q.K)], Total: int64(len(ids))}, nil
}

package runnertest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/internal/pace"
	"github.com/searchbench/searchbench/workload/corpus"
)

// Mem is a small in-memory engine for the runner's tests: a map with a
// lock, an optional fixed service time, and failure injection. It is not a
// driver and is never registered.
type Mem struct {
	mu    sync.Mutex
	Docs  map[string]engines.Document
	Delay time.Duration

	// Fail, when set, decides per call whether it fails and how.
	Fail  func(op string, call int64) error
	Calls atomic.Int64
	Drop  int // Count under-reports by this many
	// Visible is how long after an upsert returns the document becomes
	// searchable (an "acknowledged" engine); written is when each was.
	Visible time.Duration
	written map[string]time.Time
	// Refresh, when set, makes writes visible only at the engine's next
	// refresh, every Refresh since T0 (Elasticsearch's near-real time).
	Refresh time.Duration
	T0      time.Time
}

// NewMem is an empty Mem that answers at once.
func NewMem() *Mem {
	return &Mem{Docs: map[string]engines.Document{}, written: map[string]time.Time{}}
}

func (m *Mem) call(ctx context.Context, op string) error {
	n := m.Calls.Add(1)
	if m.Delay > 0 {
		t := time.NewTimer(m.Delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	if m.Fail != nil {
		return m.Fail(op, n)
	}
	return nil
}

func (m *Mem) Create(context.Context, engines.Schema) error { return nil }

func (m *Mem) Upsert(ctx context.Context, d engines.Document) error {
	if err := m.call(ctx, "upsert"); err != nil {
		return err
	}
	m.mu.Lock()
	m.Docs[d.ID] = d
	m.written[d.ID] = time.Now()
	m.mu.Unlock()
	return nil
}

func (m *Mem) Delete(ctx context.Context, id string) error {
	if err := m.call(ctx, "delete"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.Docs[id]; !ok {
		return fmt.Errorf("mem: %s: %w", id, engines.ErrNotFound)
	}
	delete(m.Docs, id)
	return nil
}

// Search finds nothing, except that a freshness marker (a word starting
// "zqx") finds the documents whose name holds it once they are Visible.
func (m *Mem) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
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
	for id, d := range m.Docs {
		if strings.Contains(d.Text("name"), q.Text) && m.seen(m.written[id], at) {
			h.IDs = append(h.IDs, id)
		}
	}
	h.Total = int64(len(h.IDs))
	return h, nil
}

// Get makes Mem an engines.Getter; a missing ID is NotFound.
func (m *Mem) Get(ctx context.Context, id string) (engines.Document, error) {
	if err := m.call(ctx, "get"); err != nil {
		return engines.Document{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.Docs[id]
	if !ok {
		return engines.Document{}, fmt.Errorf("mem: %s: %w", id, engines.ErrNotFound)
	}
	return d, nil
}

func (m *Mem) Count(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.Docs) - m.Drop), nil
}

func (m *Mem) Close() error { return nil }

// Bulk adds the bulk capability (UpsertBatch) to Mem.
type Bulk struct {
	*Mem
	Batches atomic.Int64
}

// UpsertBatch stores docs at once, counting the batches.
func (b *Bulk) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	b.Batches.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range docs {
		b.Docs[d.ID] = d
	}
	return nil
}

// seen says whether a write stored at w is visible to a search at at.
func (m *Mem) seen(w, at time.Time) bool {
	if m.Refresh > 0 {
		return at.Sub(m.T0)/m.Refresh > w.Sub(m.T0)/m.Refresh
	}
	return at.Sub(w) >= m.Visible
}

// Word is a Mem that answers searches: the documents whose
// name holds every word of the query, by ID, at most K. Writes take
// WriteDelay. With DropWhileWriting it answers empty (and says it matched
// nothing) while a write is in flight: an engine that answers 200 with hits
// missing under concurrent upserts.
type Word struct {
	*Mem
	WriteDelay       time.Duration
	DropWhileWriting bool
	writing          atomic.Int64
}

func NewWord() *Word { return &Word{Mem: NewMem()} }

func (w *Word) write(ctx context.Context) func() {
	w.writing.Add(1)
	if w.WriteDelay > 0 {
		pace.Sleep(ctx, time.Now().Add(w.WriteDelay))
	}
	return func() { w.writing.Add(-1) }
}

func (w *Word) Upsert(ctx context.Context, d engines.Document) error {
	defer w.write(ctx)()
	return w.Mem.Upsert(ctx, d)
}

func (w *Word) Delete(ctx context.Context, id string) error {
	defer w.write(ctx)()
	return w.Mem.Delete(ctx, id)
}

func (w *Word) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := w.call(ctx, "search"); err != nil {
		return engines.Hits{}, err
	}
	words := strings.Fields(q.Text)
	var ids []string
	w.mu.Lock()
	for id, d := range w.Docs {
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
	if w.DropWhileWriting && w.writing.Load() > 0 {
		return engines.Hits{Total: 0}, nil
	}
	slices.Sort(ids)
	return engines.Hits{IDs: ids[:min(len(ids), q.K)], Total: int64(len(ids))}, nil
}

// Vector is a Mem that answers the product corpus's queries
// exactly, by brute force over what it holds now: kNN (cosine) among the
// documents that pass the filters, and SKU lookups. Skip leaves the
// nearest documents out of every kNN answer (an engine whose index loses
// neighbours); kinds counts the shapes it was Asked. With Mem's Visible
// set, every answer leaves out the documents written less than Visible
// before the search began (an engine whose index shows writes late), and
// a freshness marker (a word starting "zqx") is looked up in its field.
type Vector struct {
	*Mem
	Skip  int
	Asked [8]atomic.Int64
	// Foreign, when set, takes the last place of every kNN answer: an ID
	// the index does not hold (an engine that answers with wrong IDs).
	Foreign string
}

func NewVector() *Vector { return &Vector{Mem: NewMem()} }

func (v *Vector) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	at := time.Now() // what the search sees is decided as it starts
	if err := v.call(ctx, "search"); err != nil {
		return engines.Hits{}, err
	}
	switch {
	case q.Vector != nil && q.Text != "":
		v.Asked[4].Add(1)
	case q.Field != "":
		v.Asked[3].Add(1)
	default:
		v.Asked[len(q.Filters)].Add(1)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	type scored struct {
		id string
		d  float64
	}
	var all []scored
	for id, d := range v.Docs {
		if !passes(d, q.Filters) || v.Visible > 0 && !v.seen(v.written[id], at) {
			continue
		}
		switch {
		case q.Field != "" && strings.HasPrefix(q.Text, "zqx"):
			if strings.Contains(d.Text(q.Field), q.Text) {
				all = append(all, scored{id, 0})
			}
		case q.Field != "":
			if d.Text(q.Field) == q.Text {
				all = append(all, scored{id, 0})
			}
		case q.Vector != nil:
			all = append(all, scored{id, cosineDistance(q.Vector, vectorOf(d))})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		ai, _ := dataset.ParseDocID(a.id)
		bi, _ := dataset.ParseDocID(b.id)
		return cmp.Compare(ai, bi)
	})
	if q.Vector != nil {
		all = all[min(v.Skip, len(all)):]
	}
	h := engines.Hits{Total: int64(len(all))}
	for _, s := range all[:min(q.K, len(all))] {
		h.IDs = append(h.IDs, s.id)
	}
	if v.Foreign != "" && q.Vector != nil && len(h.IDs) > 0 {
		h.IDs[len(h.IDs)-1] = v.Foreign
	}
	return h, nil
}

func passes(d engines.Document, fs []engines.Filter) bool {
	for _, f := range fs {
		for _, x := range d.Fields {
			if x.Name != f.Field {
				continue
			}
			if f.Tag != "" && x.Text != f.Tag || f.Tag == "" && (x.Number < f.Min || x.Number > f.Max) {
				return false
			}
		}
	}
	return true
}

func vectorOf(d engines.Document) []float32 {
	for _, f := range d.Fields {
		if f.Vector != nil {
			return f.Vector
		}
	}
	return nil
}

func cosineDistance(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return 1 - ab/(math.Sqrt(aa)*math.Sqrt(bb))
}

// Load writes every pre-populated document of src to e, one upsert each:
// the state the runner's pre-population leaves, for tests of what comes
// after it.
func Load(t testing.TB, e engines.Engine, src corpus.Source) {
	t.Helper()
	for id := uint32(1); id <= uint32(src.IDs()); id++ {
		if !src.Prepopulated(id) {
			continue
		}
		if err := e.Upsert(context.Background(), src.Document(id, 0)); err != nil {
			t.Fatal(err)
		}
	}
}

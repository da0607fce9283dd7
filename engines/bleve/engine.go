package bleve

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"

	blevesearch "github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/searchbench/searchbench/engines"
)

// stripes serialise writes to one ID, so that "delete reports a missing ID"
// stays exact when two users touch the same document at once.
const stripes = 256

// Engine is one Bleve index.
type Engine struct {
	dir       string
	temporary bool

	mu     sync.RWMutex // guards index and fields against Create and Close
	index  blevesearch.Index
	fields []string // text fields, searched together

	seed maphash.Seed
	ids  [stripes]sync.Mutex
}

var (
	_ engines.Engine       = (*Engine)(nil)
	_ engines.BulkUpserter = (*Engine)(nil)
	_ engines.Counter      = (*Engine)(nil)
	_ engines.Versioner    = (*Engine)(nil)
)

var _ engines.Getter = (*Engine)(nil)

// Create builds a fresh index for schema in the engine's directory.
func (e *Engine) Create(_ context.Context, schema engines.Schema) error {
	im, fields, err := indexMapping(schema)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.index != nil {
		if err := e.index.Close(); err != nil {
			return fmt.Errorf("bleve: close previous index: %w", err)
		}
		e.index = nil
	}
	path := filepath.Join(e.dir, schema.Name)
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("bleve: remove previous index: %w", err)
	}
	idx, err := blevesearch.New(path, im)
	if err != nil {
		return fmt.Errorf("bleve: create index %s: %w", path, err)
	}
	e.index, e.fields, e.seed = idx, fields, maphash.MakeSeed()
	return nil
}

// open returns the index under a read lock, or an error before Create.
func (e *Engine) open() (blevesearch.Index, []string, func(), error) {
	e.mu.RLock()
	if e.index == nil {
		e.mu.RUnlock()
		return nil, nil, nil, errNoIndex
	}
	return e.index, e.fields, e.mu.RUnlock, nil
}

func (e *Engine) lockID(id string) *sync.Mutex {
	m := &e.ids[maphash.String(e.seed, id)%stripes]
	m.Lock()
	return m
}

// Upsert indexes doc, replacing any document with its ID.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if doc.ID == "" {
		return errors.New("bleve: upsert: empty document ID")
	}
	idx, _, done, err := e.open()
	if err != nil {
		return err
	}
	defer done()
	defer e.lockID(doc.ID).Unlock()
	if err := idx.Index(doc.ID, body(doc)); err != nil {
		return fmt.Errorf("bleve: upsert %s: %w", doc.ID, err)
	}
	return nil
}

// UpsertBatch indexes many documents in one Bleve batch.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	idx, _, done, err := e.open()
	if err != nil {
		return err
	}
	defer done()
	b := idx.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, body(d)); err != nil {
			return fmt.Errorf("bleve: batch %s: %w", d.ID, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("bleve: batch of %d: %w", len(docs), err)
	}
	return nil
}

// Delete removes id, or reports engines.ErrNotFound when it is not there.
// Bleve's own Delete is silent about missing IDs, so the driver looks first,
// under the ID's stripe lock.
func (e *Engine) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	idx, _, done, err := e.open()
	if err != nil {
		return err
	}
	defer done()
	defer e.lockID(id).Unlock()
	d, err := idx.Document(id)
	if err != nil {
		return fmt.Errorf("bleve: delete %s: look up: %w", id, err)
	}
	if d == nil {
		return notFound("delete", id)
	}
	if err := idx.Delete(id); err != nil {
		return fmt.Errorf("bleve: delete %s: %w", id, err)
	}
	return nil
}

// Get reads the document's stored fields with Bleve's own lookup by ID
// (Index.Document: the _id term, then the segment's stored fields), or
// reports engines.ErrNotFound. The mapping stores every text field for it,
// which makes the index larger on disk and loading slower:
// BenchmarkLoadCorpus measures both (bench/README.md).
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	if err := ctx.Err(); err != nil {
		return engines.Document{}, err
	}
	idx, fields, done, err := e.open()
	if err != nil {
		return engines.Document{}, err
	}
	defer done()
	d, err := idx.Document(id)
	if err != nil {
		return engines.Document{}, fmt.Errorf("bleve: get %s: %w", id, err)
	}
	if d == nil {
		return engines.Document{}, notFound("get", id)
	}
	doc := engines.Document{ID: id, Fields: make([]engines.Field, 0, len(fields))}
	d.VisitFields(func(f index.Field) {
		if slices.Contains(fields, f.Name()) {
			doc.Fields = append(doc.Fields, engines.Field{Name: f.Name(), Text: string(f.Value())})
		}
	})
	return doc, nil
}

// Search runs q as one match query per text field, combined with OR.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := checkQuery(q); err != nil {
		return engines.Hits{}, fmt.Errorf("bleve: %w", err)
	}
	idx, fields, done, err := e.open()
	if err != nil {
		return engines.Hits{}, err
	}
	defer done()
	res, err := idx.SearchInContext(ctx, searchRequest(q.Text, q.K, fields))
	if err != nil {
		return engines.Hits{}, fmt.Errorf("bleve: search: %w", err)
	}
	hits := engines.Hits{IDs: make([]string, len(res.Hits)), Total: int64(res.Total)}
	for i, h := range res.Hits {
		hits.IDs[i] = h.ID
	}
	return hits, nil
}

// Count returns the number of documents in the index.
func (e *Engine) Count(context.Context) (int64, error) {
	idx, _, done, err := e.open()
	if err != nil {
		return 0, err
	}
	defer done()
	n, err := idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("bleve: count: %w", err)
	}
	return int64(n), nil
}

// Version reports the Bleve module version compiled in.
func (e *Engine) Version(context.Context) (string, error) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/blevesearch/bleve/v2" {
				return "bleve " + m.Version, nil
			}
		}
	}
	return "bleve (version unknown)", nil
}

// Close closes the index and removes it when it lives in a temporary
// directory.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	if e.index != nil {
		err = e.index.Close()
		e.index = nil
	}
	if e.temporary {
		err = errors.Join(err, os.RemoveAll(e.dir))
	}
	if err != nil {
		return fmt.Errorf("bleve: close: %w", err)
	}
	return nil
}

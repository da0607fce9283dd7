package bleve_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/bleve"
	"github.com/searchbench/searchbench/engines/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			e, err := engines.Open(context.Background(), "bleve", engines.Config{DataDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		Visibility: engines.Searchable,
	})
}

func TestRejectsURLAcknowledgedModeAndOptions(t *testing.T) {
	for _, cfg := range []engines.Config{
		{URL: "http://127.0.0.1:1"},
		{WriteMode: engines.Acknowledged},
		{Options: map[string]string{"pool": "3"}},
	} {
		if err := engines.CheckConfig("bleve", cfg); err == nil {
			t.Errorf("CheckConfig(%+v) succeeded; want an error", cfg)
		}
		cfg.DataDir = t.TempDir()
		if _, err := engines.Open(context.Background(), "bleve", cfg); err == nil {
			t.Errorf("Open(%+v) succeeded; want an error", cfg)
		}
	}
	if err := engines.CheckConfig("bleve", engines.Config{WriteMode: engines.Searchable}); err != nil {
		t.Error(err)
	}
}

// corpusDocs are the first n documents of a corpus, as the runner writes
// them.
func corpusDocs(b *testing.B, n int) []engines.Document {
	c, err := dataset.New(dataset.Config{Seed: 1, IDs: n, Prepopulate: 1})
	if err != nil {
		b.Fatal(err)
	}
	docs := make([]engines.Document, n)
	for i := range docs {
		d := c.Document(uint32(i+1), 0)
		docs[i] = engines.Document{ID: dataset.DocID(uint32(i + 1)), Fields: []engines.Field{
			{Name: "name", Text: d.Name}, {Name: "content", Text: d.Content},
		}}
	}
	return docs
}

// BenchmarkLoadCorpus loads 2,000 corpus documents in one batch into a new
// index and closes it: the time per document and the index's size on disk
// per document, which is what storing the text fields for Get costs.
func BenchmarkLoadCorpus(b *testing.B) {
	const n = 2000
	docs := corpusDocs(b, n)
	ctx := context.Background()
	var size int64
	for b.Loop() {
		dir := b.TempDir()
		e, err := engines.Open(ctx, "bleve", engines.Config{DataDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Create(ctx, enginetest.Schema("load")); err != nil {
			b.Fatal(err)
		}
		if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		size = 0
		err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				info, ierr := d.Info()
				if ierr != nil {
					return ierr
				}
				size += info.Size()
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/doc")
	b.ReportMetric(float64(size)/n, "disk-B/doc")
}

// BenchmarkGet reads documents of a 2,000-document index by ID.
func BenchmarkGet(b *testing.B) {
	const n = 2000
	docs := corpusDocs(b, n)
	ctx := context.Background()
	e, err := engines.Open(ctx, "bleve", engines.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.Create(ctx, enginetest.Schema("get")); err != nil {
		b.Fatal(err)
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		b.Fatal(err)
	}
	g := e.(engines.Getter)
	i := 0
	for b.Loop() {
		if _, err := g.Get(ctx, docs[i%n].ID); err != nil {
			b.Fatal(err)
		}
		i += 7
	}
}

// CheckQuery and Search agree on every shape: free text alone is answered,
// every other shape is ErrUnsupported from both, before anything runs.
func TestCheckQueryAgreesWithSearch(t *testing.T) {
	schema := engines.Schema{Name: "docs", Fields: []engines.FieldSpec{{Name: "name", Type: engines.Text}, {Name: "content", Type: engines.Text}}}
	e, err := engines.Open(context.Background(), "bleve", engines.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Create(context.Background(), schema); err != nil {
		t.Fatal(err)
	}
	vec := []float32{1, 0}
	tag := []engines.Filter{{Field: "name", Tag: "x"}}
	for _, c := range []struct {
		q  engines.Query
		ok bool
	}{
		{engines.Query{Text: "red shoes", K: 5}, true},
		{engines.Query{Text: "IT-500", Field: "name", K: 5}, false},
		{engines.Query{Vector: vec, K: 5}, false},
		{engines.Query{Vector: vec, Filters: tag, K: 5}, false},
		{engines.Query{Text: "red", Vector: vec, K: 5}, false},
		{engines.Query{Text: "red", Filters: tag, K: 5}, false},
	} {
		checked := engines.CheckQuery("bleve", engines.Config{}, schema, c.q)
		_, searched := e.Search(context.Background(), c.q)
		for name, err := range map[string]error{"CheckQuery": checked, "Search": searched} {
			if c.ok && err != nil || !c.ok && !errors.Is(err, engines.ErrUnsupported) {
				t.Errorf("%s: %s = %v; want answered: %v", c.q.Shape(), name, err, c.ok)
			}
		}
		if checked != nil && (strings.Contains(checked.Error(), "bleve") || strings.Contains(checked.Error(), "\n")) {
			t.Errorf("%s: CheckQuery's reason %q names the driver or spans lines", c.q.Shape(), checked)
		}
	}
}

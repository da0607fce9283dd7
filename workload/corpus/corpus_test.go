package corpus_test

import (
	"context"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// Every document a source writes carries exactly its schema's fields, with
// the member its type uses set, so a driver can rely on the schema.
func TestSourcesWriteTheirSchema(t *testing.T) {
	cfg := dataset.Config{Seed: 3, IDs: 500, Prepopulate: 0.9}
	for _, kind := range []string{text.Name, product.Name} {
		src, err := corpus.New(kind, corpus.Config{Config: cfg, Dim: 16})
		if err != nil {
			t.Fatal(err)
		}
		schema := src.Schema()
		for id := uint32(1); id <= 50; id++ {
			d := src.Document(id, id%3)
			if d.ID != dataset.DocID(id) || len(d.Fields) != len(schema.Fields) {
				t.Fatalf("%s: document %d has ID %q and %d fields; schema has %d", kind, id, d.ID, len(d.Fields), len(schema.Fields))
			}
			for i, f := range schema.Fields {
				got := d.Fields[i]
				ok := got.Name == f.Name
				switch f.Type {
				case engines.Text, engines.Tag:
					ok = ok && got.Text != ""
				case engines.Numeric:
					ok = ok && got.Number > 0
				case engines.Vector:
					ok = ok && len(got.Vector) == f.Dim
				}
				if !ok {
					t.Fatalf("%s: document %d field %d = %+v; schema says %+v", kind, id, i, got, f)
				}
			}
		}
		p, err := src.Provenance(context.Background())
		if err != nil || p.Hash == "" || p.Seed != 3 || p.IDs != 500 || p.Prepopulated != src.PrepopulatedCount() {
			t.Errorf("%s: provenance %+v", kind, p)
		}
	}
	if _, err := corpus.New("images", corpus.Config{Config: cfg}); err == nil {
		t.Error("an unknown corpus kind was accepted")
	}
}

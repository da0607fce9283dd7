package runner

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// Every document a source writes carries exactly its schema's fields, with
// the member its type uses set, so a driver can rely on the schema.
func TestSourcesWriteTheirSchema(t *testing.T) {
	cfg := dataset.Config{Seed: 3, IDs: 500, Prepopulate: 0.9}
	for _, kind := range []string{CorpusText, CorpusProduct} {
		src, err := NewSource(kind, cfg, 16)
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
	if _, err := NewSource("images", cfg, 0); err == nil {
		t.Error("an unknown corpus kind was accepted")
	}
}

// Product queries map every kind: KNN with and without a filter on the
// schema's Tag and Numeric fields, and exact SKU lookups on the sku field.
func TestProductQueries(t *testing.T) {
	src, err := NewSource(CorpusProduct, dataset.Config{Seed: 1, IDs: 1000, Prepopulate: 1}, 8)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i := range uint64(400) {
		q, kind := src.Query(i)
		if name := src.QueryKinds()[kind]; !strings.HasPrefix(name, map[bool]string{true: "knn", false: "sku"}[q.Vector != nil]) {
			t.Errorf("query %d = %+v is of kind %s", i, q, name)
		}
		switch {
		case q.Field == FieldSKU && q.Text != "" && q.Vector == nil:
			kinds["sku"]++
		case len(q.Vector) == 8 && len(q.Filters) == 0:
			kinds["knn"]++
		case len(q.Vector) == 8 && len(q.Filters) == 1 && q.Filters[0].Field == FieldCategory && q.Filters[0].Tag != "":
			kinds["category"]++
		case len(q.Vector) == 8 && len(q.Filters) == 1 && q.Filters[0].Field == FieldPrice && q.Filters[0].Max > q.Filters[0].Min:
			kinds["price"]++
		default:
			t.Fatalf("query %d = %+v fits no kind", i, q)
		}
	}
	for _, k := range []string{"sku", "knn", "category", "price"} {
		if kinds[k] < 40 {
			t.Errorf("%d %s queries of 400; want each kind well represented (%v)", kinds[k], k, kinds)
		}
	}
}

// statsEngine reports a gauge that holds still and a counter that grows at
// a known rate of its own clock.
type statsEngine struct {
	memEngine
	t0    time.Time
	calls atomic.Int64
}

func (s *statsEngine) Stats(context.Context) (map[string]float64, error) {
	s.calls.Add(1)
	return map[string]float64{engines.StatQueueDepth: 4, "ingest": 1000 * time.Since(s.t0).Seconds()}, nil
}

// Engine stats are sampled through the measured window: a constant gauge
// keeps its value, a counter's growth over the window gives its rate.
func TestEngineStatsAreSampledWhileMeasuring(t *testing.T) {
	e := &statsEngine{memEngine: *newMem(), t0: time.Now()}
	cfg := quickConfig(2)
	cfg.Measure = 2500 * time.Millisecond
	l := ClosedLoop(context.Background(), e, testCorpus(t, 200, 1), cfg, Emitter{}, nil)[0]
	q, ok := l.EngineStats[engines.StatQueueDepth]
	if !ok || q.Mean != 4 || q.Max != 4 || q.Last != 4 {
		t.Fatalf("queue depth gauge %+v; want 4 throughout", q)
	}
	in := l.EngineStats["ingest"]
	// One sample when the window opens, one a second, one when it closes.
	if in.Samples < 3 || in.Samples > 5 {
		t.Errorf("%d samples over a 2.5 s window; want 3 to 5", in.Samples)
	}
	if math.Abs(in.PerSecond-1000) > 50 {
		t.Errorf("counter rate %.1f/s; want about 1000/s", in.PerSecond)
	}
	// The open loop samples the same way.
	sched, _ := workload.NewSchedule("constant", 100, 1200*time.Millisecond, 1)
	rep := OpenLoop(context.Background(), e, testCorpus(t, 200, 1), openConfig(2), sched, newVersions(201, shard.Share{}))
	if g := rep.EngineStats[engines.StatQueueDepth]; g.Samples < 2 || g.Mean != 4 {
		t.Errorf("open loop queue depth %+v; want sampled at least twice", g)
	}
}

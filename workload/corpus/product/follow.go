package product

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/workload/corpus"
)

// fields are what the product kinds' filters read of a document: its
// category (an index into dataset.Categories) and its price.
type fields struct {
	cat   uint8
	price float64
}

// The states of a document as the run's acknowledged writes left it
// (follower.cur): as pre-populated, deleted, or written at version v
// (stored as v+written).
const (
	untouched = 0
	deleted   = 1
	written   = 2
)

// follower is the product corpus's corpus.Follower: a neighbours.Live over
// the sample's nearest-neighbour queries, whose refills read every
// product at the version its last acknowledged write left.
type follower struct {
	p    Products
	live *neighbours.Live[fields]
	cur  []atomic.Uint32
	// foreign are the documents another shard may write (Foreign): a
	// refill leaves them out, as every answer excuses them, so that they
	// take no place in the lists.
	foreign []atomic.Bool
}

// follow is the Truth.Follow of the sample's nearest-neighbour queries
// qs, whose exact answers found (depth deep, over the pre-populated
// products) it starts from.
func (p Products) follow(qs []engines.Query, found [][]neighbours.Neighbour, depth int) func() (corpus.Follower, error) {
	return func() (corpus.Follower, error) {
		f := &follower{p: p, cur: make([]atomic.Uint32, p.IDs()+1), foreign: make([]atomic.Bool, p.IDs()+1)}
		lq := make([]neighbours.LiveQuery[fields], len(qs))
		for i, q := range qs {
			lq[i] = neighbours.LiveQuery[fields]{Vector: q.Vector, Keep: keepFields(q.Filters)}
		}
		live, err := neighbours.NewLive(context.Background(), neighbours.LiveConfig[fields]{Metric: p.metric(), Depth: depth, IDs: p.IDs(),
			Epoch: time.Now(), Docs: f.docs, Found: found}, lq)
		if err != nil {
			return nil, err
		}
		f.live = live
		return f, nil
	}
}

// keepFields is filters' meaning (dataset.Matches) over a document's
// fields; nil without filters.
func keepFields(filters []engines.Filter) func(fields) bool {
	if len(filters) == 0 {
		return nil
	}
	return func(f fields) bool {
		return dataset.Matches(filters, dataset.Product{Category: dataset.Categories[f.cat].Name, Price: f.price})
	}
}

// docs yields every current product, at the version its last acknowledged
// write left (a refill's read; a write in flight may show either version,
// which its Upserted or Deleted corrects).
func (f *follower) docs(yield func(neighbours.LiveDoc[fields]) bool) {
	for id := uint32(1); int(id) <= f.p.IDs(); id++ {
		if f.foreign[id].Load() {
			continue
		}
		var version uint32
		switch s := f.cur[id].Load(); s {
		case untouched:
			if !f.p.Prepopulated(id) {
				continue
			}
		case deleted:
			continue
		default:
			version = s - written
		}
		pr := f.p.Product(id, version)
		d := neighbours.LiveDoc[fields]{ID: id, Vector: pr.Embedding,
			Fields: fields{cat: uint8(max(categoryIndex(pr.Category), 0)), price: pr.Price}}
		if !yield(d) {
			return
		}
	}
}

func (f *follower) Begin(id uint32) { f.live.Begin(id) }

// Upserted reads the filters' fields and the embedding off the document
// written (as Document made it), so that nothing is generated again.
func (f *follower) Upserted(id, version uint32, doc *engines.Document, acked time.Time) {
	var fs fields
	var vec []float32
	for i := range doc.Fields {
		switch fd := &doc.Fields[i]; fd.Name {
		case FieldCategory:
			fs.cat = uint8(max(categoryIndex(fd.Text), 0))
		case FieldPrice:
			fs.price = fd.Number
		case FieldEmbedding:
			vec = fd.Vector
		}
	}
	f.cur[id].Store(version + written)
	f.live.Upsert(id, vec, fs, acked)
}

func (f *follower) Deleted(id uint32, acked time.Time) {
	f.cur[id].Store(deleted)
	f.live.Delete(id, acked)
}

func (f *follower) Failed(id uint32) { f.live.Fail(id) }

func (f *follower) Foreign(id uint32) {
	f.foreign[id].Store(true)
	f.live.Foreign(id)
}

// Score reads the answer's IDs (on the stack for k up to 64); a place
// taken by no document's ID holds nothing.
func (f *follower) Score(q int, ids []string, k int, sent time.Time, lags []time.Duration, out []neighbours.Score) {
	var buf [64]uint32
	held := buf[:0]
	for _, s := range ids {
		if id, err := dataset.ParseDocID(s); err == nil {
			held = append(held, id)
		}
	}
	f.live.ScoreLags(q, held, k, sent, lags, out)
}

func (f *follower) Run(ctx context.Context) { f.live.Run(ctx) }

package corpus

import (
	"context"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Exact answers: a seeded sample of a corpus's queries whose kind has an
// exact answer (dataset.Truth) — the nearest neighbours by brute force
// over the pre-populated documents that pass the query's filters
// (dataset.Matches), the one product a lookup names — which the run checks
// on the idle engine after pre-population and, as a share of the
// searches, under load, where the truth follows the run's acknowledged
// writes when the corpus can (Truth.Follow) and otherwise the documents
// written since are left out of what an answer must hold
// (result.KindRecall). Answers are scored by
// neighbours.Hits, the harness's one recall@k: a document tied with the
// k-th within neighbours.Tolerance counts. The corpus that has such
// answers computes them (Exact); scoring is the same for every corpus.

// Exact is a Source whose queries can have exact answers.
type Exact interface {
	// ExactTruth draws n sample queries for k hits and computes their
	// exact answers, or nil when none of the kinds its mix draws has one.
	// It reads every pre-populated document against every sample query
	// (minutes for a large sample of wide vectors) and gives up with
	// ctx's error when ctx ends.
	ExactTruth(ctx context.Context, n, k int) (*Truth, error)
}

// NewTruth is src's sample of n exact answers for k hits, or nil when src
// has none (the text corpus; a mix of hybrid queries alone), n is 0 or
// nothing is pre-populated.
func NewTruth(ctx context.Context, src Source, n, k int) (*Truth, error) {
	s, ok := src.(Exact)
	if !ok || n <= 0 || src.PrepopulatedCount() == 0 {
		return nil, nil
	}
	return s.ExactTruth(ctx, n, k)
}

// DefaultExactQueries is the sample's size: 100 queries, the sample the
// issue's cost is stated for, enough for recall@10 over a thousand
// expected documents.
const DefaultExactQueries = 100

// TagExact keys the sample's stream.
const TagExact = 0x65786163 // "exac"

// ExactDepth is how many of a query's nearest are kept: more than k, so
// that the answer is still known when some of them have been written.
func ExactDepth(k int) int { return 4*k + 20 }

// Truth is a run's sample of exact answers, shared by its setups.
type Truth struct {
	Kinds   []string // the source's QueryKinds
	Queries []TruthQuery
	Cost    result.GroundTruth
	// Stated is how the answers compare with a truth the harness did not
	// compute, when the corpus has one (an embedding file's own
	// neighbours): nil when it has none.
	Stated *Stated
	// Follow, when the corpus can follow writes, is a truth that follows
	// one run's acknowledged writes from the sample's answers (each run
	// calls it once: the writes are the run's own); nil when it cannot.
	Follow func() (Follower, error)
}

// Follower is the exact answers of a Truth's nearest-neighbour queries as
// one run's acknowledged writes leave them (neighbours.Live behind a
// corpus's documents and filters). Its methods are called from many
// goroutines at once and allocate nothing on the write path.
type Follower interface {
	// Begin: a write of id is about to be sent.
	Begin(id uint32)
	// Upserted: the engine acknowledged, at acked, the upsert of doc as
	// id's version; Deleted: the delete of id; Failed: the write of id
	// was not acknowledged.
	Upserted(id, version uint32, doc *engines.Document, acked time.Time)
	Deleted(id uint32, acked time.Time)
	Failed(id uint32)
	// Foreign: a writer this truth does not follow (another shard) may
	// write id from now on; it is excused for good.
	Foreign(id uint32)
	// Score scores the answer ids to sample query q (its
	// TruthQuery.Live), asked for k at sent, strictly and with each of
	// lags excused, into out (neighbours.Live.ScoreLags).
	Score(q int, ids []string, k int, sent time.Time, lags []time.Duration, out []neighbours.Score)
	// Run refills the lists that ran short until ctx ends.
	Run(ctx context.Context)
}

// Stated is the comparison of the exact answers with a stated truth.
type Stated struct {
	// Source names the stated truth (the file).
	Source string
	// Compared is how many sample answers could be compared, Disagree how
	// many of them differ; Detail lists the first differences.
	Compared, Disagree int
	Detail             string
	// Skipped says why nothing could be compared ("" when something was).
	Skipped string
}

// TruthQuery is one sample query and its exact answer.
type TruthQuery struct {
	Kind  int // index into Truth.Kinds
	Query engines.Query
	// Want is the exact answer, best first, with distances: the depth
	// nearest for a Nearest kind, the named product (at distance 0) for a
	// Named one. Whole: it holds every document that passes (fewer than
	// depth did, or the named one).
	Want  []neighbours.Neighbour
	Whole bool
	// Far is the distance of a document that is not in Want, from the
	// corpus: asked only when ties with the k-th reach past the depth
	// kept. It is false for a document that is not pre-populated or does
	// not pass the filters; nil when Want is whole.
	Far func(id uint32) (float64, bool)
	// Live is the query's index in Truth.Follow's Follower; -1 when the
	// Follower does not hold it (a lookup by name).
	Live int
}

// Score is an answer's expected and found documents of q's exact answer,
// for k hits, where written says which documents the run itself wrote or
// deleted since pre-population: they are neither expected nor held
// against the answer, so an answer holding t of them is expected to hold
// the k−t nearest of the others. Any other hit takes its place as it is,
// scored by neighbours.Hits (a document tied with the last expected one
// within neighbours.Tolerance counts): an ID past the corpus, one the run
// never wrote (a leftover of an attached index), an unreadable one is a
// miss, not an excuse. ok is false when the answer tests nothing: nothing
// is left to expect (a SKU whose product was rewritten), or too many of
// the answer's nearest were written for the rest to say.
func (q *TruthQuery) Score(ids []string, k int, written func(uint32) bool) (expected, found int64, ok bool) {
	var buf [64]uint32 // an answer's IDs, on the stack for k up to 64
	held := buf[:0]
	need := k
	for _, s := range ids {
		id, err := dataset.ParseDocID(s)
		if err != nil {
			continue // a place taken by no document
		}
		if written(id) {
			need--
			continue
		}
		held = append(held, id)
	}
	var wbuf [64]neighbours.Neighbour
	want := wbuf[:0]
	for _, n := range q.Want {
		if len(want) >= need {
			break
		}
		if !written(n.ID) {
			want = append(want, n)
		}
	}
	d := distances{q: q, deep: !q.Whole && len(q.Want) > 0 && neighbours.Tied(q.Want[len(q.Want)-1].Distance, want)}
	expected, found = int64(len(want)), int64(neighbours.Hits(held, want, d.of))
	return expected, found, expected > 0 && (len(want) == need || q.Whole)
}

// distances are a scored answer's documents' distances to q: those of q's
// answer, and, when ties with the last expected document reach past the
// depth kept (deep), any other document's from the corpus.
type distances struct {
	q    *TruthQuery
	deep bool
}

func (d distances) of(id uint32) (float64, bool) {
	for _, n := range d.q.Want {
		if n.ID == id {
			return n.Distance, true
		}
	}
	if d.deep && d.q.Far != nil {
		return d.q.Far(id)
	}
	return 0, false
}

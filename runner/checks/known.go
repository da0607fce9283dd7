package checks

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/testhook"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

// KnownConfig is the known-item checks made under load: a seeded share of
// each level's (each rep's) searches look for a pre-populated document
// that no write had touched when the level began, and the answers are
// checked after the call (result.KnownItems). The zero value makes the
// checks at the CLI's default share, as the zero FreshnessConfig runs the
// freshness probe: a Go program measures what `searchbench run` does
// unless it turns something off.
type KnownConfig struct {
	// Off turns the checks off (the CLI's --known-items 0).
	Off bool
	// Fraction is the share of searches that are checks; 0:
	// DefaultKnownItems.
	Fraction float64
	// Idle is the check after pre-population, to compare with (Run sets
	// it; a shard that did not prepare has none).
	Idle *result.Relevance `json:"-"`
	// Exact is the size of the sample of queries with exact answers
	// (exact.go) checked idle and, as half of the checks, under load; 0:
	// DefaultExactQueries; below 0: none (the CLI's --exact-queries 0).
	Exact int
	// truth is the sample's exact answers (Run computes them once and
	// sets them with WithTruth).
	truth *corpus.Truth
}

// WithTruth is c checking the sample's exact answers t.
func (c KnownConfig) WithTruth(t *corpus.Truth) KnownConfig {
	c.truth = t
	return c
}

// Follow is vers with the truth that follows its writes, when c checks a
// sample of exact answers whose corpus can follow them (corpus.Truth.Follow);
// the truth's refills run until ctx ends. Each run's writes are its own, so
// each run (a closed loop's levels, a ladder's rungs) follows from the
// pre-populated answers once. Without one, or when it cannot be made, the
// exact checks keep the old rule: every document written is excused.
func (c KnownConfig) Follow(ctx context.Context, vers Versions) Versions {
	if c.ExactQueries() == 0 || c.truth == nil || c.truth.Follow == nil {
		return vers
	}
	f, err := c.truth.Follow()
	if err != nil {
		return vers
	}
	go f.Run(ctx)
	vers.follow = f
	return vers
}

// ExactQueries is the size of the sample of exact answers: 0 when the
// checks are off.
func (c KnownConfig) ExactQueries() int {
	switch {
	case c.Off || c.Exact < 0:
		return 0
	case c.Exact == 0:
		return DefaultExactQueries
	}
	return c.Exact
}

// DefaultKnownItems is the share of searches made checks: enough for a
// recall over thousands of answers in a minute's level, few enough that
// the searches measured are the workload's.
const DefaultKnownItems = 0.01

// Validate reports a fraction out of range (a *field.Error).
func (c KnownConfig) Validate() error {
	if !(c.Fraction >= 0 && c.Fraction <= 1) {
		return field.New("Fraction", "known-items", "%v must be in [0, 1]", c.Fraction)
	}
	if c.Exact > MaxExactQueries {
		return field.New("Exact", "exact-queries", "%d is out of range (0 to %d)", c.Exact, MaxExactQueries)
	}
	return nil
}

// share is the fraction of searches checked: 0 when the checks are off.
func (c KnownConfig) share() float64 {
	switch {
	case c.Off:
		return 0
	case c.Fraction == 0:
		return DefaultKnownItems
	}
	return c.Fraction
}

// MaxExactQueries bounds the sample: its brute force scores every
// pre-populated document against every query.
const MaxExactQueries = 10_000

// tagKnownLoad keys the checks' streams under load.
const tagKnownLoad = 0x6c6f6164 // "load"

// knownCandidates is how many IDs a level samples for its checks.
const knownCandidates = 1024

// KnownChecks are one level's (or one rep's) checks. The candidates are
// drawn when the level begins from the IDs still at their pre-populated
// version (0); a check whose ID has been written or deleted since, by the
// time its answer is back, is skipped: its answer proves nothing.
type KnownChecks struct {
	ki   corpus.KnownItems
	frac float64
	ask  workload.Ask
	vers Versions
	ids  []uint32
	base uint64 // keys the callers' streams (stream)
	idle *result.Relevance
	// after, when set (tests), runs inside each check of an answer.
	after func()

	checks, found, empty, below, skipped, failed, unsupported atomic.Int64
	// exact is the sample of exact answers, when there is one: half the
	// checks ask one of its queries; exactCounts counts them by kind and
	// query.
	exact       *corpus.Truth
	exactCounts tally
	// follow is the truth that follows this share's writes (nil: the old
	// rule, every document written is excused); lag the freshness probe
	// whose longest lag so far is the lag-excused rule's window.
	follow corpus.Follower
	lag    *Prober
	// perIv counts the checks of each interval of the window's grid (set
	// by startIntervals before the window opens).
	perIv []ivKnown
}

// ivKnown is one interval's checks.
type ivKnown struct{ checks, found atomic.Int64 }

// StartIntervals makes room for the counts of n intervals.
func (kc *KnownChecks) StartIntervals(n int) {
	if kc != nil {
		kc.perIv = make([]ivKnown, n)
		if kc.exact != nil {
			kc.exactCounts.startIntervals(n)
		}
	}
}

// Interval is interval k's checks and finds (nil without checks).
func (kc *KnownChecks) Interval(k int) *result.IntervalKnown {
	if kc == nil || k >= len(kc.perIv) {
		return nil
	}
	iv := &kc.perIv[k]
	exact := kc.exactCounts.interval(k)
	if iv.checks.Load() == 0 && exact == nil {
		return nil
	}
	return &result.IntervalKnown{Checks: iv.checks.Load(), Found: iv.found.Load(), Exact: exact}
}

// KnownCheck is one check prepared before the clock starts.
type KnownCheck struct {
	On       bool // the call is a check: its answer goes to Check
	Interval int  // the call's interval, set once it is known to be measured
	id       uint32
	doc      string // the ID as the engine returns it, made before the clock
	// exact is the exact-answer query asked (nil: a known-item check),
	// query its index in the sample.
	exact *corpus.TruthQuery
	query int
	// Sent is when the search was sent, set by the caller before Check:
	// a write acknowledged from then on overlaps it.
	Sent time.Time
}

// NewKnownChecks samples the level's candidates, keyed by key (the level,
// the schedule), for searches of k hits drawn from the workload's seed;
// nil when the checks are off or cannot run.
func NewKnownChecks(src corpus.Source, c KnownConfig, ask workload.Ask, seed uint64, vers Versions, key ...uint64) *KnownChecks {
	ki, ok := src.(corpus.KnownItems)
	frac := c.share()
	if !ok || frac <= 0 || src.PrepopulatedCount() == 0 {
		return nil
	}
	kc := &KnownChecks{ki: ki, frac: frac, ask: ask, vers: vers, idle: c.Idle, after: testhook.AfterKnownCheck,
		exact: c.truth, follow: vers.follow}
	if kc.exact != nil {
		kc.exactCounts = newTally(kc.exact)
	}
	r := dataset.NewRand(append([]uint64{seed, tagKnownLoad}, key...)...)
	// Bounded: after heavy writing few IDs may be untouched.
	for range 64 * knownCandidates {
		if len(kc.ids) == knownCandidates {
			break
		}
		id := uint32(1 + r.Intn(src.IDs()))
		if src.Prepopulated(id) && vers.Untouched(id) {
			kc.ids = append(kc.ids, id)
		}
	}
	// With every ID written since (a long or heavy run) no known item is
	// left to look for, but the exact answers, which follow the writes,
	// still check the answers: then every check is one of them.
	if len(kc.ids) == 0 && kc.exact == nil {
		return nil
	}
	kc.base = r.Uint64()
	return kc
}

// Stream is the choice stream of user or arrival n (by its global index,
// so a shard's users and arrivals choose what a one-machine run's do).
func (kc *KnownChecks) Stream(n uint64) dataset.Rand {
	if kc == nil {
		return dataset.Rand{}
	}
	return dataset.NewRand(kc.base, n)
}

// Pick decides, from the caller's stream, whether search call c is a
// check and, if so, replaces its query (before the clock starts).
func (kc *KnownChecks) Pick(r *dataset.Rand, c *workload.Call) KnownCheck {
	if kc == nil || c.Op != workload.Search || r.Float64() >= kc.frac {
		return KnownCheck{}
	}
	if kc.exact != nil && (len(kc.ids) == 0 || r.Intn(2) == 0) {
		i := r.Intn(len(kc.exact.Queries))
		q := &kc.exact.Queries[i]
		c.Query, c.Kind = q.Query, q.Kind
		kc.ask.Apply(&c.Query)
		return KnownCheck{On: true, exact: q, query: i}
	}
	id := kc.ids[r.Intn(len(kc.ids))]
	_, q := kc.ki.KnownQuery(r.Uint64(), id)
	kc.ask.Apply(&q)
	c.Query, c.Kind = q, -1 // a known item is of none of the mix's kinds
	return KnownCheck{On: true, id: id, doc: dataset.DocID(id)}
}

// Check counts an answer; unsupported says whether the call is to be left
// out of the search figures (the configuration cannot run the check).
func (kc *KnownChecks) Check(c KnownCheck, h engines.Hits, err error) (unsupported bool) {
	if kc.after != nil {
		kc.after()
	}
	if c.exact != nil {
		kc.checkExact(c, h, err)
		return errors.Is(err, engines.ErrUnsupported)
	}
	switch {
	case errors.Is(err, engines.ErrUnsupported):
		kc.unsupported.Add(1)
		return true
	case err != nil:
		kc.failed.Add(1)
	case !kc.vers.Untouched(c.id):
		kc.skipped.Add(1)
	default:
		kc.checks.Add(1)
		found := slices.Contains(h.IDs, c.doc)
		if found {
			kc.found.Add(1)
		}
		if c.Interval >= 0 && c.Interval < len(kc.perIv) {
			iv := &kc.perIv[c.Interval]
			iv.checks.Add(1)
			if found {
				iv.found.Add(1)
			}
		}
		if len(h.IDs) == 0 {
			kc.empty.Add(1)
		}
		if h.Total >= 0 && h.Total < int64(len(h.IDs)) {
			kc.below.Add(1)
		}
	}
	return false
}

// LagFrom makes p's longest lag in the window, rounded up to a rung of
// lagRungs, the lag within which the exact checks excuse recent writes
// under the lag rule (no probe: none excused, so the lag-excused counts
// equal the strict ones).
func (kc *KnownChecks) LagFrom(p *Prober) {
	if kc != nil {
		kc.lag = p
	}
}

// checkExact counts an answer to an exact-answer check: against the truth
// that follows the writes when there is one and it holds the query, at
// every lag rung; by the old rule otherwise (a lookup by name: every
// product written is excused, under either rule).
func (kc *KnownChecks) checkExact(c KnownCheck, h engines.Hits, err error) {
	t := kc.exactCounts
	if kc.follow == nil || c.exact.Live < 0 {
		t.add(c.query, c.Interval, h.IDs, err, kc.ask.K, kc.written, kc.follow != nil)
		return
	}
	if t.failed(c.query, err) {
		return
	}
	scores := lagScores.Get().(*[len(lagRungs)]neighbours.Score)
	defer lagScores.Put(scores)
	kc.follow.Score(c.exact.Live, h.IDs, kc.ask.K, c.Sent, lagRungs[:], scores[:])
	if !t.count(c.query, c.Interval, scores[0]) {
		return
	}
	for r := range lagRungs {
		t.countLag(c.query, r, scores[r])
	}
}

// lagScores are buffers for an answer's scores at every lag rung: one on
// the stack would escape through the Follower interface, a heap
// allocation per check.
var lagScores = sync.Pool{New: func() any { return new([len(lagRungs)]neighbours.Score) }}

// ForeignNote is the share of the exact answers' documents excused as
// other shares' writes in a split run, as a warning's text ("" when none
// was, or without checks).
func (kc *KnownChecks) ForeignNote() string {
	if kc == nil || kc.exact == nil {
		return ""
	}
	return kc.exactCounts.foreignNote()
}

// Result is the checks' figures; nil for nil checks.
func (kc *KnownChecks) Result() *result.KnownItems {
	if kc == nil {
		return nil
	}
	k := &result.KnownItems{Fraction: kc.frac, K: kc.ask.K,
		Checks: kc.checks.Load(), Found: kc.found.Load(), Empty: kc.empty.Load(),
		TotalBelowHits: kc.below.Load(), Skipped: kc.skipped.Load(), Failed: kc.failed.Load(),
		Unsupported: kc.unsupported.Load()}
	if k.Checks > 0 {
		k.Recall = float64(k.Found) / float64(k.Checks)
	}
	if kc.idle != nil && kc.idle.Queries > 0 {
		k.IdleRecall, k.IdleChecks, k.IdleFound = kc.idle.Recall, kc.idle.Queries, kc.idle.Found
	}
	if kc.exact != nil {
		// The lag excused is the window's: the freshness probe's longest,
		// known now that the window is over (0 without a probe).
		k.Exact = kc.exactCounts.recall(kc.follow != nil, lagRung(kc.lag.Longest()))
		if kc.idle != nil {
			k.Exact = result.SetIdle(k.Exact, kc.idle.Exact)
		}
	}
	return k
}

// written says whether this share of the run wrote or deleted id since
// pre-population: its place in an answer says nothing of the index's
// recall. An ID it never wrote — past the ID space, or a leftover the
// run did not put there — is held against the answer like any other.
func (kc *KnownChecks) written(id uint32) bool {
	return int(id) < len(kc.vers.last) && !kc.vers.Untouched(id)
}

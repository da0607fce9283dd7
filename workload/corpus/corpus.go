// Package corpus is what a workload searches and writes: a Source gives the
// index's schema, every document a write sends and every query a search
// sends, each a pure function of its arguments; its optional capabilities
// give what the run's checks need from it — known-item queries
// (KnownItems), marked documents for the freshness probe (Marker), exact
// answers (Exact). Corpora register by name, as engines do (Register,
// New), so a new corpus is a package of its own that owns its documents,
// queries, checks and truth: Study A's text (corpus/text), Study B's
// products (corpus/product).
package corpus

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/vectorfile"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
)

// Source is a workload's data as the engines see it: the index's schema, the
// document every write sends and the query every search sends. Each is a
// pure function of its arguments, so the same seed sends the same bytes, and
// the runner can build a call before its clock starts.
type Source interface {
	// Schema is the index the run creates.
	Schema() engines.Schema
	// IDs is the size of the ID space (IDs are 1…IDs).
	IDs() int
	// Prepopulated says whether id is loaded before the run;
	// PrepopulatedCount is how many are.
	Prepopulated(id uint32) bool
	PrepopulatedCount() int
	// Document is version v of id (0 is the pre-populated version).
	Document(id, version uint32) engines.Document
	// Query is search i, without K (the runner sets it), and its kind, an
	// index into QueryKinds.
	Query(i uint64) (q engines.Query, kind int)
	// QueryKinds names the kinds of query the source can make (every kind,
	// whether its mix draws it or not): the search figures are split by
	// kind when there is more than one.
	QueryKinds() []string
	// Provenance identifies the exact bytes: generator, seed, hash. The
	// hash reads every pre-populated document (a minute at 20 million
	// IDs): it ends with ctx's error when ctx ends first.
	Provenance(ctx context.Context) (result.Corpus, error)
}

// KnownItems is a Source that can make known-item queries: searches built
// from one pre-populated document, which that document must answer within
// the top K. A configuration that is fast because it returns the wrong
// documents shows up as low recall.
type KnownItems interface {
	// KnownQuery is check i for document id (pre-populated, at its
	// pre-populated version): its kind and its query.
	KnownQuery(i uint64, id uint32) (kind string, q engines.Query)
	// Config is the corpus's: its seed keys the checks' streams.
	Config() dataset.Config
}

// Marker is a Source whose documents can carry a word found nowhere else,
// so that a search can tell whether one particular write is visible yet.
type Marker interface {
	// Mark adds word to a text field of doc.
	Mark(doc *engines.Document, word string)
	// MarkQuery is a search that matches the documents carrying word.
	MarkQuery(word string) engines.Query
}

// KindSampler is a Source whose mix draws kinds that not every engine
// answers: one query of each kind it draws, for the check before a run
// that every setup's engine can answer them (engines.CheckQuery).
type KindSampler interface {
	KindSamples() map[string]engines.Query
}

// Identified is a Source whose provenance, all but the hash, is known
// without reading the corpus: the hash follows from it.
type Identified interface{ Identity() result.Corpus }

// Identity is what identifies src's bytes, as a merge compares them (the
// result's corpus: generator, seed, IDs, pre-populated fraction, query
// mix), without hashing the corpus when src can say it (Identified).
func Identity(src Source) result.Corpus {
	if s, ok := src.(Identified); ok {
		return s.Identity()
	}
	// Another Source's provenance is all there is to go by; a digest is
	// taken before the run, so there is no run to cancel yet.
	c, _ := src.Provenance(context.Background())
	return c
}

// WithHash is a corpus's identity with its hash, which reads every
// pre-populated document: it ends with ctx's error when ctx ends first.
func WithHash(ctx context.Context, c result.Corpus, hash func(context.Context) (string, error)) (result.Corpus, error) {
	h, err := hash(ctx)
	c.Hash = h
	return c, err
}

// Provenance is the identity every generated corpus shares: its generator,
// seed, ID space and pre-population.
func Provenance(generator string, cfg dataset.Config, prepopulated int) result.Corpus {
	return result.Corpus{Generator: generator, Seed: cfg.Seed, IDs: cfg.IDs, Prepopulate: cfg.Prepopulate,
		Prepopulated: prepopulated}
}

// Config is what a corpus is built from: the ID space and seed of every
// corpus, and what some corpora read; a corpus ignores what it does not
// read (runner/scenario refuses such a flag for it before anything runs).
type Config struct {
	dataset.Config
	// Dim is the embeddings' dimension (the product corpus).
	Dim int
	// Queries is the mix of query kinds (the product corpus; the zero mix
	// is its default).
	Queries dataset.QueryMix
	// Vectors is the path of an embedding file (dataset/vectorfile's
	// formats) whose train vectors are the product corpus's embeddings
	// and whose test vectors are its kNN queries; "" generates them.
	// VectorFiles names what the path alone does not: an fvecs base's
	// query and truth files, the distance of a format that carries none.
	Vectors     string
	VectorFiles vectorfile.Options
}

// Factory builds a corpus from cfg.
type Factory func(cfg Config) (Source, error)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register makes a corpus available by name (the --corpus flag's value).
// It panics on an empty name, a nil factory or a name taken twice: each
// is a programming error, found at start.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case name == "" || f == nil:
		panic("corpus: Register needs a name and a factory")
	case factories[name] != nil:
		panic("corpus: " + name + " registered twice")
	}
	factories[name] = f
}

// New builds the corpus registered as name.
func New(name string, cfg Config) (Source, error) {
	mu.RLock()
	f := factories[name]
	mu.RUnlock()
	if f == nil {
		return nil, fmt.Errorf("corpus: %q is not one of %s", name, strings.Join(Names(), ", "))
	}
	return f(cfg)
}

// Names are the registered corpora, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return slices.Clip(names)
}

// TagKnownItem separates the known-item checks' random streams from the
// corpus's: the runner draws check i's document from it, and a corpus's
// KnownQuery may draw its query's words from it.
const TagKnownItem = 0x6b6e6f77 // "know"

// MarkField appends word to doc's text field named field (Marker.Mark).
func MarkField(doc *engines.Document, field, word string) {
	for i := range doc.Fields {
		if doc.Fields[i].Name == field {
			doc.Fields[i].Text += " " + word
			return
		}
	}
}

// Package dataset holds the benchmark corpus as pure functions: a document is
// a function of (seed, id, version) and a query of (seed, index). Nothing is
// held in memory, so any document can be regenerated anywhere, by any worker,
// and the same seed gives byte-identical documents and queries on every
// machine.
package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unsafe"
)

// Generator names the corpus rules. It is recorded with every result, and it
// changes whenever a rule changes, so that two results with the same seed and
// the same generator are known to have run on the same bytes.
const Generator = "faker-en-lorem/1"

// Defaults of the published study (Study A): 100,000 sequential IDs, about
// 95% of them present before the load starts.
const (
	DefaultIDs         = 100_000
	DefaultPrepopulate = 0.95
	DefaultSeed        = 1
)

// Stream tags keep the random streams of documents, queries and the
// pre-populated set independent of each other.
const (
	tagDocument uint64 = iota + 1
	tagQuery
	tagPrepopulate
)

// Config chooses a corpus.
type Config struct {
	Seed        uint64  // every byte of the corpus follows from it
	IDs         int     // IDs are 1..IDs
	Prepopulate float64 // fraction of IDs loaded before the run, in [0, 1]
}

// Validate reports the first field that is out of range.
func (c Config) Validate() error {
	switch {
	case c.IDs < 1 || c.IDs > 1<<31-1:
		return fmt.Errorf("ids: %d is out of range (1 to %d)", c.IDs, 1<<31-1)
	case !(c.Prepopulate >= 0 && c.Prepopulate <= 1):
		return fmt.Errorf("prepopulate: %v is not a fraction in [0, 1]", c.Prepopulate)
	}
	return nil
}

// Corpus generates documents and queries. It is safe for concurrent use: it
// has no mutable state besides the lazily computed hash.
type Corpus struct {
	idSet
	hash lazyHash
}

// idSet is the ID space and its pre-populated part, shared by every corpus
// so that the same seed pre-populates the same IDs whatever the documents.
type idSet struct {
	cfg       Config
	threshold uint64 // an ID is pre-populated when its hash falls below this
	prepop    int
}

func newIDSet(cfg Config) (idSet, error) {
	if err := cfg.Validate(); err != nil {
		return idSet{}, err
	}
	s := idSet{cfg: cfg}
	switch {
	case cfg.Prepopulate >= 1:
		s.threshold = ^uint64(0)
	default:
		s.threshold = uint64(cfg.Prepopulate * (1 << 64))
	}
	for id := uint32(1); id <= uint32(cfg.IDs); id++ {
		if s.Prepopulated(id) {
			s.prepop++
		}
	}
	return s, nil
}

// Document is one generated document. Version 0 is the pre-populated version;
// every upsert writes a higher one.
type Document struct {
	ID      uint32
	Version uint32
	Name    string // sentence(10)
	Content string // 5 paragraphs joined by a blank line
}

// New returns the corpus for cfg.
func New(cfg Config) (*Corpus, error) {
	ids, err := newIDSet(cfg)
	if err != nil {
		return nil, err
	}
	return &Corpus{idSet: ids}, nil
}

// Config returns the configuration the corpus was built from.
func (s *idSet) Config() Config { return s.cfg }

// IDs is the size of the ID space.
func (s *idSet) IDs() int { return s.cfg.IDs }

// PrepopulatedCount is how many IDs are present before the run.
func (s *idSet) PrepopulatedCount() int { return s.prepop }

// Prepopulated reports whether id is loaded before the run. It is a seeded
// hash of the ID rather than the first N IDs, so the missing 5% are spread
// over the whole ID space like the study's. An ID outside 1…IDs is none
// of the corpus's documents: its hash alone would call most of them
// pre-populated, and an answer holding one would pass for a good one.
func (s *idSet) Prepopulated(id uint32) bool {
	if id == 0 || id > uint32(s.cfg.IDs) {
		return false
	}
	if s.threshold == ^uint64(0) {
		return true
	}
	r := NewRand(s.cfg.Seed, tagPrepopulate, uint64(id))
	return r.Uint64() < s.threshold
}

// Document returns version v of document id.
func (c *Corpus) Document(id, version uint32) Document {
	r := NewRand(c.cfg.Seed, tagDocument, uint64(id), uint64(version))
	b := make([]byte, 0, 768) // ~0.53 KB on average; one allocation for most documents
	b = appendSentence(b, &r, 10)
	nameLen := len(b)
	for i := range 5 {
		if i > 0 {
			b = append(b, "\n\n"...)
		}
		b = appendParagraph(b, &r)
	}
	// The buffer is never written again, so it can back the strings
	// directly (as strings.Builder does) instead of being copied.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	return Document{ID: id, Version: version, Name: s[:nameLen], Content: s[nameLen:]}
}

// Query returns query i: Faker's sentence(5). Any uint64 is a valid index,
// so a run can draw fresh queries that defeat result caches.
func (c *Corpus) Query(i uint64) string {
	r := NewRand(c.cfg.Seed, tagQuery, i)
	b := appendSentence(make([]byte, 0, 64), &r, 5)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// DocID is the engine-side identifier of id: its decimal form, which every
// engine accepts (Typesense, for one, takes only string IDs).
func DocID(id uint32) string { return strconv.FormatUint(uint64(id), 10) }

// ParseDocID is the inverse of DocID.
func ParseDocID(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("document id %q: %w", s, err)
	}
	return uint32(v), nil
}

// hashedQueries is how many queries the corpus hash covers besides every
// pre-populated document.
const hashedQueries = 10_000

// Hash is a SHA-256 over the generator name, the configuration, every
// pre-populated document and the first queries: equal hashes mean equal bytes.
func (c *Corpus) Hash() string {
	h, _ := c.HashContext(context.Background())
	return h
}

// HashContext is Hash, given up with ctx's error when ctx ends first (it
// reads every pre-populated document: about a minute at 20 million IDs).
func (c *Corpus) HashContext(ctx context.Context) (string, error) {
	return c.hash.get(func() (string, error) {
		return c.idSet.hash(ctx, Generator,
			func(h io.Writer, id uint32) {
				d := c.Document(id, 0)
				io.WriteString(h, d.Name)
				h.Write([]byte{0})
				io.WriteString(h, d.Content)
			},
			func(h io.Writer, i uint64) { io.WriteString(h, c.Query(i)) })
	})
}

// lazyHash is a corpus hash computed on first use. Unlike a sync.Once, a
// computation that was given up is not kept: the next call starts again.
type lazyHash struct {
	mu   sync.Mutex
	hash string
}

func (l *lazyHash) get(compute func() (string, error)) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hash == "" {
		h, err := compute()
		if err != nil {
			return "", err
		}
		l.hash = h
	}
	return l.hash, nil
}

// hashBlock is how many IDs the hash reads between two looks at its
// context: a few milliseconds of work.
const hashBlock = 4096

// hash is the corpus hash of any generator: the configuration, then every
// pre-populated document and the first queries, each written by the
// generator's own function and terminated by a zero byte. It returns ctx's
// error once ctx ends.
func (s *idSet) hash(ctx context.Context, generator string, doc func(io.Writer, uint32), query func(io.Writer, uint64)) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%v\x00", generator, s.cfg.Seed, s.cfg.IDs, s.cfg.Prepopulate)
	var n [4]byte
	for id := uint32(1); id <= uint32(s.cfg.IDs); id++ {
		if id%hashBlock == 1 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		if !s.Prepopulated(id) {
			continue
		}
		binary.LittleEndian.PutUint32(n[:], id)
		h.Write(n[:])
		doc(h, id)
		h.Write([]byte{0})
	}
	for i := range uint64(hashedQueries) {
		if i%hashBlock == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		query(h, i)
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

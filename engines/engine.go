// Package engines defines what a search engine driver is: the Engine
// interface, the optional capabilities a driver may add, the error classes the
// runner counts, and the registry drivers add themselves to. It knows no
// driver; drivers live in sub-packages and register from init(), as
// database/sql drivers do. What drivers share beyond the contract lives
// beside it: engines/httpwire (the HTTP client, transport and status
// classes of the HTTP drivers), engines/config (reading a driver's options
// and server URL) and engines/quote (what of a server's text or a
// credential an error message may show).
package engines

import (
	"context"
	"fmt"
)

// Engine is a connection to one index (or collection) of one search engine.
// Drivers never time their calls and know nothing about load: the runner times
// around each call. An Engine must be safe for concurrent use.
type Engine interface {
	// Create makes (or replaces) the index described by schema.
	Create(ctx context.Context, schema Schema) error
	// Upsert writes a document by ID, replacing every field of an existing
	// one. What "returned" means — acknowledged or searchable — is the
	// driver's Visibility.
	Upsert(ctx context.Context, doc Document) error
	// Delete removes a document by ID. A missing ID is an error that
	// classifies as NotFound.
	Delete(ctx context.Context, id string) error
	// Search runs a free-text query and returns at most q.K hits.
	Search(ctx context.Context, q Query) (Hits, error)
	// Close releases the connection (and, for embedded engines, the index).
	Close() error
}

// FieldType is the type of a schema field.
type FieldType uint8

const (
	Text    FieldType = iota // analysed full text
	Tag                      // exact tokens
	Numeric                  // a number
	Vector                   // a float32 vector
)

func (t FieldType) String() string {
	switch t {
	case Text:
		return "text"
	case Tag:
		return "tag"
	case Numeric:
		return "numeric"
	case Vector:
		return "vector"
	}
	return "unknown"
}

// Metric is the distance a vector field's index ranks by. The product
// corpus's generated embeddings are searched by Cosine; an embedding file
// (--vectors) names its own, and a driver whose engine cannot index it
// refuses the schema before anything starts (SchemaChecker).
type Metric uint8

const (
	// Cosine ranks by 1 − cos(a, b): the zero value, what a schema that
	// names no metric asks for.
	Cosine Metric = iota
	// L2 ranks by Euclidean distance, nearest first.
	L2
	// Dot ranks by inner product, largest first, on vectors of any length
	// (not only unit ones).
	Dot
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case L2:
		return "l2"
	case Dot:
		return "dot"
	}
	return "unknown"
}

// FieldSpec declares one field of a schema.
type FieldSpec struct {
	Name   string
	Type   FieldType
	Dim    int    // Vector only
	Metric Metric // Vector only
}

// Schema describes an index.
type Schema struct {
	Name   string
	Fields []FieldSpec
}

// Field is one field value of a document; which member is set follows the
// schema's type for the field.
type Field struct {
	Name   string
	Text   string    // Text, Tag
	Number float64   // Numeric
	Vector []float32 // Vector
}

// Document is one document to write.
type Document struct {
	ID     string
	Fields []Field
}

// Text returns the text of the named field, or "".
func (d Document) Text(name string) string {
	for _, f := range d.Fields {
		if f.Name == name {
			return f.Text
		}
	}
	return ""
}

// Query is one search. The mixed workload sets only Text and K; the product
// workload (Study B) adds a vector, filters or a single field. The shapes a
// driver is asked for, and what each means:
//
//   - Text: a free-text search over every text field, ranked by relevance.
//   - Text and Field: an exact lookup of Text's words in one field (a SKU).
//   - Vector: the K nearest neighbours on the schema's vector field (kNN),
//     by the engine's own index (approximate where it is HNSW).
//   - Vector and Filters: the K nearest among the documents that pass every
//     filter — a filtered kNN, never a kNN whose answer is filtered after.
//   - Text and Vector: a hybrid search, the text match and the kNN fused
//     into one ranking by the engine's own fusion where it has one (RRF, a
//     semantic ratio); a driver whose engine has none says in its package
//     documentation what it sends instead (valkey-search: the kNN among the
//     text matches).
//   - Filters apply to any of these.
//
// A driver that cannot honour a member that is set returns an error wrapping
// ErrUnsupported rather than silently answering a different question, and
// says so before anything starts through QueryChecker.
type Query struct {
	Text string
	K    int // at most this many hits
	// Field restricts Text to one field (an exact lookup such as a SKU);
	// empty searches every text field of the schema.
	Field string
	// Vector asks for the K nearest neighbours on the schema's vector field
	// (with Text: a hybrid search).
	Vector []float32
	// Filters all must hold.
	Filters []Filter
	// Knob is the value of the driver's search-time knob for this query
	// (Description.Knob): what a recall–throughput sweep moves. 0 leaves
	// the engine's own default; a non-zero value needs a Vector and a
	// driver with a knob, within its range (CheckQuery says so before
	// anything starts).
	Knob int
}

// Shape names what q asks, for messages and docs/engines.md's table:
// "text", "field", "knn", "knn+filter", "hybrid", "filter" (filters over a
// text search), with "+filter" where filters narrow a hybrid or a lookup.
func (q Query) Shape() string {
	var s string
	switch {
	case q.Vector != nil && q.Text != "":
		s = "hybrid"
	case q.Vector != nil:
		s = "knn"
	case q.Field != "":
		s = "field"
	case q.Text != "":
		s = "text"
	default:
		return "filter"
	}
	if len(q.Filters) > 0 {
		s += "+filter"
	}
	return s
}

// Filter is one condition on a Tag field (Tag equals) or a Numeric field
// (Min <= value <= Max).
type Filter struct {
	Field    string
	Tag      string
	Min, Max float64
}

// Hits is a search's answer.
type Hits struct {
	IDs   []string // best first, at most Query.K
	Total int64    // documents matched, or -1 when the engine does not say
}

// Visibility is what a returned write means.
type Visibility string

const (
	// Acknowledged: the engine accepted the write; a search may not see it yet.
	Acknowledged Visibility = "acknowledged"
	// Searchable: a search that starts after the write returned sees it.
	Searchable Visibility = "searchable"
)

// Optional capabilities. The runner finds them by type assertion and falls
// back as each comment says when a driver lacks one.

// BulkUpserter writes many documents in one call. Without it, pre-population
// issues concurrent Upserts.
type BulkUpserter interface {
	UpsertBatch(ctx context.Context, docs []Document) error
}

// Getter fetches one document by ID with the engine's own document-by-ID
// call (not a search): the "get" operation of a mix. It returns the
// document's fields as the engine stores them (at least the schema's text
// and tag fields); a missing ID is an error that classifies as NotFound.
// A mix that asks for get on a driver without it is bad input.
type Getter interface {
	Get(ctx context.Context, id string) (Document, error)
}

// Refresher makes every acknowledged write searchable before returning.
// Without it, pre-population cannot wait for an Acknowledged driver's
// writes (Amgix Now's queued writes offer nothing to wait on): the
// document count and the relevance check after it then see what a search
// sees at that moment, which is what the freshness probe measures.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// Counter reports how many documents the index holds. Without it, the
// document count after pre-population is not checked.
type Counter interface {
	Count(ctx context.Context) (int64, error)
}

// Attacher uses an index that another process created with the same
// schema (and may still be loading): it sets up what Create would for this
// connection and changes nothing on the server, failing when the index is
// not there. The shards of a sharded run other than shard 0 attach;
// a driver without it cannot be sharded.
type Attacher interface {
	Attach(ctx context.Context, schema Schema) error
}

// Versioner reports the engine's version, for the result's provenance.
type Versioner interface {
	Version(ctx context.Context) (string, error)
}

// TextOnly returns an ErrUnsupported error when q asks for more than a
// free-text search over every text field: for drivers of text-only engines.
func (q Query) TextOnly() error {
	switch {
	case q.Field != "":
		return fmt.Errorf("search restricted to field %q: %w", q.Field, ErrUnsupported)
	case q.Vector != nil:
		return fmt.Errorf("vector search: %w", ErrUnsupported)
	case len(q.Filters) > 0:
		return fmt.Errorf("filtered search: %w", ErrUnsupported)
	}
	return nil
}

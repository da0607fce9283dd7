package amgixnow

import (
	"errors"
	"fmt"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultURL is where Amgix Now listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:8235"

// Defaults and limits.
const (
	DefaultTimeout = 30 * time.Second
	DefaultPool    = 2048
	MaxLimit       = 100 // Amgix's MAX_SEARCH_LIMIT
	MaxBulk        = 100 // Amgix's MAX_BULK_UPLOAD
	maxTopK        = 10000
	singleWriters  = 16 // concurrent single writes of UpsertBatch with bulk=false
	// VectorName is the full_text vector over the text fields.
	VectorName = "ft"
	// ExactVector is the whitespace vector over the lookup field (the SKU).
	ExactVector = "kw"
	// DenseVector is the dense_custom vector holding the schema's vector
	// field.
	DenseVector = "dense"
	// LookupField is the schema text field that gets ExactVector.
	LookupField = "sku"
	maxDims     = 8192 // Amgix's MAX_VECTOR_DIMENSIONS
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout time.Duration
	pool    int
	queued  bool
	bulk    bool
	topK    int
	// types are the schema field types the collection indexes (option
	// fields); a type left out is not sent (tag, numeric, vector) or only
	// stored (text).
	types map[engines.FieldType]bool
	// exactMeta (option exact=metadata) also keeps the lookup field as a
	// keyword-indexed metadata string, which a lookup filters on.
	exactMeta bool
}

// parseFieldTypes reads the fields option: field types, comma-separated,
// each once, text or vector among them (an Amgix collection needs a
// vector).
func parseFieldTypes(v string) (map[engines.FieldType]bool, error) {
	out, err := config.FieldTypes(v)
	if err != nil {
		return nil, err
	}
	if !out[engines.Text] && !out[engines.Vector] {
		return nil, errors.New("must include text or vector: an Amgix collection needs at least one vector")
	}
	return out, nil
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(driver string, raw map[string]string) (options, error) {
	r := config.New(driver, raw)
	o := options{
		timeout:   r.Duration("timeout", DefaultTimeout),
		pool:      r.Int("pool", DefaultPool, 1, maxPool),
		queued:    r.Enum("route", "sync", "sync", "queued") == "queued",
		bulk:      r.Bool("bulk", true),
		topK:      r.Int("top_k", 0, 1, maxTopK),
		types:     config.Value(r, "fields", config.AllFieldTypes(), parseFieldTypes),
		exactMeta: r.Enum("exact", "vector", "vector", "metadata") == "metadata",
	}
	return o, r.Err()
}

func (d driver) check(cfg engines.Config) (options, error) {
	if _, err := engines.CheckWriteMode(d.name, cfg.WriteMode, d.vis); err != nil {
		other := SyncName
		if d.vis == engines.Searchable {
			other = Name
		}
		return options{}, fmt.Errorf("%w: the server's AMGIX_NOW_SYNC_DB_WRITES decides; use %s", err, other)
	}
	o, err := parseOptions(d.name, cfg.Options)
	if err != nil {
		return o, err
	}
	if o.queued && d.vis == engines.Searchable {
		return o, fmt.Errorf("%s: route=queued writes may be queued, so they cannot be searchable on return; use %s", d.name, Name)
	}
	if cfg.Username != "" || cfg.Password != "" {
		return o, fmt.Errorf("%s: Amgix Now has no user or password, only an API key", d.name)
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := config.ServerURL(d.name, cfg.URL, DefaultURL); err != nil {
			return o, err
		}
	}
	return o, nil
}

package typesense

import (
	"errors"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultURL is where Typesense listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:8108"

// Defaults of the options.
const (
	DefaultTimeout       = 5 * time.Second
	DefaultImportTimeout = 5 * time.Minute
	DefaultPool          = 2048
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout, importTimeout time.Duration
	pool                   int
	// types are the schema's field types the collection declares (indexes);
	// a field of another type is still sent and stored, not indexed.
	types map[engines.FieldType]bool
	// exact are text fields also declared facet (indexed verbatim) and
	// looked up by their whole value (filter_by field:=`value`).
	exact []string
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("typesense", raw)
	o := options{
		timeout:       r.Duration("timeout", DefaultTimeout),
		importTimeout: r.Duration("import_timeout", DefaultImportTimeout),
		pool:          r.Int("pool", DefaultPool, 1, maxPool),
		types:         config.Value(r, "fields", config.AllFieldTypes(), config.FieldTypes),
		exact:         config.Value(r, "exact_fields", nil, parseNames),
	}
	if len(o.exact) > 0 && !o.types[engines.Text] {
		r.Fail("option exact_fields names text fields; it needs text in option fields")
	}
	return o, r.Err()
}

// parseNames reads exact_fields: field names, comma-separated, each once
// (whether the schema has them as text fields is CheckSchema's question).
func parseNames(v string) ([]string, error) { return config.Names(v, nil, "text fields of the schema") }

// check reads everything CheckConfig and Open check before anything
// starts: the write mode, an attached server's address and key, and the
// options.
func check(cfg engines.Config) (options, error) {
	// A write returns once it is searchable (see the package doc).
	if _, err := engines.CheckWriteMode("typesense", cfg.WriteMode, engines.Searchable); err != nil {
		return options{}, err
	}
	// An attached server's address and key are the user's: checked before
	// anything starts. A launched container gets both from the launcher.
	if cfg.URL != "" {
		if _, err := config.ServerURL("typesense", cfg.URL, DefaultURL); err != nil {
			return options{}, err
		}
		if cfg.APIKey == "" {
			return options{}, errNoKey
		}
	}
	return parseOptions(cfg.Options)
}

var errNoKey = errors.New("typesense: an API key is needed (Typesense requires one on every call)")

package postgres

import (
	"errors"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultPoolSize is the connection pool's size unless Options["pool"] says
// otherwise: enough that users wait on the server, not on the pool.
const DefaultPoolSize = 200

// settings are the parsed Options (the package doc lists them).
type settings struct {
	pool int32
	// types are the field types that get an index (the fields option);
	// every field has its column whatever this says.
	types map[engines.FieldType]bool
	// exact names the text fields that get the exact-lookup index (the
	// exact option); nil is the default, decided by the schema (exactFields).
	exact []string
}

// fieldTypeNames are the values of the fields option: Valkey's.
var fieldTypeNames = map[string]engines.FieldType{"text": engines.Text, "tag": engines.Tag, "numeric": engines.Numeric, "vector": engines.Vector}

// checkConfig reads the write mode, an attached server's URL and the
// options, for CheckConfig, CheckSchema, CheckQuery and Open alike.
func checkConfig(cfg engines.Config) (settings, error) {
	// Writes are searchable on commit (see the package doc).
	if _, err := engines.CheckWriteMode("postgres", cfg.WriteMode, engines.Searchable); err != nil {
		return settings{}, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := parseURL(cfg.URL); err != nil {
			return settings{}, err
		}
	}
	all := map[engines.FieldType]bool{}
	for _, t := range fieldTypeNames {
		all[t] = true
	}
	opts := config.New("postgres", cfg.Options)
	s := settings{
		pool:  int32(opts.Int("pool", DefaultPoolSize, 1, 10_000)),
		types: config.Value(opts, "fields", all, parseFieldTypes),
		exact: config.Value(opts, "exact", nil, parseExact),
	}
	if err := opts.Err(); err != nil {
		return settings{}, err
	}
	return s, nil
}

// parseFieldTypes reads the fields option: field types, comma-separated,
// each once.
func parseFieldTypes(v string) (map[engines.FieldType]bool, error) {
	out := map[engines.FieldType]bool{}
	for _, name := range strings.Split(v, ",") {
		t, ok := fieldTypeNames[strings.TrimSpace(name)]
		if !ok || out[t] {
			return nil, errors.New("must list field types from text, tag, numeric and vector, each once, comma-separated")
		}
		out[t] = true
	}
	return out, nil
}

// parseExact reads the exact option: none, or text field names,
// comma-separated, each once (CheckSchema checks them against the schema).
func parseExact(v string) ([]string, error) {
	if strings.TrimSpace(v) == "none" {
		return []string{}, nil
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" || slices.Contains(out, name) {
			return nil, errors.New(`must be "none" or text field names, each once, comma-separated`)
		}
		out = append(out, name)
	}
	return out, nil
}

// parseURL reads a connection string into the pool's configuration.
func parseURL(raw string) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(raw)
	if err != nil {
		// The parse error may quote the URL, password and all.
		return nil, errors.New("postgres: the URL does not parse as a PostgreSQL connection string")
	}
	return pc, nil
}

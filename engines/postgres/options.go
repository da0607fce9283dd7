package postgres

import (
	"errors"
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
	opts := config.New("postgres", cfg.Options)
	s := settings{
		pool:  int32(opts.Int("pool", DefaultPoolSize, 1, 10_000)),
		types: config.Value(opts, "fields", config.AllFieldTypes(), config.FieldTypes),
		exact: config.Value(opts, "exact", nil, parseExact),
	}
	if err := opts.Err(); err != nil {
		return settings{}, err
	}
	return s, nil
}

// parseExact reads the exact option: none, or text field names,
// comma-separated, each once (CheckSchema checks them against the schema).
func parseExact(v string) ([]string, error) {
	if strings.TrimSpace(v) == "none" {
		return []string{}, nil
	}
	return config.Names(v, nil, `or "none"`)
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

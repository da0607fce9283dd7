package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultPoolSize is the connection pool's size unless Options["pool"] says
// otherwise: enough that users wait on the server, not on the pool.
const DefaultPoolSize = 200

// checkConfig returns the pool size: the one option, "pool".
func checkConfig(cfg engines.Config) (int32, error) {
	// Writes are searchable on commit (see the package doc).
	if _, err := engines.CheckWriteMode("postgres", cfg.WriteMode, engines.Searchable); err != nil {
		return 0, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := parseURL(cfg.URL); err != nil {
			return 0, err
		}
	}
	opts := config.New("postgres", cfg.Options)
	size := int32(opts.Int("pool", DefaultPoolSize, 1, 10_000))
	if err := opts.Err(); err != nil {
		return 0, err
	}
	return size, nil
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

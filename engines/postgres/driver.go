package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("postgres", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "PostgreSQL 15 full-text search: generated tsvector (english), GIN index, websearch_to_tsquery OR-ed words, ts_rank top-k",
		Visibility: engines.Searchable,
		Getter:     true,
	}
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, err := checkConfig(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): text
// fields only.
func (driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, _, _, _, err := plan(schema)
	return err
}

// maxMessage bounds a server message's length.
const maxMessage = 1 << 20

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	if cfg.URL == "" {
		return nil, errors.New("postgres: a URL is needed (postgres://user@host:port/db)")
	}
	poolSize, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	pc, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Username != "" {
		pc.ConnConfig.User = cfg.Username
	}
	if p := cfg.Password.Reveal(); p != "" {
		pc.ConnConfig.Password = p
	}
	pc.MaxConns = poolSize
	// Every reply the driver reads is a row of an ID, a count, a status or
	// one document's text (Get; a corpus document is under a kilobyte): a
	// message longer than this is a broken server, refused before pgx
	// allocates its length (by default up to 1 GiB each).
	pc.ConnConfig.MaxProtocolMessageBodyLen = maxMessage
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", quote.Redact(err, cfg.Secrets()...))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", quote.SafeURL(cfg.URL), quote.Redact(err, cfg.Secrets()...))
	}
	return &Engine{pool: pool}, nil
}

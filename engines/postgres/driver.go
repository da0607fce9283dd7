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
		Summary:    "PostgreSQL 15 full-text search (generated tsvector, GIN index, websearch_to_tsquery OR-ed words, ts_rank top-k), field lookups on a simple-config GIN index, and pgvector 0.8 kNN (HNSW of the schema's metric: cosine, L2 or inner product; iterative scans under filters; RRF hybrid); Study B index options fields and exact",
		Visibility: engines.Searchable,
		Getter:     true,
		Knob:       &Knob,
	}
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, err := checkConfig(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): a
// text field at least, at most one vector field of 1 to 2,000 dimensions
// and a metric pgvector indexes (all three of engines.Metric), and the
// exact option's fields among its text fields.
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	set, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	_, _, err = plan(schema, set)
	return err
}

// CheckQuery says before anything starts whether the table cfg's options
// make of schema can answer a query shaped like q (engines.QueryChecker):
// Search's own refusal — the table's layout, then searchSQL, which refuses
// before anything else — without a server. Only a refusal is returned; a
// value of the sample (a vector's dimension, an empty range) is the
// query's own error, left to Search.
func (driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	set, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	l, _, err := plan(schema, set)
	if err != nil {
		return err
	}
	if _, err := l.searchSQL(q); errors.Is(err, engines.ErrUnsupported) {
		return err
	}
	return nil
}

// maxMessage bounds a server message's length.
const maxMessage = 1 << 20

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	if cfg.URL == "" {
		return nil, errors.New("postgres: a URL is needed (postgres://user@host:port/db)")
	}
	set, err := checkConfig(cfg)
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
	pc.MaxConns = set.pool
	// Filtered kNN: HNSW filters after it scans, so a filter that keeps
	// one row in ten would leave about 4 of the 40 candidates
	// (hnsw.ef_search); iterative scans go on scanning until k rows match
	// (pgvector's README, v0.8.x, "Iterative Index Scans"). Relaxed order
	// is the README's better-recall choice; the kNN SQL sorts its rows
	// again (searchSQL). Set for the session at connection start: no
	// round trip per query, and a server without pgvector keeps it as an
	// unused placeholder, which changes nothing for full-text search.
	pc.ConnConfig.RuntimeParams["hnsw.iterative_scan"] = "relaxed_order"
	// Every reply the driver reads is a row of an ID, a count, a status or
	// one document (Get; a product with a 2,000-dimension vector in text
	// form is under 40 KB): a
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
	return &Engine{pool: pool, set: set}, nil
}

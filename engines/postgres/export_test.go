package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
)

// DDL is what Create would run for schema under cfg's options.
func DDL(cfg engines.Config, schema engines.Schema) ([]string, error) {
	set, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	_, ddl, err := plan(schema, set)
	return ddl, err
}

// SearchSQL is the statement and arguments Search would send for q.
func SearchSQL(cfg engines.Config, schema engines.Schema, q engines.Query) (string, []any, error) {
	set, err := checkConfig(cfg)
	if err != nil {
		return "", nil, err
	}
	l, _, err := plan(schema, set)
	if err != nil {
		return "", nil, err
	}
	s, err := l.searchSQL(q)
	return s.sql, s.args, err
}

// Unconnected is an Engine for cfg whose table is schema's, as after Create,
// on a pool that has not connected (pgxpool dials on first use): a search
// that gets past the driver's own checks fails to connect.
func Unconnected(cfg engines.Config, schema engines.Schema) (*Engine, error) {
	set, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	l, _, err := plan(schema, set)
	if err != nil {
		return nil, err
	}
	pc, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return nil, err
	}
	e := &Engine{pool: pool, set: set}
	e.use(l)
	return e, nil
}

// Setting is SHOW name on a connection of e's pool (with the pool option
// 1, the one its searches ran on).
func Setting(ctx context.Context, e engines.Engine, name string) (string, error) {
	c, err := e.(*Engine).pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer c.Release()
	var v string
	err = c.QueryRow(ctx, "SHOW "+name).Scan(&v)
	return v, err
}

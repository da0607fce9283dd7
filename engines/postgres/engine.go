package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
)

// Engine is one table in one database.
type Engine struct {
	pool *pgxpool.Pool

	mu     sync.RWMutex
	table  string   // quoted identifier
	fields []string // text fields, in schema order
	sql    statements
}

// statements are built once per Create.
type statements struct {
	upsert, delete, search, count, get string
}

func (e *Engine) statements() (statements, []string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.table == "" {
		return statements{}, nil, errors.New("postgres: no table: Create was not called")
	}
	return e.sql, e.fields, nil
}

var (
	_ engines.Engine       = (*Engine)(nil)
	_ engines.BulkUpserter = (*Engine)(nil)
	_ engines.Counter      = (*Engine)(nil)
	_ engines.Versioner    = (*Engine)(nil)
)

var _ engines.Getter = (*Engine)(nil)

// Create (re)creates the table, its generated tsvector and GIN index.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	table, fields, sql, ddl, err := plan(schema)
	if err != nil {
		return err
	}
	for _, q := range ddl {
		if _, err := e.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres: create %s: %w", schema.Name, classify(err))
		}
	}
	e.use(table, fields, sql)
	return nil
}

// Attach uses the table another process created: it must exist.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	table, fields, sql, _, err := plan(schema)
	if err != nil {
		return err
	}
	// to_regclass is NULL for a table that is not there (it does not
	// raise); its columns are pg_attribute's live, user ones.
	var exists bool
	var cols []string
	if err := e.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL,
		array(SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped)`,
		table).Scan(&exists, &cols); err != nil {
		return fmt.Errorf("postgres: attach to %s: %w", schema.Name, classify(err))
	}
	if !exists {
		return fmt.Errorf("postgres: attach: there is no table %s (shard 0 creates it)", schema.Name)
	}
	for _, f := range append([]string{"id", "tsv"}, fields...) {
		if !slices.Contains(cols, f) {
			return fmt.Errorf("postgres: attach: table %s has no column %s (its columns: %s)", schema.Name, f, strings.Join(cols, ", "))
		}
	}
	e.use(table, fields, sql)
	return nil
}

func (e *Engine) use(table string, fields []string, sql statements) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.table, e.fields, e.sql = table, fields, sql
}

// Upsert inserts or replaces a row.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	st, fields, err := e.statements()
	if err != nil {
		return err
	}
	if _, err := e.pool.Exec(ctx, st.upsert, args(doc, fields)...); err != nil {
		return fmt.Errorf("postgres: upsert %s: %w", doc.ID, classify(err))
	}
	return nil
}

// UpsertBatch sends every upsert in one pipelined batch and one transaction.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	st, fields, err := e.statements()
	if err != nil {
		return err
	}
	var b pgx.Batch
	for _, d := range docs {
		b.Queue(st.upsert, args(d, fields)...)
	}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: batch: %w", classify(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("postgres: batch of %d: %w", len(docs), classify(err))
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: batch commit: %w", classify(err))
	}
	return nil
}

// Delete removes a row; no row is engines.ErrNotFound.
func (e *Engine) Delete(ctx context.Context, id string) error {
	st, _, err := e.statements()
	if err != nil {
		return err
	}
	tag, err := e.pool.Exec(ctx, st.delete, id)
	if err != nil {
		return fmt.Errorf("postgres: delete %s: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: delete %s: %w", id, engines.ErrNotFound)
	}
	return nil
}

// Get reads the row by its primary key (an index scan of the table's
// primary key index): the text fields, in schema order. No row is
// engines.ErrNotFound.
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	st, fields, err := e.statements()
	if err != nil {
		return engines.Document{}, err
	}
	doc := engines.Document{ID: id, Fields: make([]engines.Field, len(fields))}
	dest := make([]any, len(fields))
	for i, f := range fields {
		doc.Fields[i].Name = f
		dest[i] = &doc.Fields[i].Text
	}
	err = e.pool.QueryRow(ctx, st.get, id).Scan(dest...)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return engines.Document{}, fmt.Errorf("postgres: get %s: %w", id, engines.ErrNotFound)
	case err != nil:
		return engines.Document{}, fmt.Errorf("postgres: get %s: %w", id, classify(err))
	}
	return doc, nil
}

// Search returns the top k rows by ts_rank. Total is not counted (-1): a
// count over every match would cost more than the search.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if err := q.TextOnly(); err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: %w", err)
	}
	st, _, err := e.statements()
	if err != nil {
		return engines.Hits{}, err
	}
	rows, err := e.pool.Query(ctx, st.search, OrQuery(q.Text), q.K)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
	}
	return engines.Hits{IDs: ids, Total: -1}, nil
}

// Count returns the number of rows.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	st, _, err := e.statements()
	if err != nil {
		return 0, err
	}
	var n int64
	if err := e.pool.QueryRow(ctx, st.count).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count: %w", classify(err))
	}
	return n, nil
}

// Version asks the server.
func (e *Engine) Version(ctx context.Context) (string, error) {
	var v string
	if err := e.pool.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", fmt.Errorf("postgres: version: %w", classify(err))
	}
	return "PostgreSQL " + v, nil
}

// Close closes the pool; the table stays.
func (e *Engine) Close() error {
	e.pool.Close()
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/searchbench/searchbench/engines"
)

// Engine is one table in one database.
type Engine struct {
	pool *pgxpool.Pool
	set  settings

	mu     sync.RWMutex
	layout *layout // nil until Create or Attach
}

// statements are built once per Create.
type statements struct {
	upsert, delete, search, count, get string
}

func (e *Engine) current() (*layout, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.layout == nil {
		return nil, errors.New("postgres: no table: Create was not called")
	}
	return e.layout, nil
}

var (
	_ engines.Engine       = (*Engine)(nil)
	_ engines.BulkUpserter = (*Engine)(nil)
	_ engines.Counter      = (*Engine)(nil)
	_ engines.Versioner    = (*Engine)(nil)
)

var _ engines.Getter = (*Engine)(nil)

// Create (re)creates the table, its generated tsvector and its indexes.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	l, ddl, err := plan(schema, e.set)
	if err != nil {
		return err
	}
	for _, q := range ddl {
		if _, err := e.pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres: create %s: %w", schema.Name, classify(err))
		}
	}
	e.use(l)
	return nil
}

// Attach uses the table another process created: it must exist.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	l, _, err := plan(schema, e.set)
	if err != nil {
		return err
	}
	// to_regclass is NULL for a table that is not there (it does not
	// raise); its columns are pg_attribute's live, user ones.
	// The HNSW indexes' operator classes too: an index of another
	// metric's class cannot answer the statements' operator, and every
	// search would scan the table (right answers, another engine's cost).
	var exists bool
	var cols, classes []string
	if err := e.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL,
		array(SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped),
		array(SELECT opc.opcname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
			JOIN pg_opclass opc ON opc.oid = i.indclass[0] WHERE i.indrelid = to_regclass($1) AND am.amname = 'hnsw')`,
		l.table).Scan(&exists, &cols, &classes); err != nil {
		return fmt.Errorf("postgres: attach to %s: %w", schema.Name, classify(err))
	}
	if !exists {
		return fmt.Errorf("postgres: attach: there is no table %s (shard 0 creates it)", schema.Name)
	}
	want := []string{"id"}
	if l.indexed[engines.Text] {
		want = append(want, "tsv")
	}
	for _, c := range l.cols {
		want = append(want, c.Name)
	}
	for _, f := range want {
		if !slices.Contains(cols, f) {
			return fmt.Errorf("postgres: attach: table %s has no column %s (its columns: %s)", schema.Name, f, strings.Join(cols, ", "))
		}
	}
	if l.vector != nil && l.indexed[engines.Vector] {
		if want := vectorOps[l.vector.Metric].opclass; !slices.Contains(classes, want) {
			return fmt.Errorf("postgres: attach: table %s has no HNSW index of %s for the %s metric (its HNSW indexes' classes: %s)",
				schema.Name, want, l.vector.Metric, strings.Join(classes, ", "))
		}
	}
	e.use(l)
	return nil
}

func (e *Engine) use(l *layout) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.layout = l
}

// Upsert inserts or replaces a row.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	l, err := e.current()
	if err != nil {
		return err
	}
	a, err := l.args(doc)
	if err != nil {
		return err
	}
	if _, err := e.pool.Exec(ctx, l.sql.upsert, a...); err != nil {
		return fmt.Errorf("postgres: upsert %s: %w", doc.ID, classify(err))
	}
	return nil
}

// UpsertBatch sends every upsert in one pipelined batch and one transaction.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	l, err := e.current()
	if err != nil {
		return err
	}
	var b pgx.Batch
	for _, d := range docs {
		a, err := l.args(d)
		if err != nil {
			return err
		}
		b.Queue(l.sql.upsert, a...)
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
	l, err := e.current()
	if err != nil {
		return err
	}
	tag, err := e.pool.Exec(ctx, l.sql.delete, id)
	if err != nil {
		return fmt.Errorf("postgres: delete %s: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: delete %s: %w", id, engines.ErrNotFound)
	}
	return nil
}

// Get reads the row by its primary key (an index scan of the table's
// primary key index): every field, in schema order — text and tag as
// Text, numeric as Number, vector as Vector (a NULL one left unset). No row
// is engines.ErrNotFound.
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	l, err := e.current()
	if err != nil {
		return engines.Document{}, err
	}
	doc := engines.Document{ID: id, Fields: make([]engines.Field, len(l.cols))}
	dest := make([]any, len(l.cols))
	numbers := make([]*float64, len(l.cols))
	vectors := make([]*string, len(l.cols))
	for i, c := range l.cols {
		doc.Fields[i].Name = c.Name
		switch c.Type {
		case engines.Numeric:
			dest[i] = &numbers[i]
		case engines.Vector:
			dest[i] = &vectors[i]
		default:
			dest[i] = &doc.Fields[i].Text
		}
	}
	err = e.pool.QueryRow(ctx, l.sql.get, id).Scan(dest...)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return engines.Document{}, fmt.Errorf("postgres: get %s: %w", id, engines.ErrNotFound)
	case err != nil:
		return engines.Document{}, fmt.Errorf("postgres: get %s: %w", id, classify(err))
	}
	for i := range l.cols {
		if numbers[i] != nil {
			doc.Fields[i].Number = *numbers[i]
		}
		if vectors[i] != nil {
			if doc.Fields[i].Vector, err = ParseVector(*vectors[i]); err != nil {
				return engines.Document{}, fmt.Errorf("postgres: get %s: field %s: %w", id, l.cols[i].Name, err)
			}
		}
	}
	return doc, nil
}

// Search returns the top k rows of the query's kind (searchSQL; the
// package doc has each kind's SQL). Total is not counted (-1): a count over
// every match would cost more than the search.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	l, err := e.current()
	if err != nil {
		return engines.Hits{}, err
	}
	s, err := l.searchSQL(q)
	if errors.Is(err, errNoWords) {
		return engines.Hits{Total: 0}, nil
	}
	if err != nil {
		if errors.Is(err, engines.ErrUnsupported) {
			return engines.Hits{}, fmt.Errorf("postgres: %w", err)
		}
		return engines.Hits{}, err
	}
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
	}
	defer c.Release()
	if q.Vector != nil {
		if err := setEfSearch(ctx, c.Conn(), q.Knob); err != nil {
			return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
		}
	}
	rows, err := c.Query(ctx, s.sql, s.args...)
	if err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return engines.Hits{}, fmt.Errorf("postgres: search: %w", classify(err))
	}
	return engines.Hits{IDs: ids, Total: -1}, nil
}

// Knob is pgvector's hnsw.ef_search: the size of the candidate list an
// HNSW scan keeps (src/hnsw.c and src/hnsw.h of pgvector 0.8.6:
// HNSW_DEFAULT_EF_SEARCH 40, HNSW_MIN_EF_SEARCH 1, HNSW_MAX_EF_SEARCH 1000).
var Knob = engines.Knob{
	Name: "hnsw.ef_search", Min: 1, Max: 1000, Default: "40",
	Trades: "a longer candidate list finds more of the true nearest neighbours and visits more of the graph per search",
	Source: "pgvector 0.8.6 src/hnsw.c (DefineCustomIntVariable \"hnsw.ef_search\"), src/hnsw.h",
}

// efSearchKey keeps, in a connection's CustomData, the hnsw.ef_search the
// connection was last set to (0: the server's default, as a new
// connection has it; -1: unknown after a failed SET).
const efSearchKey = "searchbench.ef_search"

// setEfSearch gives conn the knob's value v (0: the default). It is a
// session setting, so a connection keeps it and is sent SET only when a
// search asks for another value: a sweep's point costs one round trip per
// pooled connection, not one per search. Text searches leave it alone.
func setEfSearch(ctx context.Context, conn *pgx.Conn, v int) error {
	data := conn.PgConn().CustomData()
	if cur, ok := data[efSearchKey].(int); ok && cur == v || !ok && v == 0 {
		return nil
	}
	sql := "RESET hnsw.ef_search"
	if v != 0 {
		sql = "SET hnsw.ef_search = " + strconv.Itoa(v)
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		data[efSearchKey] = -1
		return err
	}
	data[efSearchKey] = v
	return nil
}

// Count returns the number of rows.
func (e *Engine) Count(ctx context.Context) (int64, error) {
	l, err := e.current()
	if err != nil {
		return 0, err
	}
	var n int64
	if err := e.pool.QueryRow(ctx, l.sql.count).Scan(&n); err != nil {
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

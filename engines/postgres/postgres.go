package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/searchbench/searchbench/engines/config"

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

// maxMessage bounds a server message's length.
const maxMessage = 1 << 20

// DefaultPoolSize is the connection pool's size unless Options["pool"] says
// otherwise: enough that users wait on the server, not on the pool.
const DefaultPoolSize = 200

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

// checkConfig returns the pool size: the one option, "pool".
func checkConfig(cfg engines.Config) (int32, error) {
	// Writes are searchable on commit (see the package doc).
	if _, err := engines.CheckWriteMode("postgres", cfg.WriteMode, engines.Searchable); err != nil {
		return 0, err
	}
	if cfg.URL != "" {
		if _, err := pgxpool.ParseConfig(cfg.URL); err != nil {
			// The parse error may quote the URL, password and all.
			return 0, errors.New("postgres: the URL does not parse as a PostgreSQL connection string")
		}
	}
	opts := config.New("postgres", cfg.Options)
	size := int32(opts.Int("pool", DefaultPoolSize, 1, 10_000))
	if err := opts.Err(); err != nil {
		return 0, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := parseURL(cfg.URL); err != nil {
			return 0, err
		}
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

var (
	_ engines.Engine       = (*Engine)(nil)
	_ engines.BulkUpserter = (*Engine)(nil)
	_ engines.Counter      = (*Engine)(nil)
	_ engines.Versioner    = (*Engine)(nil)
)

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

// plan is the table of a schema: its name, fields, statements and DDL.
func plan(schema engines.Schema) (table string, fields []string, sql statements, ddl []string, err error) {
	if schema.Name == "" {
		return "", nil, statements{}, nil, errors.New("postgres: schema has no name")
	}
	for _, f := range schema.Fields {
		if f.Type != engines.Text {
			return "", nil, statements{}, nil, fmt.Errorf("postgres: field %s: type %s is not supported (text only)", f.Name, f.Type)
		}
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return "", nil, statements{}, nil, errors.New("postgres: schema has no text field")
	}
	table = pgx.Identifier{schema.Name}.Sanitize()
	cols, vectors, params, sets := make([]string, len(fields)), make([]string, len(fields)), make([]string, len(fields)), make([]string, len(fields))
	for i, f := range fields {
		col := pgx.Identifier{f}.Sanitize()
		cols[i] = col + " text NOT NULL"
		vectors[i] = fmt.Sprintf("to_tsvector('english', %s)", col)
		params[i] = "$" + strconv.Itoa(i+2)
		sets[i] = col + " = EXCLUDED." + col
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = pgx.Identifier{f}.Sanitize()
	}
	ddl = []string{
		"DROP TABLE IF EXISTS " + table,
		fmt.Sprintf("CREATE TABLE %s (id text PRIMARY KEY, %s, tsv tsvector GENERATED ALWAYS AS (%s) STORED)",
			table, strings.Join(cols, ", "), strings.Join(vectors, " || ")),
		fmt.Sprintf("CREATE INDEX ON %s USING GIN (tsv)", table),
	}
	sql = statements{
		upsert: fmt.Sprintf("INSERT INTO %s (id, %s) VALUES ($1, %s) ON CONFLICT (id) DO UPDATE SET %s",
			table, strings.Join(names, ", "), strings.Join(params, ", "), strings.Join(sets, ", ")),
		delete: fmt.Sprintf("DELETE FROM %s WHERE id = $1", table),
		search: fmt.Sprintf("SELECT id FROM %s, websearch_to_tsquery('english', $1) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC LIMIT $2", table),
		count:  "SELECT count(*) FROM " + table,
		get:    fmt.Sprintf("SELECT %s FROM %s WHERE id = $1", strings.Join(names, ", "), table),
	}
	return table, fields, sql, ddl, nil
}

func (e *Engine) statements() (statements, []string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.table == "" {
		return statements{}, nil, errors.New("postgres: no table: Create was not called")
	}
	return e.sql, e.fields, nil
}

func args(doc engines.Document, fields []string) []any {
	a := make([]any, 1+len(fields))
	a[0] = doc.ID
	for i, f := range fields {
		a[i+1] = doc.Text(f)
	}
	return a
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

var _ engines.Getter = (*Engine)(nil)

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

// OrQuery turns free text into websearch_to_tsquery input that ORs its
// words: letters and digits are kept, everything else separates words.
func OrQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(words, " or ")
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

// classify maps server errors onto the runner's classes.
func classify(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "53300", "53200", "53100", "55P03": // too many connections, out of memory, disk full, lock not available
			return fmt.Errorf("%w: %s (SQLSTATE %s)", engines.ErrOverloaded, pg.Message, pg.Code)
		case "57014": // query_canceled (statement timeout)
			return fmt.Errorf("%w: %s (SQLSTATE %s)", engines.ErrTimeout, pg.Message, pg.Code)
		}
	}
	return err
}

package postgres

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/searchbench/searchbench/engines"
)

// maxHNSWDim is the most dimensions an HNSW index on a vector column takes
// (pgvector's README, "HNSW": vector — up to 2,000 dimensions).
const maxHNSWDim = 2000

// vectorOps are each metric's pgvector operator class, which the HNSW
// index is built with, and distance operator, which every statement that
// ranks by the vector orders by: an index answers ORDER BY only on the
// operator of its own class (pgvector 0.8.6, sql/vector.sql: CREATE
// OPERATOR CLASS vector_l2_ops / vector_ip_ops / vector_cosine_ops … USING
// hnsw, OPERATOR 1 <-> / <#> / <=>). Each is a distance, nearest first in
// ascending order (src/vector.c): <-> is l2_distance (the root of the
// squared sum), <=> cosine_distance (1 − cos), and <#>
// vector_negative_inner_product (−a·b): "<#> returns the negative inner
// product since Postgres only supports ASC order index scans on
// operators" (README, "Getting Started"), so ascending it is the largest
// inner product first, on vectors of any length, as engines.Dot asks.
var vectorOps = map[engines.Metric]struct{ opclass, operator string }{
	engines.Cosine: {"vector_cosine_ops", "<=>"},
	engines.L2:     {"vector_l2_ops", "<->"},
	engines.Dot:    {"vector_ip_ops", "<#>"},
}

// rrfK is reciprocal rank fusion's constant: a hit at rank r in a ranking
// scores 1/(rrfK + r), the value of Cormack et al.'s paper.
const rrfK = 60

// column is one schema field's column.
type column struct {
	engines.FieldSpec
	ident string // quoted identifier
}

// layout is the table of a schema: its columns, which of them are indexed,
// and the statements that do not vary with a query.
type layout struct {
	name   string // the schema's name
	table  string // quoted identifier
	cols   []column
	byName map[string]column
	text   []string // the Text fields' names, which feed tsv
	vector *column  // the Vector field, or nil
	// indexed are the field types with an index (the fields option): a
	// Text one is the generated tsv and its GIN index.
	indexed map[engines.FieldType]bool
	// exact are the Text fields with the exact-lookup index (the exact
	// option, exactExpr).
	exact map[string]bool
	sql   statements
}

// plan is the table of a schema with the indexes set asks for, and the
// DDL that makes it.
func plan(schema engines.Schema, set settings) (*layout, []string, error) {
	if schema.Name == "" {
		return nil, nil, engines.RefuseSchema("postgres", "schema has no name")
	}
	l := &layout{name: schema.Name, table: pgx.Identifier{schema.Name}.Sanitize(), byName: map[string]column{}, indexed: set.types, exact: map[string]bool{}}
	vectors := 0
	for _, f := range schema.Fields {
		c := column{FieldSpec: f, ident: pgx.Identifier{f.Name}.Sanitize()}
		switch f.Type {
		case engines.Text:
			l.text = append(l.text, f.Name)
		case engines.Tag, engines.Numeric:
		case engines.Vector:
			if vectors++; vectors > 1 {
				return nil, nil, engines.RefuseSchema("postgres", "field %s: a second vector field (a query names no field for its vector)", f.Name)
			}
			if f.Dim < 1 || f.Dim > maxHNSWDim {
				return nil, nil, engines.RefuseSchema("postgres", "field %s: %d dimensions (an HNSW index takes 1 to %d)", f.Name, f.Dim, maxHNSWDim)
			}
			if _, ok := vectorOps[f.Metric]; !ok {
				return nil, nil, engines.RefuseSchema("postgres", "field %s: metric %s is not one the driver indexes (cosine, l2, dot)", f.Name, f.Metric)
			}
		default:
			return nil, nil, engines.RefuseSchema("postgres", "field %s: type %s is not supported", f.Name, f.Type)
		}
		if _, dup := l.byName[f.Name]; dup || f.Name == "id" || f.Name == "tsv" {
			return nil, nil, engines.RefuseSchema("postgres", "field %s: the name is taken", f.Name)
		}
		l.cols = append(l.cols, c)
		l.byName[f.Name] = c
	}
	if len(l.text) == 0 {
		return nil, nil, errors.New("postgres: schema has no text field")
	}
	exact := set.exact
	if exact == nil && l.indexed[engines.Text] && len(l.text) < len(l.cols) {
		// The default: a schema with fields beside its text ones is a
		// catalogue, whose text fields are looked up (a SKU, a title's
		// word); a text-only one is a corpus searched by its words.
		exact = l.text
	}
	for _, name := range exact {
		if c, ok := l.byName[name]; !ok || c.Type != engines.Text {
			return nil, nil, engines.RefuseSchema("postgres", "option exact names %q, which is not a text field of schema %s", name, schema.Name)
		}
		l.exact[name] = true
	}
	// l.vector points into l.cols, which grows no more.
	for i := range l.cols {
		if l.cols[i].Type == engines.Vector {
			l.vector = &l.cols[i]
		}
	}
	l.sql = l.statements()
	return l, l.ddl(), nil
}

// ddl drops and makes the table: a column per field (text and tag: text;
// numeric: double precision; vector: vector(dim)) and, for the field types
// the fields option names, their indexes — text: the generated tsvector of
// the text fields with its GIN index; tag and numeric: a btree index per
// field; vector: an HNSW index of the field's metric (vectorOps) — then the exact-lookup
// index of each field the exact option names.
func (l *layout) ddl() []string {
	var cols, vectors, after []string
	for _, c := range l.cols {
		switch c.Type {
		case engines.Text:
			cols = append(cols, c.ident+" text NOT NULL")
			vectors = append(vectors, fmt.Sprintf("to_tsvector('english', %s)", c.ident))
		case engines.Tag, engines.Numeric:
			typ := "text NOT NULL"
			if c.Type == engines.Numeric {
				typ = "double precision"
			}
			cols = append(cols, c.ident+" "+typ)
			if l.indexed[c.Type] {
				after = append(after, fmt.Sprintf("CREATE INDEX ON %s (%s)", l.table, c.ident))
			}
		case engines.Vector:
			cols = append(cols, fmt.Sprintf("%s vector(%d)", c.ident, c.Dim))
			// pgvector's defaults, m = 16 and ef_construction = 64 (see
			// the package doc).
			if l.indexed[engines.Vector] {
				after = append(after, fmt.Sprintf("CREATE INDEX ON %s USING hnsw (%s %s)", l.table, c.ident, vectorOps[c.Metric].opclass))
			}
		}
	}
	for _, c := range l.cols {
		if l.exact[c.Name] {
			after = append(after, fmt.Sprintf("CREATE INDEX %s ON %s USING GIN (%s)", pgx.Identifier{ExactIndex(l.name, c.Name)}.Sanitize(), l.table, exactExpr(c.ident)))
		}
	}
	var ddl []string
	if l.vector != nil {
		ddl = append(ddl, "CREATE EXTENSION IF NOT EXISTS vector")
	}
	// The tsvector is a stored generated column: computed on every write,
	// so it is made only when full-text search is indexed.
	tsv := ""
	if l.indexed[engines.Text] {
		tsv = fmt.Sprintf(", tsv tsvector GENERATED ALWAYS AS (%s) STORED", strings.Join(vectors, " || "))
	}
	ddl = append(ddl, "DROP TABLE IF EXISTS "+l.table)
	if l.vector == nil {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (id text PRIMARY KEY, %s%s)", l.table, strings.Join(cols, ", "), tsv))
	} else {
		// Vectors in the row, not in TOAST (inlineVectors).
		ddl = append(ddl,
			fmt.Sprintf("CREATE TABLE %s (id text PRIMARY KEY, %s%s) WITH (toast_tuple_target = %d)", l.table, strings.Join(cols, ", "), tsv, toastTupleTargetMax),
			fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET STORAGE MAIN", l.table, l.vector.ident))
	}
	if l.indexed[engines.Text] {
		ddl = append(ddl, fmt.Sprintf("CREATE INDEX ON %s USING GIN (tsv)", l.table))
	}
	return append(ddl, after...)
}

// toastTupleTargetMax is the largest toast_tuple_target PostgreSQL 15
// takes, TOAST_TUPLE_TARGET_MAIN (src/include/access/heaptoast.h: the
// largest tuple that fits on an 8 KB page alone, 8160 bytes;
// src/backend/access/common/reloptions.c bounds the option by it).
const toastTupleTargetMax = 8160

// inlineVectors: a table with a vector column keeps each row's vector in
// the row itself, not in the table's TOAST relation, so that the planner
// sees what a sequential scan of the vectors costs. pgvector's type is
// STORAGE = external (sql/vector.sql, v0.8.6), and PostgreSQL moves a
// row's external values out of line whenever the row is over
// toast_tuple_target (2,032 bytes by default): a 1,024-dimension vector is
// 4,104 bytes (4 × dim + 8), so out of line it goes, and the heap keeps an
// 18-byte pointer. A sequential scan is priced at the heap's pages, not at
// the TOAST fetches of every vector it compares (pgvector's README, v0.8.6:
// "The planner doesn't consider out-of-line storage in cost estimates"),
// and pgvector's HNSW cost (src/hnsw.c, hnswcostestimate) makes up for it
// only once the index pages its scan would read pass the heap's pages. In
// between, as hnsw.ef_search grows, the planner takes a scan and sort of
// every vector (recall 1.000 at hundreds of ms) over the index — and flips
// back and forth as writes and autovacuum's ANALYZE change the table's size
// and each connection plans its prepared statement again. Kept in the row
// (the README's remedy, "store vectors inline"), the heap holds the
// vectors' pages and the scan is priced at what it reads.
//
// Two settings keep it there. toast_tuple_target at its largest (a
// storage parameter of the table) leaves a row that fits on a page whole:
// with the default target, a row held over 2,032 bytes by an inline vector
// would have its other long values (text, tsv) moved out instead
// (src/backend/access/heap/heaptoast.c, heap_toast_insert_or_update,
// PostgreSQL 15). STORAGE MAIN, not PLAIN, on the vector column: a row too
// big for a page (2,000 dimensions and long text) moves its text out first
// and the vector only as the last resort, where PLAIN would refuse the row
// ("row is too big"). A table without a vector column is made as it always
// was.

// ExactIndex is the name Create gives a field's exact-lookup index, so that
// EXPLAIN and pg_indexes say which it is (PostgreSQL's own name for an
// expression index would be <table>_to_tsvector_idx<n>; a name past 63
// bytes is cut).
func ExactIndex(schema, field string) string { return schema + "_" + field + "_exact" }

// exactExpr is the exact-lookup index's expression on a text column, and
// the lookup's left side (the planner uses an expression index only for the
// same expression): the column's words of letters and digits — every other
// character a space — as a tsvector of the simple configuration, which
// lowercases and keeps every word (no stop words, no stemming), so "it" of
// SKU IT-500 stays. Cutting the words first, as the lookup's text is cut
// (lookupWords), keeps the text-search parser from reading "IT-500" as "it"
// and "-500" (a signed number), so a lookup of "500" finds it, as Valkey's
// does.
func exactExpr(ident string) string {
	return fmt.Sprintf("to_tsvector('simple', regexp_replace(%s, '[^[:alnum:]]+', ' ', 'g'))", ident)
}

// statements builds the statements that every query of a kind shares.
func (l *layout) statements() statements {
	names, params, sets, gets := make([]string, len(l.cols)), make([]string, len(l.cols)), make([]string, len(l.cols)), make([]string, len(l.cols))
	for i, c := range l.cols {
		names[i] = c.ident
		params[i] = "$" + strconv.Itoa(i+2)
		sets[i] = c.ident + " = EXCLUDED." + c.ident
		gets[i] = c.ident
		if c.Type == engines.Vector {
			// Read in pgvector's text form, '[x,y,…]' (parseVector).
			gets[i] = c.ident + "::text"
		}
	}
	return statements{
		upsert: fmt.Sprintf("INSERT INTO %s (id, %s) VALUES ($1, %s) ON CONFLICT (id) DO UPDATE SET %s",
			l.table, strings.Join(names, ", "), strings.Join(params, ", "), strings.Join(sets, ", ")),
		delete: fmt.Sprintf("DELETE FROM %s WHERE id = $1", l.table),
		search: fmt.Sprintf("SELECT id FROM %s, websearch_to_tsquery('english', $1) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC LIMIT $2", l.table),
		count:  "SELECT count(*) FROM " + l.table,
		get:    fmt.Sprintf("SELECT %s FROM %s WHERE id = $1", strings.Join(gets, ", "), l.table),
	}
}

// args are the upsert's arguments: the ID, then a value per column. A
// field the document lacks is ” (text, tag) or NULL (numeric, vector).
func (l *layout) args(doc engines.Document) ([]any, error) {
	a := make([]any, 1+len(l.cols))
	a[0] = doc.ID
	for i, c := range l.cols {
		f, ok := field(doc, c.Name)
		switch c.Type {
		case engines.Numeric:
			if ok {
				a[i+1] = f.Number
			}
		case engines.Vector:
			if !ok || f.Vector == nil {
				continue
			}
			if len(f.Vector) != c.Dim {
				return nil, fmt.Errorf("postgres: document %s: vector field %s has %d dimensions, the schema %d", doc.ID, c.Name, len(f.Vector), c.Dim)
			}
			a[i+1] = VectorText(f.Vector)
		default:
			a[i+1] = f.Text
		}
	}
	return a, nil
}

func field(doc engines.Document, name string) (engines.Field, bool) {
	for _, f := range doc.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return engines.Field{}, false
}

// VectorText is pgvector's text form of a vector, '[x,y,…]': the driver
// sends vectors as text parameters, which the server casts to vector.
func VectorText(v []float32) string {
	b := make([]byte, 0, 2+len(v)*10)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}

// ParseVector reads pgvector's text form back.
func ParseVector(s string) ([]float32, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("postgres: %.40q is not a vector", s)
	}
	if s = s[1 : len(s)-1]; s == "" {
		return []float32{}, nil
	}
	parts := strings.Split(s, ",")
	v := make([]float32, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
		if err != nil {
			return nil, fmt.Errorf("postgres: vector element %d %.40q: %w", i, p, err)
		}
		v[i] = float32(x)
	}
	return v, nil
}

// OrQuery turns free text into websearch_to_tsquery input that ORs its
// words: letters and digits are kept, everything else separates words.
func OrQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(words, " or ")
}

// query is one search's SQL and its arguments.
type query struct {
	sql  string
	args []any
}

// param adds an argument and returns its placeholder.
func (q *query) param(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// kLimit: a vector search's k is written into its statement as a
// number, not bound as a parameter. The driver's statements are prepared
// (pgx caches them per connection), and after five runs PostgreSQL may
// keep one generic plan for the statement (src/backend/utils/cache/
// plancache.c, choose_custom_plan), planned without the parameters' values:
// with a bound LIMIT it guesses a tenth of the table, which pgvector's HNSW
// cost estimate (src/hnsw.c, hnswcostestimate) prices far above a
// sequential scan and a sort — an exact, slow answer in place of the
// index's. With k in the text every plan knows the LIMIT; the few values
// of k make few statements.

// searchSQL is the SQL of a search:
//   - Text alone: the full-text search, ts_rank top k (with Filters as
//     WHERE clauses);
//   - Field: an exact match in that column — the value of a tag, the
//     words as a phrase in a text field, on its exact-lookup index — (Filters
//     too), by id, or by distance when Vector is set;
//   - Vector: the k nearest by the vector field's metric (its distance
//     operator, vectorOps) among the rows that match Filters;
//   - Text and Vector: both rankings fused (hybridSQL);
//   - Filters alone: the matching rows by id.
//
// What the table's indexes cannot answer is refused first (refuse), so
// that CheckQuery, which asks searchSQL, finds it whatever the sample's
// values.
func (l *layout) searchSQL(q engines.Query) (query, error) {
	if err := l.refuse(q); err != nil {
		return query{}, err
	}
	if q.Vector == nil && q.Field == "" && len(q.Filters) == 0 {
		return query{sql: l.sql.search, args: []any{OrQuery(q.Text), q.K}}, nil
	}
	var s query
	where, err := l.where(&s, q)
	if err != nil {
		return query{}, err
	}
	if q.Vector != nil && len(q.Vector) != l.vector.Dim {
		return query{}, fmt.Errorf("postgres: query vector has %d dimensions, field %s %d", len(q.Vector), l.vector.Name, l.vector.Dim)
	}
	switch {
	case q.Vector != nil && q.Field == "" && q.Text != "":
		s.sql = l.hybridSQL(&s, q, where)
	case q.Vector != nil:
		// Relaxed order (see Open) may return the nearest slightly out
		// of order: the materialized CTE sorts them again, as pgvector's
		// README (v0.8.x, "Iterative Index Scans") shows.
		// k is written into the statement, not bound (kLimit).
		s.sql = fmt.Sprintf("WITH nearest AS MATERIALIZED (SELECT id, %s %s %s AS distance FROM %s%s ORDER BY distance LIMIT %d) SELECT id FROM nearest ORDER BY distance, id",
			l.vector.ident, vectorOps[l.vector.Metric].operator, s.param(VectorText(q.Vector))+"::vector", l.table, whereClause(where), q.K)
	case q.Field != "" || q.Text == "":
		s.sql = fmt.Sprintf("SELECT id FROM %s%s ORDER BY id LIMIT %s", l.table, whereClause(where), s.param(q.K))
	default:
		text := s.param(OrQuery(q.Text))
		s.sql = fmt.Sprintf("SELECT id FROM %s, websearch_to_tsquery('english', %s) q WHERE tsv @@ q%s ORDER BY ts_rank(tsv, q) DESC LIMIT %s",
			l.table, text, andClauses(where), s.param(q.K))
	}
	return s, nil
}

// refuse is the shape check of a query on this table: an error wrapping
// engines.ErrUnsupported, without the driver's name, for a member that
// names a field the table lacks or cannot use that way, or that needs an
// index the options left out (fields, exact); nil otherwise. Search
// (through searchSQL) and CheckQuery make it, and nothing else does.
func (l *layout) refuse(q engines.Query) error {
	shape := q.Shape()
	freeText := q.Field == "" && (q.Text != "" || q.Vector == nil && len(q.Filters) == 0)
	if freeText && !l.indexed[engines.Text] {
		return fmt.Errorf("%s search: full-text search has no index (the fields option leaves out text): %w", shape, engines.ErrUnsupported)
	}
	if q.Vector != nil {
		switch {
		case l.vector == nil:
			return fmt.Errorf("%s search: the schema has no vector field: %w", shape, engines.ErrUnsupported)
		case !l.indexed[engines.Vector]:
			return fmt.Errorf("%s search: vector field %q has no index (the fields option leaves out vector): %w", shape, l.vector.Name, engines.ErrUnsupported)
		}
	}
	for _, f := range q.Filters {
		c, ok := l.byName[f.Field]
		switch {
		case !ok:
			return fmt.Errorf("filter on %q: the table has no such field: %w", f.Field, engines.ErrUnsupported)
		case c.Type != engines.Tag && c.Type != engines.Numeric:
			return fmt.Errorf("filter on %s field %q: %w", c.Type, f.Field, engines.ErrUnsupported)
		case !l.indexed[c.Type]:
			return fmt.Errorf("filter on %s field %q: it has no index (the fields option leaves out %s): %w", c.Type, f.Field, c.Type, engines.ErrUnsupported)
		}
	}
	if q.Field != "" {
		c, ok := l.byName[q.Field]
		switch {
		case !ok:
			return fmt.Errorf("search in field %q: the table has no such field: %w", q.Field, engines.ErrUnsupported)
		case c.Type == engines.Tag && !l.indexed[engines.Tag]:
			return fmt.Errorf("lookup in tag field %q: it has no index (the fields option leaves out tag): %w", q.Field, engines.ErrUnsupported)
		case c.Type == engines.Text && !l.exact[q.Field]:
			return fmt.Errorf("lookup in text field %q: it has no exact-lookup index (the exact option): %w", q.Field, engines.ErrUnsupported)
		case c.Type != engines.Text && c.Type != engines.Tag:
			return fmt.Errorf("search in %s field %q: %w", c.Type, q.Field, engines.ErrUnsupported)
		}
	}
	return nil
}

// hybridSQL fuses the full-text ranking and the vector ranking, each the
// top k among the rows that match Filters, by reciprocal rank fusion: a
// row scores 1/(60 + its rank) in each ranking it is in, summed; ties by id.
// k is written into the statement, not bound (kLimit).
func (l *layout) hybridSQL(s *query, q engines.Query, where []string) string {
	text, vec, k := s.param(OrQuery(q.Text)), s.param(VectorText(q.Vector))+"::vector", strconv.Itoa(q.K)
	return fmt.Sprintf(`WITH fts AS (SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r FROM
(SELECT id, ts_rank(tsv, q) AS rank FROM %[1]s, websearch_to_tsquery('english', %[2]s) q WHERE tsv @@ q%[3]s ORDER BY rank DESC LIMIT %[4]s) f),
knn AS (SELECT id, row_number() OVER (ORDER BY distance, id) AS r FROM
(SELECT id, %[5]s %[9]s %[6]s AS distance FROM %[1]s%[7]s ORDER BY distance LIMIT %[4]s) v)
SELECT id FROM fts FULL JOIN knn USING (id)
ORDER BY coalesce(1.0 / (%[8]d + fts.r), 0) + coalesce(1.0 / (%[8]d + knn.r), 0) DESC, id LIMIT %[4]s`,
		l.table, text, andClauses(where), k, l.vector.ident, vec, whereClause(where), rrfK, vectorOps[l.vector.Metric].operator)
}

// where is the conditions of q's Filters and Field lookup (refuse has
// passed them): tag equality, numeric BETWEEN, and the lookup — a tag's
// value, or the words as a phrase on the text field's exact-lookup index.
func (l *layout) where(s *query, q engines.Query) ([]string, error) {
	var out []string
	for _, f := range q.Filters {
		c := l.byName[f.Field]
		if c.Type == engines.Tag {
			out = append(out, c.ident+" = "+s.param(f.Tag))
			continue
		}
		if math.IsNaN(f.Min) || math.IsNaN(f.Max) || f.Min > f.Max {
			return nil, fmt.Errorf("postgres: filter on %q: range [%v, %v] is empty", f.Field, f.Min, f.Max)
		}
		out = append(out, fmt.Sprintf("%s BETWEEN %s AND %s", c.ident, s.param(f.Min), s.param(f.Max)))
	}
	if q.Field != "" {
		c := l.byName[q.Field]
		if c.Type == engines.Tag {
			out = append(out, c.ident+" = "+s.param(q.Text))
			return out, nil
		}
		words := lookupWords(q.Text)
		if words == "" {
			return nil, errNoWords
		}
		// The words as a phrase in that column, as Valkey's @f:"w1 w2":
		// "IT-500" finds the product whose sku reads IT-500 and not one
		// whose sku is IT-5000, and a title's marker word finds its
		// product. Both sides are cut into words of letters and digits
		// the same way (exactExpr), so the text-search parser sees only
		// words between spaces; the simple configuration keeps "it".
		out = append(out, fmt.Sprintf("%s @@ phraseto_tsquery('simple', %s)", exactExpr(c.ident), s.param(words)))
	}
	return out, nil
}

// errNoWords is a lookup of text without a letter or digit: nothing
// matches it.
var errNoWords = errors.New("postgres: the lookup has no word")

// lookupWords is text's words of letters and digits, space-separated.
func lookupWords(text string) string {
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

func andClauses(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(conds, " AND ")
}

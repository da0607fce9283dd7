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

// rrfK is reciprocal rank fusion's constant: a hit at rank r in a ranking
// scores 1/(rrfK + r), the value of Cormack et al.'s paper.
const rrfK = 60

// column is one schema field's column.
type column struct {
	engines.FieldSpec
	ident string // quoted identifier
}

// layout is the table of a schema: its columns and the statements that do
// not vary with a query.
type layout struct {
	table  string // quoted identifier
	cols   []column
	byName map[string]column
	text   []string // the Text fields' names, which feed tsv
	vector *column  // the Vector field, or nil
	sql    statements
}

// plan is the table of a schema, and the DDL that makes it.
func plan(schema engines.Schema) (*layout, []string, error) {
	if schema.Name == "" {
		return nil, nil, engines.RefuseSchema("postgres", "schema has no name")
	}
	l := &layout{table: pgx.Identifier{schema.Name}.Sanitize(), byName: map[string]column{}}
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
// numeric: double precision; vector: vector(dim)), the generated tsvector
// of the text fields with its GIN index, a btree index per tag and numeric
// field and an HNSW index (cosine distance) on the vector field.
func (l *layout) ddl() []string {
	var cols, vectors, after []string
	for _, c := range l.cols {
		switch c.Type {
		case engines.Text:
			cols = append(cols, c.ident+" text NOT NULL")
			vectors = append(vectors, fmt.Sprintf("to_tsvector('english', %s)", c.ident))
		case engines.Tag:
			cols = append(cols, c.ident+" text NOT NULL")
			after = append(after, fmt.Sprintf("CREATE INDEX ON %s (%s)", l.table, c.ident))
		case engines.Numeric:
			cols = append(cols, c.ident+" double precision")
			after = append(after, fmt.Sprintf("CREATE INDEX ON %s (%s)", l.table, c.ident))
		case engines.Vector:
			cols = append(cols, fmt.Sprintf("%s vector(%d)", c.ident, c.Dim))
			// pgvector's defaults, m = 16 and ef_construction = 64 (see
			// the package doc).
			after = append(after, fmt.Sprintf("CREATE INDEX ON %s USING hnsw (%s vector_cosine_ops)", l.table, c.ident))
		}
	}
	var ddl []string
	if l.vector != nil {
		ddl = append(ddl, "CREATE EXTENSION IF NOT EXISTS vector")
	}
	ddl = append(ddl,
		"DROP TABLE IF EXISTS "+l.table,
		fmt.Sprintf("CREATE TABLE %s (id text PRIMARY KEY, %s, tsv tsvector GENERATED ALWAYS AS (%s) STORED)",
			l.table, strings.Join(cols, ", "), strings.Join(vectors, " || ")),
		fmt.Sprintf("CREATE INDEX ON %s USING GIN (tsv)", l.table),
	)
	return append(ddl, after...)
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

// searchSQL is the SQL of a search:
//   - Text alone: the full-text search, ts_rank top k (with Filters as
//     WHERE clauses);
//   - Field: an exact match in that column — the value of a tag, the
//     words as a phrase in a text field — (Filters too), by id, or by
//     distance when Vector is set;
//   - Vector: the k nearest by cosine distance among the rows that match
//     Filters;
//   - Text and Vector: both rankings fused (hybridSQL).
func (l *layout) searchSQL(q engines.Query) (query, error) {
	if q.Vector == nil && q.Field == "" && len(q.Filters) == 0 {
		return query{sql: l.sql.search, args: []any{OrQuery(q.Text), q.K}}, nil
	}
	var s query
	where, err := l.where(&s, q)
	if err != nil {
		return query{}, err
	}
	if q.Vector != nil {
		if l.vector == nil {
			return query{}, fmt.Errorf("vector search: the schema has no vector field: %w", engines.ErrUnsupported)
		}
		if len(q.Vector) != l.vector.Dim {
			return query{}, fmt.Errorf("postgres: query vector has %d dimensions, field %s %d", len(q.Vector), l.vector.Name, l.vector.Dim)
		}
	}
	switch {
	case q.Vector != nil && q.Field == "" && q.Text != "":
		s.sql = l.hybridSQL(&s, q, where)
	case q.Vector != nil:
		// Relaxed order (see Open) may return the nearest slightly out
		// of order: the materialized CTE sorts them again, as pgvector's
		// README (v0.8.x, "Iterative Index Scans") shows.
		s.sql = fmt.Sprintf("WITH nearest AS MATERIALIZED (SELECT id, %s <=> %s AS distance FROM %s%s ORDER BY distance LIMIT %s) SELECT id FROM nearest ORDER BY distance, id",
			l.vector.ident, s.param(VectorText(q.Vector))+"::vector", l.table, whereClause(where), s.param(q.K))
	case q.Field != "":
		s.sql = fmt.Sprintf("SELECT id FROM %s%s ORDER BY id LIMIT %s", l.table, whereClause(where), s.param(q.K))
	default:
		text := s.param(OrQuery(q.Text))
		s.sql = fmt.Sprintf("SELECT id FROM %s, websearch_to_tsquery('english', %s) q WHERE tsv @@ q%s ORDER BY ts_rank(tsv, q) DESC LIMIT %s",
			l.table, text, andClauses(where), s.param(q.K))
	}
	return s, nil
}

// hybridSQL fuses the full-text ranking and the vector ranking, each the
// top k among the rows that match Filters, by reciprocal rank fusion: a
// row scores 1/(60 + its rank) in each ranking it is in, summed; ties by id.
func (l *layout) hybridSQL(s *query, q engines.Query, where []string) string {
	text, vec, k := s.param(OrQuery(q.Text)), s.param(VectorText(q.Vector))+"::vector", s.param(q.K)
	return fmt.Sprintf(`WITH fts AS (SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r FROM
(SELECT id, ts_rank(tsv, q) AS rank FROM %[1]s, websearch_to_tsquery('english', %[2]s) q WHERE tsv @@ q%[3]s ORDER BY rank DESC LIMIT %[4]s) f),
knn AS (SELECT id, row_number() OVER (ORDER BY distance, id) AS r FROM
(SELECT id, %[5]s <=> %[6]s AS distance FROM %[1]s%[7]s ORDER BY distance LIMIT %[4]s) v)
SELECT id FROM fts FULL JOIN knn USING (id)
ORDER BY coalesce(1.0 / (%[8]d + fts.r), 0) + coalesce(1.0 / (%[8]d + knn.r), 0) DESC, id LIMIT %[4]s`,
		l.table, text, andClauses(where), k, l.vector.ident, vec, whereClause(where), rrfK)
}

// where is the conditions of q's Filters and Field lookup: tag equality,
// numeric BETWEEN, and the lookup's exact equality on a text or tag column.
func (l *layout) where(s *query, q engines.Query) ([]string, error) {
	var out []string
	for _, f := range q.Filters {
		c, ok := l.byName[f.Field]
		switch {
		case !ok:
			return nil, fmt.Errorf("filter on %q: the table has no such field: %w", f.Field, engines.ErrUnsupported)
		case c.Type == engines.Tag:
			out = append(out, c.ident+" = "+s.param(f.Tag))
		case c.Type == engines.Numeric:
			if math.IsNaN(f.Min) || math.IsNaN(f.Max) || f.Min > f.Max {
				return nil, fmt.Errorf("postgres: filter on %q: range [%v, %v] is empty", f.Field, f.Min, f.Max)
			}
			out = append(out, fmt.Sprintf("%s BETWEEN %s AND %s", c.ident, s.param(f.Min), s.param(f.Max)))
		default:
			return nil, fmt.Errorf("filter on %s field %q: %w", c.Type, f.Field, engines.ErrUnsupported)
		}
	}
	if q.Field != "" {
		c, ok := l.byName[q.Field]
		switch {
		case !ok:
			return nil, fmt.Errorf("search in field %q: the table has no such field: %w", q.Field, engines.ErrUnsupported)
		case c.Type != engines.Text && c.Type != engines.Tag:
			return nil, fmt.Errorf("search in %s field %q: %w", c.Type, q.Field, engines.ErrUnsupported)
		}
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
		// the same way and compared as lowercased strings, padded with a
		// space: PostgreSQL's text-search parser reads "ON-1" as "on" and
		// "-1", so a tsquery of the words would miss it. No index serves
		// this: the table is scanned (see the package doc).
		out = append(out, fmt.Sprintf("strpos(lower(' ' || regexp_replace(%s, '[^[:alnum:]]+', ' ', 'g') || ' '), lower(%s)) > 0",
			c.ident, s.param(" "+words+" ")))
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

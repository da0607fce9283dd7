package postgres

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/searchbench/searchbench/engines"
)

// plan is the table of a schema: its name, fields, statements and DDL.
func plan(schema engines.Schema) (table string, fields []string, sql statements, ddl []string, err error) {
	if schema.Name == "" {
		return "", nil, statements{}, nil, engines.RefuseSchema("postgres", "schema has no name")
	}
	for _, f := range schema.Fields {
		if f.Type != engines.Text {
			return "", nil, statements{}, nil, engines.RefuseSchema("postgres", "field %s: type %s is not supported (text only)", f.Name, f.Type)
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

func args(doc engines.Document, fields []string) []any {
	a := make([]any, 1+len(fields))
	a[0] = doc.ID
	for i, f := range fields {
		a[i+1] = doc.Text(f)
	}
	return a
}

// OrQuery turns free text into websearch_to_tsquery input that ORs its
// words: letters and digits are kept, everything else separates words.
func OrQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(words, " or ")
}

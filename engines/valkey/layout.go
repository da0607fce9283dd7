package valkey

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
)

// DefaultMaxIndexes is search.max-indexes' default: the most indexes one
// server holds, all databases together (valkey-search 1.2.0,
// src/schema_manager.cc: kMaxIndexesDefault, checked by CreateIndexSchema
// against the number of index schemas + 1).
const DefaultMaxIndexes = 1000

// indexCount is how many indexes Create makes: hybrid's pair, or the
// matching ones, and the idle ones.
func (s settings) indexCount() int {
	if s.hybrid {
		return 2 + s.idle
	}
	return s.matching + s.idle
}

// writeMode is what a returned write means under s: searchable when one
// index holds the written keys, acknowledged when several do.
// valkey-search 1.2.1 blocks the writing client from each matching index's
// keyspace notification and counts the blocks per client
// (vmsdk/src/blocked_client.cc, BlockedClient), but the notifications run
// one after another on the main thread while the first index's writer
// thread may already have applied the write and unblocked the count to 0;
// the next index then blocks the client anew, and the first unblock
// releases it (src/index_schema.cc TrackMutatedRecord; ProcessMutation).
// Measured on the module here: over three indexes of one prefix, 5 of
// 1,000 product writes through the driver were missed by the search sent
// right after the reply (TestStudyBModule/SeveralIndexes shows one), and
// 0.2–3% of bare HSET or DEL then FT.SEARCH pairs on TEXT or TAG indexes,
// by type and command; over one index, none of thousands.
func (s settings) writeMode() engines.Visibility {
	if s.hybrid || s.matching > 1 {
		return engines.Acknowledged
	}
	return engines.Searchable
}

// checkIndexLimit is the bad-input error for a setup that needs more
// indexes than search.max-indexes allows (whose value is named by source).
func checkIndexLimit(need, limit int, source string) error {
	if need <= limit {
		return nil
	}
	return fmt.Errorf("matching_indexes + idle_indexes make %d indexes, more than search.max-indexes allows (%d, %s)", need, limit, source)
}

// indexDef is one index this driver creates.
type indexDef struct {
	name      string
	prefix    string
	fields    []engines.FieldSpec
	types     fieldTypes
	noStop    bool
	vector    string // the Vector field it indexes, or ""
	hasText   bool
	writeSide bool // on the written prefix (not idle)
}

// layout is what Create decided: the prefix, the schema and the indexes.
type layout struct {
	prefix  string
	schema  engines.Schema
	types   fieldTypes
	indexes []indexDef // write-side first, in search preference order, then idle
}

// indexNames are the names of l's indexes, in l.indexes' order.
func (l *layout) indexNames() []string {
	names := make([]string, len(l.indexes))
	for i, d := range l.indexes {
		names[i] = d.name
	}
	return names
}

func (l *layout) writeSide() []indexDef {
	var out []indexDef
	for _, d := range l.indexes {
		if d.writeSide {
			out = append(out, d)
		}
	}
	return out
}

// plan derives the indexes from the schema and the options.
func (s settings) plan(schema engines.Schema) (*layout, error) {
	if schema.Name == "" {
		return nil, errors.New("valkey: schema has no name")
	}
	l := &layout{prefix: s.prefix, schema: schema, types: fieldTypes{}}
	if l.prefix == "" {
		l.prefix = schema.Name + ":"
	}
	indexed, semantic, exact, err := s.indexedFields(l)
	if err != nil {
		return nil, err
	}
	if len(indexed) == 0 && s.matching+s.idle > 0 {
		return nil, engines.RefuseSchema("valkey", "schema %s has no field of the types the fields option names", schema.Name)
	}
	switch {
	case s.hybrid:
		if len(exact) == 0 || len(semantic) == 0 {
			return nil, errors.New("valkey: hybrid=on needs Text fields for the exact index and Tag, Numeric or Vector fields for the semantic one (see the fields option)")
		}
		l.indexes = append(l.indexes, newIndexDef(schema.Name+"-exact", l.prefix, exact, true, true), newIndexDef(schema.Name, l.prefix, semantic, false, true))
	default:
		for i := 1; i <= s.matching; i++ {
			name := schema.Name
			if i > 1 {
				name = fmt.Sprintf("%s-%d", schema.Name, i)
			}
			l.indexes = append(l.indexes, newIndexDef(name, l.prefix, indexed, false, true))
		}
	}
	for i := 1; i <= s.idle; i++ {
		l.indexes = append(l.indexes, newIndexDef(fmt.Sprintf("%s-idle-%d", schema.Name, i), fmt.Sprintf("idle-%d:%s", i, l.prefix), indexed, false, false))
	}
	return l, nil
}

// indexedFields checks l's schema fields and records their types in
// l.types: indexed are those of the types the fields option names, split
// into exact (Text, the hybrid pair's exact index) and semantic (the rest).
// The others are kept in the hash only.
func (s settings) indexedFields(l *layout) (indexed, semantic, exact []engines.FieldSpec, err error) {
	for _, f := range l.schema.Fields {
		if _, dup := l.types[f.Name]; dup || f.Name == "" {
			return nil, nil, nil, engines.RefuseSchema("valkey", "schema field %q is empty or repeated", f.Name)
		}
		l.types[f.Name] = f
		switch f.Type {
		case engines.Text, engines.Tag, engines.Numeric:
		case engines.Vector:
			if f.Dim < 1 || f.Dim > 32768 {
				return nil, nil, nil, engines.RefuseSchema("valkey", "vector field %s: dimension %d is outside 1..32768", f.Name, f.Dim)
			}
			if _, ok := distanceMetrics[f.Metric]; !ok {
				return nil, nil, nil, engines.RefuseSchema("valkey", "vector field %s: metric %s is not one the driver indexes (cosine, l2, dot)", f.Name, f.Metric)
			}
		default:
			return nil, nil, nil, engines.RefuseSchema("valkey", "field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
		if !s.types[f.Type] {
			continue // in the hash, not in the indexes
		}
		indexed = append(indexed, f)
		if f.Type == engines.Text {
			exact = append(exact, f)
		} else {
			semantic = append(semantic, f)
		}
	}
	return indexed, semantic, exact, nil
}

// newIndexDef is the index name on prefix over fields, with what a search
// needs to know of them: their types, the vector field it indexes (the
// first, were there more) and whether any is text.
func newIndexDef(name, prefix string, fields []engines.FieldSpec, noStop, writeSide bool) indexDef {
	d := indexDef{name: name, prefix: prefix, fields: fields, types: fieldTypes{}, noStop: noStop, writeSide: writeSide}
	for _, f := range fields {
		d.types[f.Name] = f
		switch f.Type {
		case engines.Vector:
			if d.vector == "" {
				d.vector = f.Name
			}
		case engines.Text:
			d.hasText = true
		}
	}
	return d
}

// TagSeparator is the TAG fields' SEPARATOR: valkey-search's default, which
// no tag value of the corpora contains, so each value is one tag.
const TagSeparator = ","

// ownsIndex says whether an index name is one this driver derives from the
// schema name, so that Create can remove what an earlier run with other
// options left (50 idle indexes, say).
func ownsIndex(schemaName, index string) bool {
	if index == schemaName || index == schemaName+"-exact" {
		return true
	}
	rest, ok := strings.CutPrefix(index, schemaName+"-")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "idle-")
	_, err := strconv.Atoi(rest)
	return err == nil
}

// chooseIndex picks the first write-side index that has every field the
// query touches.
func (l *layout) chooseIndex(q engines.Query) (indexDef, error) {
	need := map[string]bool{}
	for _, f := range q.Filters {
		need[f.Field] = true
	}
	if q.Field != "" {
		need[q.Field] = true
	}
	for _, d := range l.writeSide() {
		ok := (q.Vector == nil || d.vector != "") && (q.Text == "" || q.Field != "" || d.hasText)
		for f := range need {
			if _, has := d.types[f]; !has {
				ok = false
			}
		}
		if ok {
			return d, nil
		}
	}
	if len(l.writeSide()) == 0 {
		return indexDef{}, fmt.Errorf("%s search without an index (matching_indexes=0): %w", q.Shape(), engines.ErrUnsupported)
	}
	return indexDef{}, fmt.Errorf("%s search: no index of this layout has every field the query uses (see the fields and hybrid options): %w", q.Shape(), engines.ErrUnsupported)
}

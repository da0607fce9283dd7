package valkeyfake

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

func cmdFtCreate(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 2) {
		return
	}
	ix, err := parseCreate(args[1:])
	if err != nil {
		c.w.err(err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.indexes[ix.name]; dup {
		c.w.err(fmt.Sprintf("Index %s in database 0 already exists.", ix.name))
		return
	}
	// src/schema_manager.cc CreateIndexSchema: the count is checked against
	// search.max-indexes as the server has it now (CONFIG SET changes it).
	if limit, _ := strconv.Atoi(s.config["search.max-indexes"]); len(s.indexes) >= limit {
		c.w.err(fmt.Sprintf("Maximum number of indexes reached (%d). Cannot create additional indexes.", limit))
		return
	}
	// The keys already there are the backfill's, on the cron (backfill.go).
	s.indexes[ix.name] = ix
	c.w.simple("OK")
}

// indexLocked is the index named, or nil with the module's refusal
// written. s.mu is held.
func (s *Server) indexLocked(c *conn, name string) *index {
	ix := s.indexes[name]
	if ix == nil {
		c.w.err(fmt.Sprintf("Index with name '%s' not found in database 0", name))
	}
	return ix
}

func cmdFtDrop(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 2) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexLocked(c, args[1]) != nil {
		delete(s.indexes, args[1])
		c.w.simple("OK")
	}
}

func cmdFtList(s *Server, c *conn, _ []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.w.value(slices.Sorted(maps.Keys(s.indexes)))
}

// cmdFtInfo answers FT.INFO in the module's layout (src/index_schema.cc
// IndexSchema::RespondWithInfo, 1.2.1): a flat list of 28 items, 36 for an
// index with TEXT fields, whose figures are integers or decimal strings as
// the module writes each; the attributes sorted by alias.
func cmdFtInfo(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 2) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.indexLocked(c, args[1])
	if ix == nil {
		return
	}
	attrs := slices.Clone(ix.attrs)
	slices.SortFunc(attrs, func(a, b *attribute) int { return strings.Compare(a.name, b.name) })
	info := make(list, len(attrs))
	records := 0
	for i, a := range attrs {
		info[i] = attributeInfo(ix, a)
		records += ix.tracked(a)
	}
	occurrences, terms := ix.termCounts()
	reply := list{
		"index_name", ix.name,
		"index_definition", list{"key_type", "HASH", "prefixes", slices.Clone(ix.prefixes), "default_score", "1"},
		"attributes", info,
		"num_docs", len(ix.docs),
		"num_records", records,
		"total_term_occurrences", occurrences,
		"num_terms", terms,
		"hash_indexing_failures", strconv.FormatInt(ix.failures, 10),
		"backfill_in_progress", digit[!ix.backfill.done],
		"backfill_complete_percent", fmt.Sprintf("%f", ix.backfill.percent()),
		"mutation_queue_size", strconv.FormatInt(ix.queue, 10),
		"recent_mutations_queue_delay", "0 sec",
		"state", backfillState[ix.backfill.done],
	}
	if len(ix.texts) > 0 {
		stop := stopWords
		if ix.noStop {
			stop = nil
		}
		reply = append(reply, "punctuation", punctuation, "stop_words", slices.Clone(stop), "with_offsets", "1", "min_stem_size", minStemSize)
	}
	c.w.value(append(reply, "language", "english"))
}

// tracked is how many documents hold a value of a (FT.INFO's size).
func (ix *index) tracked(a *attribute) int {
	n := 0
	for _, d := range ix.docs {
		if d.has(a) {
			n++
		}
	}
	return n
}

// termCounts is FT.INFO's total_term_occurrences (the words indexed) and
// num_terms (the distinct ones).
func (ix *index) termCounts() (occurrences, terms int) {
	seen := map[string]bool{}
	for _, d := range ix.docs {
		for _, v := range d {
			tv, _ := v.(textValue)
			occurrences += len(tv.toks)
			for _, t := range tv.toks {
				seen[t] = true
			}
		}
	}
	return occurrences, len(seen)
}

var digit = map[bool]string{false: "0", true: "1"}

// attributeInfo is one attribute as FT.INFO lists it (src/attribute.cc
// Attribute::RespondWithInfo, then the index's own: src/indexes/tag.cc,
// numeric.cc, text.cc, vector_base.cc and vector_hnsw.cc / vector_flat.cc
// RespondWithInfo, 1.2.1), with the defaults the driver's FT.CREATE leaves:
// no suffix trie, stemming, HNSW's M 16, EF_CONSTRUCTION 200, EF_RUNTIME 10
// and INITIAL_CAP 10240. Memory is the fake's: it holds no index.
func attributeInfo(ix *index, a *attribute) list {
	out := list{"identifier", a.name, "attribute", a.name, "user_indexed_memory", 0, "type", typeNames[a.typ]}
	size := strconv.Itoa(ix.tracked(a))
	switch a.typ {
	case typeTag:
		out = append(out, "SEPARATOR", string(a.separator), "CASESENSITIVE", digit[a.caseSensitive], "size", size)
	case typeNumeric:
		out = append(out, "size", size)
	case typeText:
		out = append(out, "WITH_SUFFIX_TRIE", "0", "NO_STEM", "0", "WEIGHT", "1")
	case typeVector:
		out = append(out, "index", list{"capacity", 10240, "dimensions", a.dim, "distance_metric", a.metric, "size", size,
			"data_type", "FLOAT32", "algorithm", list{"name", "HNSW", "m", 16, "ef_construction", 200, "ef_runtime", 10}})
	}
	return out
}

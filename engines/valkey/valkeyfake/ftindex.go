package valkeyfake

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

func cmdFtCreate(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
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
	// The initial scan (backfill): existing keys under the prefixes.
	for key, h := range s.hashes {
		if ix.matches(key) {
			d, counts, failures := ix.ingest(h)
			ix.failures += int64(failures)
			if len(counts) > 0 {
				ix.docs[key] = d
			}
		}
	}
	s.indexes[ix.name] = ix
	c.w.simple("OK")
}

func notFound(name string) string {
	return fmt.Sprintf("Index with name '%s' not found in database 0", name)
}

func cmdFtDrop(s *Server, c *conn, args []string) {
	if len(args) != 2 {
		c.w.err("ERR wrong number of arguments for 'FT.DROPINDEX' command")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.indexes[args[1]]; !ok {
		c.w.err(notFound(args[1]))
		return
	}
	delete(s.indexes, args[1])
	c.w.simple("OK")
}

func cmdFtList(s *Server, c *conn, _ []string) {
	s.mu.Lock()
	names := make([]string, 0, len(s.indexes))
	for n := range s.indexes {
		names = append(names, n)
	}
	s.mu.Unlock()
	sort.Strings(names)
	c.w.bulks(names)
}

func cmdFtInfo(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, ok := s.indexes[args[1]]
	if !ok {
		c.w.err(notFound(args[1]))
		return
	}
	records := 0
	for _, d := range ix.docs {
		records += len(d.text) + len(d.tags) + len(d.nums) + len(d.vecs)
	}
	stop := make([]string, 0, len(ix.text.stopWords))
	for w := range ix.text.stopWords {
		stop = append(stop, w)
	}
	sort.Strings(stop)
	attrs := make(list, len(ix.attrs))
	for i, a := range ix.attrs {
		attrs[i] = attributeInfo(ix, a)
	}
	// A flat array of name/value pairs, as documented for LOCAL.
	c.w.value(list{
		"index_name", ix.name,
		"index_definition", list{"key_type", "HASH", "prefixes", slices.Clone(ix.prefixes), "default_score", "1"},
		"attributes", attrs,
		"num_docs", len(ix.docs),
		"num_records", records,
		"hash_indexing_failures", ix.failures,
		"backfill_in_progress", "0",
		"backfill_complete_percent", "1.000000",
		"mutation_queue_size", strconv.FormatInt(ix.queue, 10),
		"recent_mutations_queue_delay", "0 sec",
		"state", "ready",
		"punctuation", ix.text.punctuation,
		"stop_words", stop,
		"with_offsets", boolDigit(ix.text.offsets),
		"language", "english",
		"min_stem_size", min(ix.text.minStemSize, 1<<31-1),
		"total_term_occurrences", 0,
		"num_terms", 0,
	})
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func attributeInfo(ix *index, a *attribute) list {
	out := list{"identifier", a.identifier, "attribute", a.alias, "type", a.typ.String(), "user_indexed_memory", 0}
	present := 0
	for _, d := range ix.docs {
		_, tag := d.tags[a.alias]
		_, vec := d.vecs[a.alias]
		if tag || vec {
			present++
		}
	}
	switch a.typ {
	case typeTag:
		out = append(out, "SEPARATOR", string(a.separator), "CASESENSITIVE", b2i(a.caseSensitive), "SIZE", present)
	case typeText:
		out = append(out, "WITH_SUFFIX_TRIE", 0, "NO_STEM", b2i(a.noStem), "WEIGHT", "1")
	case typeVector:
		out = append(out, "index", list{
			"capacity", 10240, "dimensions", a.dim, "distance_metric", a.metric, "size", present, "data_type", "FLOAT32",
			"algorithm", list{"name", a.algorithm, "m", a.m, "ef_construction", a.efc, "ef_runtime", a.efRuntime},
		})
	}
	return out
}

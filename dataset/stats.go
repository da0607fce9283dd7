package dataset

import (
	"math/bits"
	"sort"
	"strings"
)

// Stats describes the corpus as it will be loaded, so it can be checked
// against the published study's generator (and against other corpora).
type Stats struct {
	Generator         string  `json:"generator"`
	Seed              uint64  `json:"seed"`
	IDs               int     `json:"ids"`
	Prepopulated      int     `json:"prepopulated"`
	Documents         int     `json:"documents_sampled"`
	VocabularyList    int     `json:"vocabulary_list"`
	Vocabulary        int     `json:"vocabulary_seen"` // distinct lower-cased words in the sample
	MeanDocumentBytes float64 `json:"mean_document_bytes"`
	MeanNameWords     float64 `json:"mean_name_words"`
	MeanContentWords  float64 `json:"mean_content_words"`
	MeanQueryWords    float64 `json:"mean_query_words"`
	// Distributions: length → how many times it occurred.
	NameWords          map[int]int `json:"name_words"`
	QueryWords         map[int]int `json:"query_words"`
	ContentSentence    map[int]int `json:"content_sentence_words"`
	ParagraphSentences map[int]int `json:"paragraph_sentences"`
	// Query selectivity: the fraction of sampled documents that contain any
	// (OR) or every (AND) word of a query, averaged over the sampled queries.
	Queries           int     `json:"queries_sampled"`
	MeanMatchFraction float64 `json:"mean_or_match_fraction"`
	MeanAllFraction   float64 `json:"mean_and_match_fraction"`
}

// Stats generates up to docs pre-populated documents (0: all of them) and
// queries queries and measures them.
func (c *Corpus) Stats(docs, queries int) Stats {
	s := Stats{
		Generator: Generator, Seed: c.cfg.Seed, IDs: c.cfg.IDs, Prepopulated: c.prepop,
		VocabularyList:     len(vocabulary),
		NameWords:          map[int]int{},
		QueryWords:         map[int]int{},
		ContentSentence:    map[int]int{},
		ParagraphSentences: map[int]int{},
	}
	if docs <= 0 || docs > c.prepop {
		docs = c.prepop
	}
	ws := newWordSets(docs)
	n := c.sampleDocuments(&s, ws, docs)
	c.sampleQueries(&s, ws, n, queries)
	return s
}

// wordSets records which sampled documents hold each vocabulary word, as
// a bitset per word, so a query's matches are the union or intersection
// of its words' sets.
type wordSets struct {
	index map[string]int // lower-cased word → row in sets
	seen  []bool         // row → the word occurs in some sampled document
	sets  [][]uint64     // row → bitset over sampled documents
	width int            // uint64 words in a bitset
}

// newWordSets is the empty sets for up to docs sampled documents.
func newWordSets(docs int) *wordSets {
	ws := &wordSets{index: make(map[string]int, len(vocabulary)), width: (docs + 63) / 64}
	for _, w := range vocabulary {
		ws.index[strings.ToLower(w)] = len(ws.index)
	}
	ws.seen = make([]bool, len(ws.index))
	ws.sets = make([][]uint64, len(ws.index))
	for i := range ws.sets {
		ws.sets[i] = make([]uint64, ws.width)
	}
	return ws
}

// row is a word's row, as written in a document or query: case and a
// trailing full stop aside.
func (ws *wordSets) row(w string) int {
	return ws.index[strings.ToLower(strings.TrimSuffix(w, "."))]
}

// mark records that document doc holds the word w.
func (ws *wordSets) mark(doc int, w string) {
	row := ws.row(w)
	ws.seen[row] = true
	ws.sets[row][doc/64] |= 1 << (doc % 64)
}

// sampleDocuments measures up to docs pre-populated documents into s:
// their sizes, their names' and sentences' lengths and the vocabulary
// seen; it marks their words in ws and returns how many it sampled.
func (c *Corpus) sampleDocuments(s *Stats, ws *wordSets, docs int) int {
	var bytes, nameWords, contentWords int
	n := 0
	for id := uint32(1); id <= uint32(c.cfg.IDs) && n < docs; id++ {
		if !c.Prepopulated(id) {
			continue
		}
		d := c.Document(id, 0)
		bytes += len(d.Name) + len(d.Content)
		nw := strings.Fields(d.Name)
		s.NameWords[len(nw)]++
		nameWords += len(nw)
		for _, w := range nw {
			ws.mark(n, w)
		}
		for _, p := range strings.Split(d.Content, "\n\n") {
			sentences := strings.SplitAfter(p, ". ")
			s.ParagraphSentences[len(sentences)]++
			for _, sentence := range sentences {
				sw := strings.Fields(sentence)
				s.ContentSentence[len(sw)]++
				contentWords += len(sw)
				for _, w := range sw {
					ws.mark(n, w)
				}
			}
		}
		n++
	}
	words := 0
	for _, ok := range ws.seen {
		if ok {
			words++
		}
	}
	s.Documents, s.Vocabulary = n, words
	if n > 0 {
		s.MeanDocumentBytes = float64(bytes) / float64(n)
		s.MeanNameWords = float64(nameWords) / float64(n)
		s.MeanContentWords = float64(contentWords) / float64(n)
	}
	return n
}

// sampleQueries measures the first queries queries into s: their lengths,
// and the fraction of the n sampled documents that match any (OR) or
// every (AND) word of each.
func (c *Corpus) sampleQueries(s *Stats, ws *wordSets, n, queries int) {
	union := make([]uint64, ws.width)
	inter := make([]uint64, ws.width)
	var orSum, andSum float64
	var queryWords int
	for q := range uint64(queries) {
		qw := strings.Fields(c.Query(q))
		s.QueryWords[len(qw)]++
		queryWords += len(qw)
		clear(union)
		for i := range inter {
			inter[i] = ^uint64(0)
		}
		for _, w := range qw {
			set := ws.sets[ws.row(w)]
			for i := range union {
				union[i] |= set[i]
				inter[i] &= set[i]
			}
		}
		orSum += float64(popcount(union, n)) / float64(max(n, 1))
		andSum += float64(popcount(inter, n)) / float64(max(n, 1))
	}
	if queries > 0 {
		s.Queries = queries
		s.MeanQueryWords = float64(queryWords) / float64(queries)
		s.MeanMatchFraction = orSum / float64(queries)
		s.MeanAllFraction = andSum / float64(queries)
	}
}

// popcount counts the set bits among the first n.
func popcount(set []uint64, n int) int {
	c := 0
	for i, w := range set {
		rest := n - i*64
		if rest <= 0 {
			break
		}
		if rest < 64 {
			w &= 1<<uint(rest) - 1
		}
		c += bits.OnesCount64(w)
	}
	return c
}

// Sorted returns a distribution's lengths in ascending order, for printing.
func Sorted(dist map[int]int) []int {
	keys := make([]int, 0, len(dist))
	for k := range dist {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

package dataset

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
)

func corpus(t testing.TB, seed uint64, ids int) *Corpus {
	t.Helper()
	c, err := New(Config{Seed: seed, IDs: ids, Prepopulate: DefaultPrepopulate})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVocabularyIsTheStudysList(t *testing.T) {
	if len(vocabulary) != 971 {
		t.Fatalf("vocabulary has %d words, want 971", len(vocabulary))
	}
	if titled[indexOf(t, "TV")] != "Tv" || titled[indexOf(t, "a")] != "A" || titled[indexOf(t, "American")] != "American" {
		t.Fatal("title-casing differs from Python's str.title()")
	}
}

func indexOf(t *testing.T, w string) int {
	for i, v := range vocabulary {
		if v == w {
			return i
		}
	}
	t.Fatalf("%q not in vocabulary", w)
	return -1
}

func TestSameSeedSameBytes(t *testing.T) {
	a, b := corpus(t, 42, 5000), corpus(t, 42, 5000)
	for id := uint32(1); id <= 5000; id += 97 {
		for v := uint32(0); v < 3; v++ {
			if a.Document(id, v) != b.Document(id, v) {
				t.Fatalf("document %d v%d differs between two corpora with one seed", id, v)
			}
		}
	}
	if a.Hash() != b.Hash() {
		t.Fatal("hashes differ for one seed")
	}
	if c := corpus(t, 43, 5000); c.Hash() == a.Hash() {
		t.Fatal("seeds 42 and 43 give the same hash")
	}
}

// The generator must give the same bytes on every machine and Go version:
// these values were produced by this generator and pin it. A change to any
// rule must change Generator (and these values) deliberately.
func TestGoldenBytes(t *testing.T) {
	c := corpus(t, 1, 100)
	d := c.Document(1, 0)
	if got, want := d.Name, goldenName; got != want {
		t.Errorf("Document(1, 0).Name = %q, want %q", got, want)
	}
	if got, want := c.Query(0), goldenQuery; got != want {
		t.Errorf("Query(0) = %q, want %q", got, want)
	}
	if got := corpus(t, 1, 1000).Hash(); got != goldenHash {
		t.Errorf("Hash() of seed 1, 1000 IDs = %s, want %s", got, goldenHash)
	}
}

func TestVersionsAndIDsDiffer(t *testing.T) {
	c := corpus(t, 1, 100)
	if c.Document(5, 0) == c.Document(5, 1) {
		t.Fatal("a new version has the same text")
	}
	if c.Document(5, 0).Name == c.Document(6, 0).Name {
		t.Fatal("two IDs have the same name")
	}
	if c.Query(1) == c.Query(2) {
		t.Fatal("two queries are equal")
	}
}

// sentenceOK checks Faker's sentence(n) shape: int(n×[60,140]/100) words
// (at least 1), first word title-cased, one space between words, a period.
func sentenceOK(t *testing.T, s string, n int) {
	t.Helper()
	if !strings.HasSuffix(s, ".") || strings.Contains(s, "  ") {
		t.Fatalf("sentence %q: want words joined by one space and a final period", s)
	}
	words := strings.Split(strings.TrimSuffix(s, "."), " ")
	lo, hi := max(n*60/100, 1), n*140/100
	if len(words) < lo || len(words) > hi {
		t.Fatalf("sentence(%d) %q has %d words, want %d..%d", n, s, len(words), lo, hi)
	}
	first := []rune(words[0])
	if !unicode.IsUpper(first[0]) {
		t.Fatalf("sentence %q: first word not title-cased", s)
	}
}

func TestShapes(t *testing.T) {
	c := corpus(t, 3, 2000)
	for id := uint32(1); id <= 2000; id++ {
		d := c.Document(id, 0)
		sentenceOK(t, d.Name, 10)
		paras := strings.Split(d.Content, "\n\n")
		if len(paras) != 5 {
			t.Fatalf("content of %d has %d paragraphs, want 5", id, len(paras))
		}
		for _, p := range paras {
			ss := strings.SplitAfter(p, ". ")
			if len(ss) < 1 || len(ss) > 4 {
				t.Fatalf("paragraph %q has %d sentences, want 1..4", p, len(ss))
			}
			for _, s := range ss {
				sentenceOK(t, strings.TrimSuffix(s, " "), 6)
			}
		}
	}
	for q := range uint64(2000) {
		sentenceOK(t, c.Query(q), 5)
	}
}

// TestStatisticsMatchTheStudy compares measured distributions with the ones
// Faker's rules imply: randint(60,140) has 81 values, so sentence(10) has
// 6..13 words with probability 10/81 each and 14 with 1/81.
func TestStatisticsMatchTheStudy(t *testing.T) {
	c := corpus(t, 1, 20000)
	s := c.Stats(0, 2000)
	if s.Vocabulary != 971 {
		t.Errorf("vocabulary seen = %d, want 971", s.Vocabulary)
	}
	if f := float64(s.Prepopulated) / 20000; math.Abs(f-0.95) > 0.01 {
		t.Errorf("pre-populated fraction %.3f, want ≈ 0.95", f)
	}
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
		}
	}
	total := 0
	for _, v := range s.NameWords {
		total += v
	}
	for words := 6; words <= 13; words++ {
		near("P(name has "+string(rune('0'+words%10))+" words)", float64(s.NameWords[words])/float64(total), 10.0/81, 0.01)
	}
	near("P(name has 14 words)", float64(s.NameWords[14])/float64(total), 1.0/81, 0.004)
	// E[int(10u/100)] over u in 60..140 is (10·7+…)/81; computed directly.
	near("mean name words", s.MeanNameWords, expectedCount(10), 0.05)
	near("mean query words", s.MeanQueryWords, expectedCount(5), 0.08)
	near("mean content words", s.MeanContentWords, 5*expectedCount(3)*expectedCount(6), 0.6)
	// A 5-word OR query over ~70-word documents from 971 words touches far
	// fewer than the ~98% of Go faker's 182-word Latin list.
	if s.MeanMatchFraction < 0.15 || s.MeanMatchFraction > 0.5 {
		t.Errorf("OR query selectivity %.3f, want between 0.15 and 0.5", s.MeanMatchFraction)
	}
	if s.MeanDocumentBytes < 450 || s.MeanDocumentBytes > 650 {
		t.Errorf("mean document %.0f bytes, want ~0.5–0.6 KB", s.MeanDocumentBytes)
	}
}

// expectedCount is E[max(int(n·U/100), 1)] for U uniform on 60..140.
func expectedCount(n int) float64 {
	sum := 0
	for u := 60; u <= 140; u++ {
		sum += max(n*u/100, 1)
	}
	return float64(sum) / 81
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{{IDs: 0, Prepopulate: 0.5}, {IDs: 10, Prepopulate: -0.1}, {IDs: 10, Prepopulate: 1.5}, {IDs: 10, Prepopulate: math.NaN()}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	all, err := New(Config{IDs: 100, Prepopulate: 1})
	if err != nil || all.PrepopulatedCount() != 100 {
		t.Fatalf("prepopulate 1: %v, %d", err, all.PrepopulatedCount())
	}
	none, err := New(Config{IDs: 100, Prepopulate: 0})
	if err != nil || none.PrepopulatedCount() != 0 {
		t.Fatalf("prepopulate 0: %v, %d", err, none.PrepopulatedCount())
	}
}

func TestDocIDRoundTrip(t *testing.T) {
	for _, id := range []uint32{1, 42, 100000} {
		got, err := ParseDocID(DocID(id))
		if err != nil || got != id {
			t.Fatalf("ParseDocID(DocID(%d)) = %d, %v", id, got, err)
		}
	}
	if _, err := ParseDocID("x1"); err == nil {
		t.Fatal("ParseDocID accepted x1")
	}
}

// BenchmarkDocument measures corpus generation; docs/s per core is reported
// as a metric (the target is ≥ 500K).
func BenchmarkDocument(b *testing.B) {
	c := corpus(b, 1, DefaultIDs)
	b.ReportAllocs()
	var n int
	for i := 0; b.Loop(); i++ {
		d := c.Document(uint32(i%DefaultIDs)+1, uint32(i/DefaultIDs))
		n += len(d.Name) + len(d.Content)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	b.SetBytes(int64(n / max(b.N, 1)))
}

func BenchmarkQuery(b *testing.B) {
	c := corpus(b, 1, 1000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = c.Query(uint64(i))
	}
}

// The hash reads every pre-populated document (52 s at 20 million IDs), so
// it stops when its context ends, with the context's error and no hash; a
// hash that was cut off is not kept, so the next call computes the whole
// one.
func TestHashStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := corpus(t, 1, 1000)
	p := productCorpus(t, 1, 200, 16)
	for name, hash := range map[string]func(context.Context) (string, error){"text": c.HashContext, "product": p.HashContext} {
		if h, err := hash(ctx); h != "" || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: hash %q, error %v after the context ended; want none and context.Canceled", name, h, err)
		}
	}
	if h, err := c.HashContext(context.Background()); h != goldenHash || err != nil || c.Hash() != goldenHash {
		t.Errorf("after an interrupted hash: %q, %v; want %s", h, err, goldenHash)
	}
	if h, err := p.HashContext(context.Background()); h != goldenProduct[len(goldenProduct)-1] || err != nil {
		t.Errorf("product, after an interrupted hash: %q, %v; want %s", h, err, goldenProduct[len(goldenProduct)-1])
	}
}

// Only IDs 1…IDs can be pre-populated: an ID outside the space (0, or one
// past --ids an engine answered with) is none of the corpus's documents,
// whatever its hash says.
func TestPrepopulatedOnlyInsideTheIDSpace(t *testing.T) {
	for _, frac := range []float64{0.95, 1} {
		c, err := New(Config{Seed: 1, IDs: 1000, Prepopulate: frac})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for id := uint32(1); id <= 1000; id++ {
			if c.Prepopulated(id) {
				n++
			}
		}
		if n != c.PrepopulatedCount() || n == 0 {
			t.Fatalf("prepopulate %v: %d of 1…1000 pre-populated; the count says %d", frac, n, c.PrepopulatedCount())
		}
		for _, id := range []uint32{0, 1001, 1002, 5000, 1 << 31, ^uint32(0)} {
			if c.Prepopulated(id) {
				t.Errorf("prepopulate %v: ID %d (outside 1…1000) is called pre-populated", frac, id)
			}
		}
	}
}

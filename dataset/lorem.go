package dataset

import (
	_ "embed"
	"strings"
)

// english-lorem-words.txt is Python Faker's en_US lorem word list (MIT), the
// vocabulary of the published study's corpus. Query selectivity depends on it.
//
//go:embed english-lorem-words.txt
var wordFile string

var (
	vocabulary = loadWords(wordFile)
	// titled holds each word as Python's str.title() spells it, because Faker
	// title-cases the first word of a sentence ("TV" becomes "Tv").
	titled = titleWords(vocabulary)
	// The generator copies words as fixed 16-byte slots — two machine-word
	// moves instead of a memmove call per word, which made up a quarter of
	// its time. spaced slots hold " word", titled slots "Word".
	spacedSlots = slots(vocabulary, " ")
	titledSlots = slots(titled, "")
)

// slot is a word padded to 16 bytes, with its length.
type slot struct {
	b [16]byte
	n int
}

func slots(words []string, prefix string) []slot {
	out := make([]slot, len(words))
	for i, w := range words {
		w = prefix + w
		if len(w) > len(out[i].b) {
			panic("dataset: word longer than a slot: " + w)
		}
		out[i].n = copy(out[i].b[:], w)
	}
	return out
}

// appendSlot appends s's word to b.
func appendSlot(b []byte, s *slot) []byte {
	n := len(b)
	if cap(b)-n < len(s.b) {
		b = append(b, s.b[:]...)[:n]
	}
	*(*[16]byte)(b[n : n+16]) = s.b
	return b[:n+s.n]
}

func loadWords(s string) []string {
	var words []string
	for _, w := range strings.Split(s, "\n") {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	return words
}

// titleWords applies str.title() to each word; the list is purely alphabetic,
// so that is "first letter upper, the rest lower".
func titleWords(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
	}
	return out
}

// Vocabulary returns a copy of the corpus's word list.
func Vocabulary() []string { return append([]string(nil), vocabulary...) }

// randomizeCount is Faker's randomize_nb_elements(n, min=1):
// int(n × randint(60, 140) / 100), at least 1.
func randomizeCount(r *Rand, n int) int {
	c := n * r.IntRange(60, 140) / 100
	return max(c, 1)
}

// appendSentence is Faker's sentence(n): a randomized word count drawn
// uniformly with replacement, first word title-cased, joined by spaces, ending
// with a period.
func appendSentence(b []byte, r *Rand, n int) []byte {
	words := randomizeCount(r, n)
	b = appendSlot(b, &titledSlots[r.Intn(len(vocabulary))])
	for range words - 1 {
		b = appendSlot(b, &spacedSlots[r.Intn(len(vocabulary))])
	}
	return append(b, '.')
}

// appendParagraph is Faker's paragraph(): randomize_nb_elements(3, min=1)
// sentences of sentence(6), joined by one space.
func appendParagraph(b []byte, r *Rand) []byte {
	sentences := randomizeCount(r, 3)
	for i := range sentences {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendSentence(b, r, 6)
	}
	return b
}

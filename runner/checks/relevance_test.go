package checks

import (
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/internal/runnertest"
)

// The idle checks are a function of the seed: each a query of name words
// of a pre-populated document.
func TestKnownItemsFollowTheSeed(t *testing.T) {
	src := runnertest.Text(t, 3000, 0.95)
	for i := range uint64(50) {
		kind, q, id := knownItem(src, src, i)
		k2, q2, id2 := knownItem(src, src, i)
		if kind != k2 || q.Text != q2.Text || id != id2 || !src.Prepopulated(id) || len(strings.Fields(q.Text)) < 3 {
			t.Fatalf("check %d: %q %q %d; want a deterministic query of name words of a pre-populated document", i, kind, q.Text, id)
		}
		name := strings.ToLower(src.Corpus.Document(id, 0).Name)
		for _, w := range strings.Fields(q.Text) {
			if !strings.Contains(name, w) {
				t.Fatalf("check %d: word %q is not in document %d's name %q", i, w, id, name)
			}
		}
	}
}

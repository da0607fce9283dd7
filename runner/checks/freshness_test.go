package checks

import (
	"strings"
	"testing"
)

func TestMarkerWords(t *testing.T) {
	seen := map[string]bool{}
	for n := range uint64(1000) {
		w := markerWord(1, n)
		if len(w) != 12 || !strings.HasPrefix(w, "zqx") || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" || seen[w] {
			t.Fatalf("marker %q: want 12 distinct lowercase letters starting zqx", w)
		}
		seen[w] = true
	}
	if markerWord(1, 5) != markerWord(1, 5) || markerWord(1, 5) == markerWord(2, 5) {
		t.Error("markers are not a function of (seed, n)")
	}
}

package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/runner/result"
)

// Messages are redacted wherever they sit in the record; names, labels and
// options are not, so the everyday password "postgres" leaves the engine's
// name alone.
func TestRedactMessagesRewritesOnlyMessages(t *testing.T) {
	run := result.EngineRun{
		Name: "postgres", Label: "postgres", Options: map[string]string{"db": "postgres"},
		Error:    "postgres: connect as postgres:postgres failed",
		Warnings: result.Notes("close: postgres"),
		Relevance: &result.Relevance{LastError: "postgres timeout", Misses: []string{"postgres"},
			ByKind: map[string]*result.RelevanceKind{"name": {Queries: 1}}},
		Levels: []result.Level{{Warnings: result.Notes("x postgres"), Ops: []result.OpStats{{Op: "search",
			ErrorExamples: map[string][]string{"other": {"postgres said no"}}}}}},
		Ladder: &result.Ladder{Rungs: []result.Rung{{Reps: []result.Rep{{Warnings: result.Notes("rep postgres")}}}}},
	}
	RedactMessages(&run, []string{"", "postgres"})
	if run.Name != "postgres" || run.Label != "postgres" || run.Options["db"] != "postgres" {
		t.Errorf("names or options rewritten: %q %q %v", run.Name, run.Label, run.Options)
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "postgres"); n != 3 {
		t.Errorf("%d occurrences of the secret left; want the 3 of name, label and option:\n%s", n, b)
	}
	if got := run.Levels[0].Ops[0].ErrorExamples["other"][0]; got != "[redacted] said no" {
		t.Errorf("error example %q", got)
	}
}

// A server or proxy that quotes a part of a secret, or the secret in
// another case, leaks that part unless every run of six or more of its
// characters goes, in any case, wherever it stands; fewer than six, and
// ordinary words, stay.
func TestRedactMessagesRemovesEveryRunOfASecret(t *testing.T) {
	const key = "Sb-s3cret-Zq7Kx9Tq4w"
	const pw = "Pässwört-Ünïcode"
	for _, c := range []struct{ in, want string }{
		{"bad key " + key, "bad key [redacted]"},
		{"bad key " + key[:10] + "…", "bad key [redacted]…"},        // truncated quote: a prefix
		{"key ends " + key[13:] + ".", "key ends [redacted]."},      // a suffix (7)
		{"middle (" + key[5:11] + ")", "middle ([redacted])"},       // 6 from the middle
		{"lower " + strings.ToLower(key), "lower [redacted]"},       // another case
		{"upper " + strings.ToUpper(key[2:12]), "upper [redacted]"}, // another case, in part
		{"split " + key[:8] + " / " + key[8:] + "!", "split [redacted] / [redacted]!"},
		{"unicode " + strings.ToUpper(pw[3:]), "unicode [redacted]"},
		{"five " + key[:5] + " and " + key[15:], "five " + key[:5] + " and " + key[15:]}, // 5: too short to tell
		{"the secret pieces stay apart from ordinary words: search, timeout, Zq7 ok", "the secret pieces stay apart from ordinary words: search, timeout, Zq7 ok"},
		{"short PG and pg, not pgx", "short [redacted] and [redacted], not [redacted]x"},
		{"clipped " + key[:4] + "… (clipped, 900 bytes)", "clipped [redacted]… (clipped, 900 bytes)"},
	} {
		run := result.EngineRun{Error: c.in, Warnings: result.Notes(c.in)}
		RedactMessages(&run, []string{"", key, pw, "pg"})
		if run.Error != c.want || run.Warnings[0].String() != c.want {
			t.Errorf("%q\n got %q\nwant %q", c.in, run.Error, c.want)
		}
	}
}

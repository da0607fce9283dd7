package meilisearch

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/meilisearch/meilisearch-go"
)

// searchBody writes what json.Marshal writes for the client's
// SearchRequest, byte for byte, whatever the query holds.
func FuzzSearchBody(f *testing.F) {
	for _, q := range []string{"Lot foot lot will.", "", `quote " back \ slash`, "<b>&amp;</b>", "tab\tnew\nline\x00\x1f", "\u2028\u2029é", "\xff\xfe bad utf-8"} {
		f.Add(q, 10, 0)
	}
	strategies := []meilisearch.MatchingStrategy{"", meilisearch.Last, meilisearch.All, meilisearch.Frequency}
	f.Fuzz(func(t *testing.T, q string, k, strategy int) {
		if k < 1 {
			return // refused before encoding
		}
		st := strategies[uint(strategy)%uint(len(strategies))]
		got, err := searchBody(q, k, st)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(&meilisearch.SearchRequest{Query: q, Limit: int64(k), AttributesToRetrieve: []string{PrimaryKey}, MatchingStrategy: st})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("searchBody\n%s\njson.Marshal\n%s", got, want)
		}
	})
}

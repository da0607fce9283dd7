package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// Every kind of the table has every part, and its parts agree with each
// other: a kind added without one, or with a query its truth cannot score,
// fails here.
func TestKindTable(t *testing.T) {
	p, err := NewProducts(Config{Seed: 5, IDs: 400, Prepopulate: 1}, 16, QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	names, hashNames, ranks := map[string]bool{}, map[string]bool{}, map[int]bool{}
	for k, s := range productKinds {
		kind := ProductQueryKind(k)
		if s.draw == nil || s.query == nil {
			t.Fatalf("kind %d (%q): no draw or no query", k, s.name)
		}
		switch {
		case s.name == "" || strings.ContainsAny(s.name, "=, \t") || names[s.name]:
			t.Errorf("kind %d: name %q is empty, taken or not one word of --queries", k, s.name)
		case s.hashName == "" || hashNames[s.hashName]:
			t.Errorf("%s: hash name %q is empty or taken", kind, s.hashName)
		case s.drawRank < 0 || s.drawRank >= int(NumProductQueryKinds) || ranks[s.drawRank]:
			t.Errorf("%s: draw rank %d is out of range or taken", kind, s.drawRank)
		case s.weight < 0 || s.weight > maxMixWeight:
			t.Errorf("%s: default weight %d", kind, s.weight)
		}
		names[s.name], hashNames[s.hashName], ranks[s.drawRank] = true, true, true
		if got, err := ParseProductQueryKind(s.name); got != kind || err != nil {
			t.Errorf("%s: parses as %v, %v", kind, got, err)
		}
		passed := 0
		for i := range uint64(50) {
			pq := p.ProductQueryOfKind(i, kind)
			q := pq.Query()
			if pq.Kind != kind || q.Shape() == "filter" {
				t.Fatalf("%s: query %d is %+v, shape %s", kind, i, pq, q.Shape())
			}
			for _, f := range q.Filters {
				if f.Field != FieldCategory && f.Field != FieldPrice {
					t.Fatalf("%s: a filter on %q, which Matches cannot read", kind, f.Field)
				}
			}
			for id := uint32(1); id <= 400; id++ {
				if Matches(q.Filters, p.Product(id, 0)) {
					passed++
				}
			}
			switch s.truth {
			case Nearest:
				if q.Vector == nil || q.Text != "" {
					t.Fatalf("%s: nearest-neighbour truth for a query %+v that is not a kNN", kind, q)
				}
			case Named:
				if q.Vector != nil || len(q.Filters) > 0 || pq.ID < 1 || int(pq.ID) > p.IDs() || q.Text != productField(p.Product(pq.ID, 0), q.Field) {
					t.Fatalf("%s: query %+v does not look up its product %d alone", kind, q, pq.ID)
				}
			case NoTruth:
			default:
				t.Fatalf("%s: truth %d", kind, s.truth)
			}
		}
		if passed == 0 {
			t.Errorf("%s: no product passes any of 50 queries' filters", kind)
		}
	}
	if DefaultQueryMix.sum() == 0 {
		t.Error("the default mix weighs nothing")
	}
}

// productField is pr's value of a text field, as the engines store it.
func productField(pr Product, name string) string {
	return map[string]string{FieldCategory: pr.Category, FieldSKU: pr.SKU, FieldTitle: pr.Title, FieldDescription: pr.Description}[name]
}

// A filter means what engines.Filter says: a tag equals, a number lies in
// the closed range; every filter must pass; a field a product cannot be
// filtered on passes nothing.
func TestMatches(t *testing.T) {
	pr := Product{Category: "toys", Price: 10, SKU: "TO-1"}
	for _, c := range []struct {
		f    []engines.Filter
		want bool
	}{
		{nil, true},
		{[]engines.Filter{{Field: FieldCategory, Tag: "toys"}}, true},
		{[]engines.Filter{{Field: FieldCategory, Tag: "books"}}, false},
		{[]engines.Filter{{Field: FieldPrice, Min: 10, Max: 10}}, true},
		{[]engines.Filter{{Field: FieldPrice, Min: 10.01, Max: 20}}, false},
		{[]engines.Filter{{Field: FieldPrice, Min: 1, Max: 9.99}}, false},
		{[]engines.Filter{{Field: FieldCategory, Tag: "toys"}, {Field: FieldPrice, Min: 11, Max: 20}}, false},
		{[]engines.Filter{{Field: FieldSKU, Tag: "TO-1"}}, false},
	} {
		if got := Matches(c.f, pr); got != c.want {
			t.Errorf("Matches(%+v) = %v; want %v", c.f, got, c.want)
		}
	}
}

// The kinds' draws and the hash of a mix of every kind are the bytes they
// were when each kind had its parts in four files (values taken from that
// code, commit 461a348): moving a kind's parts into one entry moved no
// byte of any kind's stream.
func TestKindsDrawTheirBytes(t *testing.T) {
	p, err := NewProducts(Config{Seed: 3, IDs: 300, Prepopulate: 0.9}, 16, QueryMix{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for k := range ProductQueryKind(5) {
		for i := range uint64(50) {
			q := p.ProductQueryOfKind(i, k)
			fmt.Fprintf(h, "%d|%s|%s|%s|%s|%d|", q.Kind, q.Category, q.SKU, q.Text, strconv.FormatFloat(q.MinPrice, 'g', -1, 64)+strconv.FormatFloat(q.MaxPrice, 'g', -1, 64), q.ID)
			h.Write(VectorBytes(q.Vector))
		}
	}
	got := []string{p.Hash(), "sha256:" + hex.EncodeToString(h.Sum(nil))}
	want := []string{"sha256:f58e59826243b5ddbc031d0a8ef8893864a2b4baf89818ba7ed9cf89d1fc5e6b", "sha256:d1daf500a3fbb8162d1bf6b2a7d9f0dff4a72ea3d73bf6b06a33281054707766"}
	if !slices.Equal(got, want) {
		t.Fatalf("hash, draws = %v; want %v", got, want)
	}
}

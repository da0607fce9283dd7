package meilifake_test

import (
	"slices"
	"testing"
)

// productSetup creates "books" with category and price filterable and a
// userProvided embedder "emb" of 2 dimensions, and adds four documents.
func productSetup(c client) {
	c.t.Helper()
	setup(c, map[string]any{
		"searchableAttributes": []string{"sku", "title"},
		"filterableAttributes": []string{"category", "price", "sku"},
		"embedders":            map[string]any{"emb": map[string]any{"source": "userProvided", "dimensions": 2}},
	})
	doc := func(id, cat string, price float64, sku, title string, v ...float64) map[string]any {
		return map[string]any{"id": id, "category": cat, "price": price, "sku": sku, "title": title,
			"_vectors": map[string]any{"emb": v}}
	}
	c.mustSucceed("POST", "/indexes/books/documents", []map[string]any{
		doc("1", "IT", 10, "IT-500", "red lamp", 1, 0),
		doc("2", "IT", 25, "IT-5000", "blue lamp", 0.9, 0.1),
		doc("3", "TO", 12, "TO-7", "green chair", 0, 1),
		doc("4", "TO", 30, "TO-500", "red chair", 0.99, 0.01),
	})
}

func TestVectorSearch(t *testing.T) {
	_, c := newFake(t)
	productSetup(c)
	search := func(body map[string]any) []string {
		t.Helper()
		status, out := c.do("POST", "/indexes/books/search", body)
		if status != 200 {
			t.Fatalf("%v: %d %v", body, status, out)
		}
		return ids(t, out)
	}
	knn := map[string]any{"q": "", "vector": []float64{1, 0}, "hybrid": map[string]any{"embedder": "emb", "semanticRatio": 1.0}, "limit": 3}
	if got := search(knn); !slices.Equal(got, []string{"1", "4", "2"}) {
		t.Errorf("kNN: %v; want the three nearest by cosine, 1 4 2", got)
	}
	knn["filter"] = []string{`category = "TO"`}
	if got := search(knn); !slices.Equal(got, []string{"4", "3"}) {
		t.Errorf("kNN in category TO: %v; want 4 3 (pre-filtered: every match, not fewer)", got)
	}
	knn["filter"] = []string{"price 10 TO 25"}
	if got := search(knn); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("kNN with price 10 TO 25 (inclusive): %v; want 1 2 3", got)
	}
	// A phrase in one attribute: IT-500 and not IT-5000 or TO-500.
	if got := search(map[string]any{"q": `"IT 500"`, "attributesToSearchOn": []string{"sku"}}); !slices.Equal(got, []string{"1"}) {
		t.Errorf("phrase lookup: %v; want 1", got)
	}
	if got := search(map[string]any{"q": "", "filter": []string{`sku = "it-500"`}}); !slices.Equal(got, []string{"1"}) {
		t.Errorf("filter lookup (case-insensitive, as facet values are): %v; want 1", got)
	}
	// Hybrid: "green" matches 3 by its words; the vector is nearest 1.
	status, out := c.do("POST", "/indexes/books/search", map[string]any{"q": "green", "vector": []float64{1, 0},
		"hybrid": map[string]any{"embedder": "emb", "semanticRatio": 0.5}, "limit": 2})
	got := ids(t, out)
	if status != 200 || !slices.Contains(got, "3") || !slices.Contains(got, "1") || out["semanticHitCount"] == nil {
		t.Errorf("hybrid: %d %v; want the text match 3 and the nearest 1 (the two best of both kinds), and semanticHitCount", status, out)
	}
	status, out = c.do("POST", "/indexes/books/search", map[string]any{"q": "", "vector": []float64{1, 0, 0}, "hybrid": map[string]any{"embedder": "emb"}})
	wantError(t, "wrong dimensions", status, out, 400, "invalid_vector_dimensions")
	status, out = c.do("POST", "/indexes/books/search", map[string]any{"q": "", "filter": "category = IT OR price > 3"})
	wantError(t, "OR", status, out, 501, "meilifake_not_modelled")
	// Vectors are not a field of the stored document.
	if _, d := c.do("GET", "/indexes/books/documents/1", nil); d["_vectors"] != nil || d["sku"] != "IT-500" {
		t.Errorf("document: %v", d)
	}
}

func TestVectorDocumentsAndSettings(t *testing.T) {
	_, c := newFake(t)
	productSetup(c)
	task := c.write("POST", "/indexes/books/documents", []map[string]any{{"id": "9", "_vectors": map[string]any{"emb": []float64{1, 2, 3}}}})
	if task["status"] != "failed" || task["error"].(map[string]any)["code"] != "invalid_vector_dimensions" {
		t.Errorf("a vector of the wrong length: %v; want a failed task invalid_vector_dimensions", task)
	}
	status, body := c.do("PATCH", "/indexes/books/settings", map[string]any{"embedders": map[string]any{"x": map[string]any{"source": "userProvided"}}})
	wantError(t, "no dimensions", status, body, 400, "invalid_settings_embedders")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"embedders": map[string]any{"x": map[string]any{"source": "openAi"}}})
	wantError(t, "openAi", status, body, 501, "meilifake_not_modelled")
	status, body = c.do("PATCH", "/indexes/books/settings", map[string]any{"filterableAttributes": "price"})
	wantError(t, "filterable not a list", status, body, 400, "invalid_settings_filterable_attributes")
}

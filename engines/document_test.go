package engines

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecodeJSONDocument(t *testing.T) {
	fields := []FieldSpec{
		{Name: "title", Type: Text},
		{Name: "category", Type: Tag},
		{Name: "price", Type: Numeric},
		{Name: "embedding", Type: Vector, Dim: 2},
	}
	got, err := DecodeJSONDocument([]byte(`{"price": 9.5, "id": "7", "title": "Caf\u00e9\n\nbar", "category": "tools",
		"embedding": [0.25, -1], "timestamp": "2026-01-01T00:00:00Z"}`), "id", "7", fields)
	if err != nil {
		t.Fatal(err)
	}
	want := Document{ID: "7", Fields: []Field{
		{Name: "title", Text: "Café\n\nbar"},
		{Name: "category", Text: "tools"},
		{Name: "price", Number: 9.5},
		{Name: "embedding", Vector: []float32{0.25, -1}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}

	// Absent and null members are left out; the ID may live outside.
	got, err = DecodeJSONDocument([]byte(`{"title": null}`), "", "x", fields)
	if err != nil || got.ID != "x" || len(got.Fields) != 0 {
		t.Fatalf("got %+v, %v; want document x without fields", got, err)
	}

	for _, c := range []struct{ name, body, want string }{
		{"not JSON", `{"id":`, "not a JSON object"},
		{"an array", `[{"id": "7"}]`, "not a JSON object"},
		{"null", `null`, "null"},
		{"no id", `{"title": "a"}`, `no string "id"`},
		{"a numeric id", `{"id": 7}`, `no string "id"`},
		{"another document", `{"id": "8"}`, `asked for document "7", the engine answered with "8"`},
		{"a number for text", `{"id": "7", "title": 5}`, "title is not a text value"},
		{"a string for a number", `{"id": "7", "price": "9.5"}`, "price is not a numeric value"},
		{"a vector of strings", `{"id": "7", "embedding": ["a"]}`, "embedding is not a vector value"},
		{"a float32 overflow", `{"id": "7", "embedding": [1e100]}`, "embedding is not a vector value"},
	} {
		if _, err := DecodeJSONDocument([]byte(c.body), "id", "7", fields); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", c.name, err, c.want)
		}
	}
}

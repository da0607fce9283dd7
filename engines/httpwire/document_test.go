package httpwire

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

func TestDecodeJSONDocument(t *testing.T) {
	fields := []engines.FieldSpec{
		{Name: "title", Type: engines.Text},
		{Name: "category", Type: engines.Tag},
		{Name: "price", Type: engines.Numeric},
		{Name: "embedding", Type: engines.Vector, Dim: 2},
	}
	got, err := DecodeDocument([]byte(`{"price": 9.5, "id": "7", "title": "Caf\u00e9\n\nbar", "category": "tools",
		"embedding": [0.25, -1], "timestamp": "2026-01-01T00:00:00Z"}`), "id", "7", fields)
	if err != nil {
		t.Fatal(err)
	}
	want := engines.Document{ID: "7", Fields: []engines.Field{
		{Name: "title", Text: "Café\n\nbar"},
		{Name: "category", Text: "tools"},
		{Name: "price", Number: 9.5},
		{Name: "embedding", Vector: []float32{0.25, -1}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}

	// Absent and null members are left out; the ID may live outside.
	got, err = DecodeDocument([]byte(`{"title": null}`), "", "x", fields)
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
		if _, err := DecodeDocument([]byte(c.body), "id", "7", fields); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", c.name, err, c.want)
		}
	}
}

// FuzzDecodeJSONDocument: any body is a document or an error, never a
// panic; a document holds only schema fields, in schema order, each as
// encoding/json reads the body's member.
func FuzzDecodeJSONDocument(f *testing.F) {
	fields := []engines.FieldSpec{{Name: "t", Type: engines.Text}, {Name: "n", Type: engines.Numeric}, {Name: "v", Type: engines.Vector, Dim: 2}}
	for _, s := range []string{`{"id":"1","t":"a","n":1.5,"v":[1,2]}`, `{"id":"1","t":null}`, `{"id":"2"}`, `[]`, `null`, `{"id":"1","n":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := DecodeDocument(body, "id", "1", fields)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || m["id"] != "1" || d.ID != "1" {
			t.Fatalf("decoded %+v from %q, which is not an object with id \"1\"", d, body)
		}
		last := -1
		for _, got := range d.Fields {
			i := slices.IndexFunc(fields, func(s engines.FieldSpec) bool { return s.Name == got.Name })
			if i <= last {
				t.Fatalf("field %q out of schema order in %+v", got.Name, d)
			}
			last = i
			switch v := m[got.Name].(type) {
			case string:
				if fields[i].Type != engines.Text || got.Text != v {
					t.Fatalf("field %s = %+v from %q", got.Name, got, v)
				}
			case float64:
				if fields[i].Type != engines.Numeric || got.Number != v {
					t.Fatalf("field %s = %+v from %v", got.Name, got, v)
				}
			case []any:
				if fields[i].Type != engines.Vector || len(got.Vector) != len(v) {
					t.Fatalf("field %s = %+v from %v", got.Name, got, v)
				}
			default:
				t.Fatalf("field %s decoded from %T %v", got.Name, v, v)
			}
		}
	})
}

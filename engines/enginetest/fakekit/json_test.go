package fakekit

import (
	"encoding/json"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	var m map[string]any
	if err := DecodeJSON([]byte(`{"n": 12345678901234567890, "f": 1.0}`), &m); err != nil {
		t.Fatal(err)
	}
	if m["n"] != json.Number("12345678901234567890") || m["f"] != json.Number("1.0") {
		t.Errorf("numbers %#v, %#v; want them as written", m["n"], m["f"])
	}
	for _, bad := range []string{`{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, ``} {
		if err := DecodeJSON([]byte(bad), &m); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded; want an error", bad)
		}
	}
	if err := DecodeJSON([]byte("{\"a\":1}\n  "), &m); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

func TestScalar(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
		ok   bool
	}{
		{"x", "x", true}, {json.Number("1.5"), "1.5", true}, {true, "true", true}, {false, "false", true},
		{nil, "", false}, {map[string]any{}, "", false}, {[]any{"x"}, "", false},
	} {
		if got, ok := Scalar(c.v); got != c.want || ok != c.ok {
			t.Errorf("Scalar(%#v) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

package fakekit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// DecodeJSON decodes one JSON value from b into v, numbers as json.Number
// (so a fake sees 1 and 1.0 as written, and large integers exactly), and
// fails on content after the value, which the engines' parsers refuse.
func DecodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected content after the value")
	}
	return nil
}

// Scalar is a JSON scalar's string form (a string, a json.Number or a
// boolean), and false for null, an object or an array: Elasticsearch keeps
// every setting and query text as a string, and a Typesense multi_search
// body's parameters become the query string's.
func Scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

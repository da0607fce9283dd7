package runner

import (
	"reflect"

	"github.com/searchbench/searchbench/engines/quote"
)

// RedactMessages removes every secret from the free-text messages of the
// record v points to: the strings under fields tagged `redact:"message"`
// (errors, warnings, failure examples), found by walking every struct,
// slice, map and pointer. Drivers redact their own errors, but a run's
// record quotes messages from many places (driver and library errors as the
// runner met them, container logs), and a server or proxy may quote a part
// of a secret, in another case or encoding, which a driver may miss: the
// scrub is quote.Scrubber's (every run of six characters of every form a
// driver sends). Only messages are rewritten: a common password such as
// "postgres" must not turn the engine's name, label or options into
// "[redacted]".
func RedactMessages(v any, secrets []string) {
	if sc := quote.NewScrubber(secrets...); sc != nil {
		redactValue(reflect.ValueOf(v), sc, false)
	}
}

func redactValue(v reflect.Value, sc *quote.Scrubber, message bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactValue(v.Elem(), sc, message)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() {
				redactValue(v.Field(i), sc, message || f.Tag.Get("redact") == "message")
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactValue(v.Index(i), sc, message)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			// Map values are not addressable: rewrite a copy, put it back.
			c := reflect.New(v.Type().Elem()).Elem()
			c.Set(v.MapIndex(k))
			redactValue(c, sc, message)
			v.SetMapIndex(k, c)
		}
	case reflect.String:
		if message && v.CanSet() {
			v.SetString(sc.String(v.String()))
		}
	}
}

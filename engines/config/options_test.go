package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
)

// read is a driver's option function as the drivers write it.
type read struct {
	timeout time.Duration
	pool    int
	hybrid  bool
	mode    string
	prefix  string
}

func readAll(raw map[string]string) (read, error) {
	o := New("drv", raw)
	r := read{
		timeout: o.Duration("timeout", 5*time.Second),
		pool:    o.Int("pool", 2048, 1, 10000),
		hybrid:  o.Bool("hybrid", false),
		mode:    o.Enum("mode", "", "last", "all"),
		prefix:  o.String("prefix", "p:"),
	}
	return r, o.Err()
}

func TestOptionsDefaultsAndValues(t *testing.T) {
	r, err := readAll(nil)
	if err != nil || r != (read{5 * time.Second, 2048, false, "", "p:"}) {
		t.Fatalf("defaults = %+v, %v", r, err)
	}
	r, err = readAll(map[string]string{"timeout": "250ms", "pool": "1", "hybrid": "on", "mode": "all", "prefix": ""})
	if err != nil || r != (read{250 * time.Millisecond, 1, true, "all", ""}) {
		t.Fatalf("values = %+v, %v", r, err)
	}
}

// Every spelling of a switch, the scenario files' on/off included.
func TestOptionsBool(t *testing.T) {
	for v, want := range map[string]bool{
		"on": true, "ON": true, "true": true, "1": true, "t": true, "TRUE": true,
		"off": false, "Off": false, "false": false, "0": false, "F": false,
	} {
		r, err := readAll(map[string]string{"hybrid": v})
		if err != nil || r.hybrid != want {
			t.Errorf("hybrid=%q: %v, %v; want %v", v, r.hybrid, err, want)
		}
	}
	for _, v := range []string{"", "yes", "2", "onn"} {
		if _, err := readAll(map[string]string{"hybrid": v}); err == nil || !strings.Contains(err.Error(), "must be true or false") {
			t.Errorf("hybrid=%q: %v; want a refusal", v, err)
		}
	}
}

func TestOptionsBadValues(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"timeout", "5", `drv: option timeout="5": must be a positive Go duration`},
		{"timeout", "0s", `drv: option timeout="0s": must be a positive`},
		{"timeout", "-1s", `must be a positive`},
		{"pool", "0", `drv: option pool="0": must be a whole number from 1 to 10000`},
		{"pool", "10001", `from 1 to 10000`},
		{"pool", "x", `from 1 to 10000`},
		{"pool", "-3", `from 1 to 10000`},
		{"mode", "any", `drv: option mode="any": must be last or all`},
	} {
		_, err := readAll(map[string]string{c.key: c.value})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%q: %v; want %q", c.key, c.value, err, c.want)
		}
	}
}

func TestOptionsUnknown(t *testing.T) {
	_, err := readAll(map[string]string{"shards": "2", "pool": "3"})
	want := `drv: unknown option "shards" (known: hybrid, mode, pool, prefix, timeout)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
	_, err = readAll(map[string]string{"b": "1", "a": "2"})
	if err == nil || !strings.HasPrefix(err.Error(), `drv: unknown options "a", "b" (known: `) {
		t.Fatalf("two unknown: %v", err)
	}
	// A bad value is reported before an unknown key.
	_, err = readAll(map[string]string{"zz": "1", "pool": "0"})
	if err == nil || !strings.Contains(err.Error(), "pool") || strings.Contains(err.Error(), "zz") {
		t.Fatalf("bad and unknown: %v", err)
	}
	err = New("none", map[string]string{"pool": "3"}).Err()
	if err == nil || err.Error() != `none: unknown option "pool" (none takes no options)` {
		t.Fatalf("driver without options: %v", err)
	}
	if err := New("none", nil).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestOptionsCustomAndFail(t *testing.T) {
	o := New("drv", map[string]string{"list": "a,b", "other": "x"})
	list := Value(o, "list", []string{"all"}, func(v string) ([]string, error) {
		if v == "" {
			return nil, errors.New("must not be empty")
		}
		return strings.Split(v, ","), nil
	})
	if len(list) != 2 || list[1] != "b" {
		t.Fatalf("custom value %v", list)
	}
	o.String("other", "")
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	o.Fail("list=%s needs other=y", "a,b")
	if err := o.Err(); err == nil || err.Error() != "drv: list=a,b needs other=y" {
		t.Fatalf("Fail: %v", err)
	}
}

// Study B's fields option and the lists of field names read alike in
// every driver.
func TestFieldTypesAndNames(t *testing.T) {
	got, err := FieldTypes(" tag,numeric ,vector")
	if err != nil || len(got) != 3 || !got[engines.Tag] || !got[engines.Numeric] || !got[engines.Vector] || got[engines.Text] {
		t.Fatalf("%v %v", got, err)
	}
	if all := AllFieldTypes(); len(all) != 4 {
		t.Fatalf("every type: %v", all)
	}
	for _, bad := range []string{"", "tag,tag", "keyword", "text,", "Text"} {
		if _, err := FieldTypes(bad); err == nil || !strings.Contains(err.Error(), "from text, tag, numeric and vector") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	names, err := Names("sku, title", nil, "x")
	if err != nil || len(names) != 2 || names[1] != "title" {
		t.Fatalf("%v %v", names, err)
	}
	upper := func(s string) bool { return strings.ToUpper(s) == s }
	for _, bad := range []string{"", "sku,sku", "a,,b"} {
		if _, err := Names(bad, nil, "x"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := Names("SKU,title", upper, "upper case"); err == nil || !strings.Contains(err.Error(), "(upper case)") {
		t.Errorf("a name its rule refuses: %v", err)
	}
}

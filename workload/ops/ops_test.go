package ops

import (
	"slices"
	"strings"
	"testing"
)

// The places of the operations in Table, for the tests' mixes.
const (
	search = iota
	upsert
	del
	get
)

func TestTable(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"search", "upsert", "delete", "get"}) {
		t.Errorf("Names() = %q", got)
	}
	for i, name := range Names() {
		if j, err := Parse(name); err != nil || j != i || Index(name) != i {
			t.Errorf("Parse(%q) = %d, %v; Index %d; want %d", name, j, err, Index(name), i)
		}
	}
	if _, err := Parse("browse"); err == nil || !strings.Contains(err.Error(), "search, upsert, delete, get") {
		t.Errorf("Parse(browse): %v; want an error listing the operations", err)
	}
	if Index("browse") != -1 {
		t.Error("Index(browse) is not -1")
	}
}

func TestParseMix(t *testing.T) {
	good := map[string]Mix{
		"mixed":                               {search: 80, upsert: 19, del: 1},
		"upsert":                              {upsert: 1},
		"80/19/1":                             {search: 80, upsert: 19, del: 1},
		" 50 / 50 / 0 ":                       {search: 50, upsert: 50},
		"search=80,upsert=19,delete=1":        {search: 80, upsert: 19, del: 1},
		"upsert=3":                            {upsert: 3},
		"search=0.5, delete=0.5":              {search: 0.5, del: 0.5},
		"search=70,get=10,upsert=19,delete=1": {search: 70, upsert: 19, del: 1, get: 10},
		"get=1":                               {get: 1},
	}
	for in, want := range good {
		got, err := ParseMix(in)
		if err != nil || got != want {
			t.Errorf("ParseMix(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80/19", "-1/1/1", "0/0/0", "search=-1", "search=x", "browse=1", "a/b/c",
		"NaN/1/1", "Inf/1/1", "fast", "search=1,search=2", "get=0", "search=1,,upsert=1"} {
		if m, err := ParseMix(in); err == nil {
			t.Errorf("ParseMix(%q) = %v; want an error", in, m)
		}
	}
	// The slash form is the three original operations only: four values
	// are refused with the form that can say it.
	_, err := ParseMix("70/10/19/1")
	if err == nil || !strings.Contains(err.Error(), "search=70,upsert=19,delete=1,get=10") {
		t.Errorf("ParseMix(70/10/19/1) error %v; want one naming the named form", err)
	}
}

func TestMixString(t *testing.T) {
	for m, want := range map[Mix]string{
		Presets["mixed"]:  "search=80,upsert=19,delete=1",
		Presets["upsert"]: "upsert=100",
		{search: 7, upsert: 1.9, del: 0.1, get: 1}: "search=70,upsert=19,delete=1,get=10",
		{get: 1, del: 3}: "delete=75,get=25",
	} {
		if s := m.String(); s != want {
			t.Errorf("%v.String() = %q; want %q", [N]float64(m), s, want)
		}
		back, err := ParseMix(m.String())
		if err != nil || back.String() != want {
			t.Errorf("ParseMix(%q) = %v, %v; want it back", want, back, err)
		}
	}
}

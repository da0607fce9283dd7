package scenario

import (
	"strings"
	"testing"
)

func FuzzParseUsers(f *testing.F) {
	for _, s := range []string{"10,100,500,800,1000", "1", "", ",", "1,,2", " 3 ", "-1", "1e3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		users, err := ParseUsers(s)
		if err == nil && len(users) == 0 {
			t.Fatalf("%q: no levels and no error", s)
		}
	})
}

func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{"pool=3", "postgres:pool=3\nx=y", "=", "a:=1", "nosuch:x=1", "k=v=w", ":x=1", "bleve:a:b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		byEngine, all, err := ParseOptions(strings.Split(s, "\n"))
		if err != nil {
			return
		}
		for k := range all {
			if k == "" {
				t.Fatalf("%q: an option with no key", s)
			}
		}
		for e, opts := range byEngine {
			for k := range opts {
				if e == "" || k == "" {
					t.Fatalf("%q: engine %q option %q", s, e, k)
				}
			}
		}
	})
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Input that used to pass validation and fail only once something had
// started (a container, or hours of measuring before the results could not
// be written): each is now exit 2 before anything starts, in one line that
// begins with the field at fault.
func TestBadInputFoundBeforeAnythingStarts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pg := []string{"--engine", "postgres"}
	for _, c := range []struct {
		args  []string
		field string // the error's first words
	}{
		{[]string{"--engine", "postgres", "--url", "::bad"}, "postgres: the URL"},
		{[]string{"--engine", "postgres", "--url", "http://x:y"}, "postgres: the URL"},
		{[]string{"--engine", "typesense", "--url", "ftp://x", "--api-key", "k"}, "typesense: the URL"},
		{[]string{"--engine", "typesense", "--url", "http://127.0.0.1:1"}, "typesense: an API key is needed"},
		{[]string{"--engine", "meilisearch", "--url", "not a url"}, "meilisearch: the URL"},
		{[]string{"--engine", "valkey", "--url", "http://x"}, "valkey: the URL"},
		{[]string{"--engine", "amgix-now", "--url", "ftp://x"}, "amgix-now: the URL"},
		{[]string{"--engine", "amgix-now", "--url", "http://127.0.0.1:1", "--password", "p"}, "amgix-now: Amgix Now has no user or password"},
		{[]string{"--engine", "amgix-now", "--username", "u"}, "amgix-now: Amgix Now has no user or password"},
		{append(pg, "--cpuset", "abc"), "cpuset: "},
		{append(pg, "--cpuset", "1-0"), "cpuset: "},
		{append(pg, "--cpuset", "0,+1"), "cpuset: "},
		{append(pg, "--cpuset", "4096"), "cpuset: "},
		{append(pg, "--memory", "1000"), "memory: "},
		{[]string{"--engine", "bleve", "--cpuset", "0"}, "cpuset: bleve is embedded"},
		{[]string{"--engine", "bleve", "--memory", "100000000"}, "memory: bleve is embedded"},
		{append(pg, "--url", "postgres://u@127.0.0.1:1/db", "--memory", "100000000"), "memory: --url attaches"},
		{[]string{"--out", file}, "out: " + file + " is not a directory"},
		{[]string{"--out", filepath.Join(file, "x", "y")}, "out: "},
		{[]string{"--data-dir", file}, "data-dir: " + file + " is not a directory"},
	} {
		out := c.args
		if !strings.HasPrefix(c.field, "out: ") {
			out = append(out, "--out", t.TempDir())
		}
		code, stdout, stderr := runCLI(t, context.Background(), append([]string{"run"}, out...)...)
		if code != exitBadInput || !strings.HasPrefix(stderr, "searchbench: "+c.field) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line starting %q", c.args, code, stderr, stdout, c.field)
		}
	}
	// Not there yet is fine: the run makes it.
	dir := filepath.Join(t.TempDir(), "new", "results")
	if code, _, stderr := runCLI(t, context.Background(), "run", "--dry-run", "--out", dir); code != exitOK {
		t.Errorf("a new --out directory: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a dry run made %s (%v)", dir, err)
	}
}

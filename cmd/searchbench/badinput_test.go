package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Input that used to pass validation and fail only once something had
// started (a container, or hours of measuring before the results could not
// be written), or was accepted and silently ignored: each is now exit 2
// before anything starts, in one line that begins with the field at fault,
// and --dry-run, which runs the same checks, refuses it too.
func TestBadInputFoundBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pg := []string{"--engine", "postgres"}
	// A scenario may not carry the command line's own flags: this one's
	// live: key used to open a listener.
	liveScenario := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(liveScenario, []byte("command: run\nusers: 2\nlive: 127.0.0.1:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port this test holds, for --live.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		args  []string
		field string // the error's first words
	}{
		{[]string{"--engine", "postgres", "--url", "::bad"}, "postgres: the URL"},
		{[]string{"--scenario", "/dev/zero"}, "scenario: /dev/zero: larger than 1 MiB"},
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
		// Ports out of range parse as URLs; they failed when dialled.
		{[]string{"--engine", "meilisearch", "--url", "http://127.0.0.1:99999"}, "meilisearch: the URL's port 99999 is not 1 to 65535"},
		{[]string{"--engine", "valkey", "--url", "redis://127.0.0.1:99999"}, "valkey: the URL's port 99999 is not 1 to 65535"},
		// Create refused the product schema after the container started.
		{[]string{"--engine", "bleve", "--corpus", "product"}, `corpus: bleve cannot index the "product" schema: field category: type tag`},
		// A mix of query kinds: its grammar, its corpus, its sample.
		{[]string{"--corpus", "product", "--engine", "postgres", "--queries", "knn=1,hybrid=x"}, "queries: hybrid=x: the weight must be a whole number"},
		{[]string{"--corpus", "product", "--engine", "postgres", "--queries", "knn=0"}, `queries: "knn=0" gives every kind weight 0`},
		{[]string{"--corpus", "product", "--engine", "postgres", "--queries", "vector=1"}, `queries: unknown query kind "vector"`},
		{[]string{"--queries", "knn=1"}, "queries: only the product corpus has kinds of query"},
		// Accepted, and read as something else or dropped.
		{[]string{"--corpus", "product", "--engine", "postgres", "--queries", ""}, "queries: an empty mix of query kinds"},
		{[]string{"--exact-queries", "5"}, "exact-queries: only the product corpus has exact answers"},
		{[]string{"--interval", "0"}, "interval: 0s is shorter than 100ms"},
		{[]string{"--scenario", liveScenario}, "scenario " + liveScenario + ": live is not a scenario setting"},
		{[]string{"--corpus", "product", "--engine", "postgres", "--exact-queries", "-1"}, "exact-queries: -1 is out of range (0 to 10000)"},
		{[]string{"--engine", "meilisearch", "--image", "Not An Image!!"}, `image: "Not An Image!!" is not an image name`},
		// Accepted, and the empty level dropped (--mix refuses its own).
		{[]string{"--users", "10,,20"}, `users: "10,,20" has an empty item (item 2)`},
		{[]string{"--users", "2,"}, `users: "2," has an empty item (item 2)`},
		{[]string{"--engine", "bleve,"}, `engine: "bleve," has an empty item (item 2)`},
		// --shard silently overruled the index --shards reads.
		{[]string{"--engine", "meilisearch", "--url", "http://127.0.0.1:7700", "--shard", "0/3", "--shards", "3"}, "shards: --shard 0/3 and --shards 3 both say which shard this is"},
		// Every level ran and measured no call, unwarned.
		{[]string{"--measure", "1ns"}, "measure: 1ns is shorter than 100ms"},
		// A timeline of intervals too short to time, or longer than the
		// window they cut.
		{[]string{"--interval", "50ms"}, "interval: 50ms is shorter than 100ms"},
		{[]string{"--interval", "-1s"}, "interval: -1s is shorter than 100ms"},
		{[]string{"--measure", "2s", "--interval", "3s"}, "interval: 3s is longer than the window it cuts (measure 2s)"},
		// Ignored: the embedded engine has no users.
		{[]string{"--password", "p"}, "password: bleve is embedded"},
		{[]string{"--api-key", "k"}, "api-key: bleve is embedded"},
		// The plan's checks name Go fields for a library caller; the CLI
		// says its flags.
		{[]string{"--spawn-rate", "0"}, "spawn-rate: 0 must be > 0"},
		{[]string{"--timeout", "0s"}, "timeout: 0s must be > 0"},
		{[]string{"--timeout", "1ns"}, "timeout: 1ns is shorter than 1ms"},
		// A call that may take an hour holds an interrupted or failed run
		// that long: a request timeout past ten minutes is a typo.
		{[]string{"--timeout", "1h"}, "timeout: 1h0m0s is longer than 10m0s"},
		{[]string{"--timeout", "10m1s"}, "timeout: 10m1s is longer than 10m0s"},
		{[]string{"--users", "3", "--spawn-rate", "1e-300"}, "spawn-rate: 1e-300 users/s would take longer than 24h0m0s"},
		{[]string{"--users", "100000", "--spawn-rate", "1"}, "spawn-rate: 1 users/s would take longer than 24h0m0s to start 100000 users"},
		// The live view's address is bound before the run starts: a run
		// without the view it was asked for would go unnoticed for hours.
		{[]string{"--live", taken.Addr().String()}, "live: listen tcp " + taken.Addr().String() + ": bind: address already in use"},
		{[]string{"--live", "192.0.2.1:8089"}, "live: listen tcp 192.0.2.1:8089: bind: "},
		{[]string{"--live", "8089"}, "live: listen tcp: address 8089: missing port in address"},
	} {
		out := c.args
		if !strings.HasPrefix(c.field, "out: ") {
			out = append(out, "--out", t.TempDir())
		}
		// The dry run first: were it accepted, the real run would start.
		for _, args := range [][]string{append([]string{"run", "--dry-run"}, out...), append([]string{"run"}, out...)} {
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != exitBadInput || !strings.HasPrefix(stderr, "searchbench: "+c.field) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
				t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line starting %q", args, code, stderr, stdout, c.field)
				break
			}
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

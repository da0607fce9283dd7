package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
	"github.com/searchbench/searchbench/engines/valkey/valkeytest"
	"github.com/searchbench/searchbench/runner/result"
)

// An engine answering storms of 503, 429 and 500 mid-run: each driver maps
// 503 and 429 to the overloaded class and 500 to other, the run counts them
// so, finishes the level, writes everything and exits 1. The wire-contract
// fakes answer with each engine's own error bodies.
func TestFaultErrorStorms(t *testing.T) {
	t.Parallel()
	const key, n = "storm-key", 25
	cases := []struct {
		engine string
		start  func(t *testing.T) (url string, storm func())
	}{
		{"typesense", func(t *testing.T) (string, func()) {
			f := typesensefake.New(key)
			t.Cleanup(f.Close)
			return f.URL, func() {
				for _, st := range []int{503, 429, 500} {
					f.Inject(typesensefake.Fault{Status: st, Times: n})
				}
			}
		}},
		{"meilisearch", func(t *testing.T) (string, func()) {
			f := meilifake.New(meilifake.Options{MasterKey: key})
			t.Cleanup(f.Close)
			return f.URL, func() {
				for _, st := range []int{503, 429, 500} {
					f.Inject(meilifake.Fault{Status: st, Times: n})
				}
			}
		}},
		{"elasticsearch", func(t *testing.T) (string, func()) {
			f := esfake.New(esfake.Options{APIKey: key})
			t.Cleanup(f.Close)
			return f.URL(), func() {
				for _, st := range []int{503, 429, 500} {
					f.Inject(esfake.Fault{Status: st, Times: n})
				}
			}
		}},
		{"amgix-now", func(t *testing.T) (string, func()) {
			f := amgixfake.New(amgixfake.APIKey(key))
			t.Cleanup(f.Close)
			return f.URL, func() {
				// One storm at a time: each replaces the one before.
				for _, st := range []int{503, 429, 500} {
					f.ClearFaults()
					f.Inject(amgixfake.Fault{Status: st, Times: n})
					time.Sleep(150 * time.Millisecond)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			url, storm := c.start(t)
			dir := t.TempDir()
			var w watched
			w.on(measuring, func() {
				time.Sleep(200 * time.Millisecond)
				storm()
			})
			code, stdout, stderr := runWatched(t, context.Background(), &w, "run", "--engine", c.engine, "--url", url, "--api-key", key,
				"--ids", "200", "--users", "4", "--spawn-rate", "1000", "--settle", "100ms", "--measure", "1500ms", "--relevance-queries", "0",
				"--timeout", "5s", "--out", dir)
			r := checkFinished(t, dir, code, stdout, stderr, "failed calls")
			l := firstLevel(t, r, stderr)
			errs := levelErrors(l)
			t.Logf("errors by class: %v", errs)
			// The storms' requests go to measured calls, to the freshness
			// probe and to the stats sampler alike, so the counts are
			// bounded, not exact.
			if errs["overloaded"] == 0 || errs["other"] == 0 || errs["overloaded"] > 2*n || errs["other"] > n {
				t.Errorf("errors %v; want up to %d overloaded (503 and 429) and up to %d other (500), some of each", errs, 2*n, n)
			}
			if s, _ := l.Op("search"); s.Count == 0 {
				t.Error("no successful search around the storms")
			}
			if !strings.Contains(stdout, "overloaded") {
				t.Errorf("the table does not show the overloaded class:\n%s", stdout)
			}
		})
	}
}

// valkeyDo sends one command to a Valkey server and returns its reply line.
func valkeyDo(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(c, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c, "$%d\r\n%s\r\n", len(a), a)
	}
	return bufio.NewReader(c).ReadString('\n')
}

// A real Valkey (Debian's valkey-server) mid-ladder: a storm of OOM
// rejections (maxmemory set to one byte for half a second, as a full
// server answers), then the process killed and started again on its port.
// Rejections count as overloaded, the gap's failures as other, and the
// ladder climbs on once the server is back.
func TestFaultRealValkey(t *testing.T) {
	srv := valkeytest.Start(t)
	dir := t.TempDir()
	var w watched
	w.on("120/s: repetition 1 of 1", func() {
		time.Sleep(200 * time.Millisecond)
		if _, err := valkeyDo(srv.Addr, "CONFIG", "SET", "maxmemory", "1"); err != nil {
			t.Error(err)
		}
		time.Sleep(500 * time.Millisecond)
		if _, err := valkeyDo(srv.Addr, "CONFIG", "SET", "maxmemory", "0"); err != nil {
			t.Error(err)
		}
	})
	w.on("144/s: repetition 1 of 1", func() {
		time.Sleep(200 * time.Millisecond)
		srv.Kill()
		time.Sleep(500 * time.Millisecond)
		if err := srv.Restart(); err != nil {
			t.Error(err)
		}
	})
	code, stdout, stderr := runWatched(t, context.Background(), &w, "ladder", "--engine", "valkey", "--url", "redis://"+srv.Addr,
		"--option", "matching_indexes=0", "--corpus", "product", "--dim", "8", "--ids", "300", "--mix", "upsert",
		"--start", "100", "--step", "1.2", "--stop", "180", "--duration", "1500ms", "--repeat", "1", "--workers", "16",
		"--explode", "1000000", "--factor", "1000000", "--timeout", "1s", "--out", dir)
	r := checkFinished(t, dir, code, stdout, stderr, "failed calls")
	rungs := r.Engines[0].Ladder.Rungs
	if len(rungs) != 4 {
		t.Fatalf("%d rungs; want 4 (100, 120, 144, 172.8/s)", len(rungs))
	}
	byClass := func(i int) map[string]int64 {
		out := map[string]int64{}
		for _, o := range rungs[i].Reps[0].Ops {
			for c, n := range o.Errors {
				out[c] += n
			}
		}
		return out
	}
	for i := range rungs {
		t.Logf("%.0f/s: sent %d, errors %v", rungs[i].Offered, rungs[i].Reps[0].Sent, byClass(i))
	}
	if e := byClass(0); sum(e) != 0 {
		t.Errorf("first rung: errors %v before any fault", e)
	}
	if e := byClass(1); e["overloaded"] == 0 {
		t.Errorf("OOM rung: errors %v; want the rejections counted as overloaded", e)
	}
	if e := byClass(2); sum(e) == 0 {
		t.Errorf("kill rung: no errors counted across the gap")
	}
	if last := rungs[3].Reps[0]; upserts(last) == 0 || last.Errors != 0 {
		t.Errorf("last rung: %d upserts, %d errors; want the server back", upserts(last), last.Errors)
	}
}

// upserts is a repetition's successful upserts (0 when it ran none).
func upserts(r result.Rep) int64 {
	o, _ := r.Op("upsert")
	return o.Count
}

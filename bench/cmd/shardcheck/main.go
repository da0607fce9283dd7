// Command shardcheck checks a merged result of a sharded closed-loop run
// and, given the result of the same run in one shard, the scaling claim of
// sharded runs: against a target of known service time, N shards of U users
// each give the latency percentiles of one shard of U users (within a
// tolerance) and N times its throughput, and Little's law (users = rate ×
// mean latency) holds for the merged result. bench/swarm.sh runs it on the
// results its Swarm runs fetched.
//
//	shardcheck -shards 3 [-base one/result.json [-strict]] [-tolerance 0.05] merged/result.json
//
// It prints the figures and every check; exit 1 when a check fails, 2 on
// bad input. The scaling checks are measurements of the machine as much as
// of searchbench (shards that share a busy machine's cores with each other
// and the target lengthen the tail): they are printed as met or not, and
// fail the command only with -strict.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/searchbench/searchbench/runner/result"
)

func main() {
	shards := flag.Int("shards", 0, "shards the merged result must list")
	base := flag.String("base", "", "result of the same run in one shard, for the scaling checks")
	tol := flag.Float64("tolerance", 0.05, "relative tolerance of the scaling checks and of Little's law")
	op := flag.String("op", "search", "operation whose figures are compared")
	strict := flag.Bool("strict", false, "a scaling check not met fails the command")
	flag.Parse()
	if flag.NArg() != 1 || *shards < 1 || !(*tol > 0) {
		fmt.Fprintln(os.Stderr, "shardcheck: usage: shardcheck -shards N [-base FILE] [-tolerance 0.05] MERGED")
		os.Exit(2)
	}
	c := &checker{tol: *tol}
	merged := c.load(flag.Arg(0), *shards, *op)
	if *base != "" {
		one := c.load(*base, 1, *op)
		if merged != nil && one != nil {
			c.scaling(one, merged, *shards, *strict)
		}
	}
	if c.failed {
		fmt.Println("shardcheck: FAILED")
		os.Exit(1)
	}
	fmt.Println("shardcheck: every check passed")
}

type checker struct {
	tol    float64
	failed bool
}

func (c *checker) check(ok bool, format string, args ...any) {
	mark := "ok  "
	if !ok {
		mark, c.failed = "FAIL", true
	}
	fmt.Printf("  %s %s\n", mark, fmt.Sprintf(format, args...))
}

// measure prints a check that fails the command only when strict.
func (c *checker) measure(strict, ok bool, format string, args ...any) {
	if strict {
		c.check(ok, format, args...)
		return
	}
	mark := "met "
	if !ok {
		mark = "NOT "
	}
	fmt.Printf("  %s %s\n", mark, fmt.Sprintf(format, args...))
}

// figures are one run's, at its one level.
type figures struct {
	name               string
	users              int
	rps, p50, p99, avg float64 // avg: mean latency, ms
}

// load reads a merged result of n shards (n = 1: a one-shard run, merged
// by its coordinator all the same), prints its figures and checks what a
// merge must hold.
func (c *checker) load(path string, n int, op string) *figures {
	res, err := result.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shardcheck:", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %d shards merged\n", path, len(res.Shards))
	c.check(!res.Partial, "the run is complete (partial %v %s)", res.Partial, res.Reason)
	c.check(len(res.Shards) == n, "%d shards listed, want %d", len(res.Shards), n)
	if len(res.Engines) != 1 || len(res.Engines[0].Levels) != 1 {
		c.check(false, "one engine at one level (got %d engines)", len(res.Engines))
		return nil
	}
	lvl := res.Engines[0].Levels[0]
	users := 0
	for _, s := range res.Shards {
		c.check(!s.Missing && !s.Partial, "shard %d on %s: present (missing %v, partial %v %s)", s.Index, s.Hostname, s.Missing, s.Partial, s.Reason)
		c.check(len(s.Starts) > 0, "shard %d: %d synchronised starts recorded, offsets %v", s.Index, len(s.Starts), offsets(s.Starts))
		for _, l := range s.Levels {
			users += l.Users
		}
	}
	c.check(users == lvl.Users, "users summed over the shards: %d, the merged level's %d", users, lvl.Users)
	var f *figures
	for _, o := range lvl.Ops {
		if o.Op != op {
			continue
		}
		c.check(o.ErrorCount() == 0, "%s: %d calls, %d failed", op, o.Count, o.ErrorCount())
		for class, examples := range o.ErrorExamples {
			fmt.Printf("       %s: %d, e.g. %q\n", class, o.Errors[class], examples)
		}
		f = &figures{name: path, users: lvl.Users, rps: o.RPS, p50: o.Latency.P50, p99: o.Latency.P99, avg: o.Latency.Mean}
	}
	if f == nil {
		c.check(false, "no %s figures", op)
		return nil
	}
	// Little's law for a closed loop without think time: each user has one
	// call in flight, so users = rate × time per call. The time per call
	// includes the client's gap between calls, so users / (rate × latency)
	// sits a little above 1.
	little := float64(f.users) / (f.rps * f.avg / 1000)
	fmt.Printf("  %d users: %.0f %s/s, p50 %.2f ms, p99 %.2f ms, mean %.2f ms; users / (rate × mean latency) = %.3f\n",
		f.users, f.rps, op, f.p50, f.p99, f.avg, little)
	c.check(math.Abs(little-1) <= c.tol, "Little's law within %.0f%%: %.3f", 100*c.tol, little)
	return f
}

func offsets(starts []result.ShardStart) []string {
	out := make([]string, len(starts))
	for i, s := range starts {
		out[i] = fmt.Sprintf("%s %.3fms±%.3f late %.3fms", s.Phase, float64(s.Offset)/1e6, float64(s.RTT)/2e6, float64(s.Late)/1e6)
	}
	return out
}

func (c *checker) scaling(one, merged *figures, n int, strict bool) {
	fmt.Printf("scaling: %d shards × %d users against 1 × %d\n", n, merged.users/n, one.users)
	ratio := func(a, b float64) float64 { return a / b }
	c.measure(strict, math.Abs(ratio(merged.p50, one.p50)-1) <= c.tol, "p50 %.2f vs %.2f ms: ×%.3f (within %.0f%%)", merged.p50, one.p50, ratio(merged.p50, one.p50), 100*c.tol)
	c.measure(strict, math.Abs(ratio(merged.p99, one.p99)-1) <= c.tol, "p99 %.2f vs %.2f ms: ×%.3f (within %.0f%%)", merged.p99, one.p99, ratio(merged.p99, one.p99), 100*c.tol)
	r := ratio(merged.rps, one.rps)
	c.measure(strict, math.Abs(r/float64(n)-1) <= c.tol, "throughput %.0f vs %.0f/s: ×%.3f, want ×%d (within %.0f%%)", merged.rps, one.rps, r, n, 100*c.tol)
}

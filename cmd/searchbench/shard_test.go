package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/bench/loopback"
	"github.com/searchbench/searchbench/runner/result"
)

// givenPorts holds the ports freePort has handed out to tests still
// running: tests that run in parallel bind theirs only later (a
// coordinator's --listen), so a port free now may already be another's.
var givenPorts sync.Map

// freePort is a port of 127.0.0.1 below 32768 that nothing listens on now
// and that no other test of this process was given.
func freePort(t *testing.T) string {
	t.Helper()
	for p := 21740; p < 21800; p++ {
		if _, given := givenPorts.LoadOrStore(p, true); given {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			ln.Close()
			t.Cleanup(func() { givenPorts.Delete(p) })
			return ln.Addr().String()
		}
		givenPorts.Delete(p)
	}
	t.Fatal("shard: no free port in 21740–21799: something holds all of them")
	return ""
}

// target is the loopback load target (bench/loopback: it speaks the
// Meilisearch routes the driver calls when nothing is pre-populated),
// served in this process.
func target(t *testing.T) (*loopback.Server, string) {
	t.Helper()
	srv := &loopback.Server{}
	for p := 21700; p < 21740; p++ {
		addr, err := srv.Listen(fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			t.Cleanup(func() { srv.Close() })
			return srv, "http://" + addr.String()
		}
	}
	t.Fatal("shard: no free port in 21700–21739 for the loopback target: something holds all of them")
	return nil, ""
}

type exited struct {
	code int
	out  string
}

// shardProcess runs searchbench (this test binary acting as it) as shard
// i of n and returns its exit code and output.
func shardProcess(ctx context.Context, args ...string) exited {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SEARCHBENCH_TEST_MAIN=1")
	out, _ := cmd.CombinedOutput()
	return exited{cmd.ProcessState.ExitCode(), string(out)}
}

// shardArgs is a short search-only run against the loopback target.
func shardArgs(url, dir string, i, n int, coord string) []string {
	return []string{"run", "--engine", "meilisearch", "--url", url, "--mix", "search", "--users", "5,8",
		"--spawn-rate", "1000", "--settle", "200ms", "--measure", "1s", "--ids", "1000", "--prepopulate", "0",
		"--relevance-queries", "0", "--no-freshness", "--interval", "250ms", "--shard", fmt.Sprintf("%d/%d", i, n), "--coordinator", coord,
		"--register-timeout", "1m", "--out", filepath.Join(dir, fmt.Sprintf("shard-%d", i))}
}

// coordinate runs `searchbench coordinate` in this process; wait returns
// its exit code and log once it has ended.
// shardedRun runs n shard processes against url with a coordinator on
// coord (given extra flags) that writes the merged result to dir/merged,
// fails the test unless every process exits 0, and returns the
// coordinator's log.
func shardedRun(t *testing.T, ctx context.Context, url, dir, coord string, n int, extra ...string) string {
	t.Helper()
	coordinated := coordinate(t, ctx, append([]string{"--listen", coord, "--shards", strconv.Itoa(n), "--register-timeout", "1m",
		"--lead", "100ms", "--out", filepath.Join(dir, "merged")}, extra...)...)
	var wg sync.WaitGroup
	shards := make([]exited, n)
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shards[i] = shardProcess(ctx, shardArgs(url, dir, i, n, coord)...)
		}()
	}
	wg.Wait()
	code, log := coordinated()
	for i, s := range shards {
		if s.code != exitOK {
			t.Errorf("shard %d: exit %d:\n%s", i, s.code, s.out)
		}
	}
	if code != exitOK {
		t.Fatalf("coordinate: exit %d:\n%s", code, log)
	}
	return log
}

func coordinate(t *testing.T, ctx context.Context, args ...string) (wait func() (int, string)) {
	var code int
	var stderr string
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, _, stderr = runCLI(t, ctx, append([]string{"coordinate"}, args...)...)
	}()
	return func() (int, string) {
		<-done
		return code, stderr
	}
}

func TestShardsAndTheirCoordinatorMakeOneRun(t *testing.T) {
	t.Parallel()
	srv, url := target(t)
	coord := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	coordErr := shardedRun(t, ctx, url, dir, coord, 3)
	if i := strings.Index(coordErr, "start skew over 4 starts"); i < 0 {
		t.Errorf("the coordinator's log does not give the start skew:\n%s", coordErr)
	} else {
		t.Log(strings.SplitN(coordErr[i:], "\n", 2)[0])
	}
	merged := readResult(t, filepath.Join(dir, "merged"))
	if merged.Partial || len(merged.Shards) != 3 || len(merged.Engines) != 1 || len(merged.Engines[0].Levels) != 2 {
		t.Fatalf("merged: partial %v (%s), %d shards, engines %+v", merged.Partial, merged.Reason, len(merged.Shards), merged.Engines)
	}
	var searches int64
	for l, want := range []int{5, 8} {
		level := merged.Engines[0].Levels[l]
		if level.Users != want {
			t.Errorf("level %d: %d users merged; want the shards' %d summed", l, level.Users, want)
		}
		var shardCalls int64
		for i := range 3 {
			r := readResult(t, filepath.Join(dir, fmt.Sprintf("shard-%d", i)))
			s, _ := r.Engines[0].Levels[l].Op("search")
			shardCalls += s.Count
		}
		s, _ := level.Op("search")
		if s.Count != shardCalls || s.Count == 0 {
			t.Errorf("level %d: %d searches merged, the shards made %d", l, s.Count, shardCalls)
		}
		searches += s.Count
		// The shards' intervals lie on one grid: the merged timeline has
		// the window's intervals (not one set per shard), and they add up
		// to the merged level.
		var inIntervals int64
		tl := level.Timeline
		if tl == nil || tl.Merged == "" {
			t.Fatalf("level %d: merged timeline %+v", l, tl)
		}
		for _, iv := range tl.Intervals {
			o, _ := iv.Op("search")
			inIntervals += o.Count
		}
		if want := int((level.Window + tl.Interval - 1) / tl.Interval); len(tl.Intervals) > want+1 || inIntervals != s.Count {
			t.Errorf("level %d: %d merged intervals of %v over a %v window holding %d searches; want about %d holding %d", l, len(tl.Intervals), tl.Interval, level.Window, inIntervals, want, s.Count)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "merged", result.HlogName)); err != nil || st.Size() == 0 {
		t.Errorf("the merged run's %s: %v", result.HlogName, err)
	}
	if got := srv.Searches(); got < searches {
		t.Errorf("the target answered %d searches; the merged result counts %d measured", got, searches)
	}
	for i, s := range merged.Shards {
		if s.Index != i || s.Missing || len(s.Starts) != 4 {
			t.Errorf("shard %d in the merged result: %+v; want 4 starts (prepared, attached, 2 levels)", i, s)
			continue
		}
		for _, st := range s.Starts {
			if st.RTT <= 0 || !strings.HasPrefix(st.Phase, "meilisearch ") {
				t.Errorf("shard %d start %+v: want its phase and a measured round trip", i, st)
			}
			t.Logf("shard %d %s: offset %v, rtt %v, late %v", i, st.Phase, time.Duration(st.Offset), time.Duration(st.RTT), time.Duration(st.Late))
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "merged")); len(entries) < 3 {
		t.Errorf("the coordinator wrote %d files; want result.json and the reports", len(entries))
	}
}

func TestAShardThatNeverRegistersFailsTheRun(t *testing.T) {
	t.Parallel()
	_, url := target(t)
	coord := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coordinated := coordinate(t, ctx, "--listen", coord, "--shards", "2", "--register-timeout", "2s", "--out", filepath.Join(dir, "merged"))
	s := shardProcess(ctx, shardArgs(url, dir, 0, 2, coord)...)
	code, stderr := coordinated()
	want := "shard 1 did not register within 2s"
	if code != exitFailed || !strings.Contains(stderr, want) {
		t.Errorf("coordinate: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if s.code != exitFailed || !strings.Contains(s.out, want) {
		t.Errorf("shard 0: exit %d:\n%s\nwant 1 and %q", s.code, s.out, want)
	}
}

func TestShardBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"coordinate", "--shards", "0", "--listen", "127.0.0.1:21799"},
		{"coordinate", "--shards", "3"},
		{"coordinate", "--shards", "3", "--listen", "127.0.0.1:21799", "--register-timeout", "0s"},
		{"coordinate", "--shards", "3", "--listen", "127.0.0.1:21799", "--stop-timeout", "0s"},
		{"run", "--shard", "0/3"}, // the embedded engine cannot be shared
		{"run", "--shard", "3/3", "--engine", "meilisearch", "--url", "http://127.0.0.1:21799"},
		{"run", "--coordinator", "127.0.0.1:21799", "--engine", "meilisearch", "--url", "http://127.0.0.1:21799"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), append(args, "--out", dir)...)
		if code != exitBadInput || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

// coordinate --live binds its address before any shard registers, as run
// does: a taken or malformed address is one line, exit 2.
func TestCoordinateBadLiveAddress(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct{ live, want string }{
		{taken.Addr().String(), "live: listen tcp " + taken.Addr().String() + ": bind: address already in use"},
		{"192.0.2.1:8089", "live: listen tcp 192.0.2.1:8089: bind: "},
		{"8089", "live: listen tcp: address 8089: missing port in address"},
	} {
		args := []string{"coordinate", "--shards", "2", "--listen", "127.0.0.1:0", "--register-timeout", "1s", "--live", c.live, "--out", t.TempDir()}
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitBadInput || !strings.HasPrefix(stderr, "searchbench: "+c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line starting %q", args, code, stderr, stdout, c.want)
		}
	}
}

func TestAShardThatDiesLeavesAPartialRunNamingIt(t *testing.T) {
	t.Parallel()
	_, url := target(t)
	coord := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	coordinated := coordinate(t, ctx, "--listen", coord, "--shards", "3", "--register-timeout", "1m", "--out", filepath.Join(dir, "merged"))
	var wg sync.WaitGroup
	shards := make([]exited, 2)
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shards[i] = shardProcess(ctx, shardArgs(url, dir, i, 3, coord)...)
		}()
	}
	// Shard 2 is killed once its first level has started.
	p := startProcess(t, "level 1 users=5: started with the other shards", shardArgs(url, dir, 2, 3, coord)...)
	p.cmd.Process.Kill()
	p.wait(t)
	wg.Wait()
	code, log := coordinated()
	for i, s := range shards {
		if s.code != exitOK {
			t.Errorf("shard %d: exit %d; the others carry on:\n%s", i, s.code, s.out)
		}
	}
	if code != exitFailed {
		t.Errorf("coordinate: exit %d; want 1 (a shard is missing):\n%s", code, log)
	}
	merged := readResult(t, filepath.Join(dir, "merged"))
	if !merged.Partial || !strings.Contains(merged.Reason, "shard 2: its connection closed") || len(merged.Shards) != 3 {
		t.Fatalf("merged: partial %v, reason %q, %d shards; want shard 2 named", merged.Partial, merged.Reason, len(merged.Shards))
	}
	if s := merged.Shards[2]; !s.Missing || !strings.Contains(s.Reason, `after the start of "meilisearch level 1 users=5"`) {
		t.Errorf("shard 2 in the merged result: %+v", s)
	}
	// The second level is the other two shards' 3 + 3 of 8 users.
	if l := merged.Engines[0].Levels; len(l) != 2 || l[1].Users != 6 {
		t.Errorf("merged levels %+v; want the second with the 6 users of shards 0 and 1", l)
	}
}

// An interrupted coordinator asks the shards to stop and send what they
// measured, and writes it merged, marked partial, as an interrupted run
// does: the level under way holds the intervals measured so far.
func TestAnInterruptedCoordinatorWritesWhatTheShardsMeasured(t *testing.T) {
	t.Parallel()
	_, url := target(t)
	coord := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cctx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	coordinated := coordinate(t, cctx, "--listen", coord, "--shards", "2", "--register-timeout", "1m", "--out", filepath.Join(dir, "merged"))
	// One level far longer than the test: the interrupt comes in its window.
	long := func(i int) []string {
		args := shardArgs(url, dir, i, 2, coord)
		for k, a := range args {
			switch a {
			case "--users":
				args[k+1] = "5"
			case "--measure":
				args[k+1] = "10m"
			}
		}
		return args
	}
	var one exited
	oneDone := make(chan struct{})
	go func() {
		defer close(oneDone)
		one = shardProcess(ctx, long(1)...)
	}()
	// Shard 0's first progress line comes about a second into the window.
	zero := startProcess(t, "calls measured", long(0)...)
	interrupt()
	code, log := coordinated()
	if code != exitFailed || !strings.Contains(log, "run incomplete (interrupted") || !strings.Contains(log, "partial results written") {
		t.Errorf("coordinate: exit %d; want 1, the run incomplete and written:\n%s", code, log)
	}
	zero.wait(t)
	<-oneDone
	for i, s := range []exited{{zero.cmd.ProcessState.ExitCode(), zero.log.String()}, one} {
		if s.code != exitFailed || !strings.Contains(s.out, "stopped by the coordinator (interrupted)") {
			t.Errorf("shard %d: exit %d; want 1, stopped by the coordinator:\n%s", i, s.code, s.out)
		}
	}
	merged := readResult(t, filepath.Join(dir, "merged"))
	if !merged.Partial || !strings.HasPrefix(merged.Reason, "interrupted") || len(merged.Shards) != 2 || len(merged.Engines) != 1 || len(merged.Engines[0].Levels) != 1 {
		t.Fatalf("merged: partial %v (%s), %d shards, engines %+v", merged.Partial, merged.Reason, len(merged.Shards), merged.Engines)
	}
	for i, s := range merged.Shards {
		if s.Missing || !s.Partial {
			t.Errorf("shard %d in the merged result: %+v; want its partial result", i, s)
		}
	}
	level := merged.Engines[0].Levels[0]
	search, _ := level.Op("search")
	tl := level.Timeline
	if !level.Partial || level.Users != 5 || search.Count == 0 || tl == nil || len(tl.Intervals) < 2 {
		t.Fatalf("merged level: partial %v, %d users, %d searches, timeline %+v; want the window so far, cut into its intervals", level.Partial, level.Users, search.Count, tl)
	}
	var inIntervals int64
	for _, iv := range tl.Intervals {
		o, _ := iv.Op("search")
		inIntervals += o.Count
	}
	if inIntervals != search.Count {
		t.Errorf("the merged intervals hold %d searches; the level %d", inIntervals, search.Count)
	}
	if st, err := os.Stat(filepath.Join(dir, "merged", result.HlogName)); err != nil || st.Size() == 0 {
		t.Errorf("the merged run's %s: %v", result.HlogName, err)
	}
}

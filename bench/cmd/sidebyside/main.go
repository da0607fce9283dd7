// Command sidebyside runs searchbench, wrk, vegeta and bombardier against
// the loopback load target in turn, several rounds interleaved, and prints each tool's
// figures and searchbench's ratios against the targets of bench/README.md.
// bench/run.sh builds everything and calls it; its flags are listed by -h.
//
// Every figure of a tool comes from one place for all three: requests are
// counted by the server, CPU time is read from /proc/<pid>/stat of the tool's
// process, both at the start and the end of a window inside the steady
// state; resident memory is the process's VmHWM at the window's end (the
// peak under load). Each tool's own report (wrk's Requests/sec, vegeta's
// throughput, searchbench's Total RPS) is printed beside the server's count.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner/loops"
)

// Notes under the table: a round whose target used this much CPU was set
// by the target; one where other processes used this much was disturbed.
const (
	serverBound = 0.9
	disturbedBy = 0.2
)

// Targets of issues 9 and 19.
const (
	targetVsVegeta     = 1.5
	targetVsBombardier = 1.0
	targetVsWrk        = 0.5
	targetP50VsWrk     = 1.1 // p50 at the fixed rate within 10% of wrk's
	targetP50VsVegeta  = 1.0 // … and no higher than vegeta's
	targetValkeyCPU    = 2.0 // CPU per write ≤ 2 × valkey-benchmark's
	targetMemMB        = 150
	targetDocsPerS     = 500_000
)

type config struct {
	searchbench, loopbackBin, wrk, vegeta string
	bombardier                            string // empty: not run
	valkeyServer, valkeyBenchmark         string // empty: no Valkey leg
	valkeyPort                            int
	valkeyData                            int    // valkey-benchmark -d
	baseline                              string // another searchbench build, run as a fourth tool
	repo                                  string
	port                                  int
	key                                   string
	conns                                 int
	warm, window                          time.Duration
	rounds                                int
	rate                                  float64
	rateWindow                            time.Duration
	memUsers                              int
	spawn                                 float64 // searchbench's users started per second
	clientCPU, serverCPU                  string
	out                                   string
	skipGoBench                           bool
}

func main() {
	var c config
	flag.StringVar(&c.searchbench, "searchbench", "searchbench", "searchbench binary")
	flag.StringVar(&c.baseline, "baseline", "", "another searchbench binary (an earlier build) to run as a fourth tool, for before/after")
	flag.StringVar(&c.loopbackBin, "loopback", "loopback", "loopback binary (bench/cmd/loopback)")
	flag.StringVar(&c.wrk, "wrk", "wrk", "wrk binary")
	flag.StringVar(&c.vegeta, "vegeta", "vegeta", "vegeta binary")
	flag.StringVar(&c.bombardier, "bombardier", "", "bombardier binary; empty: not run")
	flag.StringVar(&c.valkeyServer, "valkey-server", "", "valkey-server binary for the Valkey write leg; empty: no Valkey leg")
	flag.StringVar(&c.valkeyBenchmark, "valkey-benchmark", "valkey-benchmark", "valkey-benchmark binary")
	flag.IntVar(&c.valkeyPort, "valkey-port", 21379, "port of the Valkey server this run starts (below 32768)")
	flag.IntVar(&c.valkeyData, "valkey-data", 4630, "valkey-benchmark -d: the value size that makes its HSET as many bytes on the wire as searchbench's product upsert (both are printed)")
	flag.StringVar(&c.repo, "repo", ".", "the repository, for the go test benchmarks")
	flag.IntVar(&c.port, "port", 7701, "loopback port (below 32768: the range above is handed to outgoing connections)")
	flag.StringVar(&c.key, "key", "sidebyside-key", "API key the target checks")
	flag.IntVar(&c.conns, "conns", 64, "connections: wrk -c, vegeta -workers/-max-workers, searchbench --users")
	flag.DurationVar(&c.warm, "warm", 2*time.Second, "time from a tool's start to its measured window")
	flag.DurationVar(&c.window, "window", 4*time.Second, "measured window of each maximum-rate run")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds; each runs every tool once, in a rotating order")
	flag.Float64Var(&c.rate, "rate", 5000, "the fixed moderate rate (requests/s) of the p50 runs")
	flag.DurationVar(&c.rateWindow, "rate-duration", 6*time.Second, "length of each fixed-rate run")
	flag.IntVar(&c.memUsers, "mem-users", 1500, "users of the memory run (searchbench only); 0: skip")
	flag.StringVar(&c.clientCPU, "client-cpu", "0", "taskset CPU list of the load generators; empty: not pinned")
	flag.StringVar(&c.serverCPU, "server-cpu", "1", "taskset CPU list of the loopback server; empty: not pinned")
	flag.StringVar(&c.out, "out", "", "work directory (default: a temporary one)")
	flag.BoolVar(&c.skipGoBench, "skip-go-bench", false, "skip the go test benchmarks (recording path, corpus generation)")
	flag.Parse()
	c.spawn = 100_000 // every user at once: the window opens on a steady state
	whole := func(d time.Duration) bool { return d >= time.Second && d%time.Second == 0 }
	if c.port < 1 || c.port >= 32768 || c.valkeyPort < 1 || c.valkeyPort >= 32768 || c.valkeyData < 1 || c.conns < 1 || c.rounds < 1 || c.rate <= 0 || !whole(c.window) || !whole(c.warm) || !whole(c.rateWindow) {
		fmt.Fprintln(os.Stderr, "sidebyside: ports 1–32767, valkey-data ≥ 1, conns ≥ 1, rounds ≥ 1, rate > 0, durations in whole seconds")
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// sample is one tool's run at maximum rate.
type sample struct {
	rps        float64 // server-counted searches per second in the window
	own        float64 // the tool's own figure
	cpuPer1K   float64 // CPU seconds of the tool per 1,000 requests
	sysPer1K   float64 // … of which in the kernel
	rssMB      float64 // VmHWM at the window's end
	bytesPer   float64 // bytes the target received per request (Valkey), 0 where not counted
	serverBusy float64 // the server's CPU time over the window (cores)
	others     float64 // CPU used by everything else on the machine (cores)
	err        error
}

// paced is one fixed-rate run.
type paced struct {
	achieved float64
	p50, p99 float64 // ms
	service  float64 // searchbench: service time p50 (from the actual send), ms
	lag      float64 // searchbench: its scheduler's lag p99, ms
	cpu      float64 // searchbench: its CPU over the rep, as a fraction of the CPUs it may use
	note     string
	err      error
}

type tool struct {
	name string
	stop bool // ended by the window (SIGTERM), not by its own duration
	max  func(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error))
	rate func(c config, dir string) paced
}

func run(c config) error {
	if c.out == "" {
		d, err := os.MkdirTemp("", "sidebyside-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		c.out = d
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	body, err := searchBody()
	if err != nil {
		return err
	}
	if err := writeInputs(c, body); err != nil {
		return err
	}
	srv, err := startServer(c)
	if err != nil {
		return err
	}
	defer srv.stop()

	m := measured{load0: loadavg(), tools: sideTools(c)}
	m.maxes, m.rates = rounds(c, srv, m.tools)
	if c.memUsers > 0 {
		m.mem = measureMemory(c, srv)
	}
	if !c.skipGoBench {
		m.gob = runGoBench(c)
	}
	var vk map[string][]sample
	var vkTools []tool
	if c.valkeyServer != "" {
		var err error
		if vk, vkTools, err = valkeyLeg(c); err != nil {
			fmt.Fprintln(os.Stderr, "sidebyside: valkey leg:", err)
		}
	}
	m.load1 = loadavg()
	report(os.Stdout, c, m)
	if vkTools != nil {
		reportValkey(os.Stdout, c, vkTools, vk)
		reportValkeyTarget(os.Stdout, vk)
	}
	return nil
}

// measured is what the Meilisearch leg found: each tool's samples at its
// maximum rate and at the fixed rate, the memory at many users, the Go
// benchmarks, and the machine's load average before and after.
type measured struct {
	tools        []tool
	maxes        map[string][]sample
	rates        map[string][]paced
	mem          *sample // nil unless -mem-users
	gob          goBench
	load0, load1 string
}

// sideTools are the load generators compared against the loopback server:
// searchbench, wrk and vegeta; bombardier and a baseline searchbench
// binary when given.
func sideTools(c config) []tool {
	tools := []tool{
		{name: "searchbench", max: searchbenchMax, rate: searchbenchRate},
		{name: "wrk", max: wrkMax, rate: wrkRate},
		{name: "vegeta", max: vegetaMax, rate: vegetaRate},
	}
	if c.bombardier != "" {
		tools = append(tools, tool{name: "bombardier", max: bombardierMax, rate: bombardierRate})
	}
	if c.baseline != "" {
		bc := c
		bc.searchbench = c.baseline
		tools = append(tools, tool{name: "baseline",
			max: func(_ config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
				return searchbenchMax(bc, dir, total)
			},
			rate: func(_ config, dir string) paced { return searchbenchRate(bc, dir) }})
	}
	return tools
}

// rounds runs every tool at its maximum rate, then every tool at the fixed
// rate, c.rounds times; each round starts with the next tool, so no tool
// always runs first.
func rounds(c config, srv target, tools []tool) (map[string][]sample, map[string][]paced) {
	maxes := map[string][]sample{}
	rates := map[string][]paced{}
	for r := range c.rounds {
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			dir := filepath.Join(c.out, fmt.Sprintf("%s-max-%d", t.name, r))
			s := measureMax(c, srv, t, dir)
			maxes[t.name] = append(maxes[t.name], s)
			fmt.Fprintf(os.Stderr, "round %d: %-11s max: %s\n", r+1, t.name, describe(s))
		}
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			p := t.rate(c, filepath.Join(c.out, fmt.Sprintf("%s-rate-%d", t.name, r)))
			rates[t.name] = append(rates[t.name], p)
			if p.err != nil {
				fmt.Fprintf(os.Stderr, "round %d: %-11s at %.0f/s: error: %v\n", r+1, t.name, c.rate, p.err)
			} else {
				fmt.Fprintf(os.Stderr, "round %d: %-11s at %.0f/s: achieved %.0f/s, p50 %.3f ms\n", r+1, t.name, c.rate, p.achieved, p.p50)
			}
		}
	}
	return maxes, rates
}

// measureMemory runs searchbench at its maximum rate with c.memUsers
// users, ramped in as a run ramps them.
func measureMemory(c config, srv target) *sample {
	// The published ramp (100 users/s): each new user's first call races
	// a dial against the connections the others free, and the losing
	// dials stay open as idle connections — a ramp costs more memory
	// than starting every user at once.
	mc := c
	mc.conns, mc.spawn = c.memUsers, loops.DefaultSpawnRate
	mc.warm += time.Duration(math.Ceil(float64(c.memUsers-1)/mc.spawn)) * time.Second
	s := measureMax(mc, srv, tool{name: "searchbench", max: searchbenchMax}, filepath.Join(c.out, "searchbench-mem"))
	fmt.Fprintf(os.Stderr, "%d users: %s\n", c.memUsers, describe(s))
	return &s
}

func describe(s sample) string {
	if s.err != nil {
		return "error: " + s.err.Error()
	}
	return fmt.Sprintf("%.0f req/s (own %.0f), %.1f µs CPU per request (%.1f in the kernel), %.0f MB, server %.2f cores, others %.2f cores",
		s.rps, s.own, s.cpuPer1K*1000, s.sysPer1K*1000, s.rssMB, s.serverBusy, s.others)
}

// searchBody is the body the Meilisearch driver sends for the corpus's
// first query (its FuzzSearchBody holds the driver's writer to this
// encoding of the client's struct), so wrk and vegeta send what searchbench
// sends.
func searchBody() ([]byte, error) {
	c, err := dataset.New(dataset.Config{Seed: 1, IDs: 1000})
	if err != nil {
		return nil, err
	}
	return json.Marshal(&meilisearch.SearchRequest{Query: c.Query(0), Limit: loops.DefaultK, AttributesToRetrieve: []string{"id"}})
}

func (c config) url() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

func (c config) searchURL() string { return c.url() + "/indexes/searchbench/search" }

func writeInputs(c config, body []byte) error {
	lua := fmt.Sprintf(`wrk.method = "POST"
wrk.body = %q
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %s"
`, body, c.key)
	// The paced script adds a delay before each request of a connection
	// (wrk's delay() hook, whole milliseconds): conns / delay ≈ the rate.
	delay := max(int(math.Round(float64(c.conns)*1000/c.rate)), 1)
	targets := fmt.Sprintf("POST %s\nContent-Type: application/json\nAuthorization: Bearer %s\n@%s\n", c.searchURL(), c.key, filepath.Join(c.out, "body.json"))
	for name, content := range map[string]string{
		"body.json":   string(body),
		"post.lua":    lua,
		"paced.lua":   lua + fmt.Sprintf("function delay()\n  return %d\nend\n", delay),
		"targets.txt": targets,
	} {
		if err := os.WriteFile(filepath.Join(c.out, name), []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// pinned runs argv under taskset when a CPU list is given.
func pinned(cpus string, argv ...string) *exec.Cmd {
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	return exec.Command(argv[0], argv[1:]...)
}

type server struct {
	cmd *exec.Cmd
	url string
}

func startServer(c config) (*server, error) {
	cmd := pinned(c.serverCPU, c.loopbackBin, "-addr", fmt.Sprintf("127.0.0.1:%d", c.port), "-key", c.key)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start loopback: %w", err)
	}
	s := &server{cmd: cmd, url: c.url()}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := s.searches(); err == nil {
			return s, nil
		}
	}
	s.stop()
	return nil, errors.New("the loopback server did not answer within 5s")
}

// target is what a tool loads: it counts what it served (and, where it
// can, the bytes it received) and names its process, for its CPU time.
type target interface {
	count() (n, bytesIn int64, err error)
	pid() int
}

func (s *server) count() (int64, int64, error) {
	n, err := s.searches()
	return n, 0, err
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func (s *server) searches() (int64, error) {
	resp, err := http.Get(s.url + "/loopback/stats")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var st struct{ Searches int64 }
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st.Searches, err
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
}

// measureMax runs one tool at its maximum rate and reads the figures over
// [start+warm, start+warm+window].
func measureMax(c config, srv target, t tool, dir string) sample {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sample{err: err}
	}
	total := c.warm + c.window + 2*time.Second
	cmd, own := t.max(c, dir, total)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{err: err}
	}
	pid := cmd.Process.Pid
	// The window opens half a second after warm, for every tool alike:
	// searchbench opens and creates the index first.
	time.Sleep(time.Until(start.Add(c.warm + 500*time.Millisecond)))
	n0, b0, e0 := srv.count()
	cpu0, sys0, srv0 := procTimes(pid), machineCPU(), procTimes(srv.pid())
	t0 := time.Now()
	time.Sleep(c.window)
	n1, b1, e1 := srv.count()
	cpu1, sys1, srv1 := procTimes(pid), machineCPU(), procTimes(srv.pid())
	wall := time.Since(t0).Seconds()
	hwm := procHWM(pid)
	var waitErr error
	if t.stop {
		// A tool bounded by a request count, not a duration: the window
		// is all that is measured.
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	} else {
		waitErr = cmd.Wait()
	}
	os.WriteFile(filepath.Join(dir, "output.txt"), out.Bytes(), 0o644)
	s := sample{rssMB: hwm}
	if err := cmp.Or(e0, e1, waitErr); err != nil {
		s.err = fmt.Errorf("%w (output in %s)", err, dir)
		return s
	}
	if cpu0.gone || cpu1.gone {
		s.err = errors.New("the tool ended before its window did")
		return s
	}
	reqs := float64(n1 - n0)
	s.rps = reqs / wall
	if reqs > 0 {
		s.cpuPer1K = (cpu1.total() - cpu0.total()) / reqs * 1000
		s.sysPer1K = (cpu1.sys - cpu0.sys) / reqs * 1000
		s.bytesPer = float64(b1-b0) / reqs
	}
	s.serverBusy = (srv1.total() - srv0.total()) / wall
	s.others = max((sys1-sys0)-(cpu1.total()-cpu0.total())-(srv1.total()-srv0.total()), 0) / wall
	s.own, s.err = own()
	return s
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// Linux everywhere).
const clockTick = 100

// times are a process's user and system CPU seconds (all its threads).
type times struct {
	user, sys float64
	gone      bool // the process had ended
}

func (t times) total() float64 { return t.user + t.sys }

func procTimes(pid int) times {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return times{gone: true}
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 || f[0] == "Z" {
		return times{gone: true}
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return times{user: u / clockTick, sys: s / clockTick}
}

// procHWM is a process's peak resident set in MB (VmHWM).
func procHWM(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// machineCPU is the CPU seconds the whole machine spent in user, nice,
// system and steal time (interrupt handling, which on loopback is the
// benchmark's own network traffic, is left out).
func machineCPU() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal
	var sum float64
	for _, i := range []int{1, 2, 3, 8} {
		if i < len(f) {
			v, _ := strconv.ParseFloat(f[i], 64)
			sum += v
		}
	}
	return sum / clockTick
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// secs is d in whole seconds, rounded up: wrk takes no fractions.
func secs(d time.Duration) string { return strconv.Itoa(int(math.Ceil(d.Seconds()))) + "s" }

// searchbenchArgs is what every searchbench run here shares: the
// Meilisearch driver attached to the target, searches only, nothing
// pre-populated and no side traffic (relevance checks, freshness probes).
func searchbenchArgs(c config, dir string) []string {
	return []string{"--engine", "meilisearch", "--url", c.url(), "--api-key", c.key, "--mix", "search",
		"--ids", "1000", "--prepopulate", "0", "--relevance-queries", "0", "--out", dir}
}

func searchbenchMax(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
	args := append([]string{c.searchbench, "run"}, searchbenchArgs(c, dir)...)
	ramp := time.Duration(float64(c.conns-1) / c.spawn * float64(time.Second))
	args = append(args, "--users", strconv.Itoa(c.conns), "--spawn-rate", fmt.Sprint(c.spawn), "--no-freshness",
		"--settle", secs(max(c.warm-ramp, 0)), "--measure", secs(total-c.warm))
	return pinned(c.clientCPU, args...), func() (float64, error) {
		var r struct {
			Engines []struct {
				Error  string
				Levels []struct {
					TotalRPS float64 `json:"total_rps"`
					Ops      []struct {
						Op     string
						Errors map[string]int64
					}
				}
			}
		}
		if err := readJSON(filepath.Join(dir, "result.json"), &r); err != nil {
			return 0, err
		}
		if len(r.Engines) != 1 || len(r.Engines[0].Levels) != 1 {
			return 0, fmt.Errorf("searchbench: no level in result.json (%+v)", r.Engines)
		}
		l := r.Engines[0].Levels[0]
		for _, op := range l.Ops {
			if len(op.Errors) > 0 {
				return l.TotalRPS, fmt.Errorf("searchbench: %s errors %v", op.Op, op.Errors)
			}
		}
		return l.TotalRPS, nil
	}
}

func searchbenchRate(c config, dir string) paced {
	args := append([]string{c.searchbench, "ladder"}, searchbenchArgs(c, dir)...)
	args = append(args, "--workers", strconv.Itoa(c.conns), "--start", fmt.Sprint(c.rate), "--stop", fmt.Sprint(c.rate),
		"--repeat", "1", "--duration", secs(c.rateWindow))
	if err := runQuiet(pinned(c.clientCPU, args...), dir); err != nil {
		return paced{err: err}
	}
	var r struct {
		Engines []struct {
			Ladder struct {
				Rungs []struct {
					Achieved   float64 `json:"achieved_rate"`
					P50        float64 `json:"p50"`
					P99        float64 `json:"p99"`
					ServiceP50 float64 `json:"service_p50"`
					Reps       []struct {
						LagP99    float64 `json:"generator_lag_p99_ms"`
						ClientCPU float64 `json:"client_cpu"` // of the CPUs it may use
					}
				}
			}
		}
	}
	if err := readJSON(filepath.Join(dir, "result.json"), &r); err != nil {
		return paced{err: err}
	}
	if len(r.Engines) != 1 || len(r.Engines[0].Ladder.Rungs) != 1 {
		return paced{err: errors.New("searchbench ladder: no rung in result.json")}
	}
	g := r.Engines[0].Ladder.Rungs[0]
	p := paced{achieved: g.Achieved, p50: g.P50, p99: g.P99, service: g.ServiceP50,
		note: fmt.Sprintf("open loop, %d workers; latency from the intended send time", c.conns)}
	if len(g.Reps) == 1 {
		p.lag, p.cpu = g.Reps[0].LagP99, g.Reps[0].ClientCPU
	}
	return p
}

var wrkRPS = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)

func wrkMax(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
	cmd := pinned(c.clientCPU, c.wrk, "-t1", "-c"+strconv.Itoa(c.conns), "-d"+secs(total), "--latency",
		"-s", filepath.Join(c.out, "post.lua"), c.searchURL())
	return cmd, func() (float64, error) {
		out := filepath.Join(dir, "output.txt") // measureMax wrote it
		b, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		if bytes.Contains(b, []byte("Non-2xx")) || bytes.Contains(b, []byte("Socket errors")) {
			return 0, fmt.Errorf("wrk reported errors (%s)", out)
		}
		m := wrkRPS.FindSubmatch(b)
		if m == nil {
			return 0, fmt.Errorf("wrk: no Requests/sec in %s", out)
		}
		return strconv.ParseFloat(string(m[1]), 64)
	}
}

var wrkP50 = regexp.MustCompile(`\s50%\s+([\d.]+)(us|ms|s)\b`)

func wrkRate(c config, dir string) paced {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return paced{err: err}
	}
	cmd := pinned(c.clientCPU, c.wrk, "-t1", "-c"+strconv.Itoa(c.conns), "-d"+secs(c.rateWindow), "--latency",
		"-s", filepath.Join(c.out, "paced.lua"), c.searchURL())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	os.WriteFile(filepath.Join(dir, "wrk.txt"), out.Bytes(), 0o644)
	if err != nil {
		return paced{err: err}
	}
	m, r := wrkP50.FindSubmatch(out.Bytes()), wrkRPS.FindSubmatch(out.Bytes())
	if m == nil || r == nil {
		return paced{err: fmt.Errorf("wrk: no latency distribution in %s", dir)}
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	v *= map[string]float64{"us": 0.001, "ms": 1, "s": 1000}[string(m[2])]
	rate, _ := strconv.ParseFloat(string(r[1]), 64)
	return paced{achieved: rate, p50: v,
		note: fmt.Sprintf("%d connections, each waiting %s before every request (wrk's delay())", c.conns, pacedDelay(c))}
}

func pacedDelay(c config) string {
	return fmt.Sprintf("%d ms", max(int(math.Round(float64(c.conns)*1000/c.rate)), 1))
}

func vegetaMax(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
	bin := filepath.Join(dir, "results.bin")
	cmd := pinned(c.clientCPU, c.vegeta, "attack", "-targets", filepath.Join(c.out, "targets.txt"),
		"-rate", "0", "-workers", strconv.Itoa(c.conns), "-max-workers", strconv.Itoa(c.conns),
		"-duration", secs(total), "-output", bin)
	return cmd, func() (float64, error) {
		r, err := vegetaReport(c, bin)
		return r.Throughput, err
	}
}

type vegetaJSON struct {
	Latencies  map[string]float64 `json:"latencies"` // ns
	Rate       float64            `json:"rate"`
	Throughput float64            `json:"throughput"`
	Success    float64            `json:"success"`
	Errors     []string           `json:"errors"`
}

func vegetaReport(c config, bin string) (vegetaJSON, error) {
	var r vegetaJSON
	out, err := exec.Command(c.vegeta, "report", "-type", "json", bin).Output()
	if err != nil {
		return r, fmt.Errorf("vegeta report: %w", err)
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, err
	}
	if r.Success < 1 {
		return r, fmt.Errorf("vegeta: success %.4f, errors %v", r.Success, r.Errors)
	}
	return r, nil
}

func vegetaRate(c config, dir string) paced {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return paced{err: err}
	}
	bin := filepath.Join(dir, "results.bin")
	cmd := pinned(c.clientCPU, c.vegeta, "attack", "-targets", filepath.Join(c.out, "targets.txt"),
		"-rate", fmt.Sprintf("%g/s", c.rate), "-workers", strconv.Itoa(c.conns), "-max-workers", strconv.Itoa(c.conns),
		"-duration", secs(c.rateWindow), "-output", bin)
	if err := runQuiet(cmd, dir); err != nil {
		return paced{err: err}
	}
	r, err := vegetaReport(c, bin)
	if err != nil {
		return paced{err: err}
	}
	return paced{achieved: r.Throughput, p50: r.Latencies["50th"] / 1e6, p99: r.Latencies["99th"] / 1e6,
		note: fmt.Sprintf("-rate %g/s, %d workers", c.rate, c.conns)}
}

// bombardierArgs are bombardier's flags for the search request wrk and
// vegeta send. It uses its default client, fasthttp.
func bombardierArgs(c config, d time.Duration) []string {
	return []string{c.bombardier, "-c", strconv.Itoa(c.conns), "-d", secs(d), "-l", "-m", "POST",
		"-H", "Content-Type: application/json", "-H", "Authorization: Bearer " + c.key,
		"-f", filepath.Join(c.out, "body.json"), "-p", "r", "-o", "j"}
}

type bombardierJSON struct {
	Result struct {
		Seconds float64 `json:"timeTakenSeconds"`
		OK      int64   `json:"req2xx"`
		Req1xx  int64   `json:"req1xx"`
		Req3xx  int64   `json:"req3xx"`
		Req4xx  int64   `json:"req4xx"`
		Req5xx  int64   `json:"req5xx"`
		Others  int64   `json:"others"`
		Latency struct {
			Percentiles map[string]float64 `json:"percentiles"` // µs
		} `json:"latency"`
	} `json:"result"`
}

// bombardierReport reads bombardier's JSON result: requests answered 2xx
// per second, and the latency percentiles; any other answer is an error.
func bombardierReport(out []byte, where string) (bombardierJSON, float64, error) {
	var r bombardierJSON
	if i := bytes.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, 0, fmt.Errorf("bombardier: no JSON result in %s: %w", where, err)
	}
	x := r.Result
	if bad := x.Req1xx + x.Req3xx + x.Req4xx + x.Req5xx + x.Others; bad > 0 || x.OK == 0 || x.Seconds <= 0 {
		return r, 0, fmt.Errorf("bombardier: %d answers not 2xx, %d 2xx (%s)", bad, x.OK, where)
	}
	return r, float64(x.OK) / x.Seconds, nil
}

func bombardierMax(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
	cmd := pinned(c.clientCPU, append(bombardierArgs(c, total), c.searchURL())...)
	return cmd, func() (float64, error) {
		out := filepath.Join(dir, "output.txt") // measureMax wrote it
		b, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		_, rps, err := bombardierReport(b, out)
		return rps, err
	}
}

// bombardierRate paces with bombardier's --rate, a token bucket: its
// latency runs from the actual send, as vegeta's and wrk's do.
func bombardierRate(c config, dir string) paced {
	args := append(bombardierArgs(c, c.rateWindow), "--rate", strconv.Itoa(int(c.rate)), c.searchURL())
	cmd := pinned(c.clientCPU, args...)
	if err := runQuiet(cmd, dir); err != nil {
		return paced{err: err}
	}
	out := filepath.Join(dir, "output.txt")
	b, err := os.ReadFile(out)
	if err != nil {
		return paced{err: err}
	}
	r, rps, err := bombardierReport(b, out)
	if err != nil {
		return paced{err: err}
	}
	pc := r.Result.Latency.Percentiles
	return paced{achieved: rps, p50: pc["50"] / 1000, p99: pc["99"] / 1000,
		note: fmt.Sprintf("--rate %.0f, %d connections (fasthttp)", c.rate, c.conns)}
}

func runQuiet(cmd *exec.Cmd, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	os.WriteFile(filepath.Join(dir, "output.txt"), out.Bytes(), 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w (output in %s)", filepath.Base(cmd.Args[0]), err, dir)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// goBench holds the go test benchmarks' figures.
type goBench struct {
	recordAllocs float64
	docsPerS     float64
	err          error
}

var (
	allocsRe = regexp.MustCompile(`BenchmarkRecord\S*\s+\d+\s+[\d.]+ ns/op\s+\d+ B/op\s+(\d+) allocs/op`)
	docsRe   = regexp.MustCompile(`BenchmarkDocument\S*\s.*?([\d.e+]+) docs/s`)
)

// runGoBench runs the recording-path and corpus benchmarks on the client's
// cores (one core: docs/s is per core).
func runGoBench(c config) goBench {
	var g goBench
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := []string{"go", "test", "-run", "^$", "-bench", "^(BenchmarkRecord|BenchmarkDocument)$", "-benchmem", "-benchtime", "2s", "./runner", "./dataset"}
	if c.clientCPU != "" {
		argv = append([]string{"taskset", "-c", c.clientCPU}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.err = fmt.Errorf("go test -bench: %w\n%s", err, out)
		return g
	}
	a, d := allocsRe.FindSubmatch(out), docsRe.FindSubmatch(out)
	if a == nil || d == nil {
		g.err = fmt.Errorf("go test -bench: figures not found in\n%s", out)
		return g
	}
	g.recordAllocs, _ = strconv.ParseFloat(string(a[1]), 64)
	g.docsPerS, _ = strconv.ParseFloat(string(d[1]), 64)
	return g
}

// spread is "median (min–max)" of the values, with the format f.
func spread(vals []float64, f string) string {
	if len(vals) == 0 {
		return "—"
	}
	s := slices.Sorted(slices.Values(vals))
	return fmt.Sprintf(f+" ("+f+"–"+f+")", median(s), s[0], s[len(s)-1])
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func field(ss []sample, f func(sample) float64) []float64 {
	var out []float64
	for _, s := range ss {
		if s.err == nil {
			out = append(out, f(s))
		}
	}
	return out
}

// report writes the Meilisearch leg's tables: each tool at its maximum
// rate, each at the fixed rate, and the targets met or not.
func report(w io.Writer, c config, m measured) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "\n## Load generators side by side (%d rounds, interleaved)\n\n", c.rounds)
	fmt.Fprintf(w, "machine: %s, %d CPUs, %s; load average %s before, %s after\n", host, numCPU(), cpuModel(), m.load0, m.load1)
	fmt.Fprintf(w, "clients on CPU %s, the loopback server on CPU %s; %d connections; windows of %s after %s of warm-up\n",
		cmp.Or(c.clientCPU, "any"), cmp.Or(c.serverCPU, "any"), c.conns, c.window, c.warm)
	if c.baseline != "" {
		fmt.Fprintf(w, "baseline: %s, run as searchbench is\n", c.baseline)
	}
	fmt.Fprintf(w, "figures: median (min–max) over the rounds\n\n")
	reportMax(w, m)
	reportRates(w, c, m)
	reportTargets(w, c, m)
}

// reportMax is the table of each tool at its maximum rate, and a note for
// each tool where the target or other processes, not the tool, may have
// set the rate.
func reportMax(w io.Writer, m measured) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "tool\tmax req/s (server count)\tmax req/s (own report)\tCPU s / 1K req\tof which kernel\tpeak RSS MB\tserver busy (cores)\tothers busy (cores)\t")
	for _, t := range m.tools {
		ss := m.maxes[t.name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.name,
			spread(field(ss, func(s sample) float64 { return s.rps }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.own }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.cpuPer1K }), "%.3f"),
			spread(field(ss, func(s sample) float64 { return s.sysPer1K }), "%.3f"),
			spread(field(ss, func(s sample) float64 { return s.rssMB }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.serverBusy }), "%.2f"),
			spread(field(ss, func(s sample) float64 { return s.others }), "%.2f"))
	}
	tw.Flush()
	for _, t := range m.tools {
		bound, disturbed, n := 0, 0, 0
		for _, s := range m.maxes[t.name] {
			if s.err != nil {
				continue
			}
			n++
			if s.serverBusy >= serverBound {
				bound++
			}
			if s.others >= disturbedBy {
				disturbed++
			}
		}
		if bound > 0 {
			fmt.Fprintf(w, "%s: the target was busy ≥ %.2f cores in %d of %d rounds: there the target, not %s, set the rate\n", t.name, serverBound, bound, n, t.name)
		}
		if disturbed > 0 {
			fmt.Fprintf(w, "%s: other processes used ≥ %.2f cores in %d of %d rounds\n", t.name, disturbedBy, disturbed, n)
		}
	}
}

// reportRates is the table of each tool at the fixed rate.
func reportRates(w io.Writer, c config, m measured) {
	fmt.Fprintf(w, "\nAt a fixed rate of %.0f requests/s:\n\n", c.rate)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "tool\tachieved req/s\tp50 ms\tp99 ms\thow\t")
	for _, t := range m.tools {
		var ach, p50, p99, svc, lag, cpu []float64
		note := ""
		for _, p := range m.rates[t.name] {
			if p.err != nil {
				note = p.err.Error()
				continue
			}
			ach, p50, p99 = append(ach, p.achieved), append(p50, p.p50), append(p99, p.p99)
			if p.service > 0 {
				svc = append(svc, p.service)
				lag, cpu = append(lag, p.lag), append(cpu, p.cpu)
			}
			note = p.note
		}
		if len(svc) > 0 {
			note += "; from the actual send (service time) p50 " + spread(svc, "%.3f") + " ms; scheduler lag p99 " +
				spread(lag, "%.3f") + " ms; CPU " + spread(cpu, "%.2f") + " of its CPUs"
		}
		p99s := spread(p99, "%.3f")
		if t.name == "wrk" {
			p99s = "(not compared)" // wrk's delay() paces each connection: no schedule to be late against
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", t.name, spread(ach, "%.0f"), spread(p50, "%.3f"), p99s, note)
	}
	tw.Flush()
}

// reportTargets is the table of searchbench's targets against the other
// tools, its memory at many users and the Go benchmarks.
func reportTargets(w io.Writer, c config, m measured) {
	fmt.Fprintf(w, "\nTargets:\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "target\tmeasured\tmet\t")
	for _, vs := range []struct {
		name   string
		target float64
	}{{"vegeta", targetVsVegeta}, {"bombardier", targetVsBombardier}, {"wrk", targetVsWrk}} {
		if _, ok := m.maxes[vs.name]; !ok {
			continue
		}
		ratios := pairRatios(m.maxes["searchbench"], m.maxes[vs.name], func(s sample) float64 { return s.rps })
		met := "—"
		if len(ratios) > 0 {
			met = yes(median(slices.Sorted(slices.Values(ratios))) >= vs.target)
		}
		fmt.Fprintf(tw, "searchbench req/s ≥ %.1f × %s's (same %d connections)\t%s\t%s\t\n", vs.target, vs.name, c.conns, spread(ratios, "%.2f×"), met)
		// Requests per CPU second: what the rate would be on a core of its
		// own, whatever else ran on the machine meanwhile.
		eff := pairRatios(m.maxes[vs.name], m.maxes["searchbench"], func(s sample) float64 { return s.cpuPer1K })
		fmt.Fprintf(tw, "  the same, per CPU second (%s's CPU per request / searchbench's)\t%s\t%s\t\n", vs.name, spread(eff, "%.2f×"), "")
	}
	for _, vs := range []struct {
		name   string
		target float64
	}{{"wrk", targetP50VsWrk}, {"vegeta", targetP50VsVegeta}} {
		a, b := ratesP50(m.rates["searchbench"]), ratesP50(m.rates[vs.name])
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		ma, mb := median(slices.Sorted(slices.Values(a))), median(slices.Sorted(slices.Values(b)))
		fmt.Fprintf(tw, "searchbench p50 at %.0f/s ≤ %.1f × %s's (medians)\t%.3f / %.3f ms = %.2f×\t%s\t\n", c.rate, vs.target, vs.name, ma, mb, ma/mb, yes(ma <= vs.target*mb))
	}
	if m.mem != nil {
		if m.mem.err != nil {
			fmt.Fprintf(tw, "%d users in ≤ %d MB RSS\terror: %v\t—\t\n", c.memUsers, targetMemMB, m.mem.err)
		} else {
			fmt.Fprintf(tw, "%d users in ≤ %d MB RSS\t%.0f MB (%.0f req/s)\t%s\t\n", c.memUsers, targetMemMB, m.mem.rssMB, m.mem.rps, yes(m.mem.rssMB <= targetMemMB))
		}
	}
	switch {
	case c.skipGoBench:
	case m.gob.err != nil:
		fmt.Fprintf(tw, "recording path, corpus generation\terror: %v\t—\t\n", m.gob.err)
	default:
		fmt.Fprintf(tw, "recording path 0 allocations (runner BenchmarkRecord)\t%.0f allocs/op\t%s\t\n", m.gob.recordAllocs, yes(m.gob.recordAllocs == 0))
		fmt.Fprintf(tw, "corpus generation ≥ %.0fK documents/s per core (dataset BenchmarkDocument)\t%.0fK docs/s\t%s\t\n", targetDocsPerS/1000.0, m.gob.docsPerS/1000, yes(m.gob.docsPerS >= targetDocsPerS))
	}
	tw.Flush()
}

func ratesP50(ps []paced) []float64 {
	var out []float64
	for _, p := range ps {
		if p.err == nil {
			out = append(out, p.p50)
		}
	}
	return out
}

// reportValkeyTarget: searchbench's CPU per write over valkey-benchmark's,
// round by round.
func reportValkeyTarget(w io.Writer, vk map[string][]sample) {
	r := pairRatios(vk["searchbench"], vk["valkey-benchmark"], func(s sample) float64 { return s.cpuPer1K })
	met := "—"
	if len(r) > 0 {
		met = yes(median(slices.Sorted(slices.Values(r))) <= targetValkeyCPU)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintf(tw, "\nsearchbench CPU per write ≤ %.0f × valkey-benchmark's\t%s\t%s\t\n", targetValkeyCPU, spread(r, "%.2f×"), met)
	rr := pairRatios(vk["searchbench"], vk["valkey-benchmark"], func(s sample) float64 { return s.rps })
	fmt.Fprintf(tw, "  max writes/s, searchbench / valkey-benchmark (not a target)\t%s\t\t\n", spread(rr, "%.2f×"))
	tw.Flush()
}

// pairRatios divides a figure of a by the same of b, round by round:
// neighbours in time share the machine's mood.
func pairRatios(a, b []sample, f func(sample) float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if a[i].err == nil && b[i].err == nil && f(b[i]) > 0 {
			out = append(out, f(a[i])/f(b[i]))
		}
	}
	return out
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("\nprocessor")) + 1
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown CPU"
}

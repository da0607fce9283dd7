package main

// The Valkey write leg: searchbench's product-corpus upserts (one HSET of a
// ~4.6 KB hash, Study B's write) in open loop, against valkey-benchmark
// doing HSET of the same size over the same connections, both against a
// valkey-server (no module) this run starts on the server's CPU. Both are
// counted by the server (INFO commandstats: HSET calls; INFO stats: bytes
// received, so the two writes' sizes can be compared) and timed by their
// processes' CPU, exactly as the HTTP tools are.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/valkey-io/valkey-go"
)

// valkeyIDs is the key space of both writers: 20,000 hashes of ~4.6 KB,
// about 95 MB in the server whatever the run's length.
const valkeyIDs = 20_000

// valkeyOffered is searchbench's offered rate at maximum: far above what
// one core sends, so its line stays full and the workers set the pace.
const valkeyOffered = 100_000

type valkeyServer struct {
	cmd    *exec.Cmd
	client valkey.Client
}

func (c config) valkeyAddr() string { return fmt.Sprintf("127.0.0.1:%d", c.valkeyPort) }

func startValkey(c config) (*valkeyServer, error) {
	cmd := pinned(c.serverCPU, c.valkeyServer, "--port", strconv.Itoa(c.valkeyPort), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start valkey-server: %w", err)
	}
	s := &valkeyServer{cmd: cmd}
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s.client, err = valkey.NewClient(valkey.ClientOption{InitAddress: []string{c.valkeyAddr()}, DisableCache: true, ForceSingleClient: true})
		if err == nil {
			return s, nil
		}
	}
	s.stop()
	return nil, fmt.Errorf("valkey-server on %s did not answer within 5s: %w", c.valkeyAddr(), err)
}

func (s *valkeyServer) stop() {
	if s.client != nil {
		s.client.Close()
	}
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

func (s *valkeyServer) pid() int { return s.cmd.Process.Pid }

var (
	hsetCalls = regexp.MustCompile(`cmdstat_hset:calls=(\d+)`)
	netInput  = regexp.MustCompile(`total_net_input_bytes:(\d+)`)
)

// count is the HSET calls the server has run and the bytes it has received.
func (s *valkeyServer) count() (int64, int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := s.client.Do(ctx, s.client.B().Arbitrary("INFO").Args("stats", "commandstats").Build()).ToString()
	if err != nil {
		return 0, 0, fmt.Errorf("valkey INFO: %w", err)
	}
	b := netInput.FindStringSubmatch(info)
	if b == nil {
		return 0, 0, errors.New("valkey INFO: no total_net_input_bytes")
	}
	in, _ := strconv.ParseInt(b[1], 10, 64)
	var n int64
	if m := hsetCalls.FindStringSubmatch(info); m != nil { // absent before the first HSET
		n, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return n, in, nil
}

func (s *valkeyServer) flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.client.Do(ctx, s.client.B().Flushall().Build()).Error()
}

// searchbenchValkeyMax is an open-loop rung offered far more than one core
// sends; the per-request timeout bounds the drain after the schedule.
func searchbenchValkeyMax(c config, dir string, total time.Duration) (*exec.Cmd, func() (float64, error)) {
	args := []string{c.searchbench, "ladder", "--engine", "valkey", "--url", "redis://" + c.valkeyAddr(),
		"--option", "matching_indexes=0", "--corpus", "product", "--mix", "upsert",
		"--ids", strconv.Itoa(valkeyIDs), "--prepopulate", "0", "--relevance-queries", "0",
		"--workers", strconv.Itoa(c.conns), "--start", strconv.Itoa(valkeyOffered), "--stop", strconv.Itoa(valkeyOffered),
		"--repeat", "1", "--duration", secs(total), "--timeout", "2s", "--out", dir}
	return pinned(c.clientCPU, args...), func() (float64, error) {
		var r struct {
			Engines []struct {
				Ladder struct {
					Rungs []struct {
						Achieved float64 `json:"achieved_rate"`
					}
				}
			}
		}
		if err := readJSON(filepath.Join(dir, "result.json"), &r); err != nil {
			return 0, err
		}
		if len(r.Engines) != 1 || len(r.Engines[0].Ladder.Rungs) != 1 {
			return 0, errors.New("searchbench ladder: no rung in result.json")
		}
		return r.Engines[0].Ladder.Rungs[0].Achieved, nil
	}
}

var valkeyBenchOverall = regexp.MustCompile(`rps=[\d.]+ \(overall: ([\d.]+)\)`)

// valkeyBenchmarkMax runs valkey-benchmark's HSET test (HSET of one field of
// -d bytes under random keys) with more requests than the window takes;
// measureMax stops it at the window's end.
func valkeyBenchmarkMax(c config, dir string, _ time.Duration) (*exec.Cmd, func() (float64, error)) {
	cmd := pinned(c.clientCPU, c.valkeyBenchmark, "-h", "127.0.0.1", "-p", strconv.Itoa(c.valkeyPort),
		"-c", strconv.Itoa(c.conns), "-n", "1000000000", "-r", strconv.Itoa(valkeyIDs), "-d", strconv.Itoa(c.valkeyData),
		"-t", "hset", "-q")
	return cmd, func() (float64, error) {
		b, err := os.ReadFile(filepath.Join(dir, "output.txt"))
		if err != nil {
			return 0, err
		}
		m := valkeyBenchOverall.FindAllSubmatch(b, -1)
		if m == nil {
			return 0, fmt.Errorf("valkey-benchmark: no rate in %s", dir)
		}
		return strconv.ParseFloat(string(m[len(m)-1][1]), 64)
	}
}

// valkeyLeg runs both writers c.rounds times, alternating which goes first.
func valkeyLeg(c config) (map[string][]sample, []tool, error) {
	srv, err := startValkey(c)
	if err != nil {
		return nil, nil, err
	}
	defer srv.stop()
	tools := []tool{
		{name: "searchbench", max: searchbenchValkeyMax},
		{name: "valkey-benchmark", max: valkeyBenchmarkMax, stop: true},
	}
	out := map[string][]sample{}
	for r := range c.rounds {
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			if err := srv.flush(); err != nil {
				return out, tools, err
			}
			s := measureMax(c, srv, t, filepath.Join(c.out, fmt.Sprintf("valkey-%s-%d", t.name, r)))
			out[t.name] = append(out[t.name], s)
			fmt.Fprintf(os.Stderr, "round %d: valkey %-16s max: %s, %.0f bytes a write\n", r+1, t.name, describe(s), s.bytesPer)
		}
	}
	return out, tools, nil
}

func reportValkey(w io.Writer, c config, tools []tool, maxes map[string][]sample) {
	fmt.Fprintf(w, "\nValkey writes (HSET of a product hash; valkey-server on CPU %s, writers on CPU %s, %d connections):\n\n", c.serverCPU, c.clientCPU, c.conns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "writer\tmax writes/s (server count)\tmax writes/s (own report)\tCPU µs / write\tof which kernel\tbytes a write (server)\tpeak RSS MB\tserver busy (cores)\tothers busy (cores)\t")
	for _, t := range tools {
		ss := maxes[t.name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.name,
			spread(field(ss, func(s sample) float64 { return s.rps }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.own }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.cpuPer1K * 1000 }), "%.1f"),
			spread(field(ss, func(s sample) float64 { return s.sysPer1K * 1000 }), "%.1f"),
			spread(field(ss, func(s sample) float64 { return s.bytesPer }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.rssMB }), "%.0f"),
			spread(field(ss, func(s sample) float64 { return s.serverBusy }), "%.2f"),
			spread(field(ss, func(s sample) float64 { return s.others }), "%.2f"))
	}
	tw.Flush()
	for _, t := range tools {
		for i, s := range maxes[t.name] {
			if s.err != nil {
				fmt.Fprintf(w, "%s round %d: %v\n", t.name, i+1, s.err)
			}
		}
	}
	fmt.Fprintln(w, "searchbench: open loop offered "+strconv.Itoa(valkeyOffered)+"/s (more than it sends), product corpus, --mix upsert; valkey-benchmark: -t hset -d "+strconv.Itoa(c.valkeyData)+" -r "+strconv.Itoa(valkeyIDs))
}

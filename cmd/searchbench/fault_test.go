package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dc "github.com/ory/dockertest/v3/docker"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/runner/result"
)

// Fault scenarios: an engine killed, stopped, restarted or hanging mid-run,
// shedding load, or slow to start. In every case the run finishes, writes
// result.json and the tables, removes what it started and exits 1.

// watched is a run's stderr that calls a function, once, when a line holding
// a phrase is written: the test's hand on the engine at a known phase.
type watched struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	hooks []*hook
	wg    sync.WaitGroup
}

type hook struct {
	phrase string
	fn     func()
	fired  bool
}

func (w *watched) on(phrase string, fn func()) {
	w.hooks = append(w.hooks, &hook{phrase: phrase, fn: fn})
}

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for _, h := range w.hooks {
		if !h.fired && bytes.Contains(p, []byte(h.phrase)) {
			h.fired = true
			w.wg.Add(1)
			go func() { // never block the run's logger
				defer w.wg.Done()
				h.fn()
			}()
		}
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// runWatched runs searchbench in this process with w as its stderr, and
// waits for the hooks it fired.
func runWatched(t *testing.T, ctx context.Context, w *watched, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out bytes.Buffer
	code = runAs(t, ctx, os.LookupEnv, &out, w, args...)
	w.wg.Wait()
	for _, h := range w.hooks {
		if !h.fired {
			t.Errorf("the run never wrote %q", h.phrase)
		}
	}
	return code, out.String(), w.String()
}

// measuring is the phrase the logger writes as a level's window opens.
const measuring = "users: measure"

// faultTimeout is the request timeout of the runs whose PostgreSQL
// container is stopped, killed or restarted. It bounds pre-population's
// bulk batches as well as the window's calls: a batch of 1,000 documents
// took over 1 s on CI's loaded 2-core machine and failed the run before
// its window. The faults themselves do not wait for it: a dead container's
// calls fail at once (connection refused or reset).
const faultTimeout = "5s"

// checkFinished checks what every fault must leave: exit 1, the final line
// saying why, result.json, every report file beside it and the printed
// table.
func checkFinished(t *testing.T, dir string, code int, stdout, stderr, why string) *result.Result {
	t.Helper()
	if code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailed, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "searchbench: ") || !strings.Contains(last, why) {
		t.Errorf("last line %q; want searchbench's one-line reason containing %q", last, why)
	}
	r := readResult(t, dir)
	for _, f := range []string{"tables.md", "figures.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	tables, _ := os.ReadFile(filepath.Join(dir, "tables.md"))
	if !strings.Contains(stdout, "| column ") || !strings.Contains(stdout, string(tables)) {
		t.Errorf("the printed tables are not tables.md:\n%s", stdout)
	}
	checkTables(t, string(tables))
	return r
}

// firstLevel is the first level of the result's first engine; a run that
// measured none fails the test with its reason.
func firstLevel(t *testing.T, r *result.Result, stderr string) result.Level {
	t.Helper()
	if len(r.Engines) == 0 || len(r.Engines[0].Levels) == 0 {
		t.Fatalf("the run measured no level (%s); stderr:\n%s", r.Reason, stderr)
	}
	return r.Engines[0].Levels[0]
}

// checkTables checks that every line of a Markdown table is a whole row: an
// error message with a line break in a cell would cut the table.
func checkTables(t *testing.T, md string) {
	t.Helper()
	inTable := false
	for i, line := range strings.Split(md, "\n") {
		row := strings.HasPrefix(line, "|")
		if row && !strings.HasSuffix(line, "|") {
			t.Errorf("tables.md line %d is a cut table row: %q", i+1, line)
		}
		if inTable && !row && line != "" {
			t.Errorf("tables.md line %d follows a table row without being one or a blank line: %q", i+1, line)
		}
		inTable = row
	}
}

// levelErrors sums a level's failed calls by class.
func levelErrors(l result.Level) map[string]int64 {
	out := map[string]int64{}
	for _, o := range l.Ops {
		for c, n := range o.Errors {
			out[c] += n
		}
	}
	return out
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// runContainer returns the ID of the one container of a named run. Hooks
// call it off the test's goroutine: it reports with Error, not Fatal.
func runContainer(t *testing.T, run string) string {
	list, err := runContainers(run)
	if err != nil || len(list) != 1 {
		t.Errorf("%d containers of run %s (%v); want 1", len(list), run, err)
		return ""
	}
	return list[0].ID
}

// docker runs one Docker API call on the run's container, as `docker stop
// -t 1` or `docker kill` would, or restarts it. The grace of one second
// bounds the stop: an older locally built PostgreSQL image stops on
// SIGTERM, a smart shutdown that waits for the run's pool, so Docker kills
// it when the grace ends. A restart is PostgreSQL's fast shutdown (SIGINT,
// the official image's stop signal, whatever the image on this machine
// says) and a start: a restart after SIGKILL is a crash recovery, which took
// 12 s on a loaded 2-core machine and outlasted the test's next level.
func docker(t *testing.T, run, what string) {
	id := runContainer(t, run)
	if id == "" {
		return
	}
	pool, _ := container.Pool()
	var err error
	switch what {
	case "stop":
		err = pool.Client.StopContainer(id, 1)
	case "kill":
		err = pool.Client.KillContainer(dc.KillContainerOptions{ID: id})
	case "restart":
		if err = pool.Client.KillContainer(dc.KillContainerOptions{ID: id, Signal: dc.SIGINT}); err != nil {
			break
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err = pool.Client.WaitContainerWithContext(id, ctx)
		cancel()
		if err == nil {
			err = pool.Client.StartContainer(id, nil)
		}
	}
	if err != nil {
		t.Errorf("docker %s: %v", what, err)
	}
}

// The engine's container is stopped or killed (SIGKILL) early in the window: calls fail from then
// on, counted by class; the run finishes the level, writes everything and
// removes the dead container.
func TestFaultEngineDiesMidRun(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	for _, what := range []string{"stop", "kill"} {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			name := runName(dir)
			var w watched
			w.on(measuring, func() {
				time.Sleep(300 * time.Millisecond)
				docker(t, name, what)
			})
			code, stdout, stderr := runWatched(t, context.Background(), &w, "run", "--engine", "postgres", "--ids", "3000", "--users", "4",
				"--spawn-rate", "1000", "--settle", "200ms", "--measure", "3s", "--timeout", faultTimeout, "--run-name", name, "--out", dir)
			r := checkFinished(t, dir, code, stdout, stderr, "failed calls")
			if r.Partial || len(r.Engines) != 1 || len(r.Engines[0].Levels) != 1 {
				t.Fatalf("partial %v (%s), engines %d; want the whole level measured", r.Partial, r.Reason, len(r.Engines))
			}
			l := firstLevel(t, r, stderr)
			errs := levelErrors(l)
			t.Logf("errors by class after the %s: %v", what, errs)
			if s, _ := l.Op("search"); s.Count == 0 || sum(errs) == 0 {
				t.Errorf("searches %d, errors %v; want successes before the %s and failures after", s.Count, errs, what)
			}
			if !strings.Contains(stdout, "search errors") {
				t.Errorf("the table has no errors row:\n%s", stdout)
			}
			if n := leftovers(t, name); n != 0 {
				t.Errorf("%d containers of the run are left", n)
			}
		})
	}
}

// The engine's container restarts during the first level: calls fail during
// the gap and the run carries on; the second level measures the engine back
// up.
func TestFaultEngineRestartsMidRun(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	name := runName(dir)
	var w watched
	// The restart lands early in the first window; the second level's
	// settle (8 s, not counted) is the time PostgreSQL has to come back: its
	// shutdown checkpoint and start took over 6 s with two CPU burners
	// running, and the second window must then find it serving.
	w.on(measuring, func() {
		time.Sleep(300 * time.Millisecond)
		docker(t, name, "restart")
	})
	code, stdout, stderr := runWatched(t, context.Background(), &w, "run", "--engine", "postgres", "--ids", "3000", "--users", "4,4",
		"--spawn-rate", "1000", "--settle", "8s", "--measure", "3s", "--timeout", faultTimeout, "--run-name", name, "--out", dir)
	r := checkFinished(t, dir, code, stdout, stderr, "failed calls")
	ls := r.Engines[0].Levels
	if len(ls) != 2 {
		t.Fatalf("%d levels; want both", len(ls))
	}
	t.Logf("errors by class: first level %v, second %v", levelErrors(ls[0]), levelErrors(ls[1]))
	if errs := levelErrors(ls[0]); sum(errs) == 0 {
		t.Errorf("first level: no errors counted across the restart")
	}
	if s, _ := ls[1].Op("search"); s.Count == 0 {
		t.Errorf("second level: no successful search after the restart (errors %v, e.g. %v)", levelErrors(ls[1]), s.ErrorExamples)
	}
	if n := leftovers(t, name); n != 0 {
		t.Errorf("%d containers of the run are left", n)
	}
}

// stallProxy forwards TCP connections to a backend until stall is called.
// From then on it is an engine that hangs: it accepts connections and reads
// what clients send, but never answers. It counts the client connections
// still open, so a test can see that the run closed every one.
type stallProxy struct {
	ln      net.Listener
	backend string // host:port; empty: stalled from the start
	open    atomic.Int64
	stalled atomic.Bool
	mu      sync.Mutex
	conns   []net.Conn
	wg      sync.WaitGroup
}

func newStallProxy(t *testing.T, backend string) *stallProxy {
	t.Helper()
	ln, err := valkeyfake.Listen() // a free 127.0.0.1 port below 32768
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, backend: backend}
	p.stalled.Store(backend == "")
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *stallProxy) addr() string { return p.ln.Addr().String() }

func (p *stallProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.open.Add(1)
		p.track(c)
		var b net.Conn
		if !p.stalled.Load() {
			if b, err = net.Dial("tcp", p.backend); err != nil {
				c.Close()
				p.open.Add(-1)
				continue
			}
			p.track(b)
			p.wg.Add(1)
			go func() { // answers, until the stall closes b
				defer p.wg.Done()
				io.Copy(c, b)
			}()
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if err != nil {
					break // the client closed (or close below)
				}
				if b != nil && !p.stalled.Load() {
					b.Write(buf[:n])
				}
			}
			c.Close()
			if b != nil {
				b.Close()
			}
			p.open.Add(-1)
		}()
	}
}

func (p *stallProxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

// stall cuts every connection to the backend; clients keep theirs, and
// hear nothing more.
func (p *stallProxy) stall() {
	p.stalled.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		if ra, ok := c.RemoteAddr().(*net.TCPAddr); ok && ra.String() == p.backend {
			c.Close()
		}
	}
}

// openAfter waits up to d for the clients to close their connections and
// returns how many are still open.
func (p *stallProxy) openAfter(d time.Duration) int64 {
	deadline := time.Now().Add(d)
	for p.open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return p.open.Load()
}

func (p *stallProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// The engine hangs mid-run: a proxy in front of it stops answering (every
// connection stays open, new ones are accepted, nothing comes back) — the
// PostgreSQL container, and the other drivers' wire-contract fakes (with
// upserts only: the fakes' searches scan every document). Each
// call ends at the request timeout and is counted as a timeout; the run
// finishes the level, and once it returns no connection to the hung engine
// is left open and no goroutine outlives it. (PostgreSQL's run ends up to
// 15 s late: pgx waits that long for a hung connection to close.)
func TestFaultEngineHangsMidRun(t *testing.T) {
	t.Parallel()
	const key = "hang-key"
	for _, c := range []struct {
		engine string
		start  func(t *testing.T) (url string, flags []string)
	}{
		{"postgres", func(t *testing.T) (string, []string) {
			c := startPostgres(t)
			return c.URL, []string{"--password", c.Secret}
		}},
		{"typesense", func(t *testing.T) (string, []string) {
			f := typesensefake.New(key)
			t.Cleanup(f.Close)
			return f.URL, []string{"--api-key", key, "--mix", "upsert"}
		}},
		{"meilisearch", func(t *testing.T) (string, []string) {
			f := meilifake.New(meilifake.Options{})
			t.Cleanup(f.Close)
			return f.URL, []string{"--mix", "upsert"}
		}},
		{"amgix-now", func(t *testing.T) (string, []string) {
			f := amgixfake.New()
			t.Cleanup(f.Close)
			return f.URL, []string{"--mix", "upsert"}
		}},
		{"elasticsearch", func(t *testing.T) (string, []string) {
			f := esfake.New(esfake.Options{})
			t.Cleanup(f.Close)
			return f.URL(), []string{"--mix", "upsert"}
		}},
		{"valkey", func(t *testing.T) (string, []string) {
			f, err := valkeyfake.New(valkeyfake.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f.URL(), []string{"--mix", "upsert"}
		}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			url, flags := c.start(t)
			u, err := neturl.Parse(url)
			if err != nil {
				t.Fatal(err)
			}
			p := newStallProxy(t, u.Host)
			url = strings.Replace(url, u.Host, p.addr(), 1)
			dir := t.TempDir()
			var w watched
			w.on(measuring, func() {
				time.Sleep(500 * time.Millisecond)
				p.stall()
			})
			// 200 IDs: pre-population's bulk batches end at the 500 ms
			// request timeout too, and a fake's bulk of 1,000 documents
			// under the race detector on a busy machine can take longer.
			args := append([]string{"run", "--engine", c.engine, "--url", url, "--ids", "200", "--users", "4", "--spawn-rate", "1000",
				"--settle", "200ms", "--measure", "2s", "--timeout", "500ms", "--relevance-queries", "0", "--out", dir}, flags...)
			code, stdout, stderr := runWatched(t, context.Background(), &w, args...)
			r := checkFinished(t, dir, code, stdout, stderr, "failed calls")
			l := firstLevel(t, r, stderr)
			errs := levelErrors(l)
			t.Logf("errors by class after the hang: %v", errs)
			var ok int64
			for _, o := range l.Ops {
				ok += o.Count
			}
			if ok == 0 || errs["timeout"] == 0 {
				t.Errorf("%d calls succeeded, errors %v; want successes, then timeouts", ok, errs)
			}
			// Four users calling for 1.5 s into a 500 ms timeout: about 16
			// calls can time out, each after the whole timeout.
			if n := errs["timeout"]; n > 30 {
				t.Errorf("%d timeouts: more than four users waiting 500 ms each can make in 1.5 s", n)
			}
			if n := p.openAfter(2 * time.Second); n != 0 {
				t.Errorf("%d connections to the hung engine are still open after the run", n)
			}
			goroutinesBack(t)
		})
	}
}

// An engine that accepts connections and never answers from the start:
// each driver's connect fails at the request timeout with a message naming
// the engine, the run writes its result, and nothing outlives it.
func TestFaultEngineHangsFromTheStart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ engine, url string }{
		{"postgres", "postgres://u@%s/db?sslmode=disable"},
		{"typesense", "http://%s"},
		{"meilisearch", "http://%s"},
		{"amgix-now", "http://%s"},
		{"elasticsearch", "http://%s"},
		{"valkey", "redis://%s"},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			// A proxy each: it counts the connections left open.
			p := newStallProxy(t, "")
			c.url = fmt.Sprintf(c.url, p.addr())
			dir := t.TempDir()
			start := time.Now()
			code, stdout, stderr := runCLI(t, context.Background(), "run", "--engine", c.engine, "--url", c.url, "--api-key", "sb-hang-key-7",
				"--ids", "300", "--users", "1", "--settle", "0s", "--measure", "200ms", "--timeout", "300ms", "--out", dir)
			took := time.Since(start)
			r := checkFinished(t, dir, code, stdout, stderr, c.engine)
			if !r.Partial || len(r.Engines) != 1 || !strings.Contains(r.Engines[0].Error, c.engine+": connect") ||
				!strings.Contains(r.Engines[0].Error, "deadline exceeded") {
				t.Errorf("partial %v, engines %+v; want the engine's connect error at the deadline", r.Partial, r.Engines)
			}
			if took > 10*time.Second {
				t.Errorf("the run took %v against a hung engine with a 300ms timeout", took)
			}
			if n := p.openAfter(2 * time.Second); n != 0 {
				t.Errorf("%d connections to the hung engine are still open after the run", n)
			}
			goroutinesBack(t)
		})
	}
}

// An interrupted ladder (the embedded engine, cancelled a second into its
// second rung) writes what it measured: the finished rung, the cut
// repetition marked partial, the tables, and exits 1. It says it stopped
// for the interrupt (the calls left in line are not a line that never
// drained), and the cut rung is not taken for a sustained rate.
func TestInterruptedLadderWritesPartialResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var w watched
	w.on("120/s: repetition 1 of 1", func() {
		time.Sleep(time.Second)
		cancel()
	})
	code, stdout, stderr := runWatched(t, ctx, &w, "ladder", "--ids", "2000", "--start", "100", "--step", "1.2", "--stop", "1000",
		"--duration", "1500ms", "--repeat", "1", "--workers", "8", "--explode", "1000000", "--factor", "1000000", "--out", dir)
	r := checkFinished(t, dir, code, stdout, stderr, "run incomplete (interrupted)")
	l := r.Engines[0].Ladder
	if !r.Partial || l == nil || len(l.Rungs) != 2 || l.StoppedEarly != "interrupted" {
		t.Fatalf("partial %v, ladder %+v; want two rungs, stopped by the interrupt", r.Partial, l)
	}
	if first, cut := l.Rungs[0].Reps[0], l.Rungs[1].Reps[0]; first.Partial || first.Sent == 0 || !cut.Partial || cut.Sent == 0 {
		t.Errorf("first rep partial %v sent %d; cut rep partial %v sent %d", first.Partial, first.Sent, cut.Partial, cut.Sent)
	}
	if l.Rungs[1].Sustainable || l.Sustainable == l.Rungs[1].Offered {
		t.Errorf("the cut rung counts as sustainable (sustainable rate %v)", l.Sustainable)
	}
}

package loopback_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/workload/corpus/text"

	"github.com/valyala/fasthttp"

	"github.com/searchbench/searchbench/bench/loopback"
	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/meilisearch"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload"
)

const key = "loopback-test-key"

// start serves a Server on a free port below 32768 (the range above is
// handed out to outgoing connections), found as the other test servers
// find theirs.
func start(t testing.TB) (*loopback.Server, string) {
	t.Helper()
	s := &loopback.Server{Key: key}
	ln, err := valkeyfake.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return s, "http://" + ln.Addr().String()
}

func openDriver(t testing.TB, url, apiKey string) (engines.Engine, error) {
	t.Helper()
	e, err := engines.Open(context.Background(), "meilisearch", engines.Config{URL: url, APIKey: engines.Secret(apiKey)})
	if err == nil {
		t.Cleanup(func() { e.Close() })
	}
	return e, err
}

func textSource(t testing.TB) text.Text {
	t.Helper()
	c, err := dataset.New(dataset.Config{Seed: 1, IDs: 1000, Prepopulate: 0})
	if err != nil {
		t.Fatal(err)
	}
	return text.Text{Corpus: c}
}

// The driver opens, creates the index, reports its stats and searches, as
// `searchbench run --prepopulate 0` needs; the key is checked.
func TestMeilisearchDriverAttaches(t *testing.T) {
	s, url := start(t)
	if _, err := openDriver(t, url, ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("open without a key: %v, want HTTP 401", err)
	}
	if _, err := openDriver(t, url, "wrong"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("open with a wrong key: %v, want HTTP 403", err)
	}
	e, err := openDriver(t, url, key)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src := textSource(t)
	if err := e.Create(ctx, src.Schema()); err != nil {
		t.Fatal(err)
	}
	p, err := runner.Prepopulate(ctx, e, src, loops.DefaultTimeout, nil)
	if err != nil || !p.CountOK {
		t.Fatalf("pre-population of nothing: %+v, %v", p, err)
	}
	if _, err := e.(engines.StatsReporter).Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.(engines.Attacher).Attach(ctx, src.Schema()); err != nil {
		t.Fatalf("a shard's attach: %v", err)
	}
	for i := range 3 {
		q, _ := src.Query(uint64(i))
		h, err := e.Search(ctx, engines.Query{Text: q.Text, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.IDs) != loopback.Hits || h.IDs[0] != "1000" || h.Total != loopback.Hits {
			t.Fatalf("hits %+v, want the fixed %d", h, loopback.Hits)
		}
	}
	if n := s.Searches(); n != 3 {
		t.Errorf("%d searches counted, want 3", n)
	}
}

// A closed-loop level of searches against the target fails no call, and the
// server answered at least every call the runner counted.
func TestClosedLoopAgainstIt(t *testing.T) {
	s, url := start(t)
	l := runPlan(t, url, runner.Plan{Closed: &loops.Config{
		Users: []int{8}, SpawnRate: 1000, Measure: 200 * time.Millisecond, Freshness: checks.FreshnessConfig{Off: true},
		Calls: searches(),
	}}).Levels[0]
	st, _ := l.Op("search")
	if st.Count == 0 || st.ErrorCount() != 0 {
		t.Fatalf("search: %d calls, errors %v", st.Count, st.Errors)
	}
	if n := s.Searches(); n < st.Count {
		t.Errorf("the server answered %d searches, the runner counted %d", n, st.Count)
	}
}

// searches are the calls of the loops here: searches only, as the other
// tools of bench/run.sh send.
func searches() loops.Calls {
	mix, err := workload.ParseMix("search")
	if err != nil {
		panic(err)
	}
	return loops.Calls{Timeout: 5 * time.Second, Mix: mix, Seed: 1, K: 10}
}

// runPlan runs p's loop through the library's pipeline, as `searchbench run
// --engine meilisearch --url … --prepopulate 0` would, against the target
// at url, and returns the one setup's record.
func runPlan(t testing.TB, url string, p runner.Plan) result.EngineRun {
	t.Helper()
	p.Source = textSource(t)
	p.Setups = []runner.Setup{{Driver: "meilisearch", Config: engines.Config{URL: url, APIKey: engines.Secret(key)}}}
	res, err := runner.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Engines) != 1 || res.Engines[0].Error != "" || res.Partial {
		t.Fatalf("run: %+v", res)
	}
	return res.Engines[0]
}

// exchange writes raw bytes and reads the responses that follow.
func exchange(t *testing.T, url, raw string, responses int) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	var out []*http.Response
	for range responses {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("response %d: %v", len(out)+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		out = append(out, resp)
	}
	return out
}

func search(body string, extra ...string) string {
	return fmt.Sprintf("POST /indexes/x/search HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n%s\r\n%s",
		key, len(body), strings.Join(extra, ""), body)
}

func TestFraming(t *testing.T) {
	s, url := start(t)
	body := `{"q":"a b c","limit":10}`
	t.Run("pipelined requests are answered in order", func(t *testing.T) {
		raw := search(body) + "GET /version HTTP/1.1\r\nAuthorization: Bearer " + key + "\r\n\r\n" + search(body)
		rs := exchange(t, url, raw, 3)
		for i, want := range []int{200, 200, 200} {
			if rs[i].StatusCode != want {
				t.Errorf("response %d: %d", i, rs[i].StatusCode)
			}
		}
		b, _ := io.ReadAll(rs[1].Body)
		if !strings.Contains(string(b), `"pkgVersion":"loopback"`) {
			t.Errorf("version: %s", b)
		}
		b, _ = io.ReadAll(rs[2].Body)
		if string(b) != string(loopback.SearchResponse) {
			t.Errorf("search: %s", b)
		}
	})
	t.Run("a body split across writes", func(t *testing.T) {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		raw := search(body)
		io.WriteString(c, raw[:10])
		time.Sleep(10 * time.Millisecond)
		io.WriteString(c, raw[10:len(raw)-5])
		time.Sleep(10 * time.Millisecond)
		io.WriteString(c, raw[len(raw)-5:])
		c.SetDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
	})
	t.Run("Connection: close ends the connection", func(t *testing.T) {
		rs := exchange(t, url, search(body, "Connection: close\r\n"), 1)
		if !rs[0].Close {
			t.Error("no Connection: close in the answer")
		}
	})
	cases := []struct {
		name, raw string
		status    int
	}{
		{"wrong key", "GET /version HTTP/1.1\r\nAuthorization: Bearer nope\r\n\r\n", 403},
		{"no key", "GET /version HTTP/1.1\r\n\r\n", 401},
		{"unknown route", "GET /indexes/x/documents HTTP/1.1\r\nAuthorization: Bearer " + key + "\r\n\r\n", 404},
		{"search with GET", "GET /indexes/x/search HTTP/1.1\r\nAuthorization: Bearer " + key + "\r\n\r\n", 404},
		{"chunked body", "POST /indexes/x/search HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"bad length", "POST /indexes/x/search HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400},
		{"huge head", "GET /version HTTP/1.1\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", 400},
		{"task", "GET /tasks/7 HTTP/1.1\r\nAuthorization: Bearer " + key + "\r\n\r\n", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := exchange(t, url, c.raw, 1)[0].StatusCode; got != c.status {
				t.Errorf("status %d, want %d", got, c.status)
			}
		})
	}
	before := s.Searches()
	exchange(t, url, search(body), 1)
	if s.Searches() != before+1 {
		t.Errorf("searches %d → %d", before, s.Searches())
	}
}

// With a delay, a search is answered no sooner than the delay after it was
// sent, and the routes the driver's Open and Create call are not held.
func TestDelayHoldsSearches(t *testing.T) {
	const delay = 50 * time.Millisecond
	s := &loopback.Server{Key: key, Delay: delay}
	ln, err := valkeyfake.Listen()
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	url := "http://" + ln.Addr().String()

	for range 3 {
		began := time.Now()
		if rs := exchange(t, url, search(`{"q":"a"}`), 1); rs[0].StatusCode != 200 {
			t.Fatalf("search: %d", rs[0].StatusCode)
		}
		if took := time.Since(began); took < delay {
			t.Errorf("a search answered after %v, before the %v delay", took, delay)
		}
	}
	// Not held: even on a busy machine a second is far more than a
	// /version answer takes and far less than 40 held searches would.
	began := time.Now()
	exchange(t, url, strings.Repeat("GET /version HTTP/1.1\r\nAuthorization: Bearer "+key+"\r\n\r\n", 40), 40)
	if took := time.Since(began); took >= 40*delay/2 {
		t.Errorf("40 /version requests took %v: held like searches", took)
	}
}

func TestListenRefusesOtherAddresses(t *testing.T) {
	s := &loopback.Server{}
	if _, err := s.Listen("0.0.0.0:0"); err == nil {
		s.Close()
		t.Fatal("listened on every address")
	}
}

// BenchmarkMeilisearchSearch is the Meilisearch driver's search path (the
// body's encoding, httpwire.FastClient, the response's parsing) against the
// loopback target in this process: -cpuprofile shows what a search costs
// the load generator.
func BenchmarkMeilisearchSearch(b *testing.B) {
	_, url := start(b)
	e, err := openDriver(b, url, key)
	if err != nil {
		b.Fatal(err)
	}
	src := textSource(b)
	if err := e.Create(context.Background(), src.Schema()); err != nil {
		b.Fatal(err)
	}
	q, _ := src.Query(1)
	q.K = 10
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := e.Search(ctx, q); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkNetHTTPFloor is the same search as BenchmarkMeilisearchSearch
// made with net/http alone — a fixed body, the answer read and dropped, what
// vegeta does per request: the floor under any driver built on net/http.
// The difference to BenchmarkMeilisearchSearch is the driver's own cost.
func BenchmarkNetHTTPFloor(b *testing.B) {
	_, url := start(b)
	c := &http.Client{Transport: httpwire.Transport(64)}
	body := []byte(`{"limit":10,"attributesToRetrieve":["id"],"q":"Lot foot lot will.","hybrid":null}`)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, url+"/indexes/x/search", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := c.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkFastHTTPFloor is BenchmarkNetHTTPFloor's request made with
// httpwire.FastClient alone, pooled request and response, the answer
// dropped: the floor under a driver's fast path.
func BenchmarkFastHTTPFloor(b *testing.B) {
	_, raw := start(b)
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	c := httpwire.NewFastClient(u, 64, 0)
	defer c.Close()
	body := []byte(`{"limit":10,"attributesToRetrieve":["id"],"q":"Lot foot lot will.","hybrid":null}`)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			c.Prepare(req, http.MethodPost, "/indexes/x/search")
			req.Header.SetContentType("application/json")
			req.Header.Set("Authorization", "Bearer "+key)
			req.SetBodyRaw(body)
			err := c.Do(ctx, req, resp)
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkClosedLoop64 is one closed-loop level of 64 users searching the
// loopback target in this process: the runner's share of the cost on top of
// the driver's. ns/op is per level; calls/s is the figure.
func BenchmarkClosedLoop64(b *testing.B) {
	_, url := start(b)
	for b.Loop() {
		l := runPlan(b, url, runner.Plan{Closed: &loops.Config{
			Users: []int{64}, SpawnRate: 10_000, Measure: 2 * time.Second, Freshness: checks.FreshnessConfig{Off: true},
			Calls: searches(),
		}}).Levels[0]
		b.ReportMetric(l.TotalRPS, "calls/s")
	}
}

// BenchmarkLadderOneCPU is one open-loop rung of 5,000 searches/s against
// the loopback target with a single P, as under `taskset -c 0`: the
// scheduler must not keep the network poller from waking the workers
// (service-p50-ms would then be milliseconds, not a fraction of one).
func BenchmarkLadderOneCPU(b *testing.B) {
	_, url := start(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for b.Loop() {
		l := runPlan(b, url, runner.Plan{Ladder: &loops.LadderConfig{
			Open:  loops.OpenConfig{Workers: 64, Arrival: "constant", Calls: searches()},
			Rates: workload.Ladder{Start: 5000, Step: 2, Stop: 5000}, Duration: 2 * time.Second, Repeat: 1,
			Factor: loops.DefaultFactor, MinAchieved: loops.DefaultMinAchieved, Explode: loops.DefaultExplode,
		}}).Ladder
		rep := l.Rungs[0].Reps[0]
		b.ReportMetric(rep.Achieved, "achieved/s")
		b.ReportMetric(rep.Latency.P50, "p50-ms")
		b.ReportMetric(rep.Service.P50, "service-p50-ms")
		b.ReportMetric(rep.GeneratorLagP99, "lag-p99-ms")
	}
}

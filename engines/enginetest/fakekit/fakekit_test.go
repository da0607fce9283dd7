package fakekit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fake is the smallest HTTP fake: faults first, then "ok".
func fake(fs *Faults, q *Requests) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		q.Add(r.Method+" "+r.URL.Path, r, body)
		if fs.Serve(w, r, func(w http.ResponseWriter, _ *http.Request, f Fault) {
			WriteJSON(w, f.Status, map[string]string{"code": f.Code, "message": f.Message})
		}) {
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
}

func get(t *testing.T, ctx context.Context, url string) (int, string, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// A fault answers its Times requests on matching paths, with the fake's
// error body, and spares the routes in Spare unless it names them.
func TestStatusTimesAndSpare(t *testing.T) {
	fs := &Faults{Spare: []string{"/health"}}
	var q Requests
	srv := fake(fs, &q)
	defer srv.Close()
	fs.Inject(Fault{Status: 503, Code: "busy", Times: 2})
	ctx := context.Background()
	if code, body, _ := get(t, ctx, srv.URL+"/health"); code != 200 || body != "ok" {
		t.Fatalf("spared route: %d %q", code, body)
	}
	for range 2 {
		if code, body, _ := get(t, ctx, srv.URL+"/idx/_search"); code != 503 || !strings.Contains(body, `"busy"`) {
			t.Fatalf("faulted: %d %q", code, body)
		}
	}
	if code, _, _ := get(t, ctx, srv.URL+"/idx/_search"); code != 200 {
		t.Fatalf("after Times: %d", code)
	}
	fs.Inject(Fault{Path: "/health", Status: 429})
	if code, _, _ := get(t, ctx, srv.URL+"/health"); code != 429 {
		t.Fatalf("a fault naming a spared route: %d", code)
	}
	if q.Count("") != 5 || q.Count("GET /idx/_search") != 3 {
		t.Fatalf("counts: all %d, search %d", q.Count(""), q.Count("GET /idx/_search"))
	}
	if rec, ok := q.Last("GET /health"); !ok || rec.Path != "/health" {
		t.Fatalf("last: %+v %v", rec, ok)
	}
}

// A hung request waits until Clear, then is answered normally; a client
// that gives up ends its wait.
func TestHangUntilClear(t *testing.T) {
	var fs Faults
	var q Requests
	srv := fake(&fs, &q)
	defer srv.Close()
	fs.Inject(Fault{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := get(t, ctx, srv.URL+"/x"); err == nil {
		t.Fatal("a hung request was answered")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var code int
	var body string
	go func() {
		defer wg.Done()
		code, body, _ = get(t, context.Background(), srv.URL+"/x")
	}()
	for q.Count("GET /x") < 2 {
		time.Sleep(time.Millisecond)
	}
	fs.Clear()
	wg.Wait()
	if code != 200 || body != "ok" {
		t.Fatalf("released: %d %q", code, body)
	}
}

// Drop is a transport error; Raw with Drop is an answer cut off.
func TestDropAndRaw(t *testing.T) {
	var fs Faults
	var q Requests
	srv := fake(&fs, &q)
	defer srv.Close()
	fs.Inject(Fault{Path: "/drop", Drop: true})
	if _, _, err := get(t, context.Background(), srv.URL+"/drop"); err == nil {
		t.Fatal("a dropped request got an answer")
	}
	fs.Inject(Fault{Path: "/raw", Raw: "<html>", Times: 1})
	if code, body, _ := get(t, context.Background(), srv.URL+"/raw"); code != 200 || body != "<html>" {
		t.Fatalf("raw: %d %q", code, body)
	}
	fs.Inject(Fault{Path: "/cut", Raw: `{"hits": [`, Drop: true})
	if _, _, err := get(t, context.Background(), srv.URL+"/cut"); err == nil {
		t.Fatal("a cut-off answer read whole")
	}
}

// A RESP fault matches its command in any case; a delay holds a request
// that long.
func TestCommandAndDelay(t *testing.T) {
	var fs Faults
	fs.Inject(Fault{Command: "FT.SEARCH", Raw: "+OK\r\n", Times: 1})
	if _, ok := fs.TakeCommand("hset"); ok {
		t.Fatal("another command matched")
	}
	if f, ok := fs.TakeCommand("ft.search"); !ok || f.Raw != "+OK\r\n" {
		t.Fatalf("command: %+v %v", f, ok)
	}
	if _, ok := fs.TakeCommand("FT.SEARCH"); ok {
		t.Fatal("a fault of one time matched twice")
	}
	fs.Inject(Fault{Command: "PING", Delay: 20 * time.Millisecond})
	f, _ := fs.TakeCommand("PING")
	start := time.Now()
	if !f.Wait(context.Background()) || time.Since(start) < 20*time.Millisecond {
		t.Fatal("delay not waited")
	}
	fs.Close()
	fs.Inject(Fault{Command: "PING", Hang: true})
	if f, _ := fs.TakeCommand("PING"); !f.Wait(context.Background()) {
		t.Fatal("a closed fake held a request")
	}
}

// A knob keeps its last value and every distinct value, whatever the
// order they came in.
func TestKnobSeen(t *testing.T) {
	t.Parallel()
	var k Knob
	if k.Last() != 0 || len(k.Seen()) != 0 {
		t.Fatalf("zero knob: last %d, seen %v", k.Last(), k.Seen())
	}
	for _, v := range []int{40, 10, 40, 400, 10} {
		k.Saw(v)
	}
	if k.Last() != 10 || !slices.Equal(k.Seen(), []int{10, 40, 400}) {
		t.Errorf("last %d, seen %v; want 10, [10 40 400]", k.Last(), k.Seen())
	}
}

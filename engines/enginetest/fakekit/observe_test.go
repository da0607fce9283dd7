package fakekit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// An observed fake shows its check every exchange: the request as sent
// (body included, still readable by the fake), the answer as written, and
// whether an injected fault gave it.
func TestObserve(t *testing.T) {
	var fs Faults
	var q Requests
	inner := fake(&fs, &q)
	inner.Close() // only its handler is wanted
	srv := httptest.NewServer(Observe("tiny", inner.Config.Handler))
	defer srv.Close()

	var mu sync.Mutex
	var seen []Exchange
	previous := SetCheck(func(ex Exchange) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ex)
	})
	defer SetCheck(previous)

	resp, err := http.Post(srv.URL+"/a?x=1", "application/json", strings.NewReader(`{"k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fs.Inject(Fault{Status: http.StatusTooManyRequests, Code: "busy", Times: 1})
	resp, err = http.Get(srv.URL + "/b")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("saw %d exchanges; want 2", len(seen))
	}
	a, b := seen[0], seen[1]
	if a.Fake != "tiny" || a.URL != "/a?x=1" || string(a.Request.Body) != `{"k":1}` || a.Status != 200 || string(a.Body) != "ok" || a.Fault {
		t.Errorf("first exchange = %+v", a)
	}
	if last, _ := q.Last("POST /a"); string(last.Body) != `{"k":1}` {
		t.Errorf("the fake read body %q; want the one sent", last.Body)
	}
	if b.Status != http.StatusTooManyRequests || !b.Fault || !strings.Contains(string(b.Body), "busy") {
		t.Errorf("fault exchange = %+v; want 429, Fault, the fault's body", b)
	}

	// Without a check, nothing is shown.
	SetCheck(nil)
	resp, err = http.Get(srv.URL + "/c")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(seen) != 2 {
		t.Errorf("saw %d exchanges after SetCheck(nil); want still 2", len(seen))
	}
}

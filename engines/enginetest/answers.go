package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/searchbench/searchbench/engines/quote"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/searchbench/searchbench/engines"
)

// Answers describes an HTTP engine for FuzzServerAnswers and StatusClasses.
type Answers struct {
	Driver string         // the registered driver
	Config engines.Config // URL is set to the fuzzing server's
	// Good is a well-formed answer to each request Open and Create send,
	// so that the fuzzed answers reach every other call.
	Good func(*http.Request) (status int, body []byte)
	// Header is sent with every answer, good or fuzzed (Elasticsearch's
	// product header, without which its client refuses everything).
	Header  http.Header
	Seeds   []Answer
	Timeout time.Duration // of each fuzz input's calls
	// Missing is the engine's answer to a delete of a missing document,
	// where it reports one (nil: it never does), for StatusClasses.
	Missing *Answer
	// GetMissing is the engine's answer to a get of a missing document,
	// for a driver that implements engines.Getter (StatusClasses).
	GetMissing *Answer
}

// Answer is one seed: a status and a body.
type Answer struct {
	Status int
	Body   string
}

// server answers every request: with a.Good until set, then with the set
// status and body.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	on     bool
	status int
	body   []byte
}

func newServer(tb testing.TB, a Answers) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		on, status, body := s.on, s.status, s.body
		s.mu.Unlock()
		if !on {
			status, body = a.Good(r)
		}
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	tb.Cleanup(s.Close)
	return s
}

// set makes every later request get status and body; on false goes back to
// the good answers.
func (s *server) set(on bool, status int, body []byte) {
	s.mu.Lock()
	s.on, s.status, s.body = on, status, body
	s.mu.Unlock()
}

// open opens the driver against s with good answers and creates the index.
func (s *server) open(ctx context.Context, t *testing.T, a Answers) engines.Engine {
	t.Helper()
	s.set(false, 0, nil)
	cfg := a.Config
	cfg.URL = s.URL
	e, err := engines.Open(ctx, a.Driver, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if err := e.Create(ctx, Schema("fuzz")); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return e
}

// FuzzServerAnswers checks that whatever an engine's server answers — any
// status, any body, to every request — each call of the driver returns an
// error or a result and never panics: the driver is opened and its index
// created against good answers, then every call, the optional ones it
// offers included, meets the fuzzed answer.
func FuzzServerAnswers(f *testing.F, a Answers) {
	srv := newServer(f, a)
	for _, s := range a.Seeds {
		f.Add(s.Status, []byte(s.Body))
	}
	f.Fuzz(func(t *testing.T, s int, b []byte) {
		if s < 200 || s > 599 {
			return // not an HTTP status a server can send
		}
		ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
		defer cancel()
		e := srv.open(ctx, t, a)
		srv.set(true, s, b)
		d := engines.Document{ID: "1", Fields: []engines.Field{{Name: "name", Text: "x"}}}
		_ = e.Upsert(ctx, d)
		if bu, ok := e.(engines.BulkUpserter); ok {
			_ = bu.UpsertBatch(ctx, []engines.Document{d})
		}
		_ = e.Delete(ctx, "1")
		_, _ = e.Search(ctx, engines.Query{Text: "x", K: 10})
		if g, ok := e.(engines.Getter); ok {
			if got, err := g.Get(ctx, "1"); err == nil && got.ID != "1" {
				t.Fatalf("Get(1) returned document %q", got.ID)
			}
		}
		if r, ok := e.(engines.Refresher); ok {
			_ = r.Refresh(ctx)
		}
		if c, ok := e.(engines.Counter); ok {
			_, _ = c.Count(ctx)
		}
		if sr, ok := e.(engines.StatsReporter); ok {
			_, _ = sr.Stats(ctx)
		}
		if v, ok := e.(engines.Versioner); ok {
			_, _ = v.Version(ctx)
		}
		_ = e.Create(ctx, Schema("fuzz"))
	})
}

// statusClasses is what every HTTP driver's call must make of an answer
// with each status and no body the engine would recognise (a proxy's or a
// gateway's answer): the classes of httpwire.StatusClass, written out here
// so that a change there fails this table too.
var statusClasses = []struct {
	status int
	want   engines.Class
}{
	{400, engines.Other},
	{404, engines.Other}, // a wrong route or a missing index: a broken setup
	{408, engines.Timeout},
	{429, engines.Overloaded},
	{500, engines.Other},
	{503, engines.Overloaded},
	{504, engines.Timeout},
}

// StatusClasses checks that the driver's Search, against a server that
// answers each status of one table (with a plain-text body, as a proxy
// would), fails with the same class as every other HTTP driver's: a 504 is a
// timeout for all of them. A long error body is quoted clipped, never cut
// inside a character. Where the engine marks a missing document
// (a.Missing), Delete meeting that answer must fail as NotFound. A search
// answered 200 with a body the driver cannot read (cut off, not JSON, the
// wrong JSON type, empty) fails as Other quoting the body's first bytes,
// never as a success with no hits.
func StatusClasses(t *testing.T, a Answers) {
	srv := newServer(t, a)
	// Every answer is immediate: the bound only ends a driver that hangs.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := srv.open(ctx, t, a)
	for _, c := range statusClasses {
		body := []byte(fmt.Sprintf("%d %s", c.status, http.StatusText(c.status)))
		srv.set(true, c.status, body)
		_, err := e.Search(ctx, engines.Query{Text: "x", K: 10})
		if got := engines.Classify(err); got != c.want {
			t.Errorf("%s: search answered %d: %v, class %s; want %s", a.Driver, c.status, err, got, c.want)
		}
	}
	// A long body with a two-byte character across every possible cut: a
	// driver that quotes it must clip it (quote.Clip) whole characters.
	long := "x" + strings.Repeat("é", 2*quote.MaxLen)
	srv.set(true, 500, []byte(long))
	if _, err := e.Search(ctx, engines.Query{Text: "x", K: 10}); err == nil || !utf8.ValidString(err.Error()) || len(err.Error()) > 3*quote.MaxLen {
		t.Errorf("%s: search answered 500 with %d bytes of text: %q; want an error of valid UTF-8 quoting at most a clipped part", a.Driver, len(long), err)
	}
	if a.Missing != nil {
		srv.set(true, a.Missing.Status, []byte(a.Missing.Body))
		if err := e.Delete(ctx, "1"); engines.Classify(err) != engines.NotFound {
			t.Errorf("%s: delete answered %d %s: %v, class %s; want not_found", a.Driver, a.Missing.Status, a.Missing.Body, err, engines.Classify(err))
		}
	}
	unparsable(ctx, t, a, srv, e)
	getClasses(ctx, t, a, srv, e)
}

// unparsableAnswers are search answers with a success status that no
// driver can read: a body cut off mid-answer (a proxy's or the engine's own
// connection dropped), a page that is not JSON at all, an answer of the
// wrong JSON type, an object without the hits a search answer holds, and
// nothing.
var unparsableAnswers = []struct{ what, body string }{
	{"truncated", `{"hits":{"total":{"value":3},"hits":[{"_id":"1","_source":{"name":"x"`},
	{"malformed", `<html><body>upstream sent garbage</body></html>`},
	{"wrong JSON type", `[1,2,3]`},
	{"answer-less", `{"status":"ok","message":"no hits field here"}`},
	{"empty", ``},
}

// unparsable checks that the driver's Search, answered 200 with a body it
// cannot read (unparsableAnswers), fails in class Other with the body's
// first bytes in the message — so that the run's error examples say what
// came back — and never returns success with zero hits.
func unparsable(ctx context.Context, t *testing.T, a Answers, srv *server, e engines.Engine) {
	for _, u := range unparsableAnswers {
		srv.set(true, http.StatusOK, []byte(u.body))
		hits, err := e.Search(ctx, engines.Query{Text: "x", K: 10})
		switch {
		case err == nil:
			t.Errorf("%s: search answered 200 with a %s body %q: success with %d hits (total %d); want an error", a.Driver, u.what, u.body, len(hits.IDs), hits.Total)
		case engines.Classify(err) != engines.Other:
			t.Errorf("%s: search answered 200 with a %s body: %v, class %s; want other", a.Driver, u.what, err, engines.Classify(err))
		case !strings.Contains(err.Error(), firstBytes(u.body)):
			t.Errorf("%s: search answered 200 with a %s body: %q does not quote its first bytes %q", a.Driver, u.what, err, firstBytes(u.body))
		}
	}
}

// firstBytes is what an error about an unreadable body must quote of it.
func firstBytes(body string) string {
	if len(body) > 20 {
		return body[:20]
	}
	return body
}

// getClasses is StatusClasses for Get, where the driver offers it: the same
// table (a proxy's bare 404 is no missing document), and the engine's own
// answer for a missing document (a.GetMissing) NotFound.
func getClasses(ctx context.Context, t *testing.T, a Answers, srv *server, e engines.Engine) {
	g, ok := e.(engines.Getter)
	if !ok {
		if a.GetMissing != nil {
			t.Errorf("%s: Answers.GetMissing is set, but %T does not implement engines.Getter", a.Driver, e)
		}
		return
	}
	for _, c := range statusClasses {
		srv.set(true, c.status, []byte(fmt.Sprintf("%d %s", c.status, http.StatusText(c.status))))
		if _, err := g.Get(ctx, "1"); engines.Classify(err) != c.want {
			t.Errorf("%s: get answered %d: %v, class %s; want %s", a.Driver, c.status, err, engines.Classify(err), c.want)
		}
	}
	if a.GetMissing != nil {
		srv.set(true, a.GetMissing.Status, []byte(a.GetMissing.Body))
		if _, err := g.Get(ctx, "1"); engines.Classify(err) != engines.NotFound {
			t.Errorf("%s: get answered %d %s: %v, class %s; want not_found", a.Driver, a.GetMissing.Status, a.GetMissing.Body, err, engines.Classify(err))
		}
	}
}

// ContextErrors checks how a search against an engine that never answers
// ends: at the caller's deadline as a timeout, and at once as canceled when
// the caller's context is canceled. The engine must be hanging (a fake's
// injected fault) when it is called.
func ContextErrors(t *testing.T, e engines.Engine, q engines.Query) {
	t.Helper()
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Search(short, q); engines.Classify(err) != engines.Timeout {
		t.Errorf("context deadline: %v, class %s; want timeout", err, engines.Classify(err))
	}
	canceled, stop := context.WithCancel(context.Background())
	stop()
	if _, err := e.Search(canceled, q); engines.Classify(err) != engines.Canceled {
		t.Errorf("canceled context: %v, class %s; want canceled", err, engines.Classify(err))
	}
}

// Request is a request to a fake's URL for the fakes' own tests: body nil
// sends none, a string is sent as is (NDJSON, or deliberately malformed
// JSON), anything else as JSON with its Content-Type.
func Request(t testing.TB, method, url string, body any) *http.Request {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

package apispec

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Allow is a disagreement between a fake's traffic and the document that is
// explained rather than fixed: a known error in the published document.
type Allow struct {
	// Operation is the operation (as Request.Operation names it, or the
	// "METHOD /path" of a request the document has no operation for), and
	// Contains a text the error must contain.
	Operation, Contains string
	// Reason says why the document, not the engine, is wrong, with a
	// citation.
	Reason string
}

// Watch checks every exchange of the fakes a test package starts against a
// document (fakekit.SetCheck), and keeps what disagrees.
type Watch struct {
	doc   *Doc
	allow []Allow

	mu        sync.Mutex
	exchanges int
	requests  map[string]int // by operation
	answers   map[string]int // checked answers, by operation
	undoc     map[string]int // answers of a status the document does not describe
	allowed   map[int]int    // uses of each Allow
	problems  []string
	spent     time.Duration
}

// NewWatch checks exchanges against doc, with allow's explanations.
func NewWatch(doc *Doc, allow ...Allow) *Watch {
	return &Watch{doc: doc, allow: allow, requests: map[string]int{}, answers: map[string]int{},
		undoc: map[string]int{}, allowed: map[int]int{}}
}

// Check is fakekit's check: it validates ex's request, and its answer
// unless an injected fault gave it.
func (w *Watch) Check(ex fakekit.Exchange) {
	start := time.Now()
	req, err := w.doc.CheckRequest(ex.Request.Method, ex.URL, ex.Request.Header, ex.Request.Body)
	var answerErr error
	documented := false
	if req.input != nil && !ex.Fault {
		documented, answerErr = w.doc.CheckResponse(req, ex.Status, ex.Header, ex.Body)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.spent += time.Since(start)
	w.exchanges++
	op := req.Operation
	if op == "" {
		op = ex.Request.Method + " " + ex.Request.Path
	}
	w.requests[op]++
	for _, e := range fields(err) {
		w.problem(op, fmt.Sprintf("%s request %s %s: %v\n  body: %.300s", ex.Fake, ex.Request.Method, ex.URL, e, ex.Request.Body))
	}
	switch {
	case answerErr != nil:
		for _, e := range fields(answerErr) {
			w.problem(op, fmt.Sprintf("%s answer %d to %s %s: %v\n  body: %.300s", ex.Fake, ex.Status, ex.Request.Method, ex.URL, e, ex.Body))
		}
	case documented:
		w.answers[op]++
	case req.input != nil && !ex.Fault:
		w.undoc[fmt.Sprintf("%s %d", op, ex.Status)]++
	}
}

// fields splits a check's error into its fields' errors, each of which an
// Allow explains or not on its own.
func fields(err error) []error {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// problem keeps a disagreement unless an Allow explains it. Called with
// w.mu held.
func (w *Watch) problem(op, text string) {
	for i, a := range w.allow {
		if a.Operation == op && strings.Contains(text, a.Contains) {
			w.allowed[i]++
			return
		}
	}
	w.problems = append(w.problems, text)
}

// Report writes what was checked, and the disagreements; it returns false
// when there was one, or when an Allow explained nothing (an entry that no
// longer applies must go).
func (w *Watch) Report(out io.Writer, verbose, complete bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := len(w.problems) == 0
	if verbose || !ok {
		fmt.Fprintf(out, "apispec: %s: %d exchanges checked, %v spent checking (summed over concurrent exchanges); by operation:\n", w.doc.Spec.Engine, w.exchanges, w.spent.Round(time.Millisecond))
		for _, op := range slices.Sorted(maps.Keys(w.requests)) {
			fmt.Fprintf(out, "  %-40s %6d requests, %6d answers checked\n", op, w.requests[op], w.answers[op])
		}
		for _, k := range slices.Sorted(maps.Keys(w.undoc)) {
			fmt.Fprintf(out, "  answers the document does not describe (no schema to check): %s ×%d\n", k, w.undoc[k])
		}
	}
	for i, a := range w.allow {
		if verbose && w.allowed[i] > 0 {
			fmt.Fprintf(out, "  allowed ×%d: %s %q: %s\n", w.allowed[i], a.Operation, a.Contains, a.Reason)
		}
		if w.allowed[i] == 0 && complete {
			fmt.Fprintf(out, "apispec: allow-list entry explained nothing: %s %q\n", a.Operation, a.Contains)
			ok = false
		}
	}
	if complete && w.exchanges == 0 {
		// A package whose tests start a fake always has traffic: none
		// seen means the check was not called, not that all agreed.
		fmt.Fprintf(out, "apispec: no fake exchange was checked against %s\n", w.doc.Spec.Engine)
		ok = false
	}
	for _, p := range w.problems {
		fmt.Fprintf(out, "apispec: DISAGREES with %s: %s\n", w.doc.Spec.Engine, p)
	}
	return ok
}

// Main runs a test package's tests (m.Run) with every fake exchange checked
// against spec: it is the package's TestMain. The package fails when the
// traffic disagrees with the document. An allow-list entry is only held to
// account when the whole package ran (no -run), since a narrower run need
// not reach the traffic it explains.
func Main(m *testing.M, spec *Spec, allow ...Allow) int {
	doc, err := spec.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := NewWatch(doc, allow...)
	previous := fakekit.SetCheck(w.Check)
	code := m.Run()
	fakekit.SetCheck(previous)
	run := flag.Lookup("test.run")
	complete := run == nil || run.Value.String() == ""
	if !w.Report(os.Stdout, testing.Verbose(), complete) && code == 0 {
		code = 1
	}
	return code
}

package apispec_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// A Watch reports an exchange that disagrees, lets an Allow explain one,
// fails on an Allow that explains nothing, and does not check a fault's
// answer.
func TestWatch(t *testing.T) {
	doc, err := apispec.Typesense.Load()
	if err != nil {
		t.Fatal(err)
	}
	search := func(param string) fakekit.Exchange {
		url := "/collections/c/documents/search?q=x&" + param + "=1"
		return fakekit.Exchange{Fake: "test", URL: url,
			Request: fakekit.Recorded{Method: "GET", Path: "/collections/c/documents/search", Header: http.Header{}},
			Status:  200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"found":"many"}`)}
	}
	report := func(w *apispec.Watch) (bool, string) {
		var b strings.Builder
		ok := w.Report(&b, false, true)
		return ok, b.String()
	}

	w := apispec.NewWatch(doc)
	w.Check(search("per_page"))
	if ok, out := report(w); ok || !strings.Contains(out, "/found: value must be an integer") {
		t.Errorf("an answer with a string found: ok %v, report %q", ok, out)
	}

	fault := search("per_page")
	fault.Fault = true
	w = apispec.NewWatch(doc)
	w.Check(fault)
	if ok, out := report(w); !ok {
		t.Errorf("a fault's answer was checked: %s", out)
	}

	w = apispec.NewWatch(doc,
		apispec.Allow{Operation: "searchCollection", Contains: "query parameter per_pagee", Reason: "test"},
		apispec.Allow{Operation: "searchCollection", Contains: "never said", Reason: "test"})
	bad := search("per_pagee")
	bad.Fault = true
	w.Check(bad)
	if ok, out := report(w); ok || !strings.Contains(out, `explained nothing: searchCollection "never said"`) || strings.Contains(out, "DISAGREES") {
		t.Errorf("allowed per_pagee and an unused entry: ok %v, report %q", ok, out)
	}

	if ok, out := report(apispec.NewWatch(doc)); ok {
		t.Errorf("no exchange at all passed: %q", out)
	}
}

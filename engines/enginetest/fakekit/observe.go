package fakekit

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
)

// Exchange is one request an HTTP fake received and the answer it gave.
type Exchange struct {
	// Fake names the fake ("esfake"), as Observe was given it.
	Fake    string
	Request Recorded
	// URL is the request's path and query, as sent.
	URL    string
	Status int
	Header http.Header
	Body   []byte
	// Fault is true when an injected fault (Faults.Serve) answered: an
	// answer the engine would not give, or none at all (Status 0).
	Fault bool
}

// Check, when set, is shown every exchange of every fake Observe wraps, in
// this process, once the fake has answered: a test sets it (SetCheck) to
// check the traffic of all the fakes its package starts, against the
// engine's published API description (package apispec). It must be safe for
// concurrent use.
var check atomic.Pointer[func(Exchange)]

// SetCheck sets the check every observed fake calls, nil for none, and
// returns the one it replaces.
func SetCheck(f func(Exchange)) (previous func(Exchange)) {
	var p *func(Exchange)
	if f != nil {
		p = &f
	}
	if old := check.Swap(p); old != nil {
		return *old
	}
	return nil
}

// Observe wraps a fake's handler so that, while a check is set, each
// exchange is shown to it. Without a check it only calls h.
func Observe(fake string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := check.Load()
		if f == nil {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the client went away
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := Recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
		o := &observer{ResponseWriter: w}
		defer func() {
			// A fault's Drop ends the handler with http.ErrAbortHandler; the
			// exchange is still shown, as a fault's.
			if o.status == 0 && !o.fault {
				o.status = http.StatusOK // net/http's answer to a handler that wrote nothing
			}
			(*f)(Exchange{Fake: fake, Request: rec, URL: r.URL.RequestURI(), Status: o.status,
				Header: w.Header().Clone(), Body: o.body.Bytes(), Fault: o.fault})
		}()
		h.ServeHTTP(o, r)
	})
}

// observer keeps what a fake writes; Unwrap lets http.ResponseController
// reach the connection (Flush, Hijack for a fault's Drop).
type observer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	fault  bool
}

func (o *observer) WriteHeader(status int) {
	if o.status == 0 {
		o.status = status
	}
	o.ResponseWriter.WriteHeader(status)
}

func (o *observer) Write(b []byte) (int, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	o.body.Write(b)
	return o.ResponseWriter.Write(b)
}

func (o *observer) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// markFault notes that an injected fault answered w, when w is observed.
func markFault(w http.ResponseWriter) {
	if o, ok := w.(*observer); ok {
		o.fault = true
	}
}

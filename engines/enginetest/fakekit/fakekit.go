// Package fakekit is what the wire fakes (esfake, meilifake, typesensefake,
// amgixfake, valkeyfake) share: injected faults (a status with the engine's
// error body, a hang, a dropped connection, a delay, raw bytes in place of
// an answer), the requests they hold until a test lets them go, and a record
// of the requests they received. A fake keeps only its engine's wire rules:
// the error body a fault answers with (ErrorBody) and which routes a fault
// without a path spares (Faults.Spare).
package fakekit

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Fault is a failure a fake shows in place of its answer, the way an
// overloaded, stuck or broken server does.
type Fault struct {
	// Method and Path limit an HTTP fault to requests with this method and
	// a path with this prefix ("/idx/_search"); empty matches any (a Path
	// never matches the routes in Faults.Spare unless it names them).
	Method, Path string
	// Command limits a RESP fault to this command, without regard to case.
	Command string
	// Status answers this HTTP status with the engine's error body; Code and
	// Message fill the body, empty meaning the engine's usual ones for the
	// status.
	Status        int
	Code, Message string
	// Raw is written in place of the answer: a reply of the wrong shape or
	// a protocol violation (RESP), or an HTTP body the engine would not
	// send, with Status (200 when 0); with Drop, the answer is cut off
	// after it.
	Raw string
	// Hang holds the request without answering until the client gives up;
	// Clear or Close lets it go on to be answered normally.
	Hang bool
	// Drop closes the connection without answering (after Raw, if any): a
	// crash, or a proxy's reset.
	Drop bool
	// Delay answers normally, this much later: a busy server.
	Delay time.Duration
	// Times is how many requests the fault answers; 0 means until Clear.
	Times int
}

// Faults is a fake's list of injected faults, tried in the order they were
// injected. The zero value is ready to use; it is safe for concurrent use.
type Faults struct {
	// Spare lists paths a fault without a Path does not touch (an engine's
	// health route, which a client polls before it starts).
	Spare []string

	mu      sync.Mutex
	list    []*Fault
	release chan struct{}
	closed  bool
}

// Inject adds f after the faults already injected.
func (fs *Faults) Inject(f Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = append(fs.list, &f)
}

// Clear removes every fault and lets held requests go on.
func (fs *Faults) Clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = nil
	fs.free()
}

// Close lets held requests go on and holds no request from then on: the
// fake is shutting down.
func (fs *Faults) Close() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list, fs.closed = nil, true
	fs.free()
}

// free closes the release channel of the requests held now. Called with
// fs.mu held.
func (fs *Faults) free() {
	if fs.release != nil {
		close(fs.release)
		fs.release = nil
	}
}

// Taken is a fault that matched a request, with what lets it go.
type Taken struct {
	Fault
	release <-chan struct{}
}

// TakeHTTP returns the first fault that matches r, using one of its Times.
func (fs *Faults) TakeHTTP(r *http.Request) (Taken, bool) {
	return fs.take(func(f *Fault) bool {
		if f.Command != "" || (f.Method != "" && f.Method != r.Method) {
			return false
		}
		if f.Path == "" {
			return !slices.Contains(fs.Spare, r.URL.Path)
		}
		return strings.HasPrefix(r.URL.Path, f.Path)
	})
}

// TakeCommand returns the first fault for a RESP command, using one of its
// Times.
func (fs *Faults) TakeCommand(command string) (Taken, bool) {
	return fs.take(func(f *Fault) bool { return strings.EqualFold(f.Command, command) })
}

func (fs *Faults) take(match func(*Fault) bool) (Taken, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.list {
		if !match(f) {
			continue
		}
		if f.Times > 0 {
			if f.Times--; f.Times == 0 {
				fs.list = slices.Delete(fs.list, i, i+1)
			}
		}
		if fs.release == nil {
			fs.release = make(chan struct{})
		}
		release := fs.release
		if fs.closed {
			release = closedChan
		}
		return Taken{Fault: *f, release: release}, true
	}
	return Taken{}, false
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Wait holds the request for t's Hang or Delay: false when the client gave
// up (ctx ended) first, so that nothing is to be written; true when the
// request goes on.
func (t Taken) Wait(ctx context.Context) bool {
	var after <-chan time.Time
	switch {
	case t.Hang:
	case t.Delay > 0:
		timer := time.NewTimer(t.Delay)
		defer timer.Stop()
		after = timer.C
	default:
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-t.release:
		return true
	case <-after:
		return true
	}
}

// ErrorBody writes an engine's error answer for a fault's Status, Code and
// Message.
type ErrorBody func(w http.ResponseWriter, r *http.Request, f Fault)

// Serve applies the first fault that matches r: it holds, delays, drops or
// answers the request with body. It reports whether the fault answered (or
// the client gave up), so that the fake must not; false means the request
// goes on to be answered normally.
func (fs *Faults) Serve(w http.ResponseWriter, r *http.Request, body ErrorBody) bool {
	t, ok := fs.TakeHTTP(r)
	if !ok {
		return false
	}
	markFault(w)
	if !t.Wait(r.Context()) {
		return true
	}
	switch {
	case t.Raw != "":
		status := t.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(t.Raw))
		if t.Drop {
			_ = http.NewResponseController(w).Flush()
			Drop(w)
		}
		return true
	case t.Drop:
		Drop(w)
		return true
	case t.Status != 0:
		body(w, r, t.Fault)
		return true
	}
	return false
}

// Drop closes an HTTP request's connection without an answer, or cuts off
// one that was flushed: the client sees a transport error.
func Drop(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler) // net/http closes the connection
}

// WriteJSON answers status with v as JSON, as every HTTP engine here
// answers errors.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "fakekit: encode: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Package guard turns a driver's panic into an error (PanicError) naming
// the line that panicked, for every room of the runner that calls a driver.
package guard

import (
	"fmt"
	"runtime"
	"strings"
)

// PanicError is a driver call that panicked. A panic is a bug in the driver,
// but the run it happens in has measured things worth keeping: the runner
// turns it into a failed call (class other) whose message says where it
// happened, so the level finishes and its figures are written, instead of a
// crash that loses them.
type PanicError struct {
	Value any
	At    string // the function and line that panicked
}

func (p *PanicError) Error() string {
	return fmt.Sprintf("driver panicked at %s: %v", p.At, p.Value)
}

// Recover, deferred by a function with a named error result, turns a
// panic in that function into a *PanicError in *err.
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = Recovered(v)
	}
}

// Recovered describes v, just returned by recover() in a deferred function,
// as a *PanicError naming the line that panicked.
func Recovered(v any) error {
	return &PanicError{Value: v, At: panicSite()}
}

// Call calls f with Recover: for the calls made outside the hot path
// (pre-population, the probes, the stats sampler).
func Call[T any](f func() (T, error)) (v T, err error) {
	defer Recover(&err)
	return f()
}

// Err is Call for calls that return only an error.
func Err(f func() error) (err error) {
	defer Recover(&err)
	return f()
}

// panicSite is the line that panicked: the first frame outside the runtime
// below runtime.gopanic on the stack of the goroutine that is panicking.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	unwinding := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			unwinding = true
		case unwinding && !strings.HasPrefix(f.Function, "runtime."):
			file := f.File
			if i := strings.LastIndex(file, "/"); i >= 0 {
				if j := strings.LastIndex(file[:i], "/"); j >= 0 {
					file = file[j+1:] // package directory and file
				}
			}
			return fmt.Sprintf("%s (%s:%d)", f.Function, file, f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

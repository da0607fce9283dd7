package engines

import (
	"context"
	"errors"
	"net"
	"os"
)

// Sentinel errors drivers wrap (fmt.Errorf("...: %w", engines.ErrNotFound)) so
// the runner can count failures by class without knowing the driver.
var (
	ErrNotFound   = errors.New("not found")
	ErrTimeout    = errors.New("timeout")
	ErrOverloaded = errors.New("overloaded or rejected")
	// ErrUnsupported: the driver cannot do what was asked (a field type, a
	// query member). It classifies as Other: it is a configuration mistake,
	// not a load effect.
	ErrUnsupported = errors.New("not supported by this engine")
)

// Class is a kind of failure.
type Class uint8

const (
	OK         Class = iota
	NotFound         // the ID did not exist (the published method ignores these for deletes)
	Timeout          // the call ran out of time
	Overloaded       // the engine shed or rejected the request (429, 503, queue full)
	Canceled         // the run was interrupted while the call was in flight
	Other            // anything else
	NumClasses
)

var classNames = [NumClasses]string{"ok", "not_found", "timeout", "overloaded", "canceled", "other"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "unknown"
}

// Classify returns err's class.
func Classify(err error) Class {
	var ne net.Error
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrNotFound):
		return NotFound
	case errors.Is(err, ErrOverloaded):
		return Overloaded
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return Timeout
	case errors.Is(err, context.Canceled):
		return Canceled
	}
	return Other
}

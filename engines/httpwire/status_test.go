package httpwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// The one table of what an unexpected HTTP status means; every HTTP driver
// is checked against the same classes by enginetest.StatusClasses.
func TestStatusClass(t *testing.T) {
	for _, c := range []struct {
		status  int
		missing bool
		want    engines.Class
	}{
		{400, false, engines.Other},
		{401, false, engines.Other},
		{404, false, engines.Other}, // a wrong route or a missing index
		{404, true, engines.NotFound},
		{400, true, engines.Other}, // missing means something only on a 404
		{408, false, engines.Timeout},
		{429, false, engines.Overloaded},
		{500, false, engines.Other},
		{502, false, engines.Other},
		{503, false, engines.Overloaded},
		{503, true, engines.Overloaded},
		{504, false, engines.Timeout},
	} {
		base := fmt.Errorf("HTTP %d", c.status)
		err := StatusError(c.status, c.missing, base)
		if got := engines.Classify(err); got != c.want {
			t.Errorf("StatusError(%d, missing %v) = %v, class %s; want %s", c.status, c.missing, err, got, c.want)
		}
		if !errors.Is(err, base) {
			t.Errorf("StatusError(%d) = %v does not wrap the driver's error", c.status, err)
		}
		if (StatusClass(c.status, c.missing) == nil) != (c.want == engines.Other) {
			t.Errorf("StatusClass(%d, %v) = %v; want class %s", c.status, c.missing, StatusClass(c.status, c.missing), c.want)
		}
	}
}

// TransportError agrees with Classify on every cause, and says "timeout"
// (errors.Is ErrTimeout) for every kind of timeout.
func TestTransportError(t *testing.T) {
	refused := errors.New("connection refused")
	for _, c := range []struct {
		err       error
		want      engines.Class
		isTimeout bool
	}{
		{context.DeadlineExceeded, engines.Timeout, true},
		{fmt.Errorf("Post: %w", context.DeadlineExceeded), engines.Timeout, true},
		{os.ErrDeadlineExceeded, engines.Timeout, true},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, engines.Timeout, true},
		{context.Canceled, engines.Canceled, false},
		{fmt.Errorf("Post: %w", context.Canceled), engines.Canceled, false},
		{refused, engines.Other, false},
	} {
		err := TransportError(c.err)
		if got := engines.Classify(err); got != c.want || got != engines.Classify(c.err) {
			t.Errorf("TransportError(%v) = %v, class %s; want %s (Classify of the cause: %s)", c.err, err, got, c.want, engines.Classify(c.err))
		}
		if errors.Is(err, engines.ErrTimeout) != c.isTimeout {
			t.Errorf("TransportError(%v) = %v: errors.Is ErrTimeout is %v", c.err, err, !c.isTimeout)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("TransportError(%v) = %v lost its cause", c.err, err)
		}
	}
	if TransportError(nil) != nil {
		t.Error("TransportError(nil) is not nil")
	}
	once := TransportError(context.DeadlineExceeded)
	if twice := TransportError(once); twice.Error() != once.Error() {
		t.Errorf("TransportError twice = %q; want %q", twice, once)
	}
}

// timeoutErr is a net.Error that timed out, as a read past its deadline
// returns.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

//go:build !linux

package runner

import (
	"context"
	"errors"
)

// newClock: no precise clock here; the waiter uses Go's timers.
func newClock(context.Context) (clock, error) {
	return nil, errors.New("no precise clock on this platform")
}

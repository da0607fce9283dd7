//go:build !linux

package pace

import (
	"context"
	"errors"
)

// newClock: no precise clock here; a Waiter sleeps and spins as Until does.
func newClock(context.Context) (clock, error) {
	return nil, errors.New("no precise clock on this platform")
}

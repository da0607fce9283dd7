package valkey

import (
	"fmt"
	"strings"

	"github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
)

func isUnknownCommand(err error) bool {
	ve, ok := valkey.IsValkeyErr(err)
	return ok && strings.Contains(strings.ToLower(ve.Error()), "unknown command")
}

// isIndexNotFound: valkey-search's "Index with name '…' not found in
// database N" (a concurrent Create may have dropped it first).
func isIndexNotFound(err error) bool {
	ve, ok := valkey.IsValkeyErr(err)
	return ok && strings.Contains(ve.Error(), "not found")
}

// classify maps server replies onto the runner's classes.
func classify(err error) error {
	ve, ok := valkey.IsValkeyErr(err)
	if !ok {
		return err
	}
	msg := ve.Error()
	upper := strings.ToUpper(msg)
	switch {
	case strings.HasPrefix(upper, "OOM"), strings.HasPrefix(upper, "BUSY"), strings.HasPrefix(upper, "LOADING"),
		strings.Contains(upper, "MAX NUMBER OF CLIENTS"), strings.Contains(msg, "queue depth exceeded"):
		return fmt.Errorf("%w: %s", engines.ErrOverloaded, msg)
	case strings.Contains(strings.ToLower(msg), "timeout"), strings.Contains(strings.ToLower(msg), "timed out"):
		return fmt.Errorf("%w: %s", engines.ErrTimeout, msg)
	}
	return err
}

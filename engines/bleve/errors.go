package bleve

import (
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/engines"
)

// Bleve is a library in this process: its errors are the disk's and the
// index's, class other, and a canceled context is returned as it is. The
// one class the driver sets is not-found.

// errNoIndex is a call before Create or after Close.
var errNoIndex = errors.New("bleve: no index: Create was not called, or the engine is closed")

// notFound is op on a document id the index does not hold: Delete (Bleve's
// own Delete is silent about it) and Get.
func notFound(op, id string) error {
	return fmt.Errorf("bleve: %s %s: %w", op, id, engines.ErrNotFound)
}

package result

import (
	"cmp"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/workload/ops"
)

// A result names its operations by name and carries each one's facts
// (OpStats.Writes, NotFoundDone) itself. What this package knows of the
// operations besides is what reading older files and ordering columns
// need, from the runner's own table (package ops): their table order, the
// facts of the operations an older file names without them, and the mix
// forms older files wrote.

// SortOps sorts operation names into the runner's table order (search,
// upsert, delete, get: ops.Table); names it does not know (a newer
// searchbench's) follow in name order.
func SortOps(names []string) {
	rank := func(name string) int {
		if i := ops.Index(name); i >= 0 {
			return i
		}
		return ops.N
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
}

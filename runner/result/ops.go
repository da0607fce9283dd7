package result

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A result names its operations by name and carries each one's facts
// (OpStats.Writes, NotFoundDone) itself. What this package knows of the
// operations besides is what reading older files and ordering columns
// need: their table order, the facts of the operations an older file names
// without them, and the mix forms older files wrote. ops_test.go checks it
// against the runner's operation table (package workload).

// opFacts is one operation of the runner's table.
type opFacts struct {
	name                 string
	writes, notFoundDone bool
}

// tableOps are the runner's operations in its table order (workload.Ops).
var tableOps = [...]opFacts{
	{name: "search"},
	{name: "upsert", writes: true},
	{name: "delete", writes: true, notFoundDone: true},
	{name: "get", notFoundDone: true},
}

// opIndex is the place of the named operation in tableOps, or -1.
func opIndex(name string) int {
	return slices.IndexFunc(tableOps[:], func(o opFacts) bool { return o.name == name })
}

// SortOps sorts operation names into the runner's table order (search,
// upsert, delete, get: workload.Ops); names it does not know (a newer
// searchbench's) follow in name order.
func SortOps(names []string) {
	rank := func(name string) int {
		if i := opIndex(name); i >= 0 {
			return i
		}
		return len(tableOps)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
}

// mixPresets are the named mixes (workload.Presets) as weights in table
// order.
var mixPresets = map[string][]float64{
	"mixed":  {80, 19, 1, 0},
	"upsert": {0, 1, 0, 0},
	"search": {1, 0, 0, 0},
}

// slashOps is how many operations the slash form ("80/19/1") weighs:
// search, upsert and delete, the first three of the table.
const slashOps = 3

// parseMix reads a mix as the runner accepts it (workload.ParseMix): a
// preset name, named weights ("search=70,get=10,upsert=19,delete=1") or the
// slash form ("80/19/1"); the weights in table order, or ok false when it
// is none of these or its weights are not finite, ≥ 0 and of a non-zero
// sum.
func parseMix(s string) (weights []float64, ok bool) {
	s = strings.TrimSpace(s)
	if m, ok := mixPresets[s]; ok {
		return slices.Clone(m), true
	}
	m := make([]float64, len(tableOps))
	switch {
	case strings.Contains(s, "="):
		named := make([]bool, len(tableOps))
		for _, part := range strings.Split(s, ",") {
			name, value, _ := strings.Cut(part, "=")
			i := opIndex(strings.TrimSpace(name))
			if i < 0 || named[i] {
				return nil, false
			}
			named[i] = true
			if m[i], ok = parseWeight(value); !ok {
				return nil, false
			}
		}
	case strings.Contains(s, "/"):
		parts := strings.Split(s, "/")
		if len(parts) != slashOps {
			return nil, false
		}
		for i, p := range parts {
			if m[i], ok = parseWeight(p); !ok {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	sum := 0.0
	for _, w := range m {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, false
		}
		sum += w
	}
	return m, sum > 0
}

func parseWeight(s string) (float64, bool) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return w, err == nil
}

// mixString is a mix's named form (workload.Mix.String): the operations of
// non-zero weight in table order, as percentages.
func mixString(weights []float64) string {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	var parts []string
	for i, w := range weights {
		if w > 0 {
			parts = append(parts, tableOps[i].name+"="+strconv.FormatFloat(100*(w/sum), 'g', 4, 64))
		}
	}
	return strings.Join(parts, ",")
}

package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// Input is one result given to a report: the result and the name it is known
// by (its file, as given on the command line).
type Input struct {
	Name   string
	Result *result.Result
}

// ErrNotResult is returned by Load for a file that is JSON but not a
// searchbench result, or one of another schema version.
var ErrNotResult = errors.New("not a searchbench result")

// Load reads one result file. A missing file, a file that is not JSON
// (truncated, or invalid at some byte), JSON that is not a result and a
// result of another schema version are errors; the caller treats all
// three as bad input.
func Load(path string) (Input, error) {
	b, err := result.ReadBounded(path, result.MaxFileSize)
	if err != nil {
		return Input{}, fmt.Errorf("read result: %w", err)
	}
	// Probe first, so a JSON file of some other kind gets a plain answer
	// rather than a decoding error about a field it never meant to have.
	var probe result.Probe
	err = json.Unmarshal(b, &probe)
	if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
		// Not JSON at all, most often a file cut short: saying "not a
		// result" would send the user looking for the wrong file.
		return Input{}, result.DecodeError(path, b, err)
	}
	if err != nil || !probe.Searchbench() {
		return Input{}, fmt.Errorf("%s: %w (no schema_version and tool searchbench)", path, ErrNotResult)
	}
	if *probe.SchemaVersion != result.SchemaVersion {
		return Input{}, fmt.Errorf("%s: %w of schema version %d: this searchbench reads version %d", path, ErrNotResult, *probe.SchemaVersion, result.SchemaVersion)
	}
	r, err := result.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	return Input{Name: path, Result: r}, nil
}

// Report is what every output renders: the engine runs of one or more
// results, each one column, with labels made unique across the results.
type Report struct {
	Inputs []Input
	Runs   []Run
}

// Run is one engine run (one column) and the input it came from.
type Run struct {
	result.EngineRun
	Input int // index into Report.Inputs
}

// New merges results into one report. Columns keep the order of the inputs,
// then of the engines within each; a label that appears more than once is
// told apart by the run's start time, else its file name, else its position.
func New(inputs ...Input) *Report {
	rep := &Report{Inputs: inputs}
	for i, in := range inputs {
		for _, e := range in.Result.Engines {
			rep.Runs = append(rep.Runs, Run{EngineRun: e, Input: i})
		}
	}
	rep.disambiguate()
	return rep
}

func (rep *Report) disambiguate() {
	byLabel := map[string][]int{}
	for i, r := range rep.Runs {
		byLabel[r.Label] = append(byLabel[r.Label], i)
	}
	suffixes := []func(Run, int) string{
		func(r Run, _ int) string {
			return rep.Inputs[r.Input].Result.StartedAt.UTC().Format(time.DateTime)
		},
		func(r Run, _ int) string { return filepath.Base(rep.Inputs[r.Input].Name) },
		func(r Run, _ int) string { return rep.Inputs[r.Input].Name },
		func(_ Run, n int) string { return "#" + strconv.Itoa(n+1) },
	}
	for label, idx := range byLabel {
		if len(idx) < 2 {
			continue
		}
		for _, suffix := range suffixes {
			seen := map[string]bool{}
			for n, i := range idx {
				seen[suffix(rep.Runs[i], n)] = true
			}
			if len(seen) < len(idx) {
				continue
			}
			for n, i := range idx {
				rep.Runs[i].Label = label + " [" + suffix(rep.Runs[i], n) + "]"
			}
			break
		}
	}
}

// EngineRuns is the report's columns as engine runs, labels made unique.
func (rep *Report) EngineRuns() []result.EngineRun {
	out := make([]result.EngineRun, len(rep.Runs))
	for i, r := range rep.Runs {
		out[i] = r.EngineRun
	}
	return out
}

// opsOf is the operations measured in any closed-loop level, in the
// runner's table order (result.SortOps): whatever the results hold, so a
// new operation appears in every table, chart and CSV without code here.
func opsOf(runs []result.EngineRun) []string {
	var names []string
	for _, r := range runs {
		for _, l := range r.Levels {
			for _, o := range l.Ops {
				if !slices.Contains(names, o.Op) {
					names = append(names, o.Op)
				}
			}
		}
	}
	result.SortOps(names)
	return names
}

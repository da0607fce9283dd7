package runner_test

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/searchbench/searchbench/dataset"
	_ "github.com/searchbench/searchbench/engines/bleve" // the embedded engine registers itself
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/workload"
)

// A benchmark of the embedded engine from a Go program: a small corpus, one
// level of 4 virtual users for a second. The result
// is what `searchbench run` writes as result.json; report.New renders it.
func ExampleRun() {
	src, err := runner.NewSource(runner.CorpusText, dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95}, 0)
	if err != nil {
		panic(err)
	}
	mix, err := workload.ParseMix("search=70,upsert=20,delete=10")
	if err != nil {
		panic(err)
	}
	res, err := runner.Run(context.Background(), runner.Plan{
		Source: src,
		Setups: []runner.Setup{{Driver: "bleve"}},
		Closed: &runner.Config{
			Users: []int{4}, SpawnRate: 100, Measure: time.Second,
			Freshness: runner.FreshnessConfig{Off: true},
			Calls:     runner.Calls{Timeout: 5 * time.Second, Mix: mix, Seed: 1, K: 10},
		},
	}, nil)
	if err != nil {
		panic(err)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "engine\tusers\top\tmeasured\tfailed")
	for _, e := range res.Engines {
		for _, l := range e.Levels {
			for _, o := range l.Ops {
				fmt.Fprintf(w, "%s\t%d\t%s\t%v\t%d\n", e.Label, l.Users, o.Op, o.Count+o.NotFound > 0, o.ErrorCount())
			}
		}
	}
	w.Flush()
	// Output:
	// engine  users  op      measured  failed
	// bleve   4      search  true      0
	// bleve   4      upsert  true      0
	// bleve   4      delete  true      0
}

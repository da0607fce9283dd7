package runner_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

// The README's "Use as a library" program is what a new user copies first:
// it must be a whole program (package main, its imports, a context) and
// compile against this module as it is, so it is type-checked here with
// go vet. The README is edited by hand; this is what keeps it honest.
func TestReadmeLibraryProgramCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles a program that imports every driver")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compile the README's program with")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := readmeGoBlock(string(readme), "## Use as a library")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^package main$`).MatchString(code) || !strings.Contains(code, "\nfunc main() {") {
		t.Fatalf("the README's library example is not a whole program (package main, func main):\n%s", code)
	}
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	// Run from here, so the program's imports resolve to this module.
	out, err := exec.Command(goTool, "vet", file).CombinedOutput()
	if err != nil {
		t.Fatalf("the README's library example does not compile: %v\n%s\n%s", err, out, code)
	}
}

// readmeGoBlock is the first ```go block of the README's section heading.
func readmeGoBlock(readme, heading string) (string, error) {
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("README.md has no %q section", heading)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, block, ok := strings.Cut(section, "\n```go\n")
	if !ok {
		return "", fmt.Errorf("README.md's %q section has no ```go block", heading)
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return "", fmt.Errorf("README.md's %q section: its ```go block does not end", heading)
	}
	return block + "\n", nil
}

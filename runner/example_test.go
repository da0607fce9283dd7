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
	"github.com/searchbench/searchbench/runner/checks"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/workload"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// A benchmark of the embedded engine from a Go program: a small corpus, one
// level of 4 virtual users for a second. The result
// is what `searchbench run` writes as result.json; report.New renders it.
func ExampleRun() {
	src, err := text.New(dataset.Config{Seed: 1, IDs: 2000, Prepopulate: 0.95})
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
		Closed: &loops.Config{
			Users: []int{4}, SpawnRate: 100, Measure: time.Second,
			Freshness: checks.FreshnessConfig{Off: true},
			Calls:     loops.Calls{Timeout: 5 * time.Second, Mix: mix, Seed: 1, K: 10},
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

// docs/library.md's program is what a new user copies first: it must be a
// whole program (package main, its imports, a context) and compile against
// this module as it is, so it is type-checked here with go vet. The page is
// edited by hand; this is what keeps it honest.
func TestLibraryPageProgramCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles a program that imports every driver")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compile the library page's program with")
	}
	const page = "../docs/library.md"
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	code, err := markdownGoBlock(page, string(doc), "## A whole program")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^package main$`).MatchString(code) || !strings.Contains(code, "\nfunc main() {") {
		t.Fatalf("%s's program is not a whole program (package main, func main):\n%s", page, code)
	}
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	// Run from here, so the program's imports resolve to this module; with
	// this binary's -race, so that vet reads the packages the test's own
	// build left in the cache instead of compiling the module again (on an
	// empty cache, minutes).
	args := []string{"vet", file}
	if raceEnabled {
		args = []string{"vet", "-race", file}
	}
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s's program does not compile: %v\n%s\n%s", page, err, out, code)
	}
}

// markdownGoBlock is the first ```go block under the section heading of the
// markdown file doc (named name, for messages), up to the next heading of
// the same or a higher level.
func markdownGoBlock(name, doc, heading string) (string, error) {
	_, section, ok := strings.Cut("\n"+doc, "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("%s has no %q section", name, heading)
	}
	next := regexp.MustCompile(fmt.Sprintf(`(?m)^#{1,%d} `, strings.Index(heading, " ")))
	if end := next.FindStringIndex(section); end != nil {
		section = section[:end[0]]
	}
	_, block, ok := strings.Cut(section, "\n```go\n")
	if !ok {
		return "", fmt.Errorf("%s's %q section has no ```go block", name, heading)
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return "", fmt.Errorf("%s's %q section: its ```go block does not end", name, heading)
	}
	return block + "\n", nil
}

package all_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/all"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"
)

// Every driver of a server can be started by the launcher and by the
// compose file written from its definition; every definition belongs to a
// registered driver. An engine added without either fails here.
func TestEveryServerHasALauncherAndAComposeFile(t *testing.T) {
	names := engines.Drivers()
	if len(names) < 2 {
		t.Fatalf("drivers registered: %v", names)
	}
	servers := 0
	for _, name := range names {
		d, err := engines.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if d.Describe().Embedded {
			if _, ok := launch.Lookup(name); ok {
				t.Errorf("%s is embedded but has a container definition", name)
			}
			continue
		}
		servers++
		if _, ok := launch.Lookup(name); !ok {
			t.Errorf("%s runs as a server but has no launcher definition (launch.Register in its launch.go)", name)
		}
		if _, err := os.Stat(filepath.Join("..", "..", "compose", name+".yml")); err != nil {
			t.Errorf("%s has no compose file: %v (run `searchbench compose`)", name, err)
		}
	}
	if servers == 0 {
		t.Error("no server engine registered")
	}
	for _, s := range launch.Specs() {
		if !slices.Contains(names, s.Engine) {
			t.Errorf("launcher definition %s belongs to no registered driver", s.Engine)
		}
	}
}

// What each driver's Create would refuse of a corpus's schema is refused
// before anything starts (engines.CheckSchema): every engine takes Study
// A's text corpus, and every one but the embedded Bleve (text only:
// vectors in Bleve need its FAISS build, cgo) Study B's products. And
// every driver says before anything starts which kinds of product query
// it answers (engines.QueryChecker), as the README's engine table does:
// with its default options, each server engine every kind; Bleve none.
func TestSchemasAreCheckedBeforeAnythingStarts(t *testing.T) {
	var every dataset.QueryMix // every kind of the table
	for k := range every {
		every[k] = 1
	}
	products, err := product.New(dataset.Config{Seed: 1, IDs: 10, Prepopulate: 0.5}, 8, every)
	if err != nil {
		t.Fatal(err)
	}
	samples := products.KindSamples()
	if len(samples) != int(dataset.NumProductQueryKinds) {
		t.Fatalf("samples of %d kinds", len(samples))
	}
	for _, name := range engines.Drivers() {
		if err := engines.CheckSchema(name, engines.Config{}, text.Text{}.Schema()); err != nil {
			t.Errorf("%s refuses the text corpus: %v", name, err)
		}
		err := engines.CheckSchema(name, engines.Config{}, products.Schema())
		if takes := name != "bleve"; (err == nil) != takes || strings.Contains(fmt.Sprint(err), "\n") {
			t.Errorf("%s and the product corpus: %v; want it taken: %v", name, err, takes)
		}
		d, _ := engines.Lookup(name)
		if _, ok := d.(engines.QueryChecker); !ok {
			t.Errorf("%s cannot say which queries it answers (engines.QueryChecker)", name)
		}
		for kind, q := range samples {
			q.K = 10
			err := engines.CheckQuery(name, engines.Config{}, products.Schema(), q)
			if answers := name != "bleve"; (err == nil) != answers || (err != nil && !errors.Is(err, engines.ErrUnsupported)) {
				t.Errorf("%s and %s queries: %v; want them answered: %v", name, kind, err, answers)
			}
		}
	}
	// The options decide what Valkey indexes: a text-only index of a
	// schema with no text field is refused as Create would.
	vec := engines.Schema{Name: "v", Fields: []engines.FieldSpec{{Name: "e", Type: engines.Vector, Dim: 4}}}
	if err := engines.CheckSchema("valkey", engines.Config{Options: map[string]string{"fields": "text"}}, vec); err == nil || !strings.Contains(err.Error(), "no field of the types the fields option names") {
		t.Errorf("valkey: a text index of a vector-only schema: %v; want it refused", err)
	}
}

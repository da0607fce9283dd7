package all_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/all"
	"github.com/searchbench/searchbench/engines/container"
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
			if _, ok := container.Lookup(name); ok {
				t.Errorf("%s is embedded but has a container definition", name)
			}
			continue
		}
		servers++
		if _, ok := container.Lookup(name); !ok {
			t.Errorf("%s runs as a server but has no launcher definition (container.Register in its launch.go)", name)
		}
		if _, err := os.Stat(filepath.Join("..", "..", "compose", name+".yml")); err != nil {
			t.Errorf("%s has no compose file: %v (run `searchbench compose`)", name, err)
		}
	}
	if servers == 0 {
		t.Error("no server engine registered")
	}
	for _, s := range container.Specs() {
		if !slices.Contains(names, s.Engine) {
			t.Errorf("launcher definition %s belongs to no registered driver", s.Engine)
		}
	}
}

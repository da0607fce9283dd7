package container_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/searchbench/searchbench/engines/all"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner"
)

// The compose files are the launcher's definitions rendered: one source of
// truth. Regenerate them with `searchbench compose`. The drivers' packages
// register their definitions (launch.go), so this test imports them all.
func TestComposeFilesMatchTheLauncher(t *testing.T) {
	specs := launch.Specs()
	want := []string{"amgix-now", "amgix-now-sync", "elasticsearch", "meilisearch", "postgres", "typesense", "valkey"}
	if len(specs) != len(want) {
		t.Fatalf("%d specs, want %v", len(specs), want)
	}
	for i, s := range specs {
		if s.Engine != want[i] {
			t.Fatalf("spec %d is %s, want %s", i, s.Engine, want[i])
		}
		path := filepath.Join("..", "..", "compose", s.Engine+".yml")
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run `searchbench compose`)", err)
		}
		if !bytes.Equal(got, container.Compose(s, container.ComposeCPUs)) {
			t.Errorf("%s differs from the launcher's definition: run `searchbench compose`", path)
		}
	}
}

// Debian's docker-compose accepts every file.
func TestComposeFilesAreValid(t *testing.T) {
	bin, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Skip("docker-compose is not installed (bash .ci/test installs it where Docker is reachable)")
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "compose", "*.yml"))
	if len(files) == 0 {
		t.Fatal("no compose files")
	}
	for _, f := range files {
		cmd := exec.Command(bin, "-f", f, "config", "-q")
		cmd.Env = append(os.Environ(), "SEARCHBENCH_SECRET=test-secret")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("docker-compose config %s: %v\n%s", f, err, out)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, o := range []container.Options{
		{CPUs: -1, ReadyTimeout: 1},
		{CPUs: 1e6, ReadyTimeout: 1},
		{MemoryBytes: -1, ReadyTimeout: 1},
		{MemoryBytes: launch.MinMemory - 1, ReadyTimeout: 1},
		{CPUSet: "x", ReadyTimeout: 1},
		{CPUSet: "0-", ReadyTimeout: 1},
		{CPUSet: "1-0", ReadyTimeout: 1},
		{CPUSet: "0,,1", ReadyTimeout: 1},
		{CPUSet: "100000", ReadyTimeout: 1},
		{ReadyTimeout: 0},
		{Image: "Not An Image!!", ReadyTimeout: 1},
		{Image: "Valkey/valkey:9", ReadyTimeout: 1},
		{Image: "valkey:", ReadyTimeout: 1},
		{Image: "valkey@sha256:abc", ReadyTimeout: 1},
	} {
		if container.Check(o) == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// An image name is refused before anything starts, in one line naming
	// the setting; whatever Docker takes is taken, the pinned images too.
	if err := container.Check(container.Options{Image: "Not An Image!!", ReadyTimeout: 1}); err == nil || !strings.HasPrefix(err.Error(), `image: "Not An Image!!" is not an image name`) {
		t.Errorf("a bad image: %v", err)
	}
	images := []string{"valkey", "valkey/valkey-bundle:9.1.0", "docker.elastic.co/elasticsearch/elasticsearch:8.19.7",
		"localhost:5000/x/y:latest", "postgres@sha256:" + strings.Repeat("a", 64)}
	for _, s := range launch.Specs() {
		images = append(images, s.Image)
		if s.Fallback != "" {
			images = append(images, s.Fallback)
		}
	}
	for _, image := range images {
		if err := container.Check(container.Options{Image: image, ReadyTimeout: 1}); err != nil {
			t.Errorf("%s: %v", image, err)
		}
	}
}

// Launcher is runner's launcher for every engine with a Spec, and only
// those: the embedded engine, which has none, is not one it launches.
var _ runner.Launcher = container.Launcher{}

func TestLauncherLaunchesTheSpecs(t *testing.T) {
	for _, s := range launch.Specs() {
		if env, ok := (container.Launcher{}).Launches(s.Engine); !ok || env != s.SecretEnv {
			t.Errorf("%s: Launches = %q, %v; want its spec's %q", s.Engine, env, ok, s.SecretEnv)
		}
	}
	if _, ok := (container.Launcher{}).Launches("bleve"); ok {
		t.Error("the embedded engine has no spec to launch")
	}
	if err := (container.Launcher{}).Check(container.Options{Image: "Not An Image!!", ReadyTimeout: 1}); err == nil {
		t.Error("Check took an image name Docker refuses")
	}
}

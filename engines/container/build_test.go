package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/searchbench/searchbench/engines/launch"
)

// buildFixture is a Docker pool and a directory holding a static binary
// that a recipe can docker-import; it skips where Docker is not reachable.
func buildFixture(t *testing.T) (*dockertest.Pool, string) {
	t.Helper()
	pool, err := Pool()
	if err != nil {
		t.Skipf("no Docker: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "noop"), src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return pool, dir
}

// throwawayTag is an image tag no one else uses; the test removes it.
func throwawayTag(t *testing.T, pool *dockertest.Pool) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	tag := "searchbench-test/build-" + hex.EncodeToString(b) + ":1"
	t.Cleanup(func() { _ = pool.Client.RemoveImageExtended(tag, dc.RemoveImageOptions{Force: true}) })
	return tag
}

// recipe is a build recipe: build.sh imports the directory's binary
// under the tag it is given, reading a file kept beside it in the recipe,
// then exits with status.
func recipe(dir, status string) *launch.Recipe {
	body := "set -e\necho step one: $(cat \"$(dirname \"$0\")/step.txt\")\n" +
		"tar -C " + filepath.Join(dir, "bin") + " -c noop | docker import --change 'ENTRYPOINT [\"/noop\"]' - \"$1\" >/dev/null\n" +
		"echo step two: imported \"$1\"\n"
	if status != "0" {
		body += "echo 'no space left on device' >&2\nexit " + status + "\n"
	}
	return &launch.Recipe{Path: "compose/images/test", Files: fstest.MapFS{
		"build.sh": {Data: []byte(body)},
		"step.txt": {Data: []byte("packing the binary\n")},
	}}
}

// unpullable is an image that is neither present nor pullable: its registry
// refuses at once.
const unpullable = "127.0.0.1:1/searchbench-absent:never"

// An image that cannot be had and a launcher with a recipe for its local
// stand-in: the recipe runs (a log line saying so, then its output) and
// the stand-in is what runs; with NoBuild, today's message.
func TestBuildWhenAbsent(t *testing.T) {
	pool, dir := buildFixture(t)
	tag := throwawayTag(t, pool)
	s := launch.Spec{Engine: "test", Image: unpullable, Fallback: tag, Recipe: recipe(dir, "0")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The recipe is the binary's own: it builds from any working directory.
	t.Chdir(t.TempDir())

	if _, err := resolveImage(ctx, pool, s, Options{NoBuild: true}); err == nil || !strings.Contains(err.Error(), "bash compose/images/test/build.sh") {
		t.Fatalf("NoBuild: %v; want the message naming the recipe", err)
	}
	if _, err := pool.Client.InspectImage(tag); err == nil {
		t.Fatal("NoBuild built the image")
	}

	var lines []string
	image, err := resolveImage(ctx, pool, s, Options{Log: func(l string) { lines = append(lines, l) }})
	if err != nil || image != tag {
		t.Fatalf("resolveImage = %q, %v; want the built %s", image, err, tag)
	}
	if _, err := pool.Client.InspectImage(tag); err != nil {
		t.Fatalf("the built image is not there: %v", err)
	}
	if len(lines) != 3 || !strings.Contains(lines[0], "building "+tag+" from searchbench's recipe compose/images/test") || lines[1] != "step one: packing the binary" {
		t.Fatalf("log %q; want one line saying it builds, then the recipe's output", lines)
	}
	// Present now: used as it is, nothing built again.
	lines = nil
	if image, err := resolveImage(ctx, pool, s, Options{Log: func(l string) { lines = append(lines, l) }}); err != nil || image != tag || len(lines) != 0 {
		t.Fatalf("second resolve: %q, %v, log %q; want the image, no build", image, err, lines)
	}
}

// A recipe that fails is a one-line reason followed by its log's last
// lines, and the image it had already tagged is removed.
func TestBuildFailureLeavesNothing(t *testing.T) {
	pool, dir := buildFixture(t)
	tag := throwawayTag(t, pool)
	s := launch.Spec{Engine: "test", Image: unpullable, Fallback: tag, Recipe: recipe(dir, "3")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := resolveImage(ctx, pool, s, Options{})
	if err == nil {
		t.Fatal("a failing recipe succeeded")
	}
	first, rest, _ := strings.Cut(err.Error(), "\n")
	if first != "building "+tag+" from the recipe compose/images/test failed: exit status 3; its log's last lines:" || !strings.Contains(rest, "no space left on device") {
		t.Fatalf("error %q; want a one-line reason, then the log's last lines", err)
	}
	if _, err := pool.Client.InspectImage(tag); err == nil {
		t.Fatalf("the failed build left %s behind", tag)
	}
}

// Two launches that find the image absent at once build it once: the
// second waits for the first's build and uses its image (two test packages,
// or two runs, starting PostgreSQL on a new machine).
func TestBuildOnceWhenConcurrent(t *testing.T) {
	pool, dir := buildFixture(t)
	tag := throwawayTag(t, pool)
	s := launch.Spec{Engine: "test", Image: unpullable, Fallback: tag, Recipe: recipe(dir, "0")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		mu     sync.Mutex
		builds int
		wg     sync.WaitGroup
		errs   = make([]error, 4)
	)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = resolveImage(ctx, pool, s, Options{Log: func(l string) {
				if strings.HasPrefix(l, "step two") {
					mu.Lock()
					builds++
					mu.Unlock()
				}
			}})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("launch %d: %v", i, err)
		}
	}
	if builds != 1 {
		t.Fatalf("the recipe ran %d times for 4 launches at once; want 1", builds)
	}
}

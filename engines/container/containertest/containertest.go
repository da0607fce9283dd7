// Package containertest starts an engine's container for a driver's live
// test, or skips the test with a one-line reason when Docker is unreachable
// or the image cannot be pulled (as on a machine without a registry).
package containertest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
)

// Start starts the registered launcher definition of engine and removes the
// container when the test ends. Its run label is the test's name, so parallel
// test packages never count each other's containers.
func Start(t *testing.T, engine string, opts container.Options) *container.Container {
	t.Helper()
	if _, err := container.Pool(); err != nil {
		t.Skipf("%s: %v", engine, err)
	}
	spec, ok := launch.Lookup(engine)
	if !ok {
		t.Fatalf("no launcher definition for %q", engine)
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 3 * time.Minute
	}
	if opts.Run == "" {
		opts.Run = "test-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	}
	c, err := container.Start(context.Background(), spec, opts)
	if err != nil && strings.Contains(err.Error(), "cannot be pulled") {
		t.Skipf("%s", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// Server is a real engine for a live test: the one named by
// SEARCHBENCH_<ENGINE>_URL (engine upper-cased, dashes as underscores) with
// its credential in SEARCHBENCH_<ENGINE>_SECRET when set — to run the
// live tests against a server of one's own — else the launcher's container,
// as Start. It returns the URL and the credential.
func Server(t *testing.T, engine string, opts container.Options) (url, secret string) {
	t.Helper()
	env := "SEARCHBENCH_" + strings.ToUpper(strings.ReplaceAll(engine, "-", "_"))
	if u := os.Getenv(env + "_URL"); u != "" {
		return u, os.Getenv(env + "_SECRET")
	}
	c := Start(t, engine, opts)
	return c.URL, c.Secret
}

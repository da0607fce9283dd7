// Package launch is the vocabulary of starting engines for a run, with no
// container runtime in it: how each engine runs in a container (Spec, which
// drivers Register from their launch.go, with the Ready and URL helpers
// they share and the Recipe that builds a stand-in image), the choices a
// run gives its launcher (Options), and what a launcher returns of an
// engine it started (Engine). runner takes its launcher through this
// vocabulary, and drivers describe their containers in it, so a program
// that only attaches to running engines, or runs an embedded one, does not
// compile Docker's client; engines/container is the launcher that runs the
// specs in Docker.
package launch

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Options are a run's choices for the engines it starts.
type Options struct {
	CPUs         float64 // CPU limit (--cpus); 0: none
	CPUSet       string  // optional cpuset, e.g. "2-5"
	MemoryBytes  int64   // optional memory limit
	Run          string  // the run's name, the label's value
	ReadyTimeout time.Duration
	Image        string // overrides the spec's image
	// Env is set in the container after the spec's environment and its
	// tuning, so it overrides both (a smaller Elasticsearch heap, say).
	Env map[string]string
	// NoBuild keeps the launcher from running a spec's Recipe when neither
	// its image nor its Fallback is present (--no-build): the error then
	// says how to build it.
	NoBuild bool
	// Log receives a line saying a build started and the build's output,
	// line by line; nil discards them.
	Log func(line string) `json:"-"`
}

// Engine is an engine a launcher started: where to reach it, what ran (the
// result records it), and how to sample and remove it.
type Engine struct {
	URL    string
	Secret string // the generated credential, for the driver only
	Image  string // what ran, repository:tag
	Digest string // the image's ID or repo digest
	// Env is the environment it ran with, the secret left out: settings
	// such as thread counts are part of what was measured.
	Env    map[string]string
	Docker string // the Docker server's version
	ID     string
	// Stats samples the engine's CPU and memory use; nil when the launcher
	// cannot.
	Stats func(context.Context) (map[string]float64, error)
	// Close removes the engine and what it stored.
	Close func() error
}

// MinMemory is the smallest memory limit Docker accepts.
const MinMemory = 6 << 20

// Validate checks the options that need no container runtime to check:
// everything but whether the runtime takes the image's name.
func (o Options) Validate() error {
	switch {
	case o.CPUs < 0:
		return fmt.Errorf("cpus: %v must be ≥ 0", o.CPUs)
	case o.CPUs > float64(hostCPUs()):
		return fmt.Errorf("cpus: %v is more than this host's %d CPUs", o.CPUs, hostCPUs())
	case o.MemoryBytes < 0:
		return fmt.Errorf("memory: %d must be ≥ 0", o.MemoryBytes)
	case o.MemoryBytes > 0 && o.MemoryBytes < MinMemory:
		return fmt.Errorf("memory: %d bytes is below Docker's minimum of %d (6 MiB)", o.MemoryBytes, MinMemory)
	case o.ReadyTimeout <= 0:
		return fmt.Errorf("ready-timeout: %v must be > 0", o.ReadyTimeout)
	}
	for k := range o.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return fmt.Errorf("container-env: %q is not a variable name", k)
		}
	}
	return checkCPUSet(o.CPUSet)
}

// Given names the options that only a launched container can honour, as
// their flags are named ("cpus, memory"); empty when none was given.
func (o Options) Given() string {
	var names []string
	for _, f := range []struct {
		name  string
		given bool
	}{{"cpus", o.CPUs > 0}, {"cpuset", o.CPUSet != ""}, {"memory", o.MemoryBytes > 0}, {"image", o.Image != ""}, {"container-env", len(o.Env) > 0}} {
		if f.given {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, ", ")
}

// checkCPUSet checks a cpuset as Docker reads it ("0-3,6"): CPUs this host
// has, each range ascending.
func checkCPUSet(set string) error {
	if set == "" {
		return nil
	}
	last, err := lastCPU(set)
	if err != nil {
		return fmt.Errorf("cpuset: %q is not a list of CPUs and ranges such as 0-3,6", set)
	}
	if n := hostCPUs(); last >= n {
		return fmt.Errorf("cpuset: %q names CPU %d; this host has CPUs 0-%d", set, last, n-1)
	}
	return nil
}

// lastCPU returns the highest CPU of a Linux CPU list ("0-3,6").
func lastCPU(list string) (int, error) {
	last := -1
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || strings.ContainsAny(part, "+ ") || a < 0 || b < a {
			return 0, fmt.Errorf("%q is not a CPU list", list)
		}
		last = max(last, b)
	}
	return last, nil
}

// hostCPUs is how many CPUs the host has online. runtime.NumCPU counts only
// those this process may run on, and a load generator pinned with taskset
// still starts engines on the others.
func hostCPUs() int {
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if last, err := lastCPU(strings.TrimSpace(string(b))); err == nil {
			return last + 1
		}
	}
	return runtime.NumCPU()
}

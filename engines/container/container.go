// Package container starts engines in Docker (through dockertest) confined
// to a CPU budget, waits until they are ready, and removes them on every
// path out: normal exit, error and interrupt. Every container carries the
// label searchbench.run, so `searchbench cleanup` finds what a crashed run
// left behind.
package container

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/distribution/reference"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Label marks every container searchbench starts; its value names the run.
const Label = "searchbench.run"

// Spec is how one engine runs in a container: the single source of truth
// for the launcher and for the compose files generated from it.
type Spec struct {
	Engine string // the driver it serves
	Image  string // pinned official image, repository:tag
	// Fallback is an image built on this machine by Recipe, used when
	// Image is neither present nor pullable. It honours the same
	// environment.
	Fallback string
	Recipe   *Recipe           // builds Fallback
	Env      map[string]string // fixed settings
	// SecretEnv names the variable that takes the engine's password or API
	// key; the launcher makes a fresh random one for every container.
	SecretEnv string
	Cmd       []string
	Port      int // the engine's port inside the container
	// Tune returns the settings that follow the CPU limit (thread pools an
	// engine would otherwise size from the host's cores).
	Tune func(cpus float64) map[string]string
	// Ready is polled from the host (some images have no curl) until it
	// returns nil.
	Ready func(ctx context.Context, url, secret string) error
	// URL is what the driver is given for a host port.
	URL func(hostPort int) string
}

var specs = map[string]Spec{}

// Register adds a spec; drivers call it from init() beside their Register.
func Register(s Spec) {
	if s.Engine == "" || s.Image == "" || s.Port == 0 || s.Ready == nil || s.URL == nil {
		panic("container: incomplete spec for " + s.Engine)
	}
	if _, dup := specs[s.Engine]; dup {
		panic("container: Register called twice for " + s.Engine)
	}
	specs[s.Engine] = s
}

// Lookup returns the spec for engine.
func Lookup(engine string) (Spec, bool) {
	s, ok := specs[engine]
	return s, ok
}

// Specs returns every spec, in engine-name order.
func Specs() []Spec {
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Spec) int { return strings.Compare(a.Engine, b.Engine) })
	return out
}

// Options are the per-run choices.
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
	// NoBuild keeps Start from running a spec's Recipe when neither its
	// image nor its Fallback is present (--no-build): the error then says
	// how to build it.
	NoBuild bool
	// Log receives a line saying a build started and the build's output,
	// line by line; nil discards them.
	Log func(line string) `json:"-"`
}

// Container is a running engine.
type Container struct {
	URL    string
	Secret string // the generated credential, for the driver only
	Image  string // what ran, repository:tag
	Digest string // the image's ID or repo digest
	// Env is the environment it ran with, the secret left out: settings
	// such as thread counts are part of what was measured.
	Env    map[string]string
	Docker string // the Docker server's version
	ID     string
	pool   *dockertest.Pool
	res    *dockertest.Resource
	stats  statsStream
}

// Validate checks options that need no Docker.
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
	if err := checkImage(o.Image); err != nil {
		return err
	}
	return checkCPUSet(o.CPUSet)
}

// checkImage refuses an image name Docker would not take, by the reference
// grammar Docker itself parses names with (docker/distribution/reference):
// a bad one would otherwise fail only at the pull, once the run has begun.
func checkImage(image string) error {
	if image == "" {
		return nil
	}
	if _, err := reference.ParseNormalizedNamed(image); err != nil {
		return fmt.Errorf("image: %q is not an image name such as repository:tag or registry/repository@sha256:… (%v)", image, err)
	}
	return nil
}

// MinMemory is the smallest memory limit Docker accepts.
const MinMemory = 6 << 20

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

// Pool connects to Docker, with a clear error when it is not reachable.
func Pool() (*dockertest.Pool, error) {
	pool, err := dockertest.NewPool("")
	if err == nil {
		err = pool.Client.Ping()
	}
	if err != nil {
		return nil, fmt.Errorf("docker is not reachable: %w", err)
	}
	return pool, nil
}

// Start runs s with o and waits until it is ready. On any failure nothing
// is left running, and the error carries the container log's last lines.
func Start(ctx context.Context, s Spec, o Options) (*Container, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pool, err := Pool()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Engine, err)
	}
	image, err := resolveImage(ctx, pool, s, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Engine, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Engine, err)
	}
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = v
	}
	secret := ""
	if s.SecretEnv != "" {
		secret = randomSecret()
		env[s.SecretEnv] = secret
	}
	if s.Tune != nil && o.CPUs > 0 {
		for k, v := range s.Tune(o.CPUs) {
			env[k] = v
		}
	}
	for k, v := range o.Env {
		if k == s.SecretEnv {
			return nil, fmt.Errorf("%s: container-env: %s holds the generated secret and cannot be set", s.Engine, k)
		}
		env[k] = v
	}
	repo, tag, _ := strings.Cut(image, ":")
	cport := dc.Port(strconv.Itoa(s.Port) + "/tcp")
	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: repo, Tag: tag, Env: envList(env), Cmd: s.Cmd,
		Labels:       map[string]string{Label: o.Run, "searchbench.engine": s.Engine},
		ExposedPorts: []string{string(cport)},
		PortBindings: map[dc.Port][]dc.PortBinding{cport: {{HostIP: "127.0.0.1", HostPort: strconv.Itoa(port)}}},
	}, func(hc *dc.HostConfig) {
		hc.AutoRemove = false // keep it to read its log if it fails; removed below
		hc.RestartPolicy = dc.RestartPolicy{Name: "no"}
		if o.CPUs > 0 {
			// The same CFS limit as docker run --cpus (NanoCPUs): quota
			// over a 100 ms period.
			hc.CPUPeriod = 100_000
			hc.CPUQuota = int64(o.CPUs * 100_000)
		}
		hc.CPUSetCPUs = o.CPUSet
		hc.Memory = o.MemoryBytes
	})
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", s.Engine, image, err)
	}
	shown := maps.Clone(env)
	delete(shown, s.SecretEnv)
	c := &Container{URL: s.URL(port), Secret: secret, Image: image, Env: shown, ID: res.Container.ID, pool: pool, res: res}
	if v, err := pool.Client.Version(); err == nil {
		c.Docker = v.Get("Version")
	}
	if img, err := pool.Client.InspectImage(image); err == nil {
		c.Digest = img.ID
		if len(img.RepoDigests) > 0 {
			c.Digest = img.RepoDigests[0]
		}
	}
	if err := c.waitReady(ctx, s, o.ReadyTimeout); err != nil {
		logs := c.Logs(20)
		_ = c.Close()
		if logs == "" {
			logs = "(empty)"
		}
		// The first line says what happened; the log follows it.
		return nil, fmt.Errorf("%s: %w\nlast lines of its log:\n%s", s.Engine, err, logs)
	}
	return c, nil
}

func (c *Container) waitReady(ctx context.Context, s Spec, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if st, err := c.pool.Client.InspectContainer(c.ID); err == nil && !st.State.Running {
			return fmt.Errorf("container exited (code %d) before it was ready", st.State.ExitCode)
		}
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		last = s.Ready(pctx, c.URL, c.Secret)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("not ready within %v: %v", timeout, last)
			}
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Logs returns the last n lines of the container's output.
func (c *Container) Logs(n int) string {
	var out bytes.Buffer
	_ = c.pool.Client.Logs(dc.LogsOptions{Container: c.ID, OutputStream: &out, ErrorStream: &out,
		Stdout: true, Stderr: true, Tail: strconv.Itoa(n)})
	return strings.TrimRight(out.String(), "\n")
}

// Close removes the container and its volumes.
func (c *Container) Close() error {
	c.closeStats()
	if err := c.pool.Purge(c.res); err != nil {
		return fmt.Errorf("remove container %s: %w", c.ID[:12], err)
	}
	return nil
}

// Cleanup removes every container labelled by a searchbench run — by the
// named run only, when one is given — and returns their IDs.
func Cleanup(pool *dockertest.Pool, runs ...string) ([]string, error) {
	list, err := Leftovers(pool, runs...)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, c := range list {
		if err := pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true}); err != nil {
			return removed, fmt.Errorf("remove %s: %w", c.ID[:12], err)
		}
		removed = append(removed, c.ID[:12])
	}
	return removed, nil
}

// Leftovers lists containers labelled by a searchbench run, running or not;
// by the named runs only, when names are given.
func Leftovers(pool *dockertest.Pool, runs ...string) ([]dc.APIContainers, error) {
	filter := []string{Label}
	switch len(runs) {
	case 0:
	case 1:
		filter = []string{Label + "=" + runs[0]}
	default:
		return nil, errors.New("container: Leftovers takes at most one run name")
	}
	list, err := pool.Client.ListContainers(dc.ListContainersOptions{All: true, Filters: map[string][]string{"label": filter}})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	return list, nil
}

// freePort finds a free loopback port below 32768 (the range above is
// handed out to outgoing connections).
func freePort() (int, error) {
	for p := 20000 + int(time.Now().UnixNano()%5000); p < 32768; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free port below 32768")
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func randomSecret() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Exec runs a command inside the container and returns its output.
func (c *Container) Exec(cmd ...string) (string, error) {
	var out bytes.Buffer
	code, err := c.res.Exec(cmd, dockertest.ExecOptions{StdOut: &out, StdErr: &out})
	if err != nil {
		return "", fmt.Errorf("exec %v: %w", cmd, err)
	}
	if code != 0 {
		return out.String(), fmt.Errorf("exec %v: exit %d", cmd, code)
	}
	return out.String(), nil
}

// HostConfig returns the container's limits as Docker reports them.
func (c *Container) HostConfig() (*dc.HostConfig, error) {
	st, err := c.pool.Client.InspectContainer(c.ID)
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", c.ID[:12], err)
	}
	return st.HostConfig, nil
}

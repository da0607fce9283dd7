// Package container starts engines in Docker (through dockertest) confined
// to a CPU budget, waits until they are ready, and removes them on every
// path out: normal exit, error and interrupt. Every container carries the
// label searchbench.run, so `searchbench cleanup` finds what a crashed run
// left behind. Launcher is runner's launcher: a plan that starts engines
// takes it as its Launcher, and runner itself never imports Docker.
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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/distribution/reference"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/searchbench/searchbench/engines/launch"
)

// Label marks every container searchbench starts; its value names the run.
const Label = "searchbench.run"

// Options are a run's choices for the engines it starts, defined in
// engines/launch so that runner can take them without Docker.
type Options = launch.Options

// Container is a running engine: the launch.Engine that Start made, its
// Stats and Close those of the container, and the Docker handles behind
// them.
type Container struct {
	launch.Engine
	pool  *dockertest.Pool
	res   *dockertest.Resource
	stats statsStream
}

// Check checks o as Start reads it: Options.Validate, and the image's name
// by Docker's grammar.
func Check(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	return checkImage(o.Image)
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
func Start(ctx context.Context, s launch.Spec, o Options) (*Container, error) {
	if err := Check(o); err != nil {
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
	env, secret, err := environment(s, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Engine, err)
	}
	res, err := run(pool, s, o, image, port, env)
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", s.Engine, image, err)
	}
	shown := maps.Clone(env)
	delete(shown, s.SecretEnv)
	c := &Container{Engine: launch.Engine{URL: s.URL(port), Secret: secret, Image: image, Env: shown, ID: res.Container.ID}, pool: pool, res: res}
	c.Engine.Stats, c.Engine.Close = c.Stats, c.Close
	c.describe(image)
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

// environment is the container's environment: the spec's settings, a fresh
// secret in its SecretEnv, the settings tuned for the CPU limit, then the
// run's own, which may not set the secret.
func environment(s launch.Spec, o Options) (env map[string]string, secret string, err error) {
	env = maps.Clone(s.Env)
	if env == nil {
		env = map[string]string{}
	}
	if s.SecretEnv != "" {
		secret = randomSecret()
		env[s.SecretEnv] = secret
	}
	if s.Tune != nil && o.CPUs > 0 {
		maps.Copy(env, s.Tune(o.CPUs))
	}
	for k, v := range o.Env {
		if k == s.SecretEnv {
			return nil, "", fmt.Errorf("container-env: %s holds the generated secret and cannot be set", k)
		}
		env[k] = v
	}
	return env, secret, nil
}

// run creates and starts the container of s from image, its port published
// on the loopback interface's port, labelled with the run's name and
// confined to o's CPU, cpuset and memory limits.
func run(pool *dockertest.Pool, s launch.Spec, o Options, image string, port int, env map[string]string) (*dockertest.Resource, error) {
	repo, tag, _ := strings.Cut(image, ":")
	cport := dc.Port(strconv.Itoa(s.Port) + "/tcp")
	return pool.RunWithOptions(&dockertest.RunOptions{
		Repository: repo, Tag: tag, Env: envList(env), Cmd: s.Cmd,
		Labels:       map[string]string{Label: o.Run, "searchbench.engine": s.Engine},
		ExposedPorts: []string{string(cport)},
		PortBindings: map[dc.Port][]dc.PortBinding{cport: {{HostIP: "127.0.0.1", HostPort: strconv.Itoa(port)}}},
	}, func(hc *dc.HostConfig) {
		hc.AutoRemove = false // keep it to read its log if it fails; Start removes it
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
}

// describe records what ran: the Docker server's version and the image's
// digest (its repo digest when it has one), each left empty when Docker
// does not say.
func (c *Container) describe(image string) {
	if v, err := c.pool.Client.Version(); err == nil {
		c.Docker = v.Get("Version")
	}
	if img, err := c.pool.Client.InspectImage(image); err == nil {
		c.Digest = img.ID
		if len(img.RepoDigests) > 0 {
			c.Digest = img.RepoDigests[0]
		}
	}
}

func (c *Container) waitReady(ctx context.Context, s launch.Spec, timeout time.Duration) error {
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

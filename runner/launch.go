package runner

import (
	"context"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner/result"
)

// Launcher starts the engines of the setups that neither attach to a
// running one (Config.URL) nor are embedded; engines/container's Launcher
// runs them in Docker. runner imports no container runtime: a plan whose
// setups all attach or are embedded needs no Launcher, and a program that
// runs only such plans does not compile one.
type Launcher interface {
	// Launches says whether the launcher can start driver's engine, and
	// the variable of its environment that takes the credential the
	// launcher generates for it ("" when none), which Plan.Launch.Env may
	// not set.
	Launches(driver string) (secretEnv string, ok bool)
	// Check checks the launch options as the launcher reads them: what
	// launch.Options.Validate checks, and what only the launcher can
	// tell (whether its runtime takes the image's name).
	Check(o launch.Options) error
	// Launch starts driver's engine with o and waits until it is ready;
	// when it fails, nothing is left running.
	Launch(ctx context.Context, driver string, o launch.Options) (*launch.Engine, error)
	// Leftovers counts the engines of earlier runs that are still there:
	// they take CPUs from the engine under test.
	Leftovers() (int, error)
}

// launch is a setup's first step. An embedded engine or an attached one
// is only recorded as such (the result's Mode); any other is started by
// the plan's Launcher, the configuration pointed at it and what ran
// recorded, and it is removed when the setup ends.
func (st *setupRun) launch(ctx context.Context) error {
	switch {
	case st.embedded:
		st.er.Mode = "embedded"
		return nil
	case st.cfg.URL != "":
		st.er.Mode = "attached"
		return nil
	case !st.plan.launches(st.s.Driver):
		return nil // Plan.Validate refuses such a setup
	}
	p := st.plan
	st.er.Mode = "container"
	st.logf(st.name, "starting a container (CPU limit %v)", CPUText(p.Launch.CPUs))
	o := p.Launch
	o.Log = func(line string) { st.logf(st.name, "%s", line) } // a local image's build, when one is needed
	c, err := p.Launcher.Launch(ctx, st.s.Driver, o)
	if err != nil {
		return err
	}
	st.onRelease(func() {
		if err := c.Close(); err != nil {
			st.er.Warnings = append(st.er.Warnings, result.Note(err.Error()))
		} else {
			st.logf(st.name, "removed container %s", shortID(c.ID))
		}
	})
	// The launcher's generated secret is a password to some engines and an
	// API key to others; each driver reads the one it uses.
	st.cfg.URL, st.cfg.Password, st.cfg.APIKey = c.URL, engines.Secret(c.Secret), engines.Secret(c.Secret)
	// The warnings sent while the run goes on are scrubbed of it too.
	st.em = st.emitter(st.name, st.cfg.Secrets())
	st.er.Image, st.er.ImageDigest, st.er.CPULimit, st.er.CPUSet = c.Image, c.Digest, p.Launch.CPUs, p.Launch.CPUSet
	st.er.ContainerEnv, st.er.DockerVersion = c.Env, c.Docker
	st.sampled = c.Stats
	st.logf(st.name, "%s ready at %s", c.Image, c.URL)
	return nil
}

// launches says whether the plan's Launcher can start driver's engine.
func (p Plan) launches(driver string) bool {
	if p.Launcher == nil {
		return false
	}
	_, ok := p.Launcher.Launches(driver)
	return ok
}

// warnLeftovers says when engines of earlier runs are still there: they
// take CPUs from the engine under test.
func (r *run) warnLeftovers() {
	needed := false
	for _, s := range r.plan.Setups {
		d, _ := engines.Lookup(s.Driver)
		needed = needed || (!d.Describe().Embedded && s.Config.URL == "")
	}
	if !needed || r.plan.Launcher == nil {
		return
	}
	// An unreachable Docker is not reported here: Launch reports it,
	// naming the engine.
	if n, err := r.plan.Launcher.Leftovers(); err == nil && n > 0 {
		r.logf("", "warning: %d container(s) of earlier searchbench runs are still there and may take CPUs from the engine; `searchbench cleanup` removes them", n)
	}
}

// shortID is a container ID as Docker prints it: its first 12 characters.
func shortID(id string) string { return id[:min(len(id), 12)] }

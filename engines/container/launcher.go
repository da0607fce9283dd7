package container

import (
	"context"
	"fmt"

	"github.com/searchbench/searchbench/engines/launch"
)

// Launcher starts the engines of a runner.Plan in Docker, each from the
// Spec its driver registered: set it as the plan's Launcher. The zero value
// is ready to use; it connects to Docker for each engine it starts.
type Launcher struct{}

// Launches says whether driver has a Spec, and the variable that takes the
// credential Start generates for it ("" when none).
func (Launcher) Launches(driver string) (secretEnv string, ok bool) {
	s, ok := launch.Lookup(driver)
	return s.SecretEnv, ok
}

// Check checks o as Start reads it (see Check).
func (Launcher) Check(o launch.Options) error { return Check(o) }

// Launch starts driver's engine with o (see Start).
func (Launcher) Launch(ctx context.Context, driver string, o launch.Options) (*launch.Engine, error) {
	s, ok := launch.Lookup(driver)
	if !ok {
		return nil, fmt.Errorf("%s has no container definition", driver)
	}
	c, err := Start(ctx, s, o)
	if err != nil {
		return nil, err
	}
	return &c.Engine, nil
}

// Leftovers counts the containers of earlier searchbench runs that are
// still there, running or not.
func (Launcher) Leftovers() (int, error) {
	pool, err := Pool()
	if err != nil {
		return 0, err
	}
	list, err := Leftovers(pool)
	return len(list), err
}

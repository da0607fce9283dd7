package launch

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
)

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

// Register adds a spec; drivers call it from init() beside their
// engines.Register.
func Register(s Spec) {
	if s.Engine == "" || s.Image == "" || s.Port == 0 || s.Ready == nil || s.URL == nil {
		panic("launch: incomplete spec for " + s.Engine)
	}
	if _, dup := specs[s.Engine]; dup {
		panic("launch: Register called twice for " + s.Engine)
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

// Recipe builds a spec's Fallback image on this machine. Its files are
// embedded in the binary (compose/images), so the launcher builds from any
// working directory and from an installed searchbench: they are written to
// a temporary directory and build.sh runs there with the tag as its
// argument.
type Recipe struct {
	// Files holds build.sh and whatever it reads beside it.
	Files fs.FS
	// Path is where the recipe is kept in searchbench's repository
	// (compose/images/postgres), for the messages and compose files that
	// tell a person how to build the image by hand.
	Path string
}

// Command is how a person builds the image tagged tag (the Spec's
// Fallback; a recipe may build more than one) by hand from the repository.
func (r *Recipe) Command(tag string) string {
	return "bash " + path.Join(r.Path, "build.sh") + " " + tag
}

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
)

// Plan is a whole benchmark: the corpus, the engines (setups), and either
// closed-loop user levels or an open-loop rate ladder. Run checks it with
// Validate before anything starts. The zero values of the optional members
// are usable: no containers are configured, the run is named after the
// time, nothing is checked for relevance.
type Plan struct {
	// Source is the corpus and its queries (NewSource).
	Source Source
	// Setups are the engines, one column each, run one after another.
	Setups []Setup
	// Exactly one of Closed (virtual users at each level) and Ladder (an
	// open-loop rate ladder) is set. The calls' settings (mix, timeout,
	// seed, k) are the one's Calls.
	Closed *Config
	Ladder *LadderConfig
	// Launch configures the containers of engines that run in Docker (CPU
	// limit, cpuset, memory, image, environment, the run's name).
	Launch container.Options
	// Relevance is how many known-item searches check recall@k after
	// pre-population (DefaultRelevanceQueries is the CLI's default); 0: none.
	Relevance int
	// Scenario names the scenario file the plan came from, if any; it is
	// recorded in the result.
	Scenario string
}

// Setup is one column of the tables: a driver with its own configuration.
// Several setups may use the same driver (Study B runs Valkey with 0, 1, 2
// and 4 indexes), and each gets its own engine: its own container, or the
// same attached one recreated.
type Setup struct {
	// Label is the column heading, unique in the plan. Empty: the driver's
	// name, followed by the write mode when one is asked for.
	Label string
	// Driver is a registered engine name (engines.Drivers).
	Driver string
	// Config is the engine's address, credentials, data directory, write
	// mode and driver options.
	Config engines.Config
}

// Name is the setup's label as the result and the tables show it.
func (s Setup) Name() string {
	if s.Label != "" {
		return s.Label
	}
	if s.Config.WriteMode != "" {
		return s.Driver + " (" + string(s.Config.WriteMode) + ")"
	}
	return s.Driver
}

// DefaultReadyTimeout is how long a container may take to become ready when
// the plan's Launch does not say.
const DefaultReadyTimeout = 2 * time.Minute

// Calls are the calls' settings (mix, timeout, seed, k) of whichever loop the
// plan runs.
func (p Plan) Calls() Calls {
	if p.Closed != nil {
		return p.Closed.Calls
	}
	if p.Ladder != nil {
		return p.Ladder.Open.Calls
	}
	return Calls{}
}

// withDefaults fills what a library caller may leave out.
func (p Plan) withDefaults(now time.Time) Plan {
	if p.Launch.ReadyTimeout == 0 {
		p.Launch.ReadyTimeout = DefaultReadyTimeout
	}
	if p.Launch.Run == "" {
		p.Launch.Run = "run-" + now.UTC().Format("20060102T150405")
	}
	return p
}

// Validate reports the first thing wrong with the plan, in one line that
// starts with the field at fault (as the CLI's flags name it). Everything
// that can be checked without starting an engine is checked here, so a
// mistake is found before a container starts or an hour is measured.
func (p Plan) Validate() error {
	p = p.withDefaults(time.Now())
	switch {
	case p.Source == nil:
		return errors.New("corpus: a source is needed (runner.NewSource)")
	case p.Closed == nil && p.Ladder == nil:
		return errors.New("plan: a closed loop (users) or a ladder is needed")
	case p.Closed != nil && p.Ladder != nil:
		return errors.New("plan: a closed loop and a ladder cannot both be set")
	case p.Relevance < 0 || p.Relevance > 100_000:
		return fmt.Errorf("relevance-queries: %d is out of range (0 to 100000)", p.Relevance)
	}
	if p.Closed != nil {
		if err := p.Closed.Validate(); err != nil {
			return err
		}
	} else if err := p.Ladder.Validate(); err != nil {
		return err
	}
	if err := p.Launch.Validate(); err != nil {
		return err
	}
	return p.validateSetups()
}

// validateSetups checks each setup against its driver and the launch
// options: what the driver accepts (its options and write mode), what a
// container can honour, and what an embedded engine cannot be given.
func (p Plan) validateSetups() error {
	if len(p.Setups) == 0 {
		return errors.New("engine: at least one engine is needed")
	}
	labels := map[string]bool{}
	servedBy := map[string]string{} // attached URL → the driver it serves
	for _, s := range p.Setups {
		d, err := engines.Lookup(s.Driver)
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		cfg := s.Config
		// One attached engine serves several setups of its driver, each
		// recreating its index there in turn (Study B's setups on one
		// server); two drivers cannot share one address.
		if other, ok := servedBy[cfg.URL]; ok && cfg.URL != "" && other != s.Driver {
			return fmt.Errorf("url: one --url cannot serve both %s and %s; run them one at a time", other, s.Driver)
		}
		servedBy[cfg.URL] = s.Driver
		label := s.Name()
		if labels[label] {
			return fmt.Errorf("engine: %q is listed twice; give each setup its own label", label)
		}
		labels[label] = true
		if err := engines.CheckConfig(s.Driver, cfg); err != nil {
			if label == s.Driver { // the driver's errors name it already
				return err
			}
			return fmt.Errorf("%s: %w", label, err)
		}
		if err := p.Calls().Mix.Check(s.Driver, d.Describe()); err != nil {
			return err
		}
		spec, hasSpec := container.Lookup(s.Driver)
		if _, ok := p.Launch.Env[spec.SecretEnv]; ok && hasSpec && spec.SecretEnv != "" {
			return fmt.Errorf("container-env: %s holds the credential the launcher generates for %s; it cannot be set", spec.SecretEnv, s.Driver)
		}
		switch embedded, given := d.Describe().Embedded, p.Launch.Given(); {
		case embedded && cfg.URL != "":
			return fmt.Errorf("url: %s is embedded and runs in this process; there is nothing to attach to", s.Driver)
		case !embedded && cfg.DataDir != "":
			return fmt.Errorf("data-dir: %s is not embedded; its index lives in its server", s.Driver)
		case embedded && given != "":
			return fmt.Errorf("%s: %s is embedded and runs in this process, not in a container", given, s.Driver)
		case !embedded && cfg.URL == "" && !hasSpec:
			return fmt.Errorf("engine: %s has no container definition; give --url of a running one", s.Driver)
		case cfg.URL != "" && given != "":
			return fmt.Errorf("%s: --url attaches to a running engine; nothing is started to configure", given)
		}
		if cfg.DataDir != "" {
			if err := CheckDir(cfg.DataDir, false); err != nil {
				return fmt.Errorf("data-dir: %w", err)
			}
		}
	}
	return nil
}

// CheckDir checks that a directory can be made or used at path: it is one,
// or the nearest part of the path that exists is one. When it exists and
// write is set, a file is made in it and removed.
func CheckDir(path string, write bool) error {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && p != filepath.Dir(p):
			continue
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s is not a directory", p)
		case p == filepath.Clean(path) && write:
			f, err := os.CreateTemp(p, ".searchbench-probe-*")
			if err != nil {
				return fmt.Errorf("%s is not writable: %w", p, err)
			}
			f.Close()
			return os.Remove(f.Name())
		}
		return nil
	}
}

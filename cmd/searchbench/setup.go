package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
)

// setup is one column of the tables: a driver with its own configuration.
// Several setups may use the same driver (Study B runs Valkey with 0, 1, 2
// and 4 indexes), and each gets its own engine: its own container, or the
// same attached one recreated.
type setup struct {
	name  string // the driver
	label string // the column heading, unique in the run
	cfg   engines.Config
}

// setupSpec is a setup as a scenario file or the flags give it, before
// validation.
type setupSpec struct {
	Engine    string            `yaml:"engine"`
	Label     string            `yaml:"label"`
	WriteMode string            `yaml:"write_mode"`
	Options   map[string]string `yaml:"options"`
}

// buildSetups validates the setups and applies the shared configuration
// (URL, credentials, data directory, write mode) and the --option values.
// Every check that can fail before anything starts is made here.
func buildSetups(specs []setupSpec, shared engines.Config, options []string, launch container.Options) ([]setup, error) {
	if len(specs) == 0 {
		return nil, badInput("engine: at least one engine is needed")
	}
	// One attached engine serves several setups of its driver, each
	// recreating its index there in turn (Study B's setups on one server).
	for _, sp := range specs[1:] {
		if shared.URL != "" && sp.Engine != specs[0].Engine {
			return nil, badInput("url: one --url cannot serve both %s and %s; run them one at a time", specs[0].Engine, sp.Engine)
		}
	}
	byEngine, all, err := parseOptions(options)
	if err != nil {
		return nil, err
	}
	out := make([]setup, 0, len(specs))
	labels := map[string]bool{}
	used := map[string]bool{}
	for _, sp := range specs {
		d, err := engines.Lookup(sp.Engine)
		if err != nil {
			return nil, usageError{fmt.Errorf("engine: %w", err)}
		}
		cfg := shared
		cfg.Options = maps.Clone(sp.Options)
		if cfg.Options == nil {
			cfg.Options = map[string]string{}
		}
		maps.Copy(cfg.Options, all)
		maps.Copy(cfg.Options, byEngine[sp.Engine])
		used[sp.Engine] = true
		if sp.WriteMode != "" {
			cfg.WriteMode = engines.Visibility(sp.WriteMode)
		}
		if wm := cfg.WriteMode; wm != "" && wm != engines.Acknowledged && wm != engines.Searchable {
			return nil, badInput("write-mode: %q is neither acknowledged nor searchable", wm)
		}
		label := sp.Label
		if label == "" {
			label = sp.Engine
			if cfg.WriteMode != "" {
				label += " (" + string(cfg.WriteMode) + ")"
			}
		}
		if labels[label] {
			return nil, badInput("engine: %q is listed twice; give each setup its own label", label)
		}
		labels[label] = true
		if err := engines.CheckConfig(sp.Engine, cfg); err != nil {
			if label == sp.Engine { // the driver's errors name it already
				return nil, usageError{err}
			}
			return nil, badInput("%s: %v", label, err)
		}
		spec, hasSpec := container.Lookup(sp.Engine)
		if _, ok := launch.Env[spec.SecretEnv]; ok && hasSpec && spec.SecretEnv != "" {
			return nil, badInput("container-env: %s holds the credential the launcher generates for %s; it cannot be set", spec.SecretEnv, sp.Engine)
		}
		switch embedded, given := d.Describe().Embedded, launch.Given(); {
		case embedded && cfg.URL != "":
			return nil, badInput("url: %s is embedded and runs in this process; there is nothing to attach to", sp.Engine)
		case !embedded && cfg.DataDir != "":
			return nil, badInput("data-dir: %s is not embedded; its index lives in its server", sp.Engine)
		case embedded && given != "":
			return nil, badInput("%s: %s is embedded and runs in this process, not in a container", given, sp.Engine)
		case !embedded && cfg.URL == "" && !hasSpec:
			return nil, badInput("engine: %s has no container definition; give --url of a running one", sp.Engine)
		case cfg.URL != "" && given != "":
			return nil, badInput("%s: --url attaches to a running engine; nothing is started to configure", given)
		}
		if len(cfg.Options) == 0 {
			cfg.Options = nil
		}
		out = append(out, setup{name: sp.Engine, label: label, cfg: cfg})
	}
	for e := range byEngine {
		if !used[e] {
			return nil, badInput("option: %s: no setup uses that engine", e)
		}
	}
	return out, nil
}

// parseOptions reads --option values: key=value for every setup, or
// engine:key=value for the setups of one engine.
func parseOptions(values []string) (byEngine map[string]map[string]string, all map[string]string, err error) {
	byEngine, all = map[string]map[string]string{}, map[string]string{}
	for _, v := range values {
		kv, val, ok := strings.Cut(v, "=")
		if !ok || kv == "" {
			return nil, nil, badInput("option: %q is not key=value or engine:key=value", v)
		}
		target := all
		if e, k, scoped := strings.Cut(kv, ":"); scoped {
			if _, err := engines.Lookup(e); err != nil {
				return nil, nil, usageError{fmt.Errorf("option %q: %w", v, err)}
			}
			if byEngine[e] == nil {
				byEngine[e] = map[string]string{}
			}
			target, kv = byEngine[e], k
		}
		if kv == "" {
			return nil, nil, badInput("option: %q names no key", v)
		}
		target[kv] = val
	}
	return byEngine, all, nil
}

// checkDir checks that a directory can be made or used at path: it is one,
// or the nearest part of the path that exists is one. When it exists and
// write is set, a file is made in it and removed.
func checkDir(path string, write bool) error {
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

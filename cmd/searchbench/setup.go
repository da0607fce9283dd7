package main

import (
	"fmt"
	"maps"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner"
)

// setupSpec is a setup as a scenario file or the flags give it, before
// validation.
type setupSpec struct {
	Engine    string            `yaml:"engine"`
	Label     string            `yaml:"label"`
	WriteMode string            `yaml:"write_mode"`
	Options   map[string]string `yaml:"options"`
}

// buildSetups applies the shared configuration (URL, credentials, data
// directory, write mode) and the --option values to the setups; the plan's
// Validate checks the result against each driver.
func buildSetups(specs []setupSpec, shared engines.Config, options []string) ([]runner.Setup, error) {
	byEngine, all, err := parseOptions(options)
	if err != nil {
		return nil, err
	}
	out := make([]runner.Setup, 0, len(specs))
	used := map[string]bool{}
	for _, sp := range specs {
		cfg := shared
		cfg.Options = maps.Clone(sp.Options)
		if cfg.Options == nil {
			cfg.Options = map[string]string{}
		}
		maps.Copy(cfg.Options, all)
		maps.Copy(cfg.Options, byEngine[sp.Engine])
		if len(cfg.Options) == 0 {
			cfg.Options = nil
		}
		used[sp.Engine] = true
		if sp.WriteMode != "" {
			cfg.WriteMode = engines.Visibility(sp.WriteMode)
		}
		out = append(out, runner.Setup{Label: sp.Label, Driver: sp.Engine, Config: cfg})
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

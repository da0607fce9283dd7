package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/searchbench/searchbench/engines"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// A scenario file is a run written down: which command, the values of its
// flags, and the setups (one column each) that take the place of --engine:
//
//	command: ladder
//	description: Study B, experiment 2 …
//	corpus: product
//	mix: upsert
//	start: 2000
//	setups:
//	  - {label: "1 index", engine: valkey, options: {matching_indexes: 1}}
//
// Every other key is a flag of that command, under the flag's own name, so
// a scenario can say nothing a command line cannot, and both are validated
// by the same code. Flags given on the command line win over the file's
// (`--duration 5s` for a quick try of a shipped scenario).
//
//go:embed scenarios/*.yaml
var shipped embed.FS

type scenario struct {
	name        string // as given: a shipped name or a path
	source      []byte // the file as read
	command     string
	description string
	setups      []setupSpec
	flags       []flagValue // in the file's order
}

type flagValue struct {
	name   string
	values []string // one for a scalar; a list's items
	list   bool
}

// Keys that are not flags, and flags a file may not set: credentials belong
// on the command line or in the environment, not in a file that gets shared;
// a scenario cannot name another.
var (
	scenarioKeys   = []string{"command", "description", "setups"}
	notInScenarios = []string{"password", "api-key", "username", "scenario"}
)

// loadScenario reads a scenario by path, or by the name of a shipped one.
func loadScenario(name string) (*scenario, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(name, `/\`) {
		b, err = shipped.ReadFile("scenarios/" + strings.TrimSuffix(name, ".yaml") + ".yaml")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, badInput("scenario: %q is neither a file nor a shipped scenario (see `searchbench scenario list`)", name)
		}
	}
	if err != nil {
		return nil, badInput("scenario: %v", err)
	}
	s, err := parseScenario(b)
	if err != nil {
		return nil, badInput("scenario %s: %v", name, err)
	}
	s.name, s.source = name, b
	return s, nil
}

// parseScenario reads a scenario's YAML. It checks the shape; the values
// are checked as flags by the command that runs it.
func parseScenario(b []byte) (*scenario, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a mapping of fields")
	}
	s := &scenario{}
	seen := map[string]bool{}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := k.Value
		if seen[key] {
			return nil, fmt.Errorf("line %d: field %s is given twice", k.Line, key)
		}
		seen[key] = true
		switch {
		case key == "command":
			if v.Kind != yaml.ScalarNode || (v.Value != "run" && v.Value != "ladder") {
				return nil, fmt.Errorf("line %d: command must be run or ladder", v.Line)
			}
			s.command = v.Value
		case key == "description":
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: description must be text", v.Line)
			}
			s.description = strings.TrimSpace(v.Value)
		case key == "setups":
			setups, err := decodeSetups(v)
			if err != nil {
				return nil, err
			}
			s.setups = setups
		case slices.Contains(notInScenarios, key):
			return nil, fmt.Errorf("line %d: %s cannot be set in a scenario file; give it on the command line", k.Line, key)
		case key == "url" && hasPassword(v.Value):
			return nil, fmt.Errorf("line %d: url holds a password; give it with --password or SEARCHBENCH_PASSWORD, not in a scenario file", k.Line)
		default:
			fv := flagValue{name: key}
			switch v.Kind {
			case yaml.ScalarNode:
				fv.values = []string{v.Value}
			case yaml.SequenceNode:
				fv.list = true
				for _, item := range v.Content {
					if item.Kind != yaml.ScalarNode {
						return nil, fmt.Errorf("line %d: %s: list items must be plain values", item.Line, key)
					}
					fv.values = append(fv.values, item.Value)
				}
			default:
				return nil, fmt.Errorf("line %d: %s must be a value or a list of values", v.Line, key)
			}
			s.flags = append(s.flags, fv)
		}
	}
	if s.command == "" {
		return nil, errors.New("command (run or ladder) is missing")
	}
	return s, nil
}

// decodeSetups decodes the setups strictly: an unknown field is an error,
// not a silently ignored typo.
func decodeSetups(n *yaml.Node) ([]setupSpec, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, fmt.Errorf("line %d: setups must be a non-empty list", n.Line)
	}
	b, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var out []setupSpec
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("setups (from line %d): %s", n.Line, oneLine(err.Error()))
	}
	for i, sp := range out {
		if sp.Engine == "" {
			return nil, fmt.Errorf("setups: item %d has no engine", i+1)
		}
	}
	return out, nil
}

// applyScenario sets every flag the file gives and the command line does
// not, and takes the file's setups. It runs before the flags are validated,
// so a bad value in a file gets the same one-line error as on the command
// line, prefixed with the file and field.
func applyScenario(cmd *cobra.Command, f *commonFlags) error {
	if f.scenario == "" {
		return nil
	}
	s, err := loadScenario(f.scenario)
	if err != nil {
		return err
	}
	if s.command != cmd.Name() {
		return badInput("scenario %s is a %s scenario: run it with `searchbench %s --scenario %s`", s.name, s.command, s.command, s.name)
	}
	fl := cmd.Flags()
	if len(s.setups) > 0 {
		if fl.Changed("engine") {
			return badInput("scenario %s: its setups name the engines; --engine cannot be given too", s.name)
		}
		f.setups = s.setups
	}
	// Each scenario writes to a directory of its own unless told otherwise,
	// so that running several does not overwrite one with the next.
	if p := fl.Lookup("out"); p != nil && !p.Changed {
		_ = p.Value.Set(filepath.Join(p.DefValue, strings.TrimSuffix(filepath.Base(s.name), filepath.Ext(s.name))))
	}
	for _, v := range s.flags {
		p := fl.Lookup(v.name)
		if p == nil {
			return badInput("scenario %s: unknown field %q (not a flag of `searchbench %s`)", s.name, v.name, s.command)
		}
		if p.Changed {
			continue // the command line wins
		}
		if err := setFlag(p, v); err != nil {
			return badInput("scenario %s: %s: %v", s.name, v.name, err)
		}
	}
	return nil
}

// setFlag gives a flag a file's value: a list is one comma-separated value,
// or, for a repeatable flag, one Set per item.
func setFlag(p *pflag.Flag, v flagValue) error {
	var err error
	switch sv, repeatable := p.Value.(pflag.SliceValue); {
	case repeatable:
		err = sv.Replace(v.values)
	case v.list:
		err = p.Value.Set(strings.Join(v.values, ","))
	default:
		err = p.Value.Set(v.values[0])
	}
	p.Changed = err == nil
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "List or show the shipped scenario files (run one with `searchbench run|ladder --scenario NAME`)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput("scenario: list or show NAME")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the shipped scenarios",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listScenarios(cmd.OutOrStdout())
		},
	}, &cobra.Command{
		Use:   "show NAME",
		Short: "Print a shipped scenario file",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("scenario show: one scenario name is needed")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadScenario(args[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(s.source)
			return err
		},
	})
	return cmd
}

func listScenarios(w io.Writer) error {
	entries, err := shipped.ReadDir("scenarios")
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tCOMMAND\tDESCRIPTION")
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), path.Ext(e.Name()))
		s, err := loadScenario(name)
		if err != nil {
			return fmt.Errorf("shipped scenario %s: %w", name, err)
		}
		desc, _, _ := strings.Cut(s.description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, s.command, desc)
	}
	return tw.Flush()
}

// hasPassword says whether an engine URL carries a password.
func hasPassword(url string) bool {
	for _, s := range (engines.Config{URL: url}).Secrets() {
		if s != "" {
			return true
		}
	}
	return false
}

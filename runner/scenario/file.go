package scenario

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/result"
)

// A scenario file is a run written down: which command, the values of its
// settings, and the setups (one column each) that take the place of
// engine:
//
//	command: ladder
//	description: Study B, experiment 2 …
//	corpus: product
//	mix: upsert
//	start: 2000
//	setups:
//	  - {label: "1 index", engine: valkey, options: {matching_indexes: 1}}
//
// Every other key is a setting of that command (a flag of the CLI), under
// its own name. Settings given on the command line win over the file's
// (`--duration 5s` for a quick try of a shipped scenario).
//
//go:embed scenarios/*.yaml
var shipped embed.FS

// File is a parsed scenario file.
type File struct {
	Name        string // as given: a shipped name or a path
	Source      []byte // the file as read
	Command     string // Run or Ladder
	Description string
	Setups      []SetupSpec
	fields      []setting // in the file's order
}

type setting struct {
	name   string
	values []string // one for a scalar; a list's items
	list   bool
}

// Settings a file may not set: credentials belong on the command line or in
// the environment, not in a file that gets shared; a scenario cannot name
// another.
var notInScenarios = []string{"password", "api-key", "username", "scenario"}

// maxScenarioSize bounds what Load reads: a scenario is a page of YAML, and
// a path to /dev/zero must not exhaust the machine.
const maxScenarioSize = 1 << 20

// Load reads a scenario by path, or by the name of a shipped one.
func Load(name string) (*File, error) {
	b, err := result.ReadBounded(name, maxScenarioSize)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(name, `/\`) {
		b, err = shipped.ReadFile("scenarios/" + strings.TrimSuffix(name, ".yaml") + ".yaml")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("scenario: %q is neither a file nor a shipped scenario (see `searchbench scenario list`)", name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	f.Name, f.Source = name, b
	return f, nil
}

// Shipped lists the names of the scenarios shipped with searchbench.
func Shipped() ([]string, error) {
	entries, err := shipped.ReadDir("scenarios")
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = strings.TrimSuffix(e.Name(), path.Ext(e.Name()))
	}
	return names, nil
}

// Decode reads a scenario (a path or a shipped name) into a validated plan.
// Each of set ("cpus=0", "measure=5s") gives a setting as the command line
// would: it wins over the file's. Settings neither gives keep their
// defaults. l starts the engines that are neither attached nor embedded
// (container.Launcher{} of engines/container runs them in Docker, as the
// CLI does); nil when there are none.
func Decode(name string, l runner.Launcher, set ...string) (runner.Plan, error) {
	f, err := Load(name)
	if err != nil {
		return runner.Plan{}, err
	}
	var s Settings
	fl := pflag.NewFlagSet(f.Command, pflag.ContinueOnError)
	s.Register(fl, f.Command)
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return runner.Plan{}, fmt.Errorf("%q is not setting=value", kv)
		}
		if err := fl.Set(k, v); err != nil {
			return runner.Plan{}, fmt.Errorf("%s: %v", k, err)
		}
	}
	if err := f.Apply(&s); err != nil {
		return runner.Plan{}, err
	}
	return s.Plan(l)
}

// Parse reads a scenario's YAML. It checks the shape; the values are checked
// as settings when applied.
func Parse(b []byte) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a mapping of fields")
	}
	s := &File{}
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
			if v.Kind != yaml.ScalarNode || (v.Value != Run && v.Value != Ladder) {
				return nil, fmt.Errorf("line %d: command must be run or ladder", v.Line)
			}
			s.Command = v.Value
		case key == "description":
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: description must be text", v.Line)
			}
			s.Description = strings.TrimSpace(v.Value)
		case key == "setups":
			setups, err := decodeSetups(v)
			if err != nil {
				return nil, err
			}
			s.Setups = setups
		case slices.Contains(notInScenarios, key):
			return nil, fmt.Errorf("line %d: %s cannot be set in a scenario file; give it on the command line", k.Line, key)
		case key == "url" && hasPassword(v.Value):
			return nil, fmt.Errorf("line %d: url holds a password; give it with --password or SEARCHBENCH_PASSWORD, not in a scenario file", k.Line)
		default:
			fv, err := decodeField(key, v)
			if err != nil {
				return nil, err
			}
			s.fields = append(s.fields, fv)
		}
	}
	if s.Command == "" {
		return nil, errors.New("command (run or ladder) is missing")
	}
	return s, nil
}

// decodeField reads setting key's value v: a plain value, or a list of
// them (a repeatable flag's). What the values mean is checked when the
// file is applied, as the flag's.
func decodeField(key string, v *yaml.Node) (setting, error) {
	fv := setting{name: key}
	switch v.Kind {
	case yaml.ScalarNode:
		fv.values = []string{v.Value}
	case yaml.SequenceNode:
		fv.list = true
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return setting{}, fmt.Errorf("line %d: %s: list items must be plain values", item.Line, key)
			}
			fv.values = append(fv.values, item.Value)
		}
	default:
		return setting{}, fmt.Errorf("line %d: %s must be a value or a list of values", v.Line, key)
	}
	return fv, nil
}

// decodeSetups reads the setups strictly (an unknown field is an error,
// not a silently ignored typo), walking the file's own nodes so that an
// error gives the line in the file and says what a setup looks like, not
// which Go type the YAML decoder was filling.
func decodeSetups(n *yaml.Node) ([]SetupSpec, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, fmt.Errorf("line %d: setups must be a non-empty list", n.Line)
	}
	const shape = "{engine: NAME, label: TEXT, write_mode: MODE, options: {KEY: VALUE}}"
	out := make([]SetupSpec, len(n.Content))
	for i, item := range n.Content {
		sp := &out[i]
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: setups: item %d must be a mapping such as %s", item.Line, i+1, shape)
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			if seen[k.Value] {
				return nil, fmt.Errorf("line %d: setups: item %d: %s is given twice", k.Line, i+1, k.Value)
			}
			seen[k.Value] = true
			var dst *string
			switch k.Value {
			case "engine":
				dst = &sp.Engine
			case "label":
				dst = &sp.Label
			case "write_mode":
				dst = &sp.WriteMode
			case "options":
				opts, err := decodeOptions(v, i+1)
				if err != nil {
					return nil, err
				}
				sp.Options = opts
				continue
			default:
				return nil, fmt.Errorf("line %d: setups: item %d: field %s not found (a setup is %s)", k.Line, i+1, k.Value, shape)
			}
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: setups: item %d: %s must be a value", v.Line, i+1, k.Value)
			}
			*dst = v.Value
		}
		if sp.Engine == "" {
			return nil, fmt.Errorf("setups: item %d has no engine", i+1)
		}
	}
	return out, nil
}

// decodeOptions reads a setup's options: a mapping of values.
func decodeOptions(n *yaml.Node, item int) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: setups: item %d: options must be a mapping such as {pool: 8}", n.Line, item)
	}
	opts := map[string]string{}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		if _, dup := opts[k.Value]; dup {
			return nil, fmt.Errorf("line %d: setups: item %d: option %s is given twice", k.Line, item, k.Value)
		}
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: setups: item %d: option %s must be a value", v.Line, item, k.Value)
		}
		opts[k.Value] = v.Value
	}
	return opts, nil
}

// Apply gives every setting the file gives and s does not have already
// (from the command line) the file's value, and takes the file's setups.
// It runs before the settings are turned into a plan, so a bad value in a
// file gets the same one-line error as on the command line, prefixed with
// the file and field.
func (f *File) Apply(s *Settings) error {
	if f.Command != s.Command {
		return fmt.Errorf("scenario %s is a %s scenario: run it with `searchbench %s --scenario %s`", f.Name, f.Command, f.Command, f.Name)
	}
	fl := s.flags
	if fl == nil {
		return fmt.Errorf("scenario %s: the settings were not registered (Settings.Register) before the file was applied", f.Name)
	}
	if len(f.Setups) > 0 {
		if fl.Changed("engine") {
			return fmt.Errorf("scenario %s: its setups name the engines; --engine cannot be given too", f.Name)
		}
		s.Setups = f.Setups
		if s.fromFile == nil {
			s.fromFile = map[string]bool{}
		}
		s.fromFile["engine"] = true // the setups are the file's engines
	}
	s.Scenario = f.Name
	// Each scenario writes to a directory of its own unless told otherwise,
	// so that running several does not overwrite one with the next.
	if p := fl.Lookup("out"); p != nil && !p.Changed {
		_ = p.Value.Set(filepath.Join(p.DefValue, strings.TrimSuffix(filepath.Base(f.Name), filepath.Ext(f.Name))))
	}
	for _, v := range f.fields {
		p := fl.Lookup(v.name)
		if p == nil {
			return fmt.Errorf("scenario %s: unknown field %q (not a flag of `searchbench %s`)", f.Name, v.name, f.Command)
		}
		if !s.keys[v.name] {
			return fmt.Errorf("scenario %s: %s is not a scenario setting: give --%s on the command line", f.Name, v.name, v.name)
		}
		if p.Changed {
			continue // the command line wins
		}
		if err := setFlag(p, v); err != nil {
			return fmt.Errorf("scenario %s: %s: %v", f.Name, v.name, err)
		}
		if s.fromFile == nil {
			s.fromFile = map[string]bool{}
		}
		s.fromFile[v.name] = true
	}
	return nil
}

// setFlag gives a flag a file's value: a list is one comma-separated value,
// or, for a repeatable flag, one Set per item.
func setFlag(p *pflag.Flag, v setting) error {
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

// hasPassword says whether an engine URL carries a password.
func hasPassword(url string) bool {
	for _, s := range (engines.Config{URL: url}).Secrets() {
		if s != "" {
			return true
		}
	}
	return false
}

package engines

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Driver opens engines of one kind.
type Driver interface {
	// Describe says what the driver is, for `searchbench engines`.
	Describe() Description
	// Open connects to (or, for an embedded engine, starts) an engine.
	Open(ctx context.Context, cfg Config) (Engine, error)
}

// Description is a driver's one-line summary.
type Description struct {
	Summary    string
	Visibility Visibility // what a returned write means by default
	Embedded   bool       // runs in this process: needs no server
	// Getter: the driver's engines implement Getter, so a mix may ask for
	// get (checked before anything starts; enginetest checks that it says
	// what the engine does).
	Getter bool
	// Knob is the engine's search-time knob for vector queries, nil when
	// the driver sends none (the engine has none, or its API passes none
	// on): such a driver gives a sweep one point, its default.
	Knob *Knob
}

var (
	mu      sync.RWMutex
	drivers = map[string]Driver{}
)

// Register makes a driver available by name. It panics if the name is empty
// or taken or the driver is nil: those are programming errors found at start.
func Register(name string, d Driver) {
	mu.Lock()
	defer mu.Unlock()
	if d == nil {
		panic("engines: Register driver is nil")
	}
	// The name appears in lists (a,b), options (engine:key=value) and
	// environment variable names (SEARCHBENCH_<NAME>_URL).
	if name == "" || strings.ContainsAny(name, ",:= ") {
		panic(fmt.Sprintf("engines: Register: invalid name %q", name))
	}
	if _, dup := drivers[name]; dup {
		panic("engines: Register called twice for driver " + name)
	}
	drivers[name] = d
}

// Drivers returns the registered names, sorted.
func Drivers() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the named driver, or an error that lists the known ones.
func Lookup(name string) (Driver, error) {
	mu.RLock()
	d, ok := drivers[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(Drivers(), ", "))
	}
	return d, nil
}

// Open looks up the named driver and opens an engine with it.
func Open(ctx context.Context, name string, cfg Config) (Engine, error) {
	d, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	e, err := d.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return e, nil
}

// ConfigChecker is a driver that can check a configuration (its options and
// write mode) before anything starts, so that a bad option is bad input
// rather than a failure after a container has started.
type ConfigChecker interface {
	CheckConfig(cfg Config) error
}

// CheckConfig checks cfg against the named driver: through its
// ConfigChecker where it has one; otherwise the driver takes no options and
// only its own write mode, with the messages a driver's own check gives
// (UnknownOptions, CheckWriteMode).
func CheckConfig(name string, cfg Config) error {
	d, err := Lookup(name)
	if err != nil {
		return err
	}
	if c, ok := d.(ConfigChecker); ok {
		return c.CheckConfig(cfg)
	}
	if len(cfg.Options) > 0 {
		return UnknownOptions(name, slices.Collect(maps.Keys(cfg.Options)), nil)
	}
	_, err = CheckWriteMode(name, cfg.WriteMode, d.Describe().Visibility)
	return err
}

// WriteModer is a driver whose writes mean something else under some
// configurations than its Description's Visibility, which is that of its
// defaults (valkey-search holds a write's reply until one index has it,
// not several).
type WriteModer interface {
	// WriteMode is what a returned write means for cfg, which CheckConfig
	// has accepted.
	WriteMode(cfg Config) Visibility
}

// WriteMode is what a returned write means for the named driver configured
// by cfg, as a result records it: the write mode cfg asks for, else the
// driver's WriteModer, else its Description's Visibility.
func WriteMode(name string, cfg Config) Visibility {
	if cfg.WriteMode != "" {
		return cfg.WriteMode
	}
	d, err := Lookup(name)
	if err != nil {
		return ""
	}
	if w, ok := d.(WriteModer); ok {
		return w.WriteMode(cfg)
	}
	return d.Describe().Visibility
}

// SchemaChecker is a driver that can say, before anything starts, whether
// its engines, configured by cfg, can create an index of schema: the check
// their Create makes first, so that a corpus the engine cannot take (the product corpus's
// tags, numbers and vector on a text-only engine) is bad input rather than
// a failure after a container has started.
// It refuses with a SchemaError (RefuseSchema), so that a caller that
// names the driver itself can quote the reason alone.
type SchemaChecker interface {
	CheckSchema(cfg Config, schema Schema) error
}

// CheckSchema checks schema against the named driver, through its
// SchemaChecker; a driver without one is not asked (Create still checks).
func CheckSchema(name string, cfg Config, schema Schema) error {
	d, err := Lookup(name)
	if err != nil {
		return err
	}
	if c, ok := d.(SchemaChecker); ok {
		return c.CheckSchema(cfg, schema)
	}
	return nil
}

// QueryChecker is a driver that can say, before anything starts, whether
// its engines, configured by cfg, with an index of schema, can answer a
// query shaped like q (its members set or not, its filters' fields; the
// values are a sample): the check their Search makes first, so that a
// query kind an engine lacks is bad input rather than an error at the
// first call. It returns nil or an error wrapping ErrUnsupported that says
// why, without the driver's name.
type QueryChecker interface {
	CheckQuery(cfg Config, schema Schema, q Query) error
}

// CheckQuery checks q against the named driver, through its QueryChecker;
// a driver without one is not asked (its Search still refuses).
func CheckQuery(name string, cfg Config, schema Schema, q Query) error {
	d, err := Lookup(name)
	if err != nil {
		return err
	}
	if err := d.Describe().Knob.Check(name, q); err != nil {
		return err
	}
	if c, ok := d.(QueryChecker); ok {
		return c.CheckQuery(cfg, schema, q)
	}
	return nil
}

// SchemaError is a driver's refusal of a schema, from its CheckSchema (and
// its Create, which checks the same): Err says why, and Error puts the
// driver's name first, as every driver's errors do. A caller that names the
// driver itself reads Err.
type SchemaError struct {
	Driver string
	Err    error
}

func (e *SchemaError) Error() string { return e.Driver + ": " + e.Err.Error() }
func (e *SchemaError) Unwrap() error { return e.Err }

// RefuseSchema is a SchemaError of driver: format and args as fmt.Errorf
// takes them (%w included).
func RefuseSchema(driver, format string, args ...any) error {
	return &SchemaError{Driver: driver, Err: fmt.Errorf(format, args...)}
}

// UnknownOptions is the error for options a driver does not take: each of
// unknown quoted, sorted, beside the options the driver knows (known, in any
// order; none: "takes no options"). Drivers reach it through
// config.Options.Err; the registry, for a driver without a ConfigChecker.
func UnknownOptions(driver string, unknown, known []string) error {
	quoted := make([]string, len(unknown))
	for i, k := range unknown {
		quoted[i] = strconv.Quote(k)
	}
	slices.Sort(quoted)
	what := "option"
	if len(quoted) > 1 {
		what = "options"
	}
	knows := fmt.Sprintf("%s takes no options", driver)
	if len(known) > 0 {
		knows = "known: " + strings.Join(slices.Sorted(slices.Values(known)), ", ")
	}
	return fmt.Errorf("%s: unknown %s %s (%s)", driver, what, strings.Join(quoted, ", "), knows)
}

// CheckWriteMode returns the write mode asked for, or the driver's default
// (the first offered; a driver offers at least one) when none was; a mode
// the driver does not offer is an error that names the ones it does.
func CheckWriteMode(driver string, asked Visibility, offered ...Visibility) (Visibility, error) {
	switch {
	case asked == "":
		return offered[0], nil
	case slices.Contains(offered, asked):
		return asked, nil
	case len(offered) == 1:
		return "", fmt.Errorf("%s: write mode %q is not offered (%s has one write mode, %s)", driver, asked, driver, offered[0])
	}
	names := make([]string, len(offered))
	for i, v := range offered {
		names[i] = string(v)
	}
	return "", fmt.Errorf("%s: write mode %q is not offered (%s)", driver, asked, strings.Join(names, " or "))
}

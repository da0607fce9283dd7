package bleve

import (
	"context"
	"fmt"
	"os"

	"github.com/searchbench/searchbench/engines"
)

func init() { engines.Register("bleve", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "embedded Bleve index on local disk, English analyzer (the default; needs no server)",
		Visibility: engines.Searchable,
		Embedded:   true,
		Getter:     true,
	}
}

// CheckConfig checks the configuration before anything starts: Bleve is
// embedded (no URL), takes no options, and its writes are always searchable
// on return.
func (driver) CheckConfig(cfg engines.Config) error { return check(cfg) }

// CheckSchema refuses a schema Create would (engines.SchemaChecker): Bleve
// indexes text fields only.
func (driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, _, err := indexMapping(schema)
	return err
}

// CheckQuery refuses, before anything starts (engines.QueryChecker), every
// shape but free text: the check Search makes first.
func (driver) CheckQuery(_ engines.Config, _ engines.Schema, q engines.Query) error {
	return checkQuery(q)
}

func (driver) Open(_ context.Context, cfg engines.Config) (engines.Engine, error) {
	if err := check(cfg); err != nil {
		return nil, err
	}
	e := &Engine{dir: cfg.DataDir}
	if e.dir == "" {
		dir, err := os.MkdirTemp("", "searchbench-bleve-")
		if err != nil {
			return nil, fmt.Errorf("bleve: temporary directory: %w", err)
		}
		e.dir, e.temporary = dir, true
	}
	return e, nil
}

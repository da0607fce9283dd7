package amgixnow

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
	"github.com/searchbench/searchbench/engines/httpwire"
)

// Driver names.
const (
	Name     = "amgix-now"
	SyncName = "amgix-now-sync"
)

func init() {
	engines.Register(Name, driver{name: Name, vis: engines.Acknowledged})
	engines.Register(SyncName, driver{name: SyncName, vis: engines.Searchable})
}

type driver struct {
	name string
	vis  engines.Visibility
}

func (d driver) Describe() engines.Description {
	s := "Amgix Now 0.1.2 (REST): full_text vector over the text fields, limit = k; writes with strictly increasing timestamps, skipped writes detected"
	if d.vis == engines.Searchable {
		s += "; server with AMGIX_NOW_SYNC_DB_WRITES=true, a write returns once searchable"
	} else {
		s += "; a write returns before Qdrant applies it (AMGIX_NOW_SYNC_DB_WRITES=false)"
	}
	return engines.Description{Summary: s, Visibility: d.vis, Getter: true}
}

// CheckConfig checks the write mode and the options before anything starts.
func (d driver) CheckConfig(cfg engines.Config) error {
	_, err := d.check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): the
// text fields of an Amgix document only.
func (d driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, err := checkSchema(d.name, schema)
	return err
}

func (d driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	o, err := d.check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := config.ServerURL(d.name, cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		name:     d.name,
		vis:      d.vis,
		opts:     o,
		http:     &http.Client{Transport: httpwire.Transport(o.pool), Timeout: o.timeout},
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
		base:     strings.TrimRight(u.String(), "/"),
		endpoint: u.Redacted(),
		key:      cfg.APIKey.Reveal(),
		clock:    &processClock,
		tracker:  processTracker,
	}
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: connect: %w", d.name, err)
	}
	// GET /v1/version is public; listing the collections is not, so a
	// missing or wrong key fails here rather than mid-run.
	if err := e.api(ctx, http.MethodGet, "/v1/collections", nil, e.answer(nil)); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: list collections (API key check): %w", d.name, err)
	}
	return e, nil
}

// validName is Amgix's rule for collection names and document IDs; checking
// it here gives a clear error and keeps an ID from changing the request path.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,100}$`)

// checkName is invalidName under the driver's name.
func checkName(driver, what, s string) error {
	if err := invalidName(what, s); err != nil {
		return fmt.Errorf("%s: %w", driver, err)
	}
	return nil
}

// invalidName says why s is not a valid what, or nil.
func invalidName(what, s string) error {
	if !validName.MatchString(s) {
		return fmt.Errorf("%s %q is not valid in Amgix (a-z A-Z 0-9 - _, 1 to 100 characters)", what, s)
	}
	return nil
}

// documentFields are Amgix's text fields, the only ones a vector can index.
var documentFields = []string{"name", "description", "content"}

// checkSchema is the text fields of schema, which must all be Amgix
// document fields, and the collection's name checked.
func checkSchema(driver string, schema engines.Schema) ([]string, error) {
	var fields []string
	for _, f := range schema.Fields {
		switch {
		case f.Type != engines.Text:
			return nil, engines.RefuseSchema(driver, "field %s: type %s: %w (text only)", f.Name, f.Type, engines.ErrUnsupported)
		case !slices.Contains(documentFields, f.Name):
			return nil, engines.RefuseSchema(driver, "field %q: %w (Amgix documents have the text fields %s)", f.Name, engines.ErrUnsupported, strings.Join(documentFields, ", "))
		case slices.Contains(fields, f.Name):
			return nil, engines.RefuseSchema(driver, "field %q twice", f.Name)
		}
		fields = append(fields, f.Name)
	}
	if len(fields) == 0 {
		return nil, engines.RefuseSchema(driver, "schema has no text field")
	}
	if err := invalidName("collection name", schema.Name); err != nil {
		return nil, engines.RefuseSchema(driver, "%w", err)
	}
	return fields, nil
}

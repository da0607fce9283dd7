package amgixnow

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
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
	s := "Amgix Now 0.1.2 (REST): full_text vector over the text fields, whitespace vector over the SKU, the client's embedding as a dense_custom vector of the schema's metric (dense_distance cosine, euclid or dot), tag and numeric fields as indexed metadata filtered inside the kNN; hybrid by Amgix's rrf; limit = k; writes with strictly increasing timestamps, skipped writes detected"
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

// CheckSchema refuses a schema Create would (engines.SchemaChecker), under
// cfg's options.
func (d driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	o, err := d.check(cfg)
	if err != nil {
		return err
	}
	_, err = newLayout(d.name, schema, o)
	return err
}

var _ engines.QueryChecker = driver{}

// CheckQuery says whether a collection of schema, under cfg's options, can
// answer a query shaped like q: Search's own check (layout.plan).
func (d driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	o, err := d.check(cfg)
	if err != nil {
		return err
	}
	l, err := newLayout(d.name, schema, o)
	if err != nil {
		return err
	}
	_, err = l.plan(q)
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
		secrets:  quote.NewScrubber(cfg.Secrets()...),
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

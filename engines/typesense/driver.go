package typesense

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/typesense/typesense-go/v3/typesense"
	"github.com/typesense/typesense-go/v3/typesense/api"
)

func init() { engines.Register("typesense", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Typesense 29.0 (typesense-go v3): num_typos 0, typo_tokens_threshold 0, prefix false, drop_tokens_threshold default; kNN (vec_dist cosine | ip; no L2), filtered kNN and hybrid (rank fusion) over multi_search; writes searchable on return",
		Visibility: engines.Searchable,
		Getter:     true,
		Knob:       &Knob,
	}
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker).
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	o, err := check(cfg)
	if err != nil {
		return err
	}
	_, err = checkSchema(o, schema)
	return err
}

// checkSchema is the collection Create makes of schema.
func checkSchema(o options, schema engines.Schema) (layout, error) {
	if schema.Name == "" {
		return layout{}, engines.RefuseSchema("typesense", "schema has no name")
	}
	return newLayout(o, schema)
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := config.ServerURL("typesense", cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	key := cfg.APIKey.Reveal()
	if key == "" {
		return nil, errNoKey
	}
	// One transport, two timeouts: single calls and imports.
	tr := httpwire.Transport(o.pool)
	server := strings.TrimRight(u.String(), "/")
	lowLevel, err := api.NewClientWithResponses(server, api.WithAPIKey(key), api.WithHTTPClient(&http.Client{Transport: tr, Timeout: o.timeout}))
	if err != nil {
		return nil, errors.New("typesense: the URL is not usable as a server address")
	}
	bulk, err := api.NewClientWithResponses(server, api.WithAPIKey(key), api.WithHTTPClient(&http.Client{Transport: tr, Timeout: o.importTimeout}))
	if err != nil {
		return nil, errors.New("typesense: the URL is not usable as a server address")
	}
	e := &Engine{
		client:   typesense.NewClient(typesense.WithAPIClient(lowLevel)),
		importer: typesense.NewClient(typesense.WithAPIClient(bulk)),
		api:      lowLevel,
		tr:       tr,
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
		server:   server,
		key:      key,
		secrets:  quote.NewScrubber(cfg.Secrets()...),
		endpoint: u.Redacted(),
		opts:     o,
	}
	// GET /debug needs the key, so a wrong key fails here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("typesense: connect to %s: %w", e.endpoint, err)
	}
	return e, nil
}

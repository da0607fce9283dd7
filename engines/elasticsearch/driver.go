package elasticsearch

import (
	"context"
	"errors"
	"fmt"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("elasticsearch", driver{}) }

// driver is the registered Elasticsearch driver.
type driver struct{}

var (
	_ engines.ConfigChecker = driver{}
	_ engines.SchemaChecker = driver{}
	_ engines.QueryChecker  = driver{}
)

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary: "Elasticsearch 8.19 (go-elasticsearch/v8 esapi): standard tokenizer + lowercase + stop + english stemmer, " +
			"multi_match most_fields, fuzziness 0, 1 shard; keyword, double, dense_vector HNSW (cosine | l2_norm | max_inner_product) with filtered kNN, " +
			"hybrid = query + knn scores summed (RRF needs Enterprise); near-real-time writes (acknowledged | searchable via refresh=wait_for)",
		Visibility: engines.Acknowledged,
		Getter:     true,
		Knob:       &Knob,
	}
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, _, _, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): text,
// tag, numeric and at most one vector field of 1 to MaxDims dimensions.
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	o, err := parseOptions(cfg.Options)
	if err != nil {
		return err
	}
	_, err = checkSchema(schema, o)
	return err
}

// CheckQuery says whether an index of schema, as cfg's options shape it,
// can answer q's shape (engines.QueryChecker): Search's own check.
func (driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	o, err := parseOptions(cfg.Options)
	if err != nil {
		return err
	}
	m, err := newMapping(schema, o)
	if err != nil {
		return err
	}
	return m.checkQuery(q)
}

// checkSchema is Create's mapping of schema, under a valid index name.
func checkSchema(schema engines.Schema, o options) (*mapping, error) {
	if err := checkIndexName(schema.Name); err != nil {
		return nil, engines.RefuseSchema("elasticsearch", "create: %w", err)
	}
	m, err := newMapping(schema, o)
	if err != nil {
		return nil, engines.RefuseSchema("elasticsearch", "create %s: %w", schema.Name, err)
	}
	return m, nil
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	u, refresh, o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	endpoint := u.String()
	user, password, key := cfg.Username, cfg.Password.Reveal(), cfg.APIKey.Reveal()
	switch {
	case key != "" && (user != "" || password != ""):
		return nil, errors.New("elasticsearch: give an API key or a username and password, not both")
	case (user == "") != (password == ""):
		// The transport sends basic auth only when both are set: one alone
		// would be dropped without a word.
		return nil, errors.New("elasticsearch: basic auth needs both a username and a password")
	}
	tr := httpwire.Transport(o.pool)
	client, err := newClient(u, user, password, key, tr)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: client: %w", err)
	}
	// The hot calls' transport: the same configuration, on FastClient
	// (call). The driver has no timeout option: the caller's context
	// bounds every call.
	fast := httpwire.NewFastClient(u, o.pool, 0)
	hot, err := newClient(u, user, password, key, httpwire.RoundTripper{Client: fast})
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("elasticsearch: client: %w", err)
	}
	e := &Engine{
		client:    client,
		transport: tr,
		hot:       hot,
		fast:      fast,
		refresh:   refresh,
		writeArgs: writeArgs(refresh),
		opts:      o,
		secrets:   quote.NewScrubber(cfg.Secrets()...),
		endpoint:  endpoint,
	}
	// GET / is the client's first request, so the product check and the
	// credentials are both checked here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("elasticsearch: connect to %s: %w", endpoint, err)
	}
	return e, nil
}

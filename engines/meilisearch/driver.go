package meilisearch

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("meilisearch", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Meilisearch 1.37 (meilisearch-go): typo tolerance off, searchable = the text fields, matching strategy last; tags and numbers filterable, vectors a userProvided embedder (kNN = semantic hybrid, ratio 1); writes are tasks (acknowledged | searchable)",
		Visibility: engines.Acknowledged,
		Getter:     true,
	}
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, _, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): the
// field types Meilisearch is given (layoutOf), under a valid index name.
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	_, o, err := check(cfg)
	if err != nil {
		return err
	}
	_, err = checkSchema(schema, o)
	return err
}

// checkSchema is what Create checks of the schema before it calls the
// server: the layout the options make of it, and the index name.
func checkSchema(schema engines.Schema, o options) (layout, error) {
	l, err := layoutOf(schema, o)
	if err != nil {
		return l, err
	}
	if err := checkID(schema.Name, maxIndexUID); err != nil {
		return l, fmt.Errorf("meilisearch: create: index name %w", err)
	}
	return l, nil
}

// CheckQuery says whether an index of schema, configured by cfg, can
// answer a query shaped like q (engines.QueryChecker): the check Search
// makes first (checkShape).
func (driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	_, o, err := check(cfg)
	if err != nil {
		return err
	}
	l, err := layoutOf(schema, o)
	if err != nil {
		return err
	}
	return l.checkShape(q)
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	mode, o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := config.ServerURL("meilisearch", cfg.URL, DefaultURL)
	if err != nil {
		return nil, err
	}
	key := cfg.APIKey.Reveal()
	hc := &http.Client{Transport: transport(o.pool), Timeout: o.timeout}
	opts := []meilisearch.Option{meilisearch.WithCustomClient(hc), meilisearch.DisableRetries()}
	if key != "" {
		opts = append(opts, meilisearch.WithAPIKey(key))
	}
	base := strings.TrimRight(u.String(), "/")
	e := &Engine{
		client:   meilisearch.New(base, opts...),
		fast:     httpwire.NewFastClient(u, o.pool, o.timeout),
		prefix:   strings.TrimRight(u.EscapedPath(), "/"),
		auth:     authorization(key),
		mode:     mode,
		opts:     o,
		secrets:  quote.NewScrubber(cfg.Secrets()...),
		endpoint: u.Redacted(),
	}
	// GET /version needs the key, so a wrong key fails here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("meilisearch: connect to %s: %w", e.endpoint, err)
	}
	return e, nil
}

// transport is the shared HTTP transport with connection buffers of 1 KB
// instead of net/http's 4 KB: a search, its answer, a task's answer all fit
// in less, a larger body is copied past the buffer, and each connection
// holds two of them, which at thousands of users is a large share of the
// load generator's heap (bench/README.md has the measurement).
func transport(pool int) *http.Transport {
	t := httpwire.Transport(pool)
	t.ReadBufferSize, t.WriteBufferSize = 1<<10, 1<<10
	return t
}

// authorization is the Authorization header the client sends: "Bearer
// key", or none without a key (meilisearch-go v0.37.0 client.go,
// sendRequest).
func authorization(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// userAgent is the User-Agent the client sends.
var userAgent = meilisearch.GetQualifiedVersion()

// PrimaryKey is the index's primary key attribute.
const PrimaryKey = "id"

// validID is Meilisearch's rule for index uids and document ids (alphanumeric,
// hyphen, underscore); checking it here gives a clear error and keeps an ID
// from changing the request path.
var validID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

const (
	maxIndexUID = 400 // bytes, Meilisearch's limit for an index uid
	maxDocID    = 511 // bytes, Meilisearch's limit for a document id
)

func checkID(id string, limit int) error {
	if len(id) > limit || !validID.MatchString(id) {
		return fmt.Errorf("%q is not a valid Meilisearch identifier (a-z A-Z 0-9 - _, 1 to %d bytes)", id, limit)
	}
	return nil
}

package valkey

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("valkey", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Valkey + valkey-search 1.2: hashes under a prefix, FT.CREATE TEXT/TAG/NUMERIC/HNSW (DISTANCE_METRIC COSINE, L2 or IP, as the schema's metric), all-words-then-any-word text search, KNN, Study B index presets",
		Visibility: engines.Searchable,
		Getter:     true,
		Knob:       &Knob,
	}
}

// WriteMode is what a returned write means under cfg's options
// (engines.WriteModer): Description's Searchable is the default layout's,
// one index; under several (matching_indexes above 1, hybrid=on) writes are
// acknowledged (settings.writeMode) and Refresh waits for the indexes.
func (driver) WriteMode(cfg engines.Config) engines.Visibility {
	s, err := checkConfig(cfg)
	if err != nil {
		return engines.Searchable
	}
	return s.writeMode()
}

// CheckConfig checks the write mode and the options before anything starts
// (engines.ConfigChecker); Open checks them again the same way.
// An attached server's own search.max-indexes is asked for too, so that a
// setup it cannot hold is bad input before anything runs; a server that
// cannot be reached here is left to Open to report.
func (driver) CheckConfig(cfg engines.Config) error {
	set, err := checkConfig(cfg)
	if err != nil || cfg.URL == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	e, err := connect(ctx, cfg, set)
	if err != nil {
		return nil
	}
	defer e.Close()
	lim, err := e.limits(ctx)
	if err != nil || lim.maxIndexes == 0 {
		return nil
	}
	if err := checkIndexLimit(set.indexCount(), int(lim.maxIndexes), "the value of the server at "+quote.SafeURL(cfg.URL)); err != nil {
		return fmt.Errorf("valkey: %w", err)
	}
	return nil
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): the
// indexes the options make of it (the fields option may name types the
// schema lacks).
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	set, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	_, err = set.plan(schema)
	return err
}

// CheckQuery says before anything starts whether the indexes cfg's options
// make of schema can answer a query shaped like q (engines.QueryChecker):
// the refusals of Search's searchPlan, without a server. Only those are
// returned; a value of the sample (a vector's dimension, an empty range)
// is the query's own error, left to Search.
func (driver) CheckQuery(cfg engines.Config, schema engines.Schema, q engines.Query) error {
	set, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	l, err := set.plan(schema)
	if err != nil {
		return err
	}
	if _, err := l.searchPlan(q, set.tiered); errors.Is(err, engines.ErrUnsupported) {
		return err
	}
	return nil
}

// checkTimeout bounds CheckConfig's question to an attached server.
const checkTimeout = 3 * time.Second

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	set, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	e, err := connect(ctx, cfg, set)
	if err != nil {
		return nil, err
	}
	if err := e.configure(ctx); err != nil {
		e.client.Close()
		return nil, fmt.Errorf("valkey: %s: %w", quote.SafeURL(cfg.URL), quote.Redact(err, cfg.Secrets()...))
	}
	return e, nil
}

// connect makes the client for cfg: nothing is sent but the handshake.
func connect(ctx context.Context, cfg engines.Config, set settings) (*Engine, error) {
	if cfg.URL == "" {
		return nil, errors.New("valkey: a URL is needed (redis://host:port)")
	}
	opt, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Username != "" {
		opt.Username = cfg.Username
	}
	if p := cfg.Password.Reveal(); p != "" {
		opt.Password = p
	}
	opt.ForceSingleClient = true
	opt.DisableAutoPipelining = true
	opt.DisableCache = true
	opt.DisableRetry = true
	opt.BlockingPoolSize = set.pool
	opt.ReadBufferEachConn, opt.WriteBufferEachConn = connBuffer, connBuffer
	if d, ok := ctx.Deadline(); ok {
		opt.Dialer.Timeout = time.Until(d)
	}
	client, err := valkey.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("valkey: connect to %s: %w", quote.SafeURL(cfg.URL), quote.Redact(err, append(cfg.Secrets(), opt.Password)...))
	}
	return &Engine{client: client, set: set}, nil
}

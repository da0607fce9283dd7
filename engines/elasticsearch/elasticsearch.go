package elasticsearch

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/engines/config"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
)

func init() { engines.Register("elasticsearch", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary: "Elasticsearch 8.19 (go-elasticsearch/v8 esapi): standard tokenizer + lowercase + stop + english stemmer, " +
			"multi_match most_fields, fuzziness 0, 1 shard; near-real-time writes (acknowledged | searchable via refresh=wait_for)",
		Visibility: engines.Acknowledged,
		Getter:     true,
	}
}

// DefaultURL is where Elasticsearch listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:9200"

// Defaults of the options.
const (
	DefaultPool            = 2048
	DefaultRefreshInterval = "1s"
	DefaultTrackTotalHits  = 10000
	DefaultFuzziness       = "0"
)

// ErrNotElasticsearch: the server's answer lacked the header
// X-Elastic-Product: Elasticsearch, so the client refused it.
var ErrNotElasticsearch = errors.New("the server did not identify itself as Elasticsearch (no X-Elastic-Product: Elasticsearch header on its response): " +
	"not Elasticsearch 8, or a proxy in between drops the header")

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	pool            int
	refreshInterval string
	trackTotalHits  any    // bool or int, sent as JSON
	fuzziness       string // "" = not sent
}

// timeValue is an Elasticsearch time value (TimeValue.parseTimeValue), or -1.
var timeValue = regexp.MustCompile(`^(-1|[0-9]+(nanos|micros|ms|s|m|h|d))$`)

// fuzzinessValue is what Elasticsearch's Fuzziness parser accepts.
var fuzzinessValue = regexp.MustCompile(`^([012]|AUTO|AUTO:[0-9]+,[0-9]+)$`)

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("elasticsearch", raw)
	o := options{
		pool:            r.Int("pool", DefaultPool, 1, maxPool),
		refreshInterval: config.Value(r, "refresh_interval", DefaultRefreshInterval, parseRefreshInterval),
		trackTotalHits:  config.Value(r, "track_total_hits", any(DefaultTrackTotalHits), parseTrackTotalHits),
		fuzziness:       config.Value(r, "fuzziness", DefaultFuzziness, parseFuzziness),
	}
	return o, r.Err()
}

func parseRefreshInterval(v string) (string, error) {
	if !timeValue.MatchString(v) {
		return "", errors.New(`must be an Elasticsearch time value such as "1s" or "500ms", or "-1"`)
	}
	return v, nil
}

// parseFuzziness is the fuzziness sent, "" for none.
func parseFuzziness(v string) (string, error) {
	switch {
	case v == "none":
		return "", nil
	case fuzzinessValue.MatchString(v):
		return v, nil
	}
	return "", errors.New(`must be 0, 1, 2, AUTO, AUTO:low,high or none`)
}

func parseTrackTotalHits(v string) (any, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return nil, errors.New("must be true, false or a count ≥ 0")
	}
	return n, nil
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, _, _, err := check(cfg)
	return err
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker):
// text, tag and numeric fields, not vectors.
func (driver) CheckSchema(_ engines.Config, schema engines.Schema) error {
	_, err := checkSchema(schema)
	return err
}

// checkSchema is Create's mapping of schema, under a valid index name.
func checkSchema(schema engines.Schema) (*mapping, error) {
	if err := checkIndexName(schema.Name); err != nil {
		return nil, fmt.Errorf("elasticsearch: create: %w", err)
	}
	m, err := newMapping(schema)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: create %s: %w", schema.Name, err)
	}
	return m, nil
}

// check returns the server's URL, the refresh parameter of writes and the
// options.
func check(cfg engines.Config) (*url.URL, string, options, error) {
	refresh, err := refreshParam(cfg.WriteMode)
	if err != nil {
		return nil, "", options{}, err
	}
	o, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, "", o, err
	}
	if refresh != "" && o.refreshInterval == "-1" {
		return nil, "", o, errors.New(`elasticsearch: write mode searchable waits for a refresh, and refresh_interval "-1" never makes one`)
	}
	u, err := checkURL(cfg.URL)
	return u, refresh, o, err
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
	// (hotCall). The driver has no timeout option: the caller's context
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
		opts:      o,
		secrets:   secrets(user, password, key),
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

// refreshParam is the refresh parameter every write sends in a write mode.
func refreshParam(mode engines.Visibility) (string, error) {
	mode, err := engines.CheckWriteMode("elasticsearch", mode, engines.Acknowledged, engines.Searchable)
	switch {
	case err != nil:
		return "", err
	case mode == engines.Searchable:
		return "wait_for", nil
	}
	return "", nil // refresh=false, the server's default
}

// checkURL returns the server's base URL. Credentials in the URL are
// refused: the client would take them over Config's, and an error that
// quotes the URL would show them. So is a path: the transport prepends it
// to req.URL.Path and leaves RawPath as it was, so net/http re-escapes the
// joined path and an escaped "/" in a document ID becomes a path separator
// (elastic-transport-go v8.9.0, setReqURL).
func checkURL(raw string) (*url.URL, error) {
	u, err := config.ServerURL("elasticsearch", raw, DefaultURL)
	switch {
	case err != nil:
		return nil, err
	case u.User != nil:
		return nil, errors.New("elasticsearch: the URL carries credentials; pass them as username and password instead")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, errors.New("elasticsearch: the URL must not have a query or fragment")
	case strings.Trim(u.Path, "/") != "":
		return nil, errors.New("elasticsearch: the URL must not have a path (http://host:9200): the client would split document IDs that contain a slash")
	}
	u.Path, u.RawPath = "", ""
	return u, nil
}

// secrets are the strings an error message must not show: the password
// and the key, and the basic-auth header's encoding of the password, which
// is as good as the password to whoever reads it.
func secrets(user, password, key string) []string {
	var out []string
	if password != "" {
		out = append(out, password, base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
	}
	if key != "" {
		out = append(out, key)
	}
	return out
}
